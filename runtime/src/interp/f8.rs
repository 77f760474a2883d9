//! The 8-bit float formats, decoded to f32 for storage and encoded back when written.
//!
//! Three families: IEEE-like (`F8E5M2`, `F8E4M3`, `F8E3M4`: infinities, NaN = all-ones exponent
//! with a non-zero mantissa), `F8E4M3FN` (no infinities; only S.1111.111 is NaN) and the FNUZ
//! formats (no infinities, no negative zero; 0x80 is the only NaN). Encoding rounds to nearest,
//! ties to even; a value that rounds past the largest finite one becomes infinity (IEEE-like) or
//! NaN (the others), as ml_dtypes and XLA do.

use apu_compiler::ir::ElementType;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Ieee,
    FiniteOnly,
    Fnuz,
}

#[derive(Clone, Copy)]
struct Format {
    mantissa_bits: u32,
    bias: i32,
    kind: Kind,
}

fn format(elem: ElementType) -> Option<Format> {
    use ElementType::*;
    let (mantissa_bits, bias, kind) = match elem {
        F8E5M2 => (2, 15, Kind::Ieee),
        F8E4M3 => (3, 7, Kind::Ieee),
        F8E3M4 => (4, 3, Kind::Ieee),
        F8E4M3FN => (3, 7, Kind::FiniteOnly),
        F8E4M3FNUZ => (3, 8, Kind::Fnuz),
        F8E5M2FNUZ => (2, 16, Kind::Fnuz),
        F8E4M3B11FNUZ => (3, 11, Kind::Fnuz),
        _ => return None,
    };
    Some(Format { mantissa_bits, bias, kind })
}

pub fn is_f8(elem: ElementType) -> bool {
    format(elem).is_some()
}

/// The magnitude of a non-negative code (0..=0x7F), or `None` for NaN and infinity codes.
fn magnitude(f: Format, code: u8) -> Option<f64> {
    let m = f.mantissa_bits;
    let e = (code >> m) as i32;
    let man = (code & ((1 << m) - 1)) as f64;
    let top_e: i32 = 0x7F >> m;
    match f.kind {
        Kind::Ieee if e == top_e => return None,
        Kind::FiniteOnly if code == 0x7F => return None,
        _ => {}
    }
    let scale = 2f64.powi(-(m as i32));
    Some(if e == 0 { man * scale * 2f64.powi(1 - f.bias) } else { (1.0 + man * scale) * 2f64.powi(e - f.bias) })
}

/// The largest finite non-negative code.
fn max_code(f: Format) -> u8 {
    match f.kind {
        Kind::Ieee => ((0x7F >> f.mantissa_bits) << f.mantissa_bits) as u8 - 1,
        Kind::FiniteOnly => 0x7E,
        Kind::Fnuz => 0x7F,
    }
}

pub fn decode(elem: ElementType, code: u8) -> f32 {
    let Some(f) = format(elem) else { return f32::NAN };
    if f.kind == Kind::Fnuz && code == 0x80 {
        return f32::NAN;
    }
    let negative = code & 0x80 != 0;
    let v = match magnitude(f, code & 0x7F) {
        Some(v) => v as f32,
        // Only IEEE-like formats have infinities: mantissa zero under the top exponent.
        None if f.kind == Kind::Ieee && code & ((1 << f.mantissa_bits) - 1) == 0 => f32::INFINITY,
        None => f32::NAN,
    };
    if negative {
        -v
    } else {
        v
    }
}

fn nan_code(f: Format, negative: bool) -> u8 {
    let sign = if negative { 0x80 } else { 0 };
    match f.kind {
        Kind::Ieee => sign | ((0x7F >> f.mantissa_bits) << f.mantissa_bits) as u8 | (1 << (f.mantissa_bits - 1)),
        Kind::FiniteOnly => sign | 0x7F,
        Kind::Fnuz => 0x80,
    }
}

pub fn encode(elem: ElementType, x: f64) -> u8 {
    let Some(f) = format(elem) else { return 0 };
    let negative = x.is_sign_negative();
    let sign = if negative { 0x80u8 } else { 0 };
    if x.is_nan() {
        return nan_code(f, negative);
    }
    let top = max_code(f);
    let overflow = || if f.kind == Kind::Ieee { sign | (top + 1) } else { nan_code(f, negative) };
    let a = x.abs();
    if a.is_infinite() {
        return overflow();
    }
    // Largest code whose magnitude is <= a (codes are monotonic in magnitude).
    let mut lo = 0u8;
    let mut hi = top;
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if magnitude(f, mid).unwrap_or(f64::INFINITY) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let c = lo;
    let below = magnitude(f, c).unwrap_or(0.0);
    let code = if below == a {
        c
    } else {
        // The next magnitude up; past the top code it is one more step of the top binade.
        let above = if c < top { magnitude(f, c + 1).unwrap_or(f64::INFINITY) } else { 2.0 * below - magnitude(f, c - 1).unwrap_or(0.0) };
        let mid = (below + above) / 2.0;
        if a < mid || (a == mid && c & 1 == 0) {
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
