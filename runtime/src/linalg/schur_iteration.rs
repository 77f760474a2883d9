//! The Schur decomposition A = Z T Zᴴ of one square matrix by Hessenberg QR iteration, the
//! algorithm of LAPACK's gees for small matrices: Householder reduction to Hessenberg form (gehrd,
//! shared with `condensed.rs`), the reflectors accumulated into Z (orghr), then
//!
//! - real matrices: Francis double-shift QR with 3-element bulges (xLAHQR), leaving T upper
//!   quasi-triangular with 2×2 blocks standardized as xLANV2 does (equal diagonal, off-diagonal
//!   entries of opposite signs) for each complex-conjugate pair;
//! - complex matrices: single-shift complex QR (zLAHQR), leaving T upper triangular.
//!
//! The deflation test (Ahues and Tisseur's, as in LAPACK 3.x), the Wilkinson-style shifts, the
//! exceptional shifts every 10 deflation-free iterations and the limit of 30·max(10, n)
//! iterations are LAPACK's, so the kernel converges where LAPACK does. Arithmetic is in f64
//! (complex in f64 pairs) whatever the element type: the thresholds are f64's.
//!
//! Storage is row-major n×n: `h[r * n + c]`.

use crate::values::complex::C64;
use super::condensed::gehrd;
use super::field::Field;
use super::qr::{norm2, reflector};

/// The machine constants the iteration's tests use, xLAMCH('P') (ε · base) and xLAMCH('S') (the
/// smallest normal number), of the element type's precision: the arithmetic is f64, but the
/// deflation and shift decisions are the ones LAPACK makes in that precision (sgees for f32), so the
/// iteration takes the same path and the Schur form's diagonal comes out in LAPACK's order.
#[derive(Clone, Copy, Debug)]
pub(super) struct Precision {
    pub ulp: f64,
    pub safe_min: f64,
}

impl Precision {
    pub(super) const SINGLE: Precision = Precision { ulp: f32::EPSILON as f64, safe_min: f32::MIN_POSITIVE as f64 };
    pub(super) const DOUBLE: Precision = Precision { ulp: f64::EPSILON, safe_min: f64::MIN_POSITIVE };
}
/// Exceptional shifts every KEXSH deflation-free iterations.
const KEXSH: usize = 10;

/// Reduces `h` (n×n, n ≥ 1) to upper Hessenberg form in place and returns Q with A = Q H Qᴴ;
/// the entries below the subdiagonal are zero on return.
pub(super) fn hessenberg_and_q<T: Field>(h: &mut [T], n: usize) -> Vec<T> {
    let mut taus = vec![T::default(); n.saturating_sub(1)];
    if n > 1 {
        gehrd(h, n, &mut taus);
    }
    let mut q = vec![T::default(); n * n];
    (0..n).for_each(|i| q[i * n + i] = T::from_real(1.0));
    // Q = H_0 ⋯ H_{n-2}, accumulated backwards: while H_j is applied, Q is the identity outside rows
    // and columns j+1.., so only that block changes.
    for j in (0..n.saturating_sub(1)).rev() {
        let tau = taus[j];
        if tau == T::default() {
            continue;
        }
        let v: Vec<T> = std::iter::once(T::from_real(1.0)).chain((j + 2..n).map(|r| h[r * n + j])).collect();
        for c in j + 1..n {
            let dot = v.iter().enumerate().fold(T::default(), |s, (k, &vk)| s + vk.conj() * q[(j + 1 + k) * n + c]);
            let w = tau * dot;
            for (k, &vk) in v.iter().enumerate() {
                q[(j + 1 + k) * n + c] = q[(j + 1 + k) * n + c] - vk * w;
            }
        }
    }
    for r in 2..n {
        h[r * n..r * n + r - 1].fill(T::default());
    }
    q
}

/// Applies the plane rotation (c, s) to the pairs (x_k, y_k): x ← c x + s y, y ← c y − s x.
fn rotate(h: &mut [f64], xs: impl Iterator<Item = usize>, ys: impl Iterator<Item = usize>, c: f64, s: f64) {
    for (x, y) in xs.zip(ys) {
        let (a, b) = (h[x], h[y]);
        h[x] = c * a + s * b;
        h[y] = c * b - s * a;
    }
}

/// The standardized Schur factorization of the real 2×2 block [[a, b], [c, d]] (xLANV2): returns the
/// new block, its eigenvalues (re1, im1, re2, im2) and the rotation (cs, sn). A complex pair comes
/// back with a = d and b·c < 0, im1 > 0 and im2 = −im1; real eigenvalues leave c = 0.
#[allow(clippy::type_complexity)]
pub(super) fn standardize_2x2(mut a: f64, mut b: f64, mut c: f64, mut d: f64, prec: Precision) -> ([f64; 4], [f64; 4], (f64, f64)) {
    let sign = |x: f64, y: f64| x.abs().copysign(y);
    let multpl = 4.0;
    // base^trunc(log_base(safmin / eps) / 2), for rescaling before squaring.
    let safmn2 = 2f64.powi(((prec.safe_min / prec.ulp).log2() / 2.0) as i32);
    let safmx2 = 1.0 / safmn2;
    let (mut cs, mut sn);
    if c == 0.0 {
        (cs, sn) = (1.0, 0.0);
    } else if b == 0.0 {
        // Swap the rows and columns.
        (cs, sn) = (0.0, 1.0);
        std::mem::swap(&mut a, &mut d);
        b = -c;
        c = 0.0;
    } else if a - d == 0.0 && sign(1.0, b) != sign(1.0, c) {
        (cs, sn) = (1.0, 0.0);
    } else {
        let temp = a - d;
        let mut p = 0.5 * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * sign(1.0, b) * sign(1.0, c);
        let scale = p.abs().max(bcmax);
        let mut z = (p / scale) * p + (bcmax / scale) * bcmis;
        if z >= multpl * prec.ulp {
            // Real eigenvalues: compute a and d from the larger root, avoiding cancellation.
            z = p + sign(scale.sqrt() * z.sqrt(), p);
            a = d + z;
            d -= (bcmax / z) * bcmis;
            let tau = c.hypot(z);
            cs = z / tau;
            sn = c / tau;
            b -= c;
            c = 0.0;
        } else {
            // Complex or nearly equal real eigenvalues: make the diagonal equal.
            let (mut sigma, mut temp) = (b + c, temp);
            for _ in 0..=20 {
                let scale = temp.abs().max(sigma.abs());
                if scale >= safmx2 {
                    sigma *= safmn2;
                    temp *= safmn2;
                } else if scale <= safmn2 {
                    sigma *= safmx2;
                    temp *= safmx2;
                } else {
                    break;
                }
            }
            p = 0.5 * temp;
            let tau = sigma.hypot(temp);
            cs = (0.5 * (1.0 + sigma.abs() / tau)).sqrt();
            sn = -(p / (tau * cs)) * sign(1.0, sigma);
            // [aa bb; cc dd] = [a b; c d] [cs −sn; sn cs], then [a b; c d] = [cs sn; −sn cs] [aa bb; cc dd].
            let (aa, bb) = (a * cs + b * sn, -a * sn + b * cs);
            let (cc, dd) = (c * cs + d * sn, -c * sn + d * cs);
            a = aa * cs + cc * sn;
            b = bb * cs + dd * sn;
            c = -(aa * sn) + cc * cs;
            d = -bb * sn + dd * cs;
            let mid = 0.5 * (a + d);
            a = mid;
            d = mid;
            if c != 0.0 {
                if b != 0.0 {
                    if sign(1.0, b) == sign(1.0, c) {
                        // Real eigenvalues after all: reduce to upper triangular.
                        let (sab, sac) = (b.abs().sqrt(), c.abs().sqrt());
                        p = sign(sab * sac, c);
                        let tau = 1.0 / (b + c).abs().sqrt();
                        a = mid + p;
                        d = mid - p;
                        b -= c;
                        c = 0.0;
                        let (cs1, sn1) = (sab * tau, sac * tau);
                        let t = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = t;
                    }
                } else {
                    b = -c;
                    c = 0.0;
                    let t = cs;
                    cs = -sn;
                    sn = t;
                }
            }
        }
    }
    let im = if c == 0.0 { 0.0 } else { b.abs().sqrt() * c.abs().sqrt() };
    ([a, b, c, d], [a, im, d, -im], (cs, sn))
}

/// Real Schur form of the upper Hessenberg `h` (n×n) in place, accumulating the transformations
/// into `z` (Z ← Z Q). Returns the eigenvalues (wr, wi), in diagonal order, or None when the
/// iteration did not converge.
pub(super) fn real_schur(h: &mut [f64], z: &mut [f64], n: usize, p: Precision) -> Option<(Vec<f64>, Vec<f64>)> {
    let (mut wr, mut wi) = (vec![0.0; n], vec![0.0; n]);
    if n == 0 {
        return Some((wr, wi));
    }
    let at = |r: usize, c: usize| r * n + c;
    let smlnum = p.safe_min * (n as f64 / p.ulp);
    let itmax = 30 * n.max(10);
    let mut kdefl = 0usize;
    // The active block is rows and columns l..=i; everything below i has converged.
    let mut i_next = Some(n - 1);
    while let Some(i) = i_next {
        let mut l = 0usize;
        let mut converged = false;
        for _ in 0..=itmax {
            // A negligible subdiagonal entry splits the block.
            let mut k = i;
            while k > l {
                let sub = h[at(k, k - 1)].abs();
                if sub <= smlnum {
                    break;
                }
                let mut tst = h[at(k - 1, k - 1)].abs() + h[at(k, k)].abs();
                if tst == 0.0 {
                    if k >= 2 {
                        tst += h[at(k - 1, k - 2)].abs();
                    }
                    if k + 1 < n {
                        tst += h[at(k + 1, k)].abs();
                    }
                }
                if sub <= p.ulp * tst {
                    let sup = h[at(k - 1, k)].abs();
                    let (ab, ba) = (sub.max(sup), sub.min(sup));
                    let (hkk, diff) = (h[at(k, k)].abs(), (h[at(k - 1, k - 1)] - h[at(k, k)]).abs());
                    let (aa, bb) = (hkk.max(diff), hkk.min(diff));
                    let s = aa + ab;
                    if ba * (ab / s) <= smlnum.max(p.ulp * (bb * (aa / s))) {
                        break;
                    }
                }
                k -= 1;
            }
            l = k;
            if l > 0 {
                h[at(l, l - 1)] = 0.0;
            }
            if l + 1 >= i {
                converged = true;
                break;
            }
            kdefl += 1;
            // The shifts: the eigenvalues of the trailing 2×2 block, or exceptional ones.
            let (h11, h12, h21, h22);
            if kdefl % (2 * KEXSH) == 0 {
                let s = h[at(i, i - 1)].abs() + h[at(i - 1, i - 2)].abs();
                (h11, h12, h21) = (0.75 * s + h[at(i, i)], -0.4375 * s, s);
                h22 = h11;
            } else if kdefl % KEXSH == 0 {
                let s = h[at(l + 1, l)].abs() + h[at(l + 2, l + 1)].abs();
                (h11, h12, h21) = (0.75 * s + h[at(l, l)], -0.4375 * s, s);
                h22 = h11;
            } else {
                (h11, h21, h12, h22) = (h[at(i - 1, i - 1)], h[at(i, i - 1)], h[at(i - 1, i)], h[at(i, i)]);
            }
            let s = h11.abs() + h12.abs() + h21.abs() + h22.abs();
            let (rt1r, rt1i, rt2r, rt2i);
            if s == 0.0 {
                (rt1r, rt1i, rt2r, rt2i) = (0.0, 0.0, 0.0, 0.0);
            } else {
                let (h11, h21, h12, h22) = (h11 / s, h21 / s, h12 / s, h22 / s);
                let tr = (h11 + h22) / 2.0;
                let det = (h11 - tr) * (h22 - tr) - h12 * h21;
                let rtdisc = det.abs().sqrt();
                if det >= 0.0 {
                    (rt1r, rt1i) = (tr * s, rtdisc * s);
                    (rt2r, rt2i) = (rt1r, -rt1i);
                } else {
                    // Two real shifts: use the one closer to h22 twice.
                    let (a, b) = (tr + rtdisc, tr - rtdisc);
                    let r = if (a - h22).abs() <= (b - h22).abs() { a * s } else { b * s };
                    (rt1r, rt2r, rt1i, rt2i) = (r, r, 0.0, 0.0);
                }
            }
            // Start the bulge where two consecutive subdiagonal entries are small enough.
            let mut v = [0.0f64; 3];
            let mut m = i - 2;
            loop {
                let h21s = h[at(m + 1, m)];
                let s = (h[at(m, m)] - rt2r).abs() + rt2i.abs() + h21s.abs();
                let h21s = h21s / s;
                v[0] = h21s * h[at(m, m + 1)] + (h[at(m, m)] - rt1r) * ((h[at(m, m)] - rt2r) / s) - rt1i * (rt2i / s);
                v[1] = h21s * (h[at(m, m)] + h[at(m + 1, m + 1)] - rt1r - rt2r);
                v[2] = h21s * h[at(m + 2, m + 1)];
                let s = v[0].abs() + v[1].abs() + v[2].abs();
                v.iter_mut().for_each(|x| *x /= s);
                if m == l {
                    break;
                }
                let lhs = h[at(m, m - 1)].abs() * (v[1].abs() + v[2].abs());
                let rhs = p.ulp * v[0].abs() * (h[at(m - 1, m - 1)].abs() + h[at(m, m)].abs() + h[at(m + 1, m + 1)].abs());
                if lhs <= rhs {
                    break;
                }
                m -= 1;
            }
            // Chase the bulge from m down to i.
            for k in m..i {
                let nr = 3.min(i - k + 1);
                if k > m {
                    (0..nr).for_each(|r| v[r] = h[at(k + r, k - 1)]);
                }
                let (beta, t1, scale) = reflector(v[0], norm2(v[1..nr].iter().copied()));
                v[1..nr].iter_mut().for_each(|x| *x *= scale);
                if t1 == 0.0 {
                    v[1..nr].fill(0.0);
                }
                v[0] = beta;
                if k > m {
                    h[at(k, k - 1)] = beta;
                    h[at(k + 1, k - 1)] = 0.0;
                    if k + 2 < i + 1 {
                        h[at(k + 2, k - 1)] = 0.0;
                    }
                } else if m > l {
                    h[at(k, k - 1)] *= 1.0 - t1;
                }
                let (v2, t2) = (v[1], t1 * v[1]);
                let (v3, t3) = if nr == 3 { (v[2], t1 * v[2]) } else { (0.0, 0.0) };
                // From the left on rows k..k+nr, columns k.. (T is wanted, so up to n).
                for j in k..n {
                    let mut sum = h[at(k, j)] + v2 * h[at(k + 1, j)];
                    if nr == 3 {
                        sum += v3 * h[at(k + 2, j)];
                    }
                    h[at(k, j)] -= sum * t1;
                    h[at(k + 1, j)] -= sum * t2;
                    if nr == 3 {
                        h[at(k + 2, j)] -= sum * t3;
                    }
                }
                // From the right on columns k..k+nr, rows 0..=min(k+3, i).
                for j in 0..=(k + 3).min(i) {
                    let mut sum = h[at(j, k)] + v2 * h[at(j, k + 1)];
                    if nr == 3 {
                        sum += v3 * h[at(j, k + 2)];
                    }
                    h[at(j, k)] -= sum * t1;
                    h[at(j, k + 1)] -= sum * t2;
                    if nr == 3 {
                        h[at(j, k + 2)] -= sum * t3;
                    }
                }
                for j in 0..n {
                    let mut sum = z[at(j, k)] + v2 * z[at(j, k + 1)];
                    if nr == 3 {
                        sum += v3 * z[at(j, k + 2)];
                    }
                    z[at(j, k)] -= sum * t1;
                    z[at(j, k + 1)] -= sum * t2;
                    if nr == 3 {
                        z[at(j, k + 2)] -= sum * t3;
                    }
                }
            }
        }
        if !converged {
            return None;
        }
        if l == i {
            (wr[i], wi[i]) = (h[at(i, i)], 0.0);
        } else {
            // A 2×2 block at rows i-1, i: standardize it and rotate the rest of T and Z to match.
            let (block, eig, (cs, sn)) = standardize_2x2(h[at(i - 1, i - 1)], h[at(i - 1, i)], h[at(i, i - 1)], h[at(i, i)], p);
            [h[at(i - 1, i - 1)], h[at(i - 1, i)], h[at(i, i - 1)], h[at(i, i)]] = block;
            [wr[i - 1], wi[i - 1], wr[i], wi[i]] = eig;
            rotate(h, (i + 1..n).map(|c| at(i - 1, c)), (i + 1..n).map(|c| at(i, c)), cs, sn);
            rotate(h, (0..i - 1).map(|r| at(r, i - 1)), (0..i - 1).map(|r| at(r, i)), cs, sn);
            rotate(z, (0..n).map(|r| at(r, i - 1)), (0..n).map(|r| at(r, i)), cs, sn);
        }
        kdefl = 0;
        i_next = l.checked_sub(1);
    }
    Some((wr, wi))
}

fn cabs1(z: C64) -> f64 {
    z.re.abs() + z.im.abs()
}

/// Complex Schur form of the upper Hessenberg `h` (n×n) in place, accumulating the transformations
/// into `z`. Returns the eigenvalues in diagonal order, or None when the iteration did not converge.
pub(super) fn complex_schur(h: &mut [C64], z: &mut [C64], n: usize, p: Precision) -> Option<Vec<C64>> {
    let mut w = vec![C64::default(); n];
    if n == 0 {
        return Some(w);
    }
    let at = |r: usize, c: usize| r * n + c;
    let real = C64::from_real;
    // Make the subdiagonal real by a diagonal unitary similarity.
    for i in 1..n {
        let sub = h[at(i, i - 1)];
        if sub.im != 0.0 {
            let sc = sub.scale(1.0 / cabs1(sub));
            let sc = sc.conj().scale(1.0 / sc.abs());
            h[at(i, i - 1)] = real(sub.abs());
            (i..n).for_each(|c| h[at(i, c)] = h[at(i, c)] * sc);
            (0..=(i + 1).min(n - 1)).for_each(|r| h[at(r, i)] = h[at(r, i)] * sc.conj());
            (0..n).for_each(|r| z[at(r, i)] = z[at(r, i)] * sc.conj());
        }
    }
    let smlnum = p.safe_min * (n as f64 / p.ulp);
    let itmax = 30 * n.max(10);
    let mut kdefl = 0usize;
    let mut i_next = Some(n - 1);
    while let Some(i) = i_next {
        let mut l = 0usize;
        let mut converged = false;
        for _ in 0..=itmax {
            let mut k = i;
            while k > l {
                let sub = h[at(k, k - 1)];
                if cabs1(sub) <= smlnum {
                    break;
                }
                let mut tst = cabs1(h[at(k - 1, k - 1)]) + cabs1(h[at(k, k)]);
                if tst == 0.0 {
                    if k >= 2 {
                        tst += h[at(k - 1, k - 2)].re.abs();
                    }
                    if k + 1 < n {
                        tst += h[at(k + 1, k)].re.abs();
                    }
                }
                if sub.re.abs() <= p.ulp * tst {
                    let sup = cabs1(h[at(k - 1, k)]);
                    let (ab, ba) = (cabs1(sub).max(sup), cabs1(sub).min(sup));
                    let (hkk, diff) = (cabs1(h[at(k, k)]), cabs1(h[at(k - 1, k - 1)] - h[at(k, k)]));
                    let (aa, bb) = (hkk.max(diff), hkk.min(diff));
                    let s = aa + ab;
                    if ba * (ab / s) <= smlnum.max(p.ulp * (bb * (aa / s))) {
                        break;
                    }
                }
                k -= 1;
            }
            l = k;
            if l > 0 {
                h[at(l, l - 1)] = C64::default();
            }
            if l >= i {
                converged = true;
                break;
            }
            kdefl += 1;
            // The shift: Wilkinson's (the trailing 2×2 block's eigenvalue nearer h[i][i]), or an
            // exceptional one.
            let t = if kdefl % (2 * KEXSH) == 0 {
                real(0.75 * h[at(i, i - 1)].re.abs()) + h[at(i, i)]
            } else if kdefl % KEXSH == 0 {
                real(0.75 * h[at(l + 1, l)].re.abs()) + h[at(l, l)]
            } else {
                let mut t = h[at(i, i)];
                let u = h[at(i - 1, i)].sqrt() * h[at(i, i - 1)].sqrt();
                let s = cabs1(u);
                if s != 0.0 {
                    let x = (h[at(i - 1, i - 1)] - t).scale(0.5);
                    let sx = cabs1(x);
                    let s = s.max(sx);
                    let (xs, us) = (x.scale(1.0 / s), u.scale(1.0 / s));
                    let mut y = (xs * xs + us * us).sqrt().scale(s);
                    if sx > 0.0 {
                        let xn = x.scale(1.0 / sx);
                        if xn.re * y.re + xn.im * y.im < 0.0 {
                            y = -y;
                        }
                    }
                    t = t - u * (u / (x + y));
                }
                t
            };
            // Start the bulge where two consecutive subdiagonal entries are small enough.
            let mut m = i - 1;
            let mut v;
            loop {
                let (h11, h22) = (h[at(m, m)], h[at(m + 1, m + 1)]);
                let h11s = h11 - t;
                let h21 = h[at(m + 1, m)].re;
                let s = cabs1(h11s) + h21.abs();
                let (h11s, h21) = (h11s.scale(1.0 / s), h21 / s);
                v = [h11s, real(h21)];
                if m == l {
                    break;
                }
                let h10 = h[at(m, m - 1)].re;
                if h10.abs() * h21.abs() <= p.ulp * (cabs1(h11s) * (cabs1(h11) + cabs1(h22))) {
                    break;
                }
                m -= 1;
            }
            for k in m..i {
                if k > m {
                    v = [h[at(k, k - 1)], h[at(k + 1, k - 1)]];
                }
                let (beta, t1, scale) = reflector(v[0], v[1].abs());
                v[1] = if t1 == C64::default() { C64::default() } else { v[1] * scale };
                v[0] = real(beta);
                if k > m {
                    h[at(k, k - 1)] = v[0];
                    h[at(k + 1, k - 1)] = C64::default();
                }
                let v2 = v[1];
                let t2 = (t1 * v2).re;
                for j in k..n {
                    let sum = t1.conj() * h[at(k, j)] + h[at(k + 1, j)].scale(t2);
                    h[at(k, j)] = h[at(k, j)] - sum;
                    h[at(k + 1, j)] = h[at(k + 1, j)] - sum * v2;
                }
                for j in 0..=(k + 2).min(i) {
                    let sum = t1 * h[at(j, k)] + h[at(j, k + 1)].scale(t2);
                    h[at(j, k)] = h[at(j, k)] - sum;
                    h[at(j, k + 1)] = h[at(j, k + 1)] - sum * v2.conj();
                }
                for j in 0..n {
                    let sum = t1 * z[at(j, k)] + z[at(j, k + 1)].scale(t2);
                    z[at(j, k)] = z[at(j, k)] - sum;
                    z[at(j, k + 1)] = z[at(j, k + 1)] - sum * v2.conj();
                }
                if k == m && m > l {
                    // The first reflector left h[m+1][m] complex: a diagonal unitary makes it real.
                    let temp = real(1.0) - t1;
                    let temp = temp.scale(1.0 / temp.abs());
                    h[at(m + 1, m)] = h[at(m + 1, m)] * temp.conj();
                    if m + 2 <= i {
                        h[at(m + 2, m + 1)] = h[at(m + 2, m + 1)] * temp;
                    }
                    for j in m..=i {
                        if j != m + 1 {
                            (j + 1..n).for_each(|c| h[at(j, c)] = h[at(j, c)] * temp);
                            (0..j).for_each(|r| h[at(r, j)] = h[at(r, j)] * temp.conj());
                            (0..n).for_each(|r| z[at(r, j)] = z[at(r, j)] * temp.conj());
                        }
                    }
                }
            }
            // Keep h[i][i-1] real.
            let temp = h[at(i, i - 1)];
            if temp.im != 0.0 {
                let rtemp = temp.abs();
                h[at(i, i - 1)] = real(rtemp);
                let temp = temp.scale(1.0 / rtemp);
                (i + 1..n).for_each(|c| h[at(i, c)] = h[at(i, c)] * temp.conj());
                (0..i).for_each(|r| h[at(r, i)] = h[at(r, i)] * temp);
                (0..n).for_each(|r| z[at(r, i)] = z[at(r, i)] * temp);
            }
        }
        if !converged {
            return None;
        }
        w[i] = h[at(i, i)];
        kdefl = 0;
        i_next = l.checked_sub(1);
    }
    Some(w)
}
