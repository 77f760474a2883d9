module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x4x6xf32>, %arg1: tensor<2x8x8x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x4x6xf32> {jax.result_info = "result[1][0]"}, tensor<2x8x8x4xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.convolution(%arg1, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<2x16x16x6xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<2x16x16x6xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16x16x6xf32>
    %3 = stablehlo.multiply %2, %0 : tensor<2x16x16x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x16x16x6xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x16x16x6xf32>
    %6 = stablehlo.multiply %5, %3 : tensor<2x16x16x6xf32>
    %7 = stablehlo.convolution(%arg1, %6) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<2x16x16x6xf32>) -> tensor<3x3x4x6xf32>
    %8 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x3x4x6xf32>
    %9 = stablehlo.convolution(%6, %8) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x6xf32>, tensor<3x3x4x6xf32>) -> tensor<2x8x8x4xf32>
    return %4, %7, %9 : tensor<f32>, tensor<3x3x4x6xf32>, tensor<2x8x8x4xf32>
  }
}
