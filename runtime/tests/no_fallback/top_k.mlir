module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf32>, %arg1: tensor<3x6xi32>) -> (tensor<5x3xf32> {jax.result_info = "result[0][0]"}, tensor<5x3xi32> {jax.result_info = "result[0][1]"}, tensor<3x2xi32> {jax.result_info = "result[1][0]"}, tensor<3x2xi32> {jax.result_info = "result[1][1]"}, tensor<7x4xf32> {jax.result_info = "result[2][0]"}, tensor<7x4xi32> {jax.result_info = "result[2][1]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<5x7xf32> -> (tensor<5x3xf32>, tensor<5x3xi32>)
    %values_0, %indices_1 = chlo.top_k(%arg1, k = 2) : tensor<3x6xi32> -> (tensor<3x2xi32>, tensor<3x2xi32>)
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
    %values_2, %indices_3 = chlo.top_k(%0, k = 4) : tensor<7x5xf32> -> (tensor<7x4xf32>, tensor<7x4xi32>)
    return %values, %indices, %values_0, %indices_1, %values_2, %indices_3 : tensor<5x3xf32>, tensor<5x3xi32>, tensor<3x2xi32>, tensor<3x2xi32>, tensor<7x4xf32>, tensor<7x4xi32>
  }
}
