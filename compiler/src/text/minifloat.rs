//! 8-bit float formats (f8E5M2, f8E4M3FN, ...): decoding, and encoding with round-to-nearest-even
//! by searching the 128 magnitudes (cheap, and obviously correct for such small formats).

use crate::ir::ElementType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    /// IEEE-like: exponent all ones is infinity (mantissa 0) or NaN.
    Ieee,
    /// `FN`: no infinities; only S.1111.111 is NaN.
    FiniteAllOnesNan,
    /// `FNUZ`: no infinities, no negative zero; 0x80 is NaN.
    FiniteNegZeroNan,
}

#[derive(Clone, Copy, Debug)]
pub struct Format {
    man_bits: u32,
    exp_bits: u32,
    bias: i32,
    special: Special,
}

impl Format {
    pub fn of(t: ElementType) -> Option<Format> {
        use ElementType::*;
        use Special::*;
        let (exp_bits, man_bits, bias, special) = match t {
            F8E5M2 => (5, 2, 15, Ieee),
            F8E4M3 => (4, 3, 7, Ieee),
            F8E3M4 => (3, 4, 3, Ieee),
            F8E4M3FN => (4, 3, 7, FiniteAllOnesNan),
            F8E4M3FNUZ => (4, 3, 8, FiniteNegZeroNan),
            F8E5M2FNUZ => (5, 2, 16, FiniteNegZeroNan),
            F8E4M3B11FNUZ => (4, 3, 11, FiniteNegZeroNan),
            _ => return None,
        };
        Some(Format { man_bits, exp_bits, bias, special })
    }

    fn exp_mask(&self) -> u8 {
        ((1u32 << self.exp_bits) - 1) as u8
    }
    fn man_mask(&self) -> u8 {
        ((1u32 << self.man_bits) - 1) as u8
    }

    fn is_nan_code(&self, b: u8) -> bool {
        let e = (b >> self.man_bits) & self.exp_mask();
        let m = b & self.man_mask();
        match self.special {
            Special::Ieee => e == self.exp_mask() && m != 0,
            Special::FiniteAllOnesNan => e == self.exp_mask() && m == self.man_mask(),
            Special::FiniteNegZeroNan => b == 0x80,
        }
    }

    pub fn decode(&self, b: u8) -> f64 {
        if self.is_nan_code(b) {
            return f64::NAN;
        }
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = ((b >> self.man_bits) & self.exp_mask()) as i32;
        let m = (b & self.man_mask()) as f64;
        let scale = (1u32 << self.man_bits) as f64;
        if self.special == Special::Ieee && e == self.exp_mask() as i32 {
            return sign * f64::INFINITY;
        }
        let mag = if e == 0 {
            m / scale * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + m / scale) * 2f64.powi(e - self.bias)
        };
        sign * mag
    }

    fn nan_code(&self) -> u8 {
        match self.special {
            Special::Ieee => (self.exp_mask() << self.man_bits) | (1 << (self.man_bits - 1)),
            Special::FiniteAllOnesNan => 0x7F,
            Special::FiniteNegZeroNan => 0x80,
        }
    }

    pub fn encode(&self, v: f64) -> u8 {
        if v.is_nan() {
            return self.nan_code();
        }
        let negative = v.is_sign_negative();
        let mag = v.abs();
        // Largest finite magnitude and the overflow threshold (half an ulp above it).
        let mut best: Option<(u8, f64)> = None;
        let mut max_finite = 0.0f64;
        for code in 0u8..0x80 {
            let d = self.decode(code);
            if !d.is_finite() {
                continue;
            }
            max_finite = max_finite.max(d);
            let dist = (d - mag).abs();
            best = match best {
                Some((c, bd)) if bd < dist || (bd == dist && c & 1 == 0) => Some((c, bd)),
                _ => Some((code, dist)),
            };
        }
        let top_ulp = 2f64.powi((self.exp_mask() as i32 - if self.special == Special::Ieee { 1 } else { 0 }) - self.bias - self.man_bits as i32);
        if mag >= max_finite + top_ulp / 2.0 {
            return match self.special {
                Special::Ieee => ((negative as u8) << 7) | (self.exp_mask() << self.man_bits),
                _ => self.nan_code(),
            };
        }
        let code = best.map(|b| b.0).unwrap_or(0);
        if negative && !(code == 0 && self.special == Special::FiniteNegZeroNan) {
            code | 0x80
        } else {
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let e4m3fn = Format::of(ElementType::F8E4M3FN).unwrap();
        assert_eq!(e4m3fn.decode(0x7E), 448.0);
        assert!(e4m3fn.decode(0x7F).is_nan());
        assert_eq!(e4m3fn.encode(1.0), 0x38);
        assert_eq!(e4m3fn.encode(-2.0), 0xC0);
        let e5m2 = Format::of(ElementType::F8E5M2).unwrap();
        assert_eq!(e5m2.decode(0x7C), f64::INFINITY);
        assert_eq!(e5m2.encode(1e9), 0x7C);
        assert_eq!(e5m2.encode(57344.0), 0x7B);
        let fnuz = Format::of(ElementType::F8E4M3FNUZ).unwrap();
        assert_eq!(fnuz.encode(-0.0), 0x00);
        assert!(fnuz.decode(0x80).is_nan());
        for code in 0u8..=255 {
            let d = e4m3fn.decode(code);
            if d.is_finite() && !(d == 0.0 && code == 0x80) {
                assert_eq!(e4m3fn.encode(d), code, "code {code:#x}");
            }
        }
    }
}
