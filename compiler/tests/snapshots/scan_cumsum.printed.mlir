module @jit_scan_cumsum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c, %iterArg_2 = %cst, %iterArg_3 = %0) : tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<5xf32>
    cond {
      %c_4 = stablehlo.constant dense<5> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<5xf32>, tensor<i32>) -> tensor<f32>
      %3:2 = func.call @closed_call(%iterArg_2, %2) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_3, %3#1, %iterArg_1) : (tensor<5xf32>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %5, %3#0, %4 : tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<5xf32>
    }
    return %1#2, %1#3 : tensor<f32>, tensor<5xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<f32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.multiply %0, %cst : tensor<f32>
    return %0, %1 : tensor<f32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  }
}
