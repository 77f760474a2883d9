module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x8x8x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %15 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %cst_0 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x4x4x4xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<2x4x4x4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %6 = stablehlo.multiply %5, %3 : tensor<2x4x4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%4 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<2x4x4x4xf32>
    %cst_4 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %11 = stablehlo.divide %9, %10 : tensor<2x4x4x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.pad %11, %cst_5, low = [0, 2, 2, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x10x10x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<f32>
    %14 = "stablehlo.reduce_window"(%12, %13) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %15 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x10x10x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    return %7, %14 : tensor<f32>, tensor<2x8x8x4xf32>
  }
}
