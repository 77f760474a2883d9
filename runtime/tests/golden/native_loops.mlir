// Loops whose body is one register program and whose condition is a scalar expression of the
// state, so the plan runs each whole loop as machine code (decision 80): a Collatz count with a
// two-part condition, a fori_loop recurrence through dynamic_slice / dynamic_update_slice (one
// read start past the end, clamped), and an f64 Newton iteration with max, min and a division by
// zero on its way (1 / 0 = inf, min(inf, 8) = 8).
module @native_loops {
  func.func public @main(%v0: tensor<i32>, %x: tensor<8xf32>, %a: tensor<f64>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<f64>, tensor<i64>) {
    // Collatz from (v0 & 63) + 1, at most 500 steps.
    %mask = stablehlo.constant dense<63> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %vm = stablehlo.and %v0, %mask : tensor<i32>
    %start = stablehlo.add %vm, %one : tensor<i32>
    %c:2 = stablehlo.while(%v = %start, %k = %zero) : tensor<i32>, tensor<i32>
    cond {
      %o = stablehlo.constant dense<1> : tensor<i32>
      %cap = stablehlo.constant dense<500> : tensor<i32>
      %ne = stablehlo.compare NE, %v, %o, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %k, %cap, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %go = stablehlo.and %ne, %lt : tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %o = stablehlo.constant dense<1> : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %z = stablehlo.constant dense<0> : tensor<i32>
      %r = stablehlo.remainder %v, %two : tensor<i32>
      %even = stablehlo.compare EQ, %r, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %half = stablehlo.divide %v, %two : tensor<i32>
      %t = stablehlo.multiply %three, %v : tensor<i32>
      %t1 = stablehlo.add %t, %o : tensor<i32>
      %nv = stablehlo.select %even, %half, %t1 : tensor<i1>, tensor<i32>
      %k1 = stablehlo.add %k, %o : tensor<i32>
      stablehlo.return %nv, %k1 : tensor<i32>, tensor<i32>
    }
    // y[i] = 0.5 y[i - 1] + x[i + 3] (clamped to x[7]) for i in 1..8.
    %r:2 = stablehlo.while(%i = %one, %y = %x) : tensor<i32>, tensor<8xf32>
    cond {
      %n = stablehlo.constant dense<8> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %o = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %im1 = stablehlo.subtract %i, %o : tensor<i32>
      %ip3 = stablehlo.add %i, %three : tensor<i32>
      %prev = stablehlo.dynamic_slice %y, %im1, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %xi = stablehlo.dynamic_slice %x, %ip3, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %h = stablehlo.constant dense<5.000000e-01> : tensor<1xf32>
      %m = stablehlo.multiply %prev, %h : tensor<1xf32>
      %s = stablehlo.add %m, %xi : tensor<1xf32>
      %y2 = stablehlo.dynamic_update_slice %y, %s, %i : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
      %i1 = stablehlo.add %i, %o : tensor<i32>
      stablehlo.return %i1, %y2 : tensor<i32>, tensor<8xf32>
    }
    // z <- min(max(0.5 (z + a' / z), 1e-3), 8) twelve times from z = 0, a' = |a| + 1 (the first
    // step divides by zero), with an s64 counter.
    %z0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %j0 = stablehlo.constant dense<0> : tensor<i64>
    %aa = stablehlo.abs %a : tensor<f64>
    %f1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %ap = stablehlo.add %aa, %f1 : tensor<f64>
    %w:2 = stablehlo.while(%z = %z0, %j = %j0) : tensor<f64>, tensor<i64>
    cond {
      %n = stablehlo.constant dense<12> : tensor<i64>
      %p = stablehlo.compare LT, %j, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %hf = stablehlo.constant dense<5.000000e-01> : tensor<f64>
      %lo = stablehlo.constant dense<1.000000e-03> : tensor<f64>
      %hi = stablehlo.constant dense<8.000000e+00> : tensor<f64>
      %q = stablehlo.divide %ap, %z : tensor<f64>
      %sum = stablehlo.add %z, %q : tensor<f64>
      %mid = stablehlo.multiply %sum, %hf : tensor<f64>
      %mx = stablehlo.maximum %mid, %lo : tensor<f64>
      %mn = stablehlo.minimum %mx, %hi : tensor<f64>
      %o = stablehlo.constant dense<1> : tensor<i64>
      %j1 = stablehlo.add %j, %o : tensor<i64>
      stablehlo.return %mn, %j1 : tensor<f64>, tensor<i64>
    }
    return %c#0, %c#1, %r#1, %w#0, %w#1 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<f64>, tensor<i64>
  }
}
