module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x6x6x3xf32>, %arg1: tensor<5x7xf32>) -> (tensor<1x3x3x3xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<1x6x6x3xf32> {jax.result_info = "result[2]"}, tensor<9x3xf32> {jax.result_info = "result[3]"}, tensor<5x7xf32> {jax.result_info = "result[4]"}, tensor<5x7xf32> {jax.result_info = "result[5]"}, tensor<5x7xf32> {jax.result_info = "result[6]"}, tensor<10x20xf32> {jax.result_info = "result[7]"}, tensor<1x6x6x3xf32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %24 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<1x6x6x3xf32>, tensor<f32>) -> tensor<1x3x3x3xf32>
    %cst_0 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x3x3x3xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x3x3x3xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%arg0, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %24 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<1x6x6x3xf32>, tensor<f32>) -> tensor<1x3x3x3xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<1x3x3x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1x3x3x3xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<1x3x3x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1x3x3x3xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<1x3x3x3xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.pad %arg0, %cst_5, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<1x6x6x3xf32>, tensor<f32>) -> tensor<1x6x6x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = "stablehlo.select_and_scatter"(%12, %11, %cst_6) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %24 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %24 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %24 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<1x6x6x3xf32>, tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x6x6x3xf32>
    %14 = stablehlo.slice %13 [0:1, 0:6, 0:6, 0:3] : (tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
    %cst_7 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<f32>
    %16 = "stablehlo.reduce_window"(%arg1, %15) <{base_dilations = array<i64: 2, 1>, padding = dense<[[1, 0], [2, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 2>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %24 = stablehlo.minimum %arg2, %arg3 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<9x3xf32>
    %17 = call @cumsum(%arg1) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    %18 = call @cummax(%arg1) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    %19 = call @cumprod(%arg1) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %20 = stablehlo.pad %arg1, %cst_8, low = [-1, 2], high = [2, -1], interior = [1, 2] : (tensor<5x7xf32>, tensor<f32>) -> tensor<10x20xf32>
    %21 = call @_flip(%arg0) : (tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<1x6x6x3xf32>
    %23 = stablehlo.multiply %21, %22 : tensor<1x6x6x3xf32>
    return %3, %9, %14, %16, %17, %18, %19, %20, %23 : tensor<1x3x3x3xf32>, tensor<f32>, tensor<1x6x6x3xf32>, tensor<9x3xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<10x20xf32>, tensor<1x6x6x3xf32>
  }
  func.func private @cumsum(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [6, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 7>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    return %1 : tensor<5x7xf32>
  }
  func.func private @cummax(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    return %1 : tensor<5x7xf32>
  }
  func.func private @cumprod(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %0 = call @cumprod_1(%arg0) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [6, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 7>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
  func.func private @_flip(%arg0: tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1, 2] : tensor<1x6x6x3xf32>
    return %0 : tensor<1x6x6x3xf32>
  }
}
