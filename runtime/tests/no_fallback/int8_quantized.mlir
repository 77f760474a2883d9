module @jit_int8_quantized attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xi8>, %arg2: tensor<f32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x16xi8> {jax.result_info = "result[1]"}, tensor<8x16xi16> {jax.result_info = "result[2]"}, tensor<8x16xui8> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.divide %arg0, %0 : tensor<8x16xf32>
    %2 = call @round(%1) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %c = stablehlo.constant dense<-127> : tensor<i32>
    %c_0 = stablehlo.constant dense<127> : tensor<i32>
    %3 = call @clip(%2, %c, %c_0) : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
    %4 = stablehlo.convert %3 : (tensor<8x16xf32>) -> tensor<8x16xi8>
    %5 = stablehlo.dot_general %4, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xi8>, tensor<16x8xi8>) -> tensor<8x8xi32>
    %6 = stablehlo.convert %5 : (tensor<8x8xi32>) -> tensor<8x8xf32>
    %7 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %8 = stablehlo.multiply %6, %7 : tensor<8x8xf32>
    %cst = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<8x8xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<i8>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i8>) -> tensor<8x16xi8>
    %12 = stablehlo.shift_right_arithmetic %4, %11 : tensor<8x16xi8>
    %c_2 = stablehlo.constant dense<3> : tensor<i8>
    %13 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i8>) -> tensor<8x16xi8>
    %14 = stablehlo.add %12, %13 : tensor<8x16xi8>
    %15 = stablehlo.convert %4 : (tensor<8x16xi8>) -> tensor<8x16xi16>
    %16 = stablehlo.abs %15 : tensor<8x16xi16>
    %c_3 = stablehlo.constant dense<2> : tensor<i16>
    %17 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i16>) -> tensor<8x16xi16>
    %18 = stablehlo.multiply %16, %17 : tensor<8x16xi16>
    %19 = stablehlo.convert %4 : (tensor<8x16xi8>) -> tensor<8x16xui8>
    %c_4 = stablehlo.constant dense<3> : tensor<ui8>
    %20 = call @floor_divide(%19, %c_4) : (tensor<8x16xui8>, tensor<ui8>) -> tensor<8x16xui8>
    return %10, %14, %18, %20 : tensor<8x8xf32>, tensor<8x16xi8>, tensor<8x16xi16>, tensor<8x16xui8>
  }
  func.func private @round(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @clip(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<8x16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8x16xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<8x16xf32>
    return %5 : tensor<8x16xf32>
  }
  func.func private @floor_divide(%arg0: tensor<8x16xui8>, %arg1: tensor<ui8>) -> tensor<8x16xui8> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui8>) -> tensor<8x16xui8>
    %1 = stablehlo.divide %arg0, %0 : tensor<8x16xui8>
    return %1 : tensor<8x16xui8>
  }
}
