//! f64 to bf16 and f16 with one correct rounding (to nearest, ties to even). The `half` crate's
//! `from_f64` drops the low 32 bits of the f64 before rounding, so a value just above a tie in
//! those bits rounds as if it were the tie: e.g. the f32 `0x8c248004` gives bf16 `0x8c24` instead
//! of `0x8c25`. Rounding to f32 with round-to-odd first keeps that information (f32 has more than
//! p + 2 bits for p = 8 and 11, so the second rounding is then exact).

/// `x` rounded to f32 with round-to-odd: the nearest f32 at or toward zero from `x`, with the last
/// bit set when inexact.
fn to_f32_odd(x: f64) -> f32 {
    let y = x as f32;
    if !y.is_finite() || y as f64 == x {
        return y;
    }
    // Truncate toward zero, then mark inexact in the last bit.
    let mut bits = y.to_bits();
    if (y as f64).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

pub fn bf16_from_f64(x: f64) -> half::bf16 {
    half::bf16::from_f32(to_f32_odd(x))
}

pub fn f16_from_f64(x: f64) -> half::f16 {
    half::f16::from_f32(to_f32_odd(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_decided_by_low_bits_round_correctly() {
        let x = f32::from_bits(0x8c24_8004) as f64;
        assert_eq!(bf16_from_f64(x).to_bits(), 0x8c25);
        assert_eq!(bf16_from_f64(f32::from_bits(0x3f80_8000) as f64).to_bits(), 0x3f80, "an exact tie goes to even");
        // 1 + 2^-11 + 2^-40: just above the f16 tie between 1 and 1 + 2^-10.
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11) + 2f64.powi(-40)).to_bits(), 0x3c01);
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)).to_bits(), 0x3c00);
        assert!(bf16_from_f64(f64::NAN).is_nan());
        assert_eq!(bf16_from_f64(1e300).to_bits(), 0x7f80);
        assert_eq!(f16_from_f64(-70000.0).to_bits(), 0xfc00);
        // Every f32 agrees with the f32 conversion (sampled).
        for i in 0..1u64 << 20 {
            let f = f32::from_bits((i as u32).wrapping_mul(2654435761));
            if !f.is_nan() {
                assert_eq!(bf16_from_f64(f as f64), half::bf16::from_f32(f), "{f:e}");
                assert_eq!(f16_from_f64(f as f64), half::f16::from_f32(f), "{f:e}");
            }
        }
    }
}
