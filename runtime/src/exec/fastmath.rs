//! Vectorisable exp/tanh/logistic for f32 kernels in f32 arithmetic (16 lanes with AVX-512), a few
//! ulp from the correctly rounded results the interpreter computes through f64. f64 kernels use the
//! standard library.

/// How a polynomial step `a * b + c` is computed: one fused multiply-add where the kernel is built
/// for a CPU with FMA (half the operations, and one rounding instead of two), else a multiply and
/// an add (a software fused multiply-add would be far slower).
pub trait Madd {
    fn madd(a: f32, b: f32, c: f32) -> f32;
}

/// For kernels compiled with the `fma` target feature.
pub struct Fused;
/// For kernels compiled without it.
pub struct Separate;

impl Madd for Fused {
    #[inline(always)]
    fn madd(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

impl Madd for Separate {
    #[inline(always)]
    fn madd(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
}

const LOG2E_F: f32 = std::f32::consts::LOG2_E;
/// ln 2 split so that `n * LN2_HI_F` is exact for the n that occur.
const LN2_HI_F: f32 = 355.0 / 512.0;
const LN2_LO_F: f32 = -2.121_944_5e-4;
/// 1.5 * 2^23: adding it rounds an f32 to an integer held in the low mantissa bits.
const ROUNDER_F: f32 = 12_582_912.0;

/// e^x in f32 arithmetic for x in [-87, 88.7] (so that 2^n is a normal number).
#[inline(always)]
fn exp_core_f32<M: Madd>(x: f32) -> f32 {
    let t = M::madd(x, LOG2E_F, ROUNDER_F);
    let n = t - ROUNDER_F;
    let r = M::madd(n, -LN2_LO_F, M::madd(n, -LN2_HI_F, x));
    // Taylor series to degree 7 on |r| <= ln2/2: truncation error about 0.1 ulp.
    let mut p: f32 = 1.0 / 5040.0;
    p = M::madd(p, r, 1.0 / 720.0);
    p = M::madd(p, r, 1.0 / 120.0);
    p = M::madd(p, r, 1.0 / 24.0);
    p = M::madd(p, r, 1.0 / 6.0);
    p = M::madd(p, r, 0.5);
    p = M::madd(p, r, 1.0);
    p = M::madd(p, r, 1.0);
    let scale = f32::from_bits(t.to_bits().wrapping_add(127) << 23);
    p * scale
}

/// e^x - 1 for |x| <= ln2/2 (Taylor series to degree 7: truncation error below 0.3 ulp).
#[inline(always)]
fn expm1_small_f32<M: Madd>(u: f32) -> f32 {
    let mut p: f32 = 1.0 / 5040.0;
    p = M::madd(p, u, 1.0 / 720.0);
    p = M::madd(p, u, 1.0 / 120.0);
    p = M::madd(p, u, 1.0 / 24.0);
    p = M::madd(p, u, 1.0 / 6.0);
    p = M::madd(p, u, 0.5);
    p = M::madd(p, u, 1.0);
    p * u
}

/// e^x in f32 arithmetic, within a few ulp of the correctly rounded result (subnormal results
/// may differ by more ulps, being tiny in absolute terms).
#[inline(always)]
pub fn exp_f32<M: Madd>(x: f32) -> f32 {
    // Arguments outside the core's range are shifted into it and the result scaled back, so that
    // one polynomial evaluation serves every lane.
    let c = x.clamp(-104.0, 89.0);
    let (shift, factor) = if c > 88.0 {
        (-1.0, std::f32::consts::E)
    } else if c < -86.0 {
        (20.0, 2.061_153_6e-9)
    } else {
        (0.0, 1.0)
    };
    let y = exp_core_f32::<M>(c + shift) * factor;
    let y = if x > 88.722_84 { f32::INFINITY } else if x < -104.0 { 0.0 } else { y };
    if x.is_nan() { x } else { y }
}

/// e^x over a slice. Arguments in [-86, 88] (nearly all, in practice) need only the core
/// polynomial, where [`exp_f32`] gives the same result with about twice the operations; a slice
/// with any other value takes the general function.
#[inline(always)]
pub fn exp_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    exp_map_slice_f32::<M>(a, o, |x| x)
}

/// `o = e^pre(a)`: the argument computed in the same loop (it is cheap, so the range check
/// computes it once more rather than storing it).
#[inline(always)]
pub fn exp_map_slice_f32<M: Madd>(a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) {
    if all_within_map(a, pre, -86.0, 88.0) {
        for (o, &x) in o.iter_mut().zip(a) {
            *o = exp_core_f32::<M>(pre(x));
        }
    } else {
        for (o, &x) in o.iter_mut().zip(a) {
            *o = exp_f32::<M>(pre(x));
        }
    }
}

/// Whether every `pre(x)` is in `[lo, hi]` (false if any is NaN); one vectorised pass.
#[inline(always)]
fn all_within_map(a: &[f32], pre: impl Fn(f32) -> f32, lo: f32, hi: f32) -> bool {
    a.iter().fold(true, |ok, &x| {
        let y = pre(x);
        ok & (y >= lo) & (y <= hi)
    })
}

/// The logistic function over a slice, with the core exponential when every `-x` is in its range.
#[inline(always)]
pub fn logistic_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    logistic_map_slice_f32::<M>(a, o, |x| x)
}

/// `o = logistic(pre(a))`, as [`exp_map_slice_f32`].
#[inline(always)]
pub fn logistic_map_slice_f32<M: Madd>(a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) {
    if all_within_map(a, pre, -88.0, 86.0) {
        for (o, &x) in o.iter_mut().zip(a) {
            *o = 1.0 / (1.0 + exp_core_f32::<M>(-pre(x)));
        }
    } else {
        for (o, &x) in o.iter_mut().zip(a) {
            *o = logistic_f32::<M>(pre(x));
        }
    }
}

/// e^y - 1 for y in [-20, 0] with one polynomial: y = n ln2 + r, |r| <= ln2/2, and
/// e^y - 1 = 2^n (e^r - 1) + (2^n - 1). For |y| < ln2/2, n = 0 and this is the series itself, so
/// small arguments keep full relative precision; 2^n - 1 is exact for the n that occur.
#[inline(always)]
fn expm1_neg_f32<M: Madd>(y: f32) -> f32 {
    let t = M::madd(y, LOG2E_F, ROUNDER_F);
    let n = t - ROUNDER_F;
    let r = M::madd(n, -LN2_LO_F, M::madd(n, -LN2_HI_F, y));
    let scale = f32::from_bits(t.to_bits().wrapping_add(127) << 23);
    M::madd(scale, expm1_small_f32::<M>(r), scale - 1.0)
}

/// tanh in f32 arithmetic, within a few ulp: tanh|x| = -m / (2 + m) with m = e^(-2|x|) - 1, which
/// has no cancellation near zero. One polynomial and one division per element (this function
/// dominates elementwise chains that use it, so its operation count matters).
#[inline(always)]
pub fn tanh_f32<M: Madd>(x: f32) -> f32 {
    // tanh(9) rounds to 1 in f32; clamping keeps 2^n a normal number.
    let a = x.abs().min(9.0);
    let m = expm1_neg_f32::<M>(-2.0 * a);
    let t = -m / (2.0 + m);
    if x.is_nan() { x } else { t.copysign(x) }
}

/// 1 / (1 + e^-x) in f32 arithmetic.
#[inline(always)]
pub fn logistic_f32<M: Madd>(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32::<M>(-x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_functions_match_the_correctly_rounded_f32_results() {
        // Both ways of computing the polynomials (kernels with and without FMA).
        check::<Separate>();
        check::<Fused>();
    }

    fn check<M: Madd>() {
        let mut worst = (0u32, 0.0f32, 0usize);
        let mut x = -90.0f32;
        while x < 90.0 {
            for (k, (got, want)) in [
                (exp_f32::<M>(x), (x as f64).exp() as f32),
                (tanh_f32::<M>(x), (x as f64).tanh() as f32),
                (logistic_f32::<M>(x), (1.0 / (1.0 + (-(x as f64)).exp())) as f32),
            ]
            .into_iter()
            .enumerate()
            {
                // Results below the smallest normal f32 are flushed to zero (documented above).
                if want.abs() < f32::MIN_POSITIVE && got == 0.0 {
                    continue;
                }
                let d = (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs() as u32;
                if d > worst.0 {
                    worst = (d, x, k);
                }
            }
            x += 0.0137;
        }
        assert!(worst.0 <= 4, "worst difference {} ulp at x = {} (function {})", worst.0, worst.1, worst.2);
        // The slice forms take the core polynomial when they can: bit for bit the same results.
        let xs: Vec<f32> = (0..2000).map(|i| -90.0 + i as f32 * 0.09).chain([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]).collect();
        for window in [&xs[..], &xs[100..300], &xs[1000..1200], &xs[1990..]] {
            let (mut e, mut l) = (vec![0.0f32; window.len()], vec![0.0f32; window.len()]);
            exp_slice_f32::<M>(window, &mut e);
            logistic_slice_f32::<M>(window, &mut l);
            for (k, &x) in window.iter().enumerate() {
                assert_eq!(e[k].to_bits(), exp_f32::<M>(x).to_bits(), "exp({x})");
                assert_eq!(l[k].to_bits(), logistic_f32::<M>(x).to_bits(), "logistic({x})");
            }
        }
        // tanh near zero and around the boundaries of its range reduction, which the grid skips.
        for x in [1e-30f32, 3e-12, 1e-7, 1e-5, 1e-3, 0.0866, 0.1733, 0.1734, 0.2599, 0.35, 0.5199, 8.99, 9.01] {
            for x in [x, -x] {
                let (got, want) = (tanh_f32::<M>(x), (x as f64).tanh() as f32);
                let d = (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs();
                assert!(d <= 4, "tanh({x}) = {got}, want {want} ({d} ulp)");
            }
        }
        assert!(exp_f32::<M>(f32::NAN).is_nan() && tanh_f32::<M>(f32::NAN).is_nan());
        assert_eq!(exp_f32::<M>(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32::<M>(f32::NEG_INFINITY), 0.0);
        assert_eq!(tanh_f32::<M>(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
