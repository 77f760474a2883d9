// Hand-written (decision 66): the reduces of real training programs that planned interpreter steps
// before: the `and` over i1 of a batched gather's bounds check (every optax integer-label
// cross-entropy), an `or` (jnp.any), and a sum over {0, 4} of [1, 4, 4, 8, 1], whose reduced
// dimensions have size 1 (the transformer's attention-weight gradient).
module @bool_and_unit_dim_reduces {
  func.func public @main(%arg0: tensor<16x8x1xi32>, %arg1: tensor<1x4x4x8x1xf32>, %arg2: tensor<6x5xf32>) -> (tensor<16x8xi1>, tensor<i1>, tensor<4x4x8xf32>, tensor<5xi1>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %lo = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<16x8x1xi32>
    %hi = stablehlo.broadcast_in_dim %c5, dims = [] : (tensor<i32>) -> tensor<16x8x1xi32>
    %ge = stablehlo.compare GE, %arg0, %lo, SIGNED : (tensor<16x8x1xi32>, tensor<16x8x1xi32>) -> tensor<16x8x1xi1>
    %lt = stablehlo.compare LT, %arg0, %hi, SIGNED : (tensor<16x8x1xi32>, tensor<16x8x1xi32>) -> tensor<16x8x1xi1>
    %in = stablehlo.and %ge, %lt : tensor<16x8x1xi1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %all = stablehlo.reduce(%in init: %t) applies stablehlo.and across dimensions = [2] : (tensor<16x8x1xi1>, tensor<i1>) -> tensor<16x8xi1>
    %f = stablehlo.constant dense<false> : tensor<i1>
    %any = stablehlo.reduce(%all init: %f) applies stablehlo.or across dimensions = [0, 1] : (tensor<16x8xi1>, tensor<i1>) -> tensor<i1>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %s = stablehlo.reduce(%arg1 init: %z) applies stablehlo.add across dimensions = [0, 4] : (tensor<1x4x4x8x1xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %zz = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %pos = stablehlo.compare GT, %arg2, %zz, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %colany = stablehlo.reduce(%pos init: %f) applies stablehlo.or across dimensions = [0] : (tensor<6x5xi1>, tensor<i1>) -> tensor<5xi1>
    return %all, %any, %s, %colany : tensor<16x8xi1>, tensor<i1>, tensor<4x4x8xf32>, tensor<5xi1>
  }
}
