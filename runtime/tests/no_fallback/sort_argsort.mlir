module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf32>, %arg1: tensor<3x6xi32>, %arg2: tensor<4x3xf32>, %arg3: tensor<2x5xbf16>) -> (tensor<5x7xf32> {jax.result_info = "result[0]"}, tensor<5x7xi32> {jax.result_info = "result[1]"}, tensor<3x6xi32> {jax.result_info = "result[2]"}, tensor<4x3xi32> {jax.result_info = "result[3]"}, tensor<2x5xbf16> {jax.result_info = "result[4]"}) {
    %0 = call @sort(%arg0) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    %1 = call @argsort(%arg0) : (tensor<5x7xf32>) -> tensor<5x7xi32>
    %2 = call @sort_0(%arg1) : (tensor<3x6xi32>) -> tensor<3x6xi32>
    %3 = stablehlo.negate %arg2 : tensor<4x3xf32>
    %4 = call @argsort_1(%3) : (tensor<4x3xf32>) -> tensor<4x3xi32>
    %5 = call @sort_2(%arg3) : (tensor<2x5xbf16>) -> tensor<2x5xbf16>
    return %0, %1, %2, %4, %5 : tensor<5x7xf32>, tensor<5x7xi32>, tensor<3x6xi32>, tensor<4x3xi32>, tensor<2x5xbf16>
  }
  func.func private @sort(%arg0: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<5x7xf32>) -> tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
  func.func private @argsort(%arg0: tensor<5x7xf32>) -> tensor<5x7xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<5x7xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.select %2, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.select %6, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %8 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %9 = stablehlo.select %8, %cst_4, %7 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    }) : (tensor<5x7xf32>, tensor<5x7xi32>) -> (tensor<5x7xf32>, tensor<5x7xi32>)
    return %1#1 : tensor<5x7xi32>
  }
  func.func private @sort_0(%arg0: tensor<3x6xi32>) -> tensor<3x6xi32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<3x6xi32>) -> tensor<3x6xi32>
    return %0 : tensor<3x6xi32>
  }
  func.func private @argsort_1(%arg0: tensor<4x3xf32>) -> tensor<4x3xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x3xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.select %2, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.select %6, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %8 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %9 = stablehlo.select %8, %cst_4, %7 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    }) : (tensor<4x3xf32>, tensor<4x3xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
    return %1#1 : tensor<4x3xi32>
  }
  func.func private @sort_2(%arg0: tensor<2x5xbf16>) -> tensor<2x5xbf16> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<bf16>, %arg2: tensor<bf16>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<bf16>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC0> : tensor<bf16>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<bf16>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<bf16>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC0> : tensor<bf16>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<bf16>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<2x5xbf16>) -> tensor<2x5xbf16>
    return %0 : tensor<2x5xbf16>
  }
}
