// A while loop (interpreter fallback) between fused kernels.
module @while_loop {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<i32>) -> (tensor<i32>, tensor<3xf32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %e = stablehlo.exponential %arg0 : tensor<3xf32>
    %0:3 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c, %iterArg_1 = %e) : tensor<i32>, tensor<i32>, tensor<3xf32>
    cond {
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_0, %ten, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %3 = stablehlo.multiply %iterArg_1, %2 : tensor<3xf32>
      stablehlo.return %iterArg, %1, %3 : tensor<i32>, tensor<i32>, tensor<3xf32>
    }
    %4 = stablehlo.sqrt %0#2 : tensor<3xf32>
    return %0#1, %4 : tensor<i32>, tensor<3xf32>
  }
}
