// Loop bodies of one-element kernels run as register programs (decision 55), at their edges:
// slice and update starts clamped on both sides, a rank-2 scatter-add whose start is often outside
// (skipped) with its index vector read from a two-element kernel's buffer, a rank-2 gather, u64 starts
// past i64's range, s64 and pred state arrays, a tanh (no program op) splitting the body into two
// runs that pass values through buffers, and a one-element slice updated in place and read after
// its update. The second loop's trip count depends on its values (signed and unsigned division).
module @loop_programs {
  func.func public @main(%a0: tensor<5xf32>, %b0: tensor<3x4xi32>, %tab: tensor<7xf32>, %tab2: tensor<3x4xf32>, %u0: tensor<6xi64>) -> (tensor<5xf32>, tensor<3x4xi32>, tensor<6xi64>, tensor<4xi1>, tensor<f64>, tensor<i64>, tensor<i32>, tensor<ui32>, tensor<i32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %p0 = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>
    %acc0 = stablehlo.constant dense<0.0> : tensor<f64>
    %q0 = stablehlo.constant dense<0> : tensor<i64>
    %r:7 = stablehlo.while(%i = %c0, %a = %a0, %b = %b0, %u = %u0, %p = %p0, %acc = %acc0, %q = %q0) : tensor<i32>, tensor<5xf32>, tensor<3x4xi32>, tensor<6xi64>, tensor<4xi1>, tensor<f64>, tensor<i64>
    cond {
      %n = stablehlo.constant dense<23> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      // a[k] read at k = i - 8 (clamped to 0..4), a[k + 2] = 0.5 a[k] + 1 (clamped too).
      %eight = stablehlo.constant dense<8> : tensor<i32>
      %k = stablehlo.subtract %i, %eight : tensor<i32>
      %ak = stablehlo.dynamic_slice %a, %k, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
      %half = stablehlo.constant dense<5.000000e-01> : tensor<1xf32>
      %onef = stablehlo.constant dense<1.000000e+00> : tensor<1xf32>
      %ah = stablehlo.multiply %ak, %half : tensor<1xf32>
      %av = stablehlo.add %ah, %onef : tensor<1xf32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %k2 = stablehlo.add %k, %two : tensor<i32>
      %an = stablehlo.dynamic_update_slice %a, %av, %k2 : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
      // b[i mod 4, i - 10] += i * 3 when inside (a scatter skips a start outside); x = b[(i mod 5)
      // - 1, 3i - 20] clamped, read before the scatter.
      %four = stablehlo.constant dense<4> : tensor<i32>
      %five = stablehlo.constant dense<5> : tensor<i32>
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %twenty = stablehlo.constant dense<20> : tensor<i32>
      %r5 = stablehlo.remainder %i, %five : tensor<i32>
      %r5m = stablehlo.subtract %r5, %one : tensor<i32>
      %i3 = stablehlo.multiply %i, %three : tensor<i32>
      %c20 = stablehlo.subtract %i3, %twenty : tensor<i32>
      %bx = stablehlo.dynamic_slice %b, %r5m, %c20, sizes = [1, 1] : (tensor<3x4xi32>, tensor<i32>, tensor<i32>) -> tensor<1x1xi32>
      %bx0 = stablehlo.reshape %bx : (tensor<1x1xi32>) -> tensor<i32>
      %r4 = stablehlo.remainder %i, %four : tensor<i32>
      %c10 = stablehlo.subtract %i, %ten : tensor<i32>
      %io = stablehlo.iota dim = 0 : tensor<2xi32>
      %z2 = stablehlo.constant dense<0> : tensor<2xi32>
      %first = stablehlo.compare EQ, %io, %z2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %rb = stablehlo.broadcast_in_dim %r4, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %cb = stablehlo.broadcast_in_dim %c10, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %ij = stablehlo.select %first, %rb, %cb : tensor<2xi1>, tensor<2xi32>
      %bs = "stablehlo.scatter"(%b, %ij, %i3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 0>, unique_indices = false}> ({
      ^bb0(%x: tensor<i32>, %y: tensor<i32>):
        %s = stablehlo.add %x, %y : tensor<i32>
        stablehlo.return %s : tensor<i32>
      }) : (tensor<3x4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<3x4xi32>
      // g = tab2[the same start] gathered (clamped); t = tab[(i * K) as u64] and tab[(i * K) % 11],
      // starts past i64's range clamped to the last element.
      %g = "stablehlo.gather"(%tab2, %ij) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<f32>
      %iu = stablehlo.convert %i : (tensor<i32>) -> tensor<ui64>
      %kk = stablehlo.constant dense<11400714819323198485> : tensor<ui64>
      %h = stablehlo.multiply %iu, %kk : tensor<ui64>
      %t1 = stablehlo.dynamic_slice %tab, %h, sizes = [1] : (tensor<7xf32>, tensor<ui64>) -> tensor<1xf32>
      %eleven = stablehlo.constant dense<11> : tensor<ui64>
      %hm = stablehlo.remainder %h, %eleven : tensor<ui64>
      %t2 = stablehlo.dynamic_slice %tab, %hm, sizes = [1] : (tensor<7xf32>, tensor<ui64>) -> tensor<1xf32>
      // u[i mod 6] = u[i mod 6] * -3 + i + u[0] (s64, an s64 start), then q += 2 u'[0]: u[0] is
      // read before the update (the old value) and after it (the new one).
      %i64 = stablehlo.convert %i : (tensor<i32>) -> tensor<i64>
      %six = stablehlo.constant dense<6> : tensor<i64>
      %m6 = stablehlo.remainder %i64, %six : tensor<i64>
      %um = stablehlo.dynamic_slice %u, %m6, sizes = [1] : (tensor<6xi64>, tensor<i64>) -> tensor<1xi64>
      %m3 = stablehlo.constant dense<-3> : tensor<1xi64>
      %umx = stablehlo.multiply %um, %m3 : tensor<1xi64>
      %i641 = stablehlo.reshape %i64 : (tensor<i64>) -> tensor<1xi64>
      %uo = stablehlo.slice %u [0:1] : (tensor<6xi64>) -> tensor<1xi64>
      %unw = stablehlo.add %umx, %i641 : tensor<1xi64>
      %unv = stablehlo.add %unw, %uo : tensor<1xi64>
      %un = stablehlo.dynamic_update_slice %u, %unv, %m6 : (tensor<6xi64>, tensor<1xi64>, tensor<i64>) -> tensor<6xi64>
      %uq = stablehlo.slice %un [0:1] : (tensor<6xi64>) -> tensor<1xi64>
      %uq0 = stablehlo.reshape %uq : (tensor<1xi64>) -> tensor<i64>
      %q2 = stablehlo.add %uq0, %uq0 : tensor<i64>
      %qn = stablehlo.add %q, %q2 : tensor<i64>
      // p[i mod 4] = not p[i mod 4] xor (k < 0).
      %pv = stablehlo.dynamic_slice %p, %r4, sizes = [1] : (tensor<4xi1>, tensor<i32>) -> tensor<1xi1>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %kn = stablehlo.compare LT, %k, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %kn1 = stablehlo.reshape %kn : (tensor<i1>) -> tensor<1xi1>
      %pnot = stablehlo.not %pv : tensor<1xi1>
      %px = stablehlo.xor %pnot, %kn1 : tensor<1xi1>
      %pn = stablehlo.dynamic_update_slice %p, %px, %r4 : (tensor<4xi1>, tensor<1xi1>, tensor<i32>) -> tensor<4xi1>
      // A one-element slice of a, updated in place (nothing else reads it) and read after.
      %s1 = stablehlo.dynamic_slice %a, %r4, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
      %ten1 = stablehlo.constant dense<1.000000e+01> : tensor<1xf32>
      %s2 = stablehlo.dynamic_update_slice %s1, %ten1, %zero : (tensor<1xf32>, tensor<1xf32>, tensor<i32>) -> tensor<1xf32>
      %s3 = stablehlo.add %s2, %ak : tensor<1xf32>
      // acc += f64(tanh(a[k]) + g + t1 - t2 + x + s3): the tanh splits the body.
      %th = stablehlo.tanh %ak : tensor<1xf32>
      %th0 = stablehlo.reshape %th : (tensor<1xf32>) -> tensor<f32>
      %t10 = stablehlo.reshape %t1 : (tensor<1xf32>) -> tensor<f32>
      %t20 = stablehlo.reshape %t2 : (tensor<1xf32>) -> tensor<f32>
      %s30 = stablehlo.reshape %s3 : (tensor<1xf32>) -> tensor<f32>
      %bxf = stablehlo.convert %bx0 : (tensor<i32>) -> tensor<f32>
      %e1 = stablehlo.add %th0, %g : tensor<f32>
      %e2 = stablehlo.add %e1, %t10 : tensor<f32>
      %e3 = stablehlo.subtract %e2, %t20 : tensor<f32>
      %e4 = stablehlo.add %e3, %bxf : tensor<f32>
      %e5 = stablehlo.add %e4, %s30 : tensor<f32>
      %e6 = stablehlo.convert %e5 : (tensor<f32>) -> tensor<f64>
      %accn = stablehlo.add %acc, %e6 : tensor<f64>
      stablehlo.return %i1, %an, %bs, %un, %pn, %accn, %qn : tensor<i32>, tensor<5xf32>, tensor<3x4xi32>, tensor<6xi64>, tensor<4xi1>, tensor<f64>, tensor<i64>
    }
    // Steps until v reaches 0: v = v / 3 + (v % 3) / 2 on s32 (rounding toward zero, negative
    // remainders), w = w / 2 + (w % 7) on u32 from an unsigned start, counting steps.
    %v0 = stablehlo.constant dense<-987654> : tensor<i32>
    %w0 = stablehlo.constant dense<4000000000> : tensor<ui32>
    %l:3 = stablehlo.while(%v = %v0, %w = %w0, %n = %c0) : tensor<i32>, tensor<ui32>, tensor<i32>
    cond {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %ne = stablehlo.compare NE, %v, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %ne : tensor<i1>
    } do {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %two_s = stablehlo.constant dense<2> : tensor<i32>
      %vd = stablehlo.divide %v, %three : tensor<i32>
      %vr = stablehlo.remainder %v, %three : tensor<i32>
      %vh = stablehlo.divide %vr, %two_s : tensor<i32>
      %vn = stablehlo.add %vd, %vh : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<ui32>
      %seven = stablehlo.constant dense<7> : tensor<ui32>
      %wd = stablehlo.divide %w, %two : tensor<ui32>
      %wr = stablehlo.remainder %w, %seven : tensor<ui32>
      %wn = stablehlo.add %wd, %wr : tensor<ui32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n1 = stablehlo.add %n, %one : tensor<i32>
      stablehlo.return %vn, %wn, %n1 : tensor<i32>, tensor<ui32>, tensor<i32>
    }
    return %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %l#0, %l#1, %l#2 : tensor<5xf32>, tensor<3x4xi32>, tensor<6xi64>, tensor<4xi1>, tensor<f64>, tensor<i64>, tensor<i32>, tensor<ui32>, tensor<i32>
  }
}
