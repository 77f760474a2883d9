module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xbf16>, %arg1: tensor<5x2xi8>, %arg2: tensor<3x2xf16>) -> (tensor<6x4xbf16> {jax.result_info = "result[0]"}, tensor<3x6xbf16> {jax.result_info = "result[1]"}, tensor<4x6xbf16> {jax.result_info = "result[2]"}, tensor<2x3xbf16> {jax.result_info = "result[3]"}, tensor<2x5xi8> {jax.result_info = "result[4]"}, tensor<5x1x2xi8> {jax.result_info = "result[5]"}, tensor<4x6xi8> {jax.result_info = "result[6]"}, tensor<3x2xf16> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x6xbf16>) -> tensor<6x4xbf16>
    %1 = stablehlo.slice %arg0 [0:1, 0:6] : (tensor<4x6xbf16>) -> tensor<1x6xbf16>
    %2 = stablehlo.reshape %1 : (tensor<1x6xbf16>) -> tensor<6xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<6xbf16>) -> tensor<3x6xbf16>
    %4 = stablehlo.reverse %arg0, dims = [0] : tensor<4x6xbf16>
    %5 = stablehlo.slice %arg0 [1:3, 0:6:2] : (tensor<4x6xbf16>) -> tensor<2x3xbf16>
    %6 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<5x2xi8>) -> tensor<2x5xi8>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<5x2xi8>) -> tensor<5x1x2xi8>
    %c = stablehlo.constant dense<1> : tensor<i8>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %9 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x2xf16>
    return %0, %3, %4, %5, %6, %7, %8, %9 : tensor<6x4xbf16>, tensor<3x6xbf16>, tensor<4x6xbf16>, tensor<2x3xbf16>, tensor<2x5xi8>, tensor<5x1x2xi8>, tensor<4x6xi8>, tensor<3x2xf16>
  }
}
