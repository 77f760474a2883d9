// Column sums (leading axis), a full sum of a fused product, an integer max, an f64 min over the
// last two axes, and a reduce over a middle axis (interpreter fallback).
module @reductions {
  func.func public @main(%arg0: tensor<17x300xf32>, %arg1: tensor<5x7x9xf32>, %arg2: tensor<40x6xi32>, %arg3: tensor<4x5x6xf64>) -> (tensor<300xf32>, tensor<f32>, tensor<40xi32>, tensor<4xf64>, tensor<5x9xf32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<17x300xf32>, tensor<f32>) -> tensor<300xf32>
    %sq = stablehlo.multiply %arg1, %arg1 : tensor<5x7x9xf32>
    %1 = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<5x7x9xf32>, tensor<f32>) -> tensor<f32>
    %imin = stablehlo.constant dense<-2147483648> : tensor<i32>
    %2 = stablehlo.reduce(%arg2 init: %imin) applies stablehlo.maximum across dimensions = [1] : (tensor<40x6xi32>, tensor<i32>) -> tensor<40xi32>
    %inf = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
    %3 = stablehlo.reduce(%arg3 init: %inf) applies stablehlo.minimum across dimensions = [1, 2] : (tensor<4x5x6xf64>, tensor<f64>) -> tensor<4xf64>
    %4 = stablehlo.reduce(%arg1 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<5x7x9xf32>, tensor<f32>) -> tensor<5x9xf32>
    return %0, %1, %2, %3, %4 : tensor<300xf32>, tensor<f32>, tensor<40xi32>, tensor<4xf64>, tensor<5x9xf32>
  }
}
