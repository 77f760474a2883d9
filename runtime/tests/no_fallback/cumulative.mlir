module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x4xf32>) -> (tensor<2x8x8x4xf32> {jax.result_info = "result[0]"}, tensor<2x8x8x4xf32> {jax.result_info = "result[1]"}, tensor<2x8x8x4xf32> {jax.result_info = "result[2]"}, tensor<2x8x8x4xf32> {jax.result_info = "result[3]"}) {
    %0 = call @cumsum(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %1 = call @cummax(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %2 = call @cumprod(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %3 = call @cummin(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    return %0, %1, %2, %3 : tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>
  }
  func.func private @cumsum(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    return %0 : tensor<2x8x8x4xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [7, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 8, 1, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
  func.func private @cummax(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 0], [7, 0], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 8, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
  func.func private @cumprod(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %0 = call @cumprod_1(%arg0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    return %0 : tensor<2x8x8x4xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 0], [0, 0], [3, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 1, 4>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    return %0 : tensor<2x8x8x4xf32>
  }
  func.func private @cummin(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[1, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 2, 1, 1, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.minimum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
}
