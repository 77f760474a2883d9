//! The narrow float formats (8, 6 and 4 bits), each stored one per byte in the low bits: decoding to
//! f64, and encoding with round-to-nearest, as ml_dtypes and XLA do. One implementation for the
//! text reader's constants and the interpreter's arithmetic, so they cannot disagree.
//!
//! Five families:
//! - IEEE-like (`F8E5M2`, `F8E4M3`, `F8E3M4`): infinities, NaN = all-ones exponent with a non-zero
//!   mantissa; overflow becomes infinity;
//! - `F8E4M3FN`: no infinities, only S.1111.111 is NaN; overflow becomes NaN;
//! - FNUZ (`F8E4M3FNUZ`, `F8E5M2FNUZ`, `F8E4M3B11FNUZ`): no infinities, no negative zero, the
//!   negative-zero code is the only NaN; overflow becomes NaN;
//! - saturating (`F6E2M3FN`, `F6E3M2FN`, `F4E2M1FN`): every code is finite; overflow and infinities
//!   become the largest magnitude, NaN becomes the negative-zero code (what ml_dtypes 0.6 writes);
//! - `F8E8M0FNU`: no sign, no mantissa, no zero: code c is 2^(c-127), 0xFF is NaN; zero, negative
//!   numbers, infinities and overflow become NaN, values below 2^-127 become 2^-127, and a value
//!   exactly halfway (1.5 * 2^k) rounds up.
//!
//! Ties otherwise go to the even code. Encoding searches the (at most 255) magnitudes: cheap, and
//! obviously right for such small formats.

use super::ElementType;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Ieee,
    FiniteOnly,
    Fnuz,
    Saturating,
    ExponentOnly,
}

#[derive(Clone, Copy, Debug)]
struct Format {
    /// Bits of the code, the sign included (when there is one).
    bits: u32,
    mantissa_bits: u32,
    bias: i32,
    kind: Kind,
}

fn format(elem: ElementType) -> Option<Format> {
    use ElementType::*;
    let (bits, mantissa_bits, bias, kind) = match elem {
        F8E5M2 => (8, 2, 15, Kind::Ieee),
        F8E4M3 => (8, 3, 7, Kind::Ieee),
        F8E3M4 => (8, 4, 3, Kind::Ieee),
        F8E4M3FN => (8, 3, 7, Kind::FiniteOnly),
        F8E4M3FNUZ => (8, 3, 8, Kind::Fnuz),
        F8E5M2FNUZ => (8, 2, 16, Kind::Fnuz),
        F8E4M3B11FNUZ => (8, 3, 11, Kind::Fnuz),
        F8E8M0FNU => (8, 0, 127, Kind::ExponentOnly),
        F6E2M3FN => (6, 3, 1, Kind::Saturating),
        F6E3M2FN => (6, 2, 3, Kind::Saturating),
        F4E2M1FN => (4, 1, 1, Kind::Saturating),
        _ => return None,
    };
    Some(Format { bits, mantissa_bits, bias, kind })
}

impl Format {
    fn sign_bit(self) -> u8 {
        if self.kind == Kind::ExponentOnly {
            0
        } else {
            1 << (self.bits - 1)
        }
    }

    /// The codes of non-negative values: 0..=magnitude_mask.
    fn magnitude_mask(self) -> u8 {
        if self.kind == Kind::ExponentOnly {
            0xFF
        } else {
            self.sign_bit() - 1
        }
    }

    /// The value of a non-negative code, or `None` for NaN and infinity codes.
    fn magnitude(self, code: u8) -> Option<f64> {
        let m = self.mantissa_bits;
        let e = (code >> m) as i32;
        let man = (code & ((1u8 << m) - 1)) as f64;
        let top_e = (self.magnitude_mask() >> m) as i32;
        match self.kind {
            Kind::Ieee if e == top_e => return None,
            Kind::FiniteOnly | Kind::ExponentOnly if code == self.magnitude_mask() => return None,
            Kind::ExponentOnly => return Some(2f64.powi(e - self.bias)),
            _ => {}
        }
        let scale = 2f64.powi(-(m as i32));
        Some(if e == 0 { man * scale * 2f64.powi(1 - self.bias) } else { (1.0 + man * scale) * 2f64.powi(e - self.bias) })
    }

    /// The largest finite non-negative code.
    fn max_code(self) -> u8 {
        let mask = self.magnitude_mask();
        match self.kind {
            Kind::Ieee => ((mask >> self.mantissa_bits) << self.mantissa_bits) - 1,
            Kind::FiniteOnly | Kind::ExponentOnly => mask - 1,
            Kind::Fnuz | Kind::Saturating => mask,
        }
    }

    fn nan_code(self, negative: bool) -> u8 {
        let sign = if negative { self.sign_bit() } else { 0 };
        let mask = self.magnitude_mask();
        match self.kind {
            Kind::Ieee => sign | ((mask >> self.mantissa_bits) << self.mantissa_bits) | (1 << (self.mantissa_bits - 1)),
            Kind::FiniteOnly => sign | mask,
            Kind::Fnuz | Kind::Saturating => self.sign_bit(),
            Kind::ExponentOnly => 0xFF,
        }
    }
}

/// Whether `elem` is one of the narrow float formats above.
pub fn is_minifloat(elem: ElementType) -> bool {
    format(elem).is_some()
}

/// The value of a stored code (bits above the format's width are ignored); NaN for a non-narrow type.
pub fn decode(elem: ElementType, code: u8) -> f64 {
    let Some(f) = format(elem) else { return f64::NAN };
    let code = code & (f.sign_bit() | f.magnitude_mask());
    if f.kind == Kind::Fnuz && code == f.sign_bit() {
        return f64::NAN;
    }
    let v = match f.magnitude(code & f.magnitude_mask()) {
        Some(v) => v,
        // Only IEEE-like formats have infinities: mantissa zero under the top exponent.
        None if f.kind == Kind::Ieee && code & ((1 << f.mantissa_bits) - 1) == 0 => f64::INFINITY,
        None => f64::NAN,
    };
    if code & f.sign_bit() != 0 {
        -v
    } else {
        v
    }
}

/// The code nearest to `x` (see the module comment for ties, overflow and NaN); 0 for a non-narrow type.
pub fn encode(elem: ElementType, x: f64) -> u8 {
    let Some(f) = format(elem) else { return 0 };
    let negative = x.is_sign_negative();
    if x.is_nan() || (f.kind == Kind::ExponentOnly && (negative || x == 0.0)) {
        return f.nan_code(negative);
    }
    let sign = if negative { f.sign_bit() } else { 0 };
    let top = f.max_code();
    let overflow = || match f.kind {
        Kind::Ieee => sign | (top + 1),
        Kind::Saturating => sign | top,
        _ => f.nan_code(negative),
    };
    let a = x.abs();
    if a.is_infinite() {
        return overflow();
    }
    // Largest code whose magnitude is <= a (codes are monotonic in magnitude); 0 when a is below all.
    let mut lo = 0u8;
    let mut hi = top;
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if f.magnitude(mid).unwrap_or(f64::INFINITY) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let c = lo;
    let below = f.magnitude(c).unwrap_or(0.0);
    let code = if below >= a {
        c
    } else {
        // The next magnitude up; past the top code, one more step of the top binade.
        let above = if c < top {
            f.magnitude(c + 1).unwrap_or(f64::INFINITY)
        } else if f.kind == Kind::ExponentOnly {
            2.0 * below
        } else {
            2.0 * below - f.magnitude(c - 1).unwrap_or(0.0)
        };
        let mid = (below + above) / 2.0;
        let tie_up = f.kind == Kind::ExponentOnly || c & 1 == 1;
        if a < mid || (a == mid && !tie_up) {
            c
        } else {
            c + 1
        }
    };
    if code > top {
        return overflow();
    }
    if code == 0 && f.kind == Kind::Fnuz {
        return 0; // no negative zero
    }
    sign | code
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElementType::*;

    const NARROW: [ElementType; 11] =
        [F8E5M2, F8E4M3, F8E3M4, F8E4M3FN, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ, F8E8M0FNU, F6E2M3FN, F6E3M2FN, F4E2M1FN];

    #[test]
    fn every_finite_code_encodes_back_to_itself() {
        for elem in NARROW {
            let f = format(elem).unwrap();
            for code in 0..=(f.sign_bit() | f.magnitude_mask()) {
                let v = decode(elem, code);
                if v.is_finite() && !(v == 0.0 && f.kind == Kind::Fnuz && code != 0) {
                    assert_eq!(encode(elem, v), code, "{elem} code {code:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn the_narrowest_formats_by_hand() {
        // f4E2M1FN: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
        let f4: Vec<f64> = (0..8).map(|c| decode(F4E2M1FN, c)).collect();
        assert_eq!(f4, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
        assert_eq!(decode(F4E2M1FN, 0xF), -6.0);
        assert_eq!(encode(F4E2M1FN, 100.0), 0x7);
        assert_eq!(encode(F4E2M1FN, f64::NEG_INFINITY), 0xF);
        assert_eq!(encode(F4E2M1FN, 0.25), 0x0); // tie between 0 and 0.5: even code
        assert_eq!(encode(F4E2M1FN, 1.75), 0x4); // tie between 1.5 and 2: even code
        assert_eq!(encode(F4E2M1FN, f64::NAN), 0x8);
        assert_eq!(decode(F6E2M3FN, 0x1F), 7.5);
        assert_eq!(decode(F6E3M2FN, 0x1F), 28.0);
        assert_eq!(decode(F8E8M0FNU, 127), 1.0);
        assert_eq!(decode(F8E8M0FNU, 0), 2f64.powi(-127));
        assert!(decode(F8E8M0FNU, 0xFF).is_nan());
        assert_eq!(encode(F8E8M0FNU, 3.0), 129); // 1.5 * 2: rounds up to 4
        assert_eq!(encode(F8E8M0FNU, 2.5), 128);
        assert_eq!(encode(F8E8M0FNU, 1e-45), 0);
        for bad in [0.0, -0.0, -1.0, f64::INFINITY, 1.5 * 2f64.powi(127)] {
            assert_eq!(encode(F8E8M0FNU, bad), 0xFF, "{bad}");
        }
        assert_eq!(encode(F8E8M0FNU, 1.4 * 2f64.powi(127)), 254);
    }
}
