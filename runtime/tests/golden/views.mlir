// Broadcasts, transposes, slices, reshapes, iota, compare/select/convert on integers and floats.
module @views {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<6xi32>, %arg2: tensor<4x6xi32>) -> (tensor<6x4xf32>, tensor<4x6xi32>, tensor<2x3xf32>, tensor<24xf32>, tensor<4x6xf64>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %1 = stablehlo.iota dim = 0 : tensor<6x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<6x4xf32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<6xi32>) -> tensor<4x6xi32>
    %4 = stablehlo.compare LT, %arg2, %3, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %5 = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %6 = stablehlo.multiply %arg2, %5 : tensor<4x6xi32>
    %7 = stablehlo.select %4, %6, %3 : tensor<4x6xi1>, tensor<4x6xi32>
    %8 = stablehlo.slice %arg0 [1:4:2, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
    %9 = stablehlo.negate %8 : tensor<2x3xf32>
    %10 = stablehlo.reshape %arg0 : (tensor<4x6xf32>) -> tensor<24xf32>
    %11 = stablehlo.convert %7 : (tensor<4x6xi32>) -> tensor<4x6xf64>
    %12 = stablehlo.convert %arg0 : (tensor<4x6xf32>) -> tensor<4x6xf64>
    %13 = stablehlo.divide %11, %12 : tensor<4x6xf64>
    return %2, %7, %9, %10, %13 : tensor<6x4xf32>, tensor<4x6xi32>, tensor<2x3xf32>, tensor<24xf32>, tensor<4x6xf64>
  }
}
