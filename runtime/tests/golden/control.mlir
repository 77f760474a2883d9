// case on an index (in range and out of range) and a while loop whose body reads an outer value,
// reduces, and returns a captured value unchanged.
module @control {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>) {
    %k = stablehlo.constant dense<7> : tensor<i32>
    %0 = "stablehlo.case"(%arg0) ({
      %a = stablehlo.add %arg1, %arg2 : tensor<5xf32>
      stablehlo.return %a : tensor<5xf32>
    }, {
      %m = stablehlo.multiply %arg1, %arg2 : tensor<5xf32>
      stablehlo.return %m : tensor<5xf32>
    }, {
      %n = stablehlo.negate %arg1 : tensor<5xf32>
      stablehlo.return %n : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %1 = "stablehlo.case"(%k) ({
      %a = stablehlo.add %arg1, %arg2 : tensor<5xf32>
      stablehlo.return %a : tensor<5xf32>
    }, {
      %e = stablehlo.exponential %arg2 : tensor<5xf32>
      stablehlo.return %e : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2:4 = stablehlo.while(%i = %c0, %x = %arg1, %acc = %z, %keep = %arg2) : tensor<i32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>
    cond {
      %lim = stablehlo.constant dense<6> : tensor<i32>
      %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %t = stablehlo.tanh %x : tensor<5xf32>
      %x1 = stablehlo.add %t, %arg2 : tensor<5xf32>
      %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %s = stablehlo.reduce(%x1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      %acc1 = stablehlo.add %acc, %s : tensor<f32>
      stablehlo.return %i1, %x1, %acc1, %arg2 : tensor<i32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>
    }
    return %0, %1, %2#2, %2#1 : tensor<5xf32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>
  }
}
