module @jit_bf16_cnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x4x8xf32>, %arg1: tensor<3x3x8x8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<2x8x8x4xf32>, %arg4: tensor<2x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x4x8xf32> {jax.result_info = "result[1][0]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[1][1]"}, tensor<8x3xf32> {jax.result_info = "result[1][2]"}) {
    %0 = stablehlo.convert %arg3 : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<3x3x4x8xf32>) -> tensor<3x3x4x8xbf16>
    %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xbf16>, tensor<3x3x4x8xbf16>) -> tensor<2x8x8x8xbf16>
    %3 = call @relu(%2) : (tensor<2x8x8x8xbf16>) -> tensor<2x8x8x8xbf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<2x8x8x8xbf16>
    %5 = stablehlo.compare GT, %2, %4, FLOAT : (tensor<2x8x8x8xbf16>, tensor<2x8x8x8xbf16>) -> tensor<2x8x8x8xi1>
    %cst_0 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<bf16>
    %7 = "stablehlo.reduce_window"(%3, %6) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg5: tensor<bf16>, %arg6: tensor<bf16>):
      %52 = stablehlo.maximum %arg5, %arg6 : tensor<bf16>
      stablehlo.return %52 : tensor<bf16>
    }) : (tensor<2x8x8x8xbf16>, tensor<bf16>) -> tensor<2x4x4x8xbf16>
    %8 = stablehlo.convert %arg1 : (tensor<3x3x8x8xf32>) -> tensor<3x3x8x8xbf16>
    %9 = stablehlo.convolution(%7, %8) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xbf16>, tensor<3x3x8x8xbf16>) -> tensor<2x2x2x8xbf16>
    %10 = call @relu_0(%9) : (tensor<2x2x2x8xbf16>) -> tensor<2x2x2x8xbf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<2x2x2x8xbf16>
    %12 = stablehlo.compare GT, %9, %11, FLOAT : (tensor<2x2x2x8xbf16>, tensor<2x2x2x8xbf16>) -> tensor<2x2x2x8xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<bf16>
    %14 = "stablehlo.reduce_window"(%10, %13) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg5: tensor<bf16>, %arg6: tensor<bf16>):
      %52 = stablehlo.add %arg5, %arg6 : tensor<bf16>
      stablehlo.return %52 : tensor<bf16>
    }) : (tensor<2x2x2x8xbf16>, tensor<bf16>) -> tensor<2x1x1x8xbf16>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<2x1x1x8xbf16>
    %16 = stablehlo.divide %14, %15 : tensor<2x1x1x8xbf16>
    %17 = stablehlo.reshape %16 : (tensor<2x1x1x8xbf16>) -> tensor<2x8xbf16>
    %18 = stablehlo.convert %17 : (tensor<2x8xbf16>) -> tensor<2x8xf32>
    %19 = stablehlo.dot_general %18, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
    %20 = stablehlo.subtract %19, %arg4 : tensor<2x3xf32>
    %21 = stablehlo.multiply %20, %20 : tensor<2x3xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %23 = stablehlo.multiply %22, %20 : tensor<2x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%21 init: %cst_5) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %25 = stablehlo.divide %24, %cst_6 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %26 = stablehlo.divide %cst_7, %cst_8 : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %28 = stablehlo.multiply %27, %23 : tensor<2x3xf32>
    %29 = stablehlo.dot_general %28, %18, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
    %30 = stablehlo.transpose %29, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %31 = stablehlo.dot_general %28, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<2x8xf32>
    %32 = stablehlo.convert %31 : (tensor<2x8xf32>) -> tensor<2x8xbf16>
    %33 = stablehlo.reshape %32 : (tensor<2x8xbf16>) -> tensor<2x1x1x8xbf16>
    %cst_9 = stablehlo.constant dense<4.000000e+00> : tensor<bf16>
    %34 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<2x1x1x8xbf16>
    %35 = stablehlo.divide %33, %34 : tensor<2x1x1x8xbf16>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %36 = stablehlo.pad %35, %cst_10, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<2x1x1x8xbf16>, tensor<bf16>) -> tensor<2x3x3x8xbf16>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %37 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<bf16>
    %38 = "stablehlo.reduce_window"(%36, %37) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg5: tensor<bf16>, %arg6: tensor<bf16>):
      %52 = stablehlo.add %arg5, %arg6 : tensor<bf16>
      stablehlo.return %52 : tensor<bf16>
    }) : (tensor<2x3x3x8xbf16>, tensor<bf16>) -> tensor<2x2x2x8xbf16>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<2x2x2x8xbf16>
    %40 = stablehlo.select %12, %38, %39 : tensor<2x2x2x8xi1>, tensor<2x2x2x8xbf16>
    %41 = stablehlo.convolution(%7, %40) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xbf16>, tensor<2x2x2x8xbf16>) -> tensor<3x3x8x8xbf16>
    %42 = stablehlo.reverse %8, dims = [0, 1] : tensor<3x3x8x8xbf16>
    %43 = stablehlo.convolution(%40, %42) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2x2x8xbf16>, tensor<3x3x8x8xbf16>) -> tensor<2x4x4x8xbf16>
    %44 = stablehlo.convert %41 : (tensor<3x3x8x8xbf16>) -> tensor<3x3x8x8xf32>
    %cst_13 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %45 = stablehlo.pad %3, %cst_13, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x8xbf16>, tensor<bf16>) -> tensor<2x9x9x8xbf16>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %46 = "stablehlo.select_and_scatter"(%45, %43, %cst_14) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg5: tensor<bf16>, %arg6: tensor<bf16>):
      %52 = stablehlo.compare GE, %arg5, %arg6, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      stablehlo.return %52 : tensor<i1>
    }, {
    ^bb0(%arg5: tensor<bf16>, %arg6: tensor<bf16>):
      %52 = stablehlo.add %arg5, %arg6 : tensor<bf16>
      stablehlo.return %52 : tensor<bf16>
    }) : (tensor<2x9x9x8xbf16>, tensor<2x4x4x8xbf16>, tensor<bf16>) -> tensor<2x9x9x8xbf16>
    %47 = stablehlo.slice %46 [0:2, 0:8, 0:8, 0:8] : (tensor<2x9x9x8xbf16>) -> tensor<2x8x8x8xbf16>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %48 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<2x8x8x8xbf16>
    %49 = stablehlo.select %5, %47, %48 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xbf16>
    %50 = stablehlo.convolution(%0, %49) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xbf16>, tensor<2x8x8x8xbf16>) -> tensor<3x3x4x8xbf16>
    %51 = stablehlo.convert %50 : (tensor<3x3x4x8xbf16>) -> tensor<3x3x4x8xf32>
    return %25, %51, %44, %30 : tensor<f32>, tensor<3x3x4x8xf32>, tensor<3x3x8x8xf32>, tensor<8x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x8xbf16>) -> tensor<2x8x8x8xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<2x8x8x8xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x8xbf16>
    return %1 : tensor<2x8x8x8xbf16>
  }
  func.func private @relu_0(%arg0: tensor<2x2x2x8xbf16>) -> tensor<2x2x2x8xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<2x2x2x8xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x2x2x8xbf16>
    return %1 : tensor<2x2x2x8xbf16>
  }
}
