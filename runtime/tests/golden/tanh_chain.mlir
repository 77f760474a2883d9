// tanh(x*2+1)*x-3 on f32: one fused kernel.
module @tanh_chain {
  func.func public @main(%arg0: tensor<3000xf32>) -> tensor<3000xf32> {
    %c2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %b2 = stablehlo.broadcast_in_dim %c2, dims = [] : (tensor<f32>) -> tensor<3000xf32>
    %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<f32>) -> tensor<3000xf32>
    %b3 = stablehlo.broadcast_in_dim %c3, dims = [] : (tensor<f32>) -> tensor<3000xf32>
    %0 = stablehlo.multiply %arg0, %b2 : tensor<3000xf32>
    %1 = stablehlo.add %0, %b1 : tensor<3000xf32>
    %2 = stablehlo.tanh %1 : tensor<3000xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<3000xf32>
    %4 = stablehlo.subtract %3, %b3 : tensor<3000xf32>
    return %4 : tensor<3000xf32>
  }
}
