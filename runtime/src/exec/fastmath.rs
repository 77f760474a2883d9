//! Vectorisable exp/tanh/logistic for f32 kernels in f32 arithmetic (16 lanes with AVX-512), a few
//! ulp from the correctly rounded results the interpreter computes through f64. f64 kernels use the
//! standard library.

const LOG2E_F: f32 = std::f32::consts::LOG2_E;
/// ln 2 split so that `n * LN2_HI_F` is exact for the n that occur.
const LN2_HI_F: f32 = 355.0 / 512.0;
const LN2_LO_F: f32 = -2.121_944_5e-4;
/// 1.5 * 2^23: adding it rounds an f32 to an integer held in the low mantissa bits.
const ROUNDER_F: f32 = 12_582_912.0;

/// e^x in f32 arithmetic for x in [-87, 88.7] (so that 2^n is a normal number).
#[inline(always)]
fn exp_core_f32(x: f32) -> f32 {
    let t = x * LOG2E_F + ROUNDER_F;
    let n = t - ROUNDER_F;
    let r = x - n * LN2_HI_F - n * LN2_LO_F;
    // Taylor series to degree 7 on |r| <= ln2/2: truncation error about 0.1 ulp.
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    let scale = f32::from_bits(t.to_bits().wrapping_add(127) << 23);
    p * scale
}

/// e^x - 1 for |x| <= 0.7 (Taylor series to degree 8, about 1 ulp).
#[inline(always)]
fn expm1_small_f32(u: f32) -> f32 {
    let mut p = 1.0 / 40320.0;
    p = p * u + 1.0 / 5040.0;
    p = p * u + 1.0 / 720.0;
    p = p * u + 1.0 / 120.0;
    p = p * u + 1.0 / 24.0;
    p = p * u + 1.0 / 6.0;
    p = p * u + 0.5;
    p = p * u + 1.0;
    p * u
}

/// e^x in f32 arithmetic, within a few ulp of the correctly rounded result (subnormal results
/// may differ by more ulps, being tiny in absolute terms).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
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
    let y = exp_core_f32(c + shift) * factor;
    let y = if x > 88.722_84 { f32::INFINITY } else if x < -104.0 { 0.0 } else { y };
    if x.is_nan() { x } else { y }
}

/// tanh in f32 arithmetic, within a few ulp: expm1 near zero (no cancellation), e^(-2|x|) beyond.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let em = expm1_small_f32(-2.0 * a.min(0.35));
    let e = exp_core_f32(-2.0 * a.clamp(0.35, 40.0));
    // Small: -em / (2 + em); big: (1 - e) / (1 + e). Picking numerator and denominator first
    // costs one vector division per element instead of two (divisions dominate this function).
    let small = a < 0.35;
    let num = if small { -em } else { 1.0 - e };
    let den = if small { 2.0 + em } else { 1.0 + e };
    let t = num / den;
    if x.is_nan() { x } else { t.copysign(x) }
}

/// 1 / (1 + e^-x) in f32 arithmetic.
#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_functions_match_the_correctly_rounded_f32_results() {
        let mut worst = (0u32, 0.0f32, 0usize);
        let mut x = -90.0f32;
        while x < 90.0 {
            for (k, (got, want)) in [
                (exp_f32(x), (x as f64).exp() as f32),
                (tanh_f32(x), (x as f64).tanh() as f32),
                (logistic_f32(x), (1.0 / (1.0 + (-(x as f64)).exp())) as f32),
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
        assert!(exp_f32(f32::NAN).is_nan() && tanh_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
