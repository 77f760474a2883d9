module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x4x8xf32>, %arg1: tensor<3x3x8x8xf32>, %arg2: tensor<3x3x1x8xf32>, %arg3: tensor<2x2x8x8xf32>, %arg4: tensor<32x3xf32>, %arg5: tensor<2x8x8x4xf32>, %arg6: tensor<2x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x4x8xf32> {jax.result_info = "result[1][0]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[1][1]"}, tensor<3x3x1x8xf32> {jax.result_info = "result[1][2]"}, tensor<2x2x8x8xf32> {jax.result_info = "result[1][3]"}, tensor<32x3xf32> {jax.result_info = "result[1][4]"}) {
    %0 = stablehlo.convolution(%arg5, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<2x8x8x8xf32>
    %1 = call @relu(%0) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%1, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %56 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %56 : tensor<f32>
    }) : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x4x4x8xf32>
    %6 = stablehlo.convolution(%5, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<3x3x1x8xf32>) -> tensor<2x4x4x8xf32>
    %7 = stablehlo.convolution(%6, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x2x2x8xf32>
    %8 = call @relu_0(%7) : (tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x2x2x8xf32>
    %10 = stablehlo.compare GT, %7, %9, FLOAT : (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xi1>
    %11 = stablehlo.convolution(%8, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2x2x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x4x4x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %13 = "stablehlo.reduce_window"(%11, %12) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %56 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %56 : tensor<f32>
    }) : (tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<2x2x2x8xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x2x2x8xf32>
    %15 = stablehlo.divide %13, %14 : tensor<2x2x2x8xf32>
    %16 = stablehlo.reshape %15 : (tensor<2x2x2x8xf32>) -> tensor<2x32xf32>
    %17 = stablehlo.dot_general %16, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32xf32>, tensor<32x3xf32>) -> tensor<2x3xf32>
    %18 = stablehlo.subtract %17, %arg6 : tensor<2x3xf32>
    %19 = stablehlo.multiply %18, %18 : tensor<2x3xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %21 = stablehlo.multiply %20, %18 : tensor<2x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%19 init: %cst_5) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %23 = stablehlo.divide %22, %cst_6 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %24 = stablehlo.divide %cst_7, %cst_8 : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %26 = stablehlo.multiply %25, %21 : tensor<2x3xf32>
    %27 = stablehlo.dot_general %26, %16, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x32xf32>) -> tensor<3x32xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<3x32xf32>) -> tensor<32x3xf32>
    %29 = stablehlo.dot_general %26, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<32x3xf32>) -> tensor<2x32xf32>
    %30 = stablehlo.reshape %29 : (tensor<2x32xf32>) -> tensor<2x2x2x8xf32>
    %cst_9 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x2x2x8xf32>
    %32 = stablehlo.divide %30, %31 : tensor<2x2x2x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.pad %32, %cst_10, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<2x2x2x8xf32>, tensor<f32>) -> tensor<2x5x5x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<f32>
    %35 = "stablehlo.reduce_window"(%33, %34) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %56 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %56 : tensor<f32>
    }) : (tensor<2x5x5x8xf32>, tensor<f32>) -> tensor<2x4x4x8xf32>
    %36 = stablehlo.convolution(%8, %35) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2x2x8xf32>, tensor<2x4x4x8xf32>) -> tensor<2x2x8x8xf32>
    %37 = stablehlo.reverse %arg3, dims = [0, 1] : tensor<2x2x8x8xf32>
    %38 = stablehlo.convolution(%35, %37) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x2x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x2x2x8xf32>
    %40 = stablehlo.select %10, %38, %39 : tensor<2x2x2x8xi1>, tensor<2x2x2x8xf32>
    %41 = stablehlo.convolution(%6, %40) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<2x2x2x8xf32>) -> tensor<3x3x8x8xf32>
    %42 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x8x8xf32>
    %43 = stablehlo.convolution(%40, %42) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2x2x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x4x4x8xf32>
    %44 = stablehlo.convolution(%5, %43) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 8 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>) -> tensor<3x3x1x8xf32>
    %45 = stablehlo.reshape %arg2 : (tensor<3x3x1x8xf32>) -> tensor<3x3x1x8x1xf32>
    %46 = stablehlo.transpose %45, dims = [0, 1, 3, 2, 4] : (tensor<3x3x1x8x1xf32>) -> tensor<3x3x8x1x1xf32>
    %47 = stablehlo.reshape %46 : (tensor<3x3x8x1x1xf32>) -> tensor<3x3x8x1xf32>
    %48 = stablehlo.reverse %47, dims = [0, 1] : tensor<3x3x8x1xf32>
    %49 = stablehlo.convolution(%43, %48) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x8xf32>, tensor<3x3x8x1xf32>) -> tensor<2x4x4x8xf32>
    %cst_13 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %50 = stablehlo.pad %1, %cst_13, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x9x9x8xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = "stablehlo.select_and_scatter"(%50, %49, %cst_14) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %56 = stablehlo.compare GE, %arg7, %arg8, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %56 : tensor<i1>
    }, {
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %56 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %56 : tensor<f32>
    }) : (tensor<2x9x9x8xf32>, tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<2x9x9x8xf32>
    %52 = stablehlo.slice %51 [0:2, 0:8, 0:8, 0:8] : (tensor<2x9x9x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %54 = stablehlo.select %3, %52, %53 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %55 = stablehlo.convolution(%arg5, %54) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x4x8xf32>
    return %23, %55, %41, %44, %36, %28 : tensor<f32>, tensor<3x3x4x8xf32>, tensor<3x3x8x8xf32>, tensor<3x3x1x8xf32>, tensor<2x2x8x8xf32>, tensor<32x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x8xf32>
    return %1 : tensor<2x8x8x8xf32>
  }
  func.func private @relu_0(%arg0: tensor<2x2x2x8xf32>) -> tensor<2x2x2x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x2x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x2x2x8xf32>
    return %1 : tensor<2x2x2x8xf32>
  }
}
