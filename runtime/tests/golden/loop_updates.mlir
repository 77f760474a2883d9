// Loop bodies of one-element reads and writes, run on buffers the loop owns: a dynamic_update_slice
// of the carried array that nothing reads afterwards (written in place), one whose old value is
// read after it (written into a copy), two scatters in a row (set, then add) and a gather from a
// value outside the loop, float scalar arithmetic (maximum, minimum, negate, abs, compares,
// selects, conversions from integers and between f32 and f64), and a second loop whose float
// condition decides the trip count.
module @loop_updates {
  func.func public @main(%y0: tensor<16xf32>, %z0: tensor<4x6xf32>, %g0: tensor<10xi32>, %tab: tensor<10x3xf32>, %t0: tensor<f64>) -> (tensor<16xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<10xi32>, tensor<3xf32>, tensor<f64>, tensor<16xf32>, tensor<i32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %v0 = stablehlo.constant dense<0.0> : tensor<6xf32>
    %h0 = stablehlo.constant dense<0.0> : tensor<3xf32>
    %r:7 = stablehlo.while(%i = %c0, %y = %y0, %z = %z0, %v = %v0, %g = %g0, %h = %h0, %t = %t0) : tensor<i32>, tensor<16xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<10xi32>, tensor<3xf32>, tensor<f64>
    cond {
      %n = stablehlo.constant dense<37> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      // y[k] = max(0.5 y[k - 1], -|y[k]|) + min(float(k), 3.5), k = i mod 16, k - 1 wrapped.
      %sixteen = stablehlo.constant dense<16> : tensor<i32>
      %k = stablehlo.remainder %i, %sixteen : tensor<i32>
      %km1 = stablehlo.subtract %k, %one : tensor<i32>
      %kneg = stablehlo.compare LT, %km1, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %kw = stablehlo.add %km1, %sixteen : tensor<i32>
      %kp = stablehlo.select %kneg, %kw, %km1 : tensor<i1>, tensor<i32>
      %prev = stablehlo.dynamic_slice %y, %kp, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
      %cur = stablehlo.dynamic_slice %y, %k, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
      %half = stablehlo.constant dense<5.000000e-01> : tensor<1xf32>
      %ph = stablehlo.multiply %prev, %half : tensor<1xf32>
      %ac = stablehlo.abs %cur : tensor<1xf32>
      %nac = stablehlo.negate %ac : tensor<1xf32>
      %mx = stablehlo.maximum %ph, %nac : tensor<1xf32>
      %kf = stablehlo.convert %k : (tensor<i32>) -> tensor<f32>
      %lim = stablehlo.constant dense<3.500000e+00> : tensor<f32>
      %kc = stablehlo.minimum %kf, %lim : tensor<f32>
      %kc1 = stablehlo.reshape %kc : (tensor<f32>) -> tensor<1xf32>
      %yv = stablehlo.add %mx, %kc1 : tensor<1xf32>
      %yn = stablehlo.dynamic_update_slice %y, %yv, %k : (tensor<16xf32>, tensor<1xf32>, tensor<i32>) -> tensor<16xf32>
      // z[r] = z[r] * 0.75 + y'[k] (a row), then v += the old z[3i mod 4] (row r for
      // even i): read after the update.
      %four = stablehlo.constant dense<4> : tensor<i32>
      %r0 = stablehlo.remainder %i, %four : tensor<i32>
      %row = stablehlo.dynamic_slice %z, %r0, %zero, sizes = [1, 6] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>
      %q = stablehlo.constant dense<7.500000e-01> : tensor<1x6xf32>
      %rq = stablehlo.multiply %row, %q : tensor<1x6xf32>
      %yb = stablehlo.reshape %yv : (tensor<1xf32>) -> tensor<1x1xf32>
      %ybb = stablehlo.broadcast_in_dim %yb, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x6xf32>
      %rn = stablehlo.add %rq, %ybb : tensor<1x6xf32>
      %zn = stablehlo.dynamic_update_slice %z, %rn, %r0, %zero : (tensor<4x6xf32>, tensor<1x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x6xf32>
      %c3i = stablehlo.constant dense<3> : tensor<i32>
      %r1 = stablehlo.multiply %i, %c3i : tensor<i32>
      %r2 = stablehlo.remainder %r1, %four : tensor<i32>
      %old = stablehlo.dynamic_slice %z, %r2, %zero, sizes = [1, 6] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>
      %old1 = stablehlo.reshape %old : (tensor<1x6xf32>) -> tensor<6xf32>
      %vn = stablehlo.add %v, %old1 : tensor<6xf32>
      // g.at[j].set(i).at[j + 3 mod 10].add(g[j]), j = i mod 10; h += tab[j] where g[j] is even,
      // else h - tab[j].
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %j = stablehlo.remainder %i, %ten : tensor<i32>
      %j1 = stablehlo.reshape %j : (tensor<i32>) -> tensor<1xi32>
      %gj = stablehlo.dynamic_slice %g, %j, sizes = [1] : (tensor<10xi32>, tensor<i32>) -> tensor<1xi32>
      %gs = "stablehlo.scatter"(%g, %j1, %i) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        stablehlo.return %b : tensor<i32>
      }) : (tensor<10xi32>, tensor<1xi32>, tensor<i32>) -> tensor<10xi32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %j3 = stablehlo.add %j, %three : tensor<i32>
      %j3m = stablehlo.remainder %j3, %ten : tensor<i32>
      %j31 = stablehlo.reshape %j3m : (tensor<i32>) -> tensor<1xi32>
      %gj0 = stablehlo.reshape %gj : (tensor<1xi32>) -> tensor<i32>
      %ga = "stablehlo.scatter"(%gs, %j31, %gj0) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
      }) : (tensor<10xi32>, tensor<1xi32>, tensor<i32>) -> tensor<10xi32>
      %trow = "stablehlo.gather"(%tab, %j1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = true, slice_sizes = array<i64: 1, 3>}> : (tensor<10x3xf32>, tensor<1xi32>) -> tensor<3xf32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %gm = stablehlo.remainder %gj0, %two : tensor<i32>
      %even = stablehlo.compare EQ, %gm, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %hp = stablehlo.add %h, %trow : tensor<3xf32>
      %hm = stablehlo.subtract %h, %trow : tensor<3xf32>
      %evenb = stablehlo.broadcast_in_dim %even, dims = [] : (tensor<i1>) -> tensor<3xi1>
      %hn = stablehlo.select %evenb, %hp, %hm : tensor<3xi1>, tensor<3xf32>
      // t = t * 0.999 + f64(y'[k]) - |f64(i) / 3| on f64.
      %c999 = stablehlo.constant dense<9.990000e-01> : tensor<f64>
      %tt = stablehlo.multiply %t, %c999 : tensor<f64>
      %yf = stablehlo.reshape %yv : (tensor<1xf32>) -> tensor<f32>
      %yd = stablehlo.convert %yf : (tensor<f32>) -> tensor<f64>
      %id = stablehlo.convert %i : (tensor<i32>) -> tensor<f64>
      %c3 = stablehlo.constant dense<3.000000e+00> : tensor<f64>
      %i3 = stablehlo.divide %id, %c3 : tensor<f64>
      %ai3 = stablehlo.abs %i3 : tensor<f64>
      %t1 = stablehlo.add %tt, %yd : tensor<f64>
      %tn = stablehlo.subtract %t1, %ai3 : tensor<f64>
      stablehlo.return %i1, %yn, %zn, %vn, %ga, %hn, %tn : tensor<i32>, tensor<16xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<10xi32>, tensor<3xf32>, tensor<f64>
    }
    // A loop whose float condition decides the trip count: while s < 40, s = s * 1.5 + 0.25 and
    // w.at[m].add(s) for m = n mod 16 (a scatter-add in place), counting n.
    %s0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %w0 = stablehlo.constant dense<0.0> : tensor<16xf32>
    %l:3 = stablehlo.while(%s = %s0, %w = %w0, %n = %c0) : tensor<f32>, tensor<16xf32>, tensor<i32>
    cond {
      %lim = stablehlo.constant dense<4.000000e+01> : tensor<f32>
      %p = stablehlo.compare LT, %s, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %a = stablehlo.constant dense<1.500000e+00> : tensor<f32>
      %b = stablehlo.constant dense<2.500000e-01> : tensor<f32>
      %sa = stablehlo.multiply %s, %a : tensor<f32>
      %sn = stablehlo.add %sa, %b : tensor<f32>
      %sixteen = stablehlo.constant dense<16> : tensor<i32>
      %m = stablehlo.remainder %n, %sixteen : tensor<i32>
      %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
      %wn = "stablehlo.scatter"(%w, %m1, %sn) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
      ^bb0(%x: tensor<f32>, %u: tensor<f32>):
        %su = stablehlo.add %x, %u : tensor<f32>
        stablehlo.return %su : tensor<f32>
      }) : (tensor<16xf32>, tensor<1xi32>, tensor<f32>) -> tensor<16xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n1 = stablehlo.add %n, %one : tensor<i32>
      stablehlo.return %sn, %wn, %n1 : tensor<f32>, tensor<16xf32>, tensor<i32>
    }
    return %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %l#1, %l#2 : tensor<16xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<10xi32>, tensor<3xf32>, tensor<f64>, tensor<16xf32>, tensor<i32>
  }
}
