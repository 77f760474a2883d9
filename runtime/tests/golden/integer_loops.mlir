// Integer scalar work in loops, as JAX writes it: floor division and remainder with their sign
// fix-ups (`sign`, a pred `compare NE ... UNSIGNED`), bit counts, the same index normalized twice
// (`select(i < 0, i + n, i)`, removed as a repeat), same-type converts inside the body (removed as
// identities), a one-element value read by several ops (fused into each), and a recurrence
// through dynamic_slice / dynamic_update_slice driven by those indices.
module @integer_loops {
  func.func public @main(%v0: tensor<i32>, %y0: tensor<8xf32>, %w: tensor<i64>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<i64>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:5 = stablehlo.while(%i = %c0, %v = %v0, %acc = %c0, %y = %y0, %u = %w) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<i64>
    cond {
      %n = stablehlo.constant dense<40> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<-3> : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      // q = floor(v / -3)
      %d = stablehlo.convert %three : tensor<i32>
      %q0 = stablehlo.divide %v, %d : tensor<i32>
      %sv = stablehlo.sign %v : tensor<i32>
      %sd = stablehlo.sign %d : tensor<i32>
      %ne = stablehlo.compare NE, %sv, %sd, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %m = stablehlo.remainder %v, %d : tensor<i32>
      %mnz = stablehlo.compare NE, %m, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %fix = stablehlo.and %ne, %mnz : tensor<i1>
      %qm1 = stablehlo.subtract %q0, %one : tensor<i32>
      %q = stablehlo.select %fix, %qm1, %q0 : tensor<i1>, tensor<i32>
      // r = v mod -3 with the divisor's sign (JAX's remainder): m is read four times.
      %mlt = stablehlo.compare LT, %m, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %dlt = stablehlo.compare LT, %d, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %signs = stablehlo.compare NE, %mlt, %dlt, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %rfix = stablehlo.and %signs, %mnz : tensor<i1>
      %md = stablehlo.add %m, %d : tensor<i32>
      %rem = stablehlo.select %rfix, %md, %m : tensor<i1>, tensor<i32>
      // v' = rem == 0 ? q : 3 v + i + 1, kept small by a mask; acc' += popcnt(v) + clz(v) + abs(~v).
      %req = stablehlo.compare EQ, %rem, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %v3 = stablehlo.multiply %v, %c3 : tensor<i32>
      %v3i = stablehlo.add %v3, %i1 : tensor<i32>
      %mask = stablehlo.constant dense<1023> : tensor<i32>
      %vm = stablehlo.and %v3i, %mask : tensor<i32>
      %vn = stablehlo.select %req, %q, %vm : tensor<i1>, tensor<i32>
      %pc = stablehlo.popcnt %v : tensor<i32>
      %lz = stablehlo.count_leading_zeros %v : tensor<i32>
      %nv = stablehlo.not %v : tensor<i32>
      %av = stablehlo.abs %nv : tensor<i32>
      %a1 = stablehlo.add %acc, %pc : tensor<i32>
      %a2 = stablehlo.add %a1, %lz : tensor<i32>
      %a3 = stablehlo.add %a2, %av : tensor<i32>
      // y[k] = 0.5 y[k - 1] + float(rem), k = i mod 8, with k - 1 normalized for negatives twice.
      %eight = stablehlo.constant dense<8> : tensor<i32>
      %k = stablehlo.remainder %i, %eight : tensor<i32>
      %km1 = stablehlo.subtract %k, %one : tensor<i32>
      %ka = stablehlo.convert %km1 : tensor<i32>
      %kneg = stablehlo.compare LT, %ka, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %kw = stablehlo.add %ka, %eight : tensor<i32>
      %kp = stablehlo.select %kneg, %kw, %ka : tensor<i1>, tensor<i32>
      %kb = stablehlo.convert %km1 : tensor<i32>
      %kneg2 = stablehlo.compare LT, %kb, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %kw2 = stablehlo.add %kb, %eight : tensor<i32>
      %kp2 = stablehlo.select %kneg2, %kw2, %kb : tensor<i1>, tensor<i32>
      %prev = stablehlo.dynamic_slice %y, %kp, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %prev2 = stablehlo.dynamic_slice %y, %kp2, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %half = stablehlo.constant dense<5.000000e-01> : tensor<1xf32>
      %ph = stablehlo.multiply %prev, %half : tensor<1xf32>
      %ph2 = stablehlo.multiply %prev2, %half : tensor<1xf32>
      %rf = stablehlo.convert %rem : (tensor<i32>) -> tensor<f32>
      %rf1 = stablehlo.reshape %rf : (tensor<f32>) -> tensor<1xf32>
      %s1 = stablehlo.add %ph, %rf1 : tensor<1xf32>
      %s2 = stablehlo.add %s1, %ph2 : tensor<1xf32>
      %yn = stablehlo.dynamic_update_slice %y, %s2, %k : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
      // u' = u / 7 - sign(u) + u % -5 + 3 u on i64 (wrapping after a while).
      %seven = stablehlo.constant dense<7> : tensor<i64>
      %m5 = stablehlo.constant dense<-5> : tensor<i64>
      %ud = stablehlo.divide %u, %seven : tensor<i64>
      %us = stablehlo.sign %u : tensor<i64>
      %ur = stablehlo.remainder %u, %m5 : tensor<i64>
      %u1 = stablehlo.subtract %ud, %us : tensor<i64>
      %u2 = stablehlo.add %u1, %ur : tensor<i64>
      %k3 = stablehlo.constant dense<3> : tensor<i64>
      %u3x = stablehlo.multiply %u, %k3 : tensor<i64>
      %u3 = stablehlo.add %u2, %u3x : tensor<i64>
      stablehlo.return %i1, %vn, %a3, %yn, %u3 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<i64>
    }
    return %r#1, %r#2, %r#3, %r#4 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<i64>
  }
}
