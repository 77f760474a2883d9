// Softmax over the last axis: reduce max, exp of the difference, reduce sum, divide.
module @softmax {
  func.func public @main(%arg0: tensor<33x70xf32>) -> tensor<33x70xf32> {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<33x70xf32>, tensor<f32>) -> tensor<33xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<33xf32>) -> tensor<33x70xf32>
    %2 = stablehlo.subtract %arg0, %1 : tensor<33x70xf32>
    %3 = stablehlo.exponential %2 : tensor<33x70xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<33x70xf32>, tensor<f32>) -> tensor<33xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<33xf32>) -> tensor<33x70xf32>
    %6 = stablehlo.divide %3, %5 : tensor<33x70xf32>
    return %6 : tensor<33x70xf32>
  }
}
