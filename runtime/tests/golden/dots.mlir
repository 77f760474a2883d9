// GEMMs: a plain matmul, one with a transposed operand read through strides, a batched one, and
// an f64 one contracting two dimensions.
module @dots {
  func.func public @main(%arg0: tensor<9x13xf32>, %arg1: tensor<13x7xf32>, %arg2: tensor<7x13xf32>, %arg3: tensor<3x5x4xf32>, %arg4: tensor<3x4x6xf32>, %arg5: tensor<2x3x4xf64>, %arg6: tensor<3x4x5xf64>) -> (tensor<9x7xf32>, tensor<9x7xf32>, tensor<3x5x6xf32>, tensor<2x5xf64>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<9x13xf32>, tensor<13x7xf32>) -> tensor<9x7xf32>
    %t = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<7x13xf32>) -> tensor<13x7xf32>
    %1 = stablehlo.dot_general %arg0, %t, contracting_dims = [1] x [0] : (tensor<9x13xf32>, tensor<13x7xf32>) -> tensor<9x7xf32>
    %2 = stablehlo.dot_general %arg3, %arg4, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x5x4xf32>, tensor<3x4x6xf32>) -> tensor<3x5x6xf32>
    %3 = stablehlo.dot_general %arg5, %arg6, contracting_dims = [1, 2] x [0, 1] : (tensor<2x3x4xf64>, tensor<3x4x5xf64>) -> tensor<2x5xf64>
    return %0, %1, %2, %3 : tensor<9x7xf32>, tensor<9x7xf32>, tensor<3x5x6xf32>, tensor<2x5xf64>
  }
}
