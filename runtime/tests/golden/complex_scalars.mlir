// One-element kernels on types the vector kernels lack, in and out of loops: a complex
// triangular recurrence shaped like JAX's _sqrtm_triu (dynamic_slice of one element, reshape,
// multiply-add into a complex accumulator), complex division, select on a complex compare, and
// conversions between complex, real, f16 and integer types; integer index arithmetic with
// convert and select (the integer scalar path).
module @complex_scalars {
  func.func public @main(%re: tensor<4x4xf32>, %im: tensor<4x4xf32>, %d: tensor<4xf32>, %h: tensor<f32>, %n: tensor<i32>) -> (tensor<4x4xcomplex<f32>>, tensor<complex<f32>>, tensor<f32>, tensor<complex<f64>>, tensor<f16>, tensor<i1>, tensor<1xcomplex<f32>>, tensor<i32>, tensor<f32>) {
    %t = stablehlo.complex %re, %im : tensor<4x4xcomplex<f32>>
    %zero = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c4 = stablehlo.constant dense<4> : tensor<i32>
    // u[i, j] = (t[i, j] - sum_{k=i+1}^{j-1} u[i, k] u[k, j]) / (t[i, i] + t[j, j] + 3), for i < j.
    %r:2 = stablehlo.while(%j = %c0, %u = %t) : tensor<i32>, tensor<4x4xcomplex<f32>>
    cond {
      %p = stablehlo.compare LT, %j, %c4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %ri:3 = stablehlo.while(%l = %c0, %u2 = %u, %jj = %j) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<i32>
      cond {
        %p = stablehlo.compare LT, %l, %jj, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %jm1 = stablehlo.subtract %jj, %c1 : tensor<i32>
        %i = stablehlo.subtract %jm1, %l : tensor<i32>
        %i1 = stablehlo.add %i, %c1 : tensor<i32>
        %rk:3 = stablehlo.while(%k = %i1, %s = %zero, %u3 = %u2) : tensor<i32>, tensor<complex<f32>>, tensor<4x4xcomplex<f32>>
        cond {
          %p = stablehlo.compare LT, %k, %jj, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %p : tensor<i1>
        } do {
          %kc = stablehlo.convert %k : tensor<i32>
          %neg = stablehlo.compare LT, %kc, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          %wrapped = stablehlo.add %kc, %c4 : tensor<i32>
          %kk = stablehlo.select %neg, %wrapped, %kc : tensor<i1>, tensor<i32>
          %a1 = stablehlo.dynamic_slice %u3, %i, %kk, sizes = [1, 1] : (tensor<4x4xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<1x1xcomplex<f32>>
          %a = stablehlo.reshape %a1 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
          %b1 = stablehlo.dynamic_slice %u3, %kk, %jj, sizes = [1, 1] : (tensor<4x4xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<1x1xcomplex<f32>>
          %b = stablehlo.reshape %b1 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
          %ab = stablehlo.multiply %a, %b : tensor<complex<f32>>
          %s2 = stablehlo.add %s, %ab : tensor<complex<f32>>
          %k2 = stablehlo.add %k, %c1 : tensor<i32>
          stablehlo.return %k2, %s2, %u3 : tensor<i32>, tensor<complex<f32>>, tensor<4x4xcomplex<f32>>
        }
        %tij1 = stablehlo.dynamic_slice %u2, %i, %jj, sizes = [1, 1] : (tensor<4x4xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<1x1xcomplex<f32>>
        %tij = stablehlo.reshape %tij1 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
        %tii1 = stablehlo.dynamic_slice %t, %i, %i, sizes = [1, 1] : (tensor<4x4xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<1x1xcomplex<f32>>
        %tii = stablehlo.reshape %tii1 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
        %tjj1 = stablehlo.dynamic_slice %t, %jj, %jj, sizes = [1, 1] : (tensor<4x4xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<1x1xcomplex<f32>>
        %tjj = stablehlo.reshape %tjj1 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
        %same = stablehlo.compare EQ, %tij, %rk#1, FLOAT : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<i1>
        %num = stablehlo.subtract %tij, %rk#1 : tensor<complex<f32>>
        %three = stablehlo.constant dense<3.000000e+00> : tensor<f32>
        %three_c = stablehlo.convert %three : (tensor<f32>) -> tensor<complex<f32>>
        %den0 = stablehlo.add %tii, %tjj : tensor<complex<f32>>
        %den = stablehlo.add %den0, %three_c : tensor<complex<f32>>
        %q = stablehlo.divide %num, %den : tensor<complex<f32>>
        %v = stablehlo.select %same, %zero, %q : tensor<i1>, tensor<complex<f32>>
        %v2 = stablehlo.reshape %v : (tensor<complex<f32>>) -> tensor<1x1xcomplex<f32>>
        %u4 = stablehlo.dynamic_update_slice %u2, %v2, %i, %jj : (tensor<4x4xcomplex<f32>>, tensor<1x1xcomplex<f32>>, tensor<i32>, tensor<i32>) -> tensor<4x4xcomplex<f32>>
        %l2 = stablehlo.add %l, %c1 : tensor<i32>
        stablehlo.return %l2, %u4, %jj : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<i32>
      }
      %j2 = stablehlo.add %j, %c1 : tensor<i32>
      stablehlo.return %j2, %ri#1 : tensor<i32>, tensor<4x4xcomplex<f32>>
    }
    // Scalar complex functions outside loops.
    %d0 = stablehlo.slice %d [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %d1 = stablehlo.slice %d [1:2] : (tensor<4xf32>) -> tensor<1xf32>
    %x = stablehlo.reshape %d0 : (tensor<1xf32>) -> tensor<f32>
    %y = stablehlo.reshape %d1 : (tensor<1xf32>) -> tensor<f32>
    %z = stablehlo.complex %x, %y : tensor<complex<f32>>
    %zs = stablehlo.sqrt %z : tensor<complex<f32>>
    %ze = stablehlo.exponential %zs : tensor<complex<f32>>
    %zn = stablehlo.negate %ze : tensor<complex<f32>>
    %za = stablehlo.abs %zn : (tensor<complex<f32>>) -> tensor<f32>
    %zr = stablehlo.real %zn : (tensor<complex<f32>>) -> tensor<f32>
    %zi = stablehlo.imag %zn : (tensor<complex<f32>>) -> tensor<f32>
    %m = stablehlo.multiply %zr, %zi : tensor<f32>
    %sum = stablehlo.add %za, %m : tensor<f32>
    %wide = stablehlo.convert %zn : (tensor<complex<f32>>) -> tensor<complex<f64>>
    %hf = stablehlo.convert %h : (tensor<f32>) -> tensor<f16>
    %hh = stablehlo.multiply %hf, %hf : tensor<f16>
    %ne = stablehlo.compare NE, %z, %zn, FLOAT : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<i1>
    %zb = stablehlo.broadcast_in_dim %zn, dims = [] : (tensor<complex<f32>>) -> tensor<1xcomplex<f32>>
    %nc = stablehlo.convert %n : tensor<i32>
    %nneg = stablehlo.compare LT, %nc, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %nw = stablehlo.add %nc, %c4 : tensor<i32>
    %ni = stablehlo.select %nneg, %nw, %nc : tensor<i1>, tensor<i32>
    // jnp.linalg.norm(ord=-3) of one complex element: the one-element complex abs must not fuse
    // (through the power) into the reduce, which runs on the vector kernels.
    %av = stablehlo.abs %zb : (tensor<1xcomplex<f32>>) -> tensor<1xf32>
    %m3 = stablehlo.constant dense<-3.000000e+00> : tensor<1xf32>
    %pw = stablehlo.power %av, %m3 : tensor<1xf32>
    %zf = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %red = stablehlo.reduce(%pw init: %zf) applies stablehlo.add across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
    return %r#1, %zn, %sum, %wide, %hh, %ne, %zb, %ni, %red : tensor<4x4xcomplex<f32>>, tensor<complex<f32>>, tensor<f32>, tensor<complex<f64>>, tensor<f16>, tensor<i1>, tensor<1xcomplex<f32>>, tensor<i32>, tensor<f32>
  }
}
