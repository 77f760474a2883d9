//! Vectorisable exp/tanh/logistic for f32 kernels, computed in f64 so that the f32 result is the
//! correctly rounded one in practice (the polynomial's error, about 1e-15 relative, is far below
//! half an f32 ulp). f64 kernels use the standard library instead.

const LOG2E: f64 = std::f64::consts::LOG2_E;
const LN2_HI: f64 = 6.931_471_803_691_238_2e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// 1.5 * 2^52: adding it rounds to an integer held in the low mantissa bits.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// e^x for x in any range; inputs are clamped to [-708, 709], beyond which f32 results are 0 or inf.
#[inline(always)]
pub fn exp_f64(x: f64) -> f64 {
    let x = x.clamp(-708.0, 709.0);
    let t = x * LOG2E + ROUNDER;
    let n = t - ROUNDER;
    let r = x - n * LN2_HI - n * LN2_LO;
    // Taylor series to degree 11 on |r| <= ln2/2.
    let mut p = 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^n from the integer in t's low bits; n is in [-1022, 1023] after the clamp.
    let scale = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    p * scale
}

#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    exp_f64(x as f64) as f32
}

#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let x = x as f64;
    let a = x.abs();
    let small = x * (1.0 - x * x * (1.0 / 3.0));
    let e = exp_f64(2.0 * a.min(40.0));
    let big = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    let y = if a < 1e-4 { small } else { big };
    (if x.is_nan() { x } else { y }) as f32
}

#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    (1.0 / (1.0 + exp_f64(-(x as f64)))) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_functions_match_the_correctly_rounded_f32_results() {
        let mut worst = 0u32;
        let mut x = -90.0f32;
        while x < 90.0 {
            for (got, want) in [
                (exp_f32(x), (x as f64).exp() as f32),
                (tanh_f32(x), (x as f64).tanh() as f32),
                (logistic_f32(x), (1.0 / (1.0 + (-(x as f64)).exp())) as f32),
            ] {
                let d = (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs() as u32;
                worst = worst.max(d);
            }
            x += 0.0137;
        }
        assert!(worst <= 1, "worst difference {worst} ulp");
        assert!(exp_f32(f32::NAN).is_nan() && tanh_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
