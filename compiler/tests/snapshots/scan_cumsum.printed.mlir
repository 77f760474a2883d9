module @jit_scan_cumsum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.constant dense<0> : tensor<i32>
    %4:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %3, %iterArg_1 = %0, %iterArg_2 = %2) : tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<5xf32>
    cond {
      %5 = stablehlo.constant dense<5> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg_0, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %5 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<5xf32>, tensor<i32>) -> tensor<f32>
      %6:2 = func.call @closed_call(%iterArg_1, %5) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      %7 = func.call @dynamic_update_index_in_dim(%iterArg_2, %6#1, %iterArg_0) : (tensor<5xf32>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
      %8 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_0, %8 : tensor<i32>
      stablehlo.return %iterArg, %9, %6#0, %7 : tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<5xf32>
    }
    return %4#2, %4#3 : tensor<f32>, tensor<5xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<f32>
    %1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.multiply %0, %1 : tensor<f32>
    return %0, %2 : tensor<f32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  }
}
