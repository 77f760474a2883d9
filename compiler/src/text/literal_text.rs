//! `dense<...>` contents: turning parsed elements into apu's literal storage, and printing literals
//! back so that print → parse gives the same bytes.

use crate::ir::minifloat;
use crate::ir::{ElementType, Literal, TensorType};
use std::fmt;

/// One parsed element (or nested list) of a `dense<...>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseElem {
    Int(i128),
    /// `0x...` integer literal: a bit pattern when the element type is a float.
    Hex(u128),
    Float(f64),
    Bool(bool),
    Complex(Box<DenseElem>, Box<DenseElem>),
    List(Vec<DenseElem>),
}

/// The body of a `dense<...>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseBody {
    Elems(DenseElem),
    /// `dense<"0x0000803F...">`: raw little-endian element bytes.
    HexBytes(Vec<u8>),
    /// `dense<>` (only valid for zero-element tensors).
    Empty,
}

/// Builds a literal of type `ty` from a parsed body; errors are plain messages (the caller adds
/// the position).
pub fn build_literal(body: &DenseBody, ty: &TensorType) -> Result<Literal, String> {
    let n = ty.num_elements();
    let esize = ty.elem.byte_size();
    let lit = match body {
        DenseBody::Empty => {
            if n != 0 {
                return Err(format!("dense<> has no elements but {ty} has {n}"));
            }
            Literal::dense(ty.clone(), Vec::new())
        }
        DenseBody::HexBytes(bytes) => {
            if ty.elem.is_pred() {
                if bytes.len() == n {
                    Literal::dense(ty.clone(), bytes.iter().map(|&b| (b != 0) as u8).collect())
                } else if bytes.len() == 1 {
                    Literal::splat(ty.clone(), vec![(bytes[0] != 0) as u8])
                } else if bytes.len() == n.div_ceil(8) {
                    let unpacked = (0..n).map(|i| (bytes[i / 8] >> (i % 8)) & 1).collect();
                    Literal::dense(ty.clone(), unpacked)
                } else {
                    return Err(format!("hex data of {} bytes does not fit {ty}", bytes.len()));
                }
            } else if bytes.len() == n * esize {
                Literal::dense(ty.clone(), bytes.clone())
            } else if bytes.len() == esize {
                Literal::splat(ty.clone(), bytes.clone())
            } else {
                return Err(format!(
                    "hex data of {} bytes does not fit {ty} ({} bytes, or {esize} for a splat)",
                    bytes.len(),
                    n * esize
                ));
            }
        }
        DenseBody::Elems(DenseElem::List(items)) => {
            // No capacity from the type: it may claim far more elements than the list holds.
            let mut flat = Vec::new();
            flatten(items, &ty.shape, 0, &mut flat)?;
            let mut bytes = Vec::with_capacity(flat.len() * esize);
            for e in flat {
                encode_element(e, ty.elem, &mut bytes)?;
            }
            // Like MLIR, a list whose elements are all equal is a splat.
            if n > 1 && all_equal(&bytes, esize) {
                bytes.truncate(esize);
                Literal::splat(ty.clone(), bytes)
            } else {
                Literal::dense(ty.clone(), bytes)
            }
        }
        DenseBody::Elems(scalar) => {
            let mut bytes = Vec::with_capacity(esize);
            encode_element(scalar, ty.elem, &mut bytes)?;
            Literal::splat(ty.clone(), bytes)
        }
    };
    lit.map_err(|e| e.message)
}

/// Whether every `size`-byte element of `bytes` equals the first.
pub fn all_equal(bytes: &[u8], size: usize) -> bool {
    size > 0 && bytes.len() >= size && bytes.chunks(size).all(|c| c == &bytes[..size])
}

fn flatten<'a>(items: &'a [DenseElem], shape: &[i64], dim: usize, out: &mut Vec<&'a DenseElem>) -> Result<(), String> {
    let Some(&want) = shape.get(dim) else {
        return Err(format!("nested list is deeper than the tensor rank {}", shape.len()));
    };
    if items.len() as i64 != want {
        return Err(format!("dimension {dim} has {} elements in the list but the type says {want}", items.len()));
    }
    for it in items {
        match it {
            DenseElem::List(inner) => flatten(inner, shape, dim + 1, out)?,
            e if dim + 1 == shape.len() => out.push(e),
            _ => return Err(format!("expected a nested list at dimension {}", dim + 1)),
        }
    }
    Ok(())
}

fn int_fits(v: i128, bits: u32, signed: Option<bool>) -> bool {
    let smin = -(1i128 << (bits - 1));
    let smax = (1i128 << (bits - 1)) - 1;
    let umax = (1i128 << bits) - 1;
    match signed {
        Some(true) => (smin..=smax).contains(&v),
        Some(false) => (0..=umax).contains(&v),
        None => (smin..=umax).contains(&v),
    }
}

fn encode_element(e: &DenseElem, t: ElementType, out: &mut Vec<u8>) -> Result<(), String> {
    use ElementType::*;
    match t {
        Pred => match e {
            DenseElem::Bool(b) => out.push(*b as u8),
            DenseElem::Int(v @ (0 | 1)) => out.push(*v as u8),
            DenseElem::Hex(v @ (0 | 1)) => out.push(*v as u8),
            _ => return Err(format!("expected true or false for i1, got {e:?}")),
        },
        _ if t.is_int() => {
            let bits = t.bit_width();
            let v = match e {
                DenseElem::Int(v) => *v,
                DenseElem::Hex(v) => *v as i128,
                DenseElem::Bool(b) => *b as i128,
                _ => return Err(format!("expected an integer for {t}, got {e:?}")),
            };
            // Signless `i32` accepts both signed and unsigned spellings, like MLIR.
            let signed = if t.is_unsigned_int() { Some(false) } else { None };
            if !int_fits(v, bits, signed) {
                return Err(format!("integer {v} does not fit {t}"));
            }
            let size = t.byte_size();
            let mut val = v;
            if bits < 8 {
                // One element per byte, sign- or zero-extended to the byte.
                let masked = v & ((1i128 << bits) - 1);
                val = if t.is_signed_int() && masked >> (bits - 1) == 1 { masked - (1i128 << bits) } else { masked };
            }
            out.extend_from_slice(&(val as i64 as u64).to_le_bytes()[..size.min(8)]);
        }
        C64 | C128 => match e {
            DenseElem::Complex(re, im) => {
                encode_element(re, t.real_part(), out)?;
                encode_element(im, t.real_part(), out)?;
            }
            _ => return Err(format!("expected a (real, imaginary) pair for {t}, got {e:?}")),
        },
        _ => {
            if let DenseElem::Hex(bits) = e {
                let size = t.byte_size();
                if size < 16 && *bits >> (size * 8) != 0 {
                    return Err(format!("hex value {bits:#x} is wider than {t}"));
                }
                out.extend_from_slice(&bits.to_le_bytes()[..size]);
                return Ok(());
            }
            let v = match e {
                DenseElem::Float(v) => *v,
                DenseElem::Int(v) => *v as f64,
                _ => return Err(format!("expected a float for {t}, got {e:?}")),
            };
            encode_float(v, t, out)?;
        }
    }
    Ok(())
}

/// Appends the storage bytes of float `v` rounded to `t`.
pub fn encode_float(v: f64, t: ElementType, out: &mut Vec<u8>) -> Result<(), String> {
    use ElementType::*;
    match t {
        F64 => out.extend_from_slice(&v.to_le_bytes()),
        F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        F16 => out.extend_from_slice(&crate::ir::halfs::f16_from_f64(v).to_bits().to_le_bytes()),
        BF16 => out.extend_from_slice(&crate::ir::halfs::bf16_from_f64(v).to_bits().to_le_bytes()),
        _ if minifloat::is_minifloat(t) => out.push(minifloat::encode(t, v)),
        _ => return Err(format!("{t} is not a float type")),
    }
    Ok(())
}

/// Reads one float element of type `t` from storage bytes.
pub fn decode_float(bytes: &[u8], t: ElementType) -> f64 {
    use ElementType::*;
    let b = |n: usize| {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(a)
    };
    match t {
        F64 => f64::from_bits(b(8)),
        F32 => f32::from_bits(b(4) as u32) as f64,
        F16 => half::f16::from_bits(b(2) as u16).to_f64(),
        BF16 => half::bf16::from_bits(b(2) as u16).to_f64(),
        _ => minifloat::decode(t, bytes[0]),
    }
}

/// Writes a float of type `t` so that reading it back gives the same bits: MLIR's `1.000000e+00`
/// style when six digits suffice, the shortest round-trip decimal otherwise, and the raw bit
/// pattern in hex for NaN, infinities and 8-bit floats.
pub fn write_float(f: &mut fmt::Formatter<'_>, v: f64, t: ElementType) -> fmt::Result {
    let mut bits = Vec::new();
    if encode_float(v, t, &mut bits).is_err() {
        return write!(f, "{v:?}");
    }
    write_float_bits(f, &bits, t)
}

fn write_float_bits(f: &mut fmt::Formatter<'_>, bits: &[u8], t: ElementType) -> fmt::Result {
    let v = decode_float(bits, t);
    let is_mini = t.byte_size() == 1;
    if !v.is_finite() || is_mini {
        return write_hex_bits(f, bits);
    }
    let roundtrips = |s: &str| {
        let mut again = Vec::new();
        s.parse::<f64>().ok().is_some_and(|p| encode_float(p, t, &mut again).is_ok() && again == bits)
    };
    let sci = format!("{v:.6e}");
    if roundtrips(&sci) {
        let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return write!(f, "{mant}e{sign}{:02}", exp.abs());
    }
    match natural_precision_text(v, t) {
        Some(s) if s.contains('.') && roundtrips(&s) => write!(f, "{s}"),
        // MLIR falls back to the bit pattern when the decimal form has no '.'.
        _ => write_hex_bits(f, bits),
    }
}

/// The decimal form MLIR prints for floats that six digits cannot hold: the value rounded to the
/// type's natural number of significant digits (9 for f32, 17 for f64), trailing zeros dropped,
/// plain notation unless that needs more than three padding zeros, else `d.dddE-N`.
fn natural_precision_text(v: f64, t: ElementType) -> Option<String> {
    let digits = match t {
        ElementType::F64 => 17,
        ElementType::F32 => 9,
        ElementType::F16 => 5,
        ElementType::BF16 => 4,
        _ => return None,
    };
    const MAX_PADDING: i64 = 3;
    let sci = format!("{:.*e}", digits - 1, v.abs());
    let (mant, exp) = sci.split_once('e')?;
    let exp10: i64 = exp.parse().ok()?;
    let mut ds: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while ds.len() > 1 && ds.ends_with('0') {
        ds.pop();
    }
    let n = ds.len() as i64;
    // value = ds × 10^exp, and the most significant digit has power exp10.
    let exp = exp10 - (n - 1);
    let scientific = if exp >= 0 { exp > MAX_PADDING || n + exp > digits as i64 } else { exp10 < 0 && -exp10 > MAX_PADDING };
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    if scientific {
        out.push_str(&ds[..1]);
        out.push('.');
        out.push_str(if n == 1 { "0" } else { &ds[1..] });
        out.push('E');
        out.push_str(if exp10 < 0 { "-" } else { "+" });
        out.push_str(&exp10.abs().to_string());
    } else if exp >= 0 {
        out.push_str(&ds);
        out.push_str(&"0".repeat(exp as usize));
    } else if exp10 >= 0 {
        let whole = (exp10 + 1) as usize;
        out.push_str(&ds[..whole]);
        out.push('.');
        out.push_str(&ds[whole..]);
    } else {
        out.push_str("0.");
        out.push_str(&"0".repeat((-exp10 - 1) as usize));
        out.push_str(&ds);
    }
    Some(out)
}

fn write_hex_bits(f: &mut fmt::Formatter<'_>, bits: &[u8]) -> fmt::Result {
    write!(f, "0x")?;
    for b in bits.iter().rev() {
        write!(f, "{b:02X}")?;
    }
    Ok(())
}

fn write_element(f: &mut fmt::Formatter<'_>, bytes: &[u8], t: ElementType) -> fmt::Result {
    use ElementType::*;
    let raw = |n: usize| {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(a)
    };
    match t {
        Pred => write!(f, "{}", bytes[0] != 0),
        S2 | S4 | S8 => write!(f, "{}", bytes[0] as i8),
        S16 => write!(f, "{}", raw(2) as i16),
        S32 => write!(f, "{}", raw(4) as i32),
        S64 => write!(f, "{}", raw(8) as i64),
        U2 | U4 | U8 => write!(f, "{}", bytes[0]),
        U16 | U32 | U64 => write!(f, "{}", raw(t.byte_size())),
        C64 | C128 => {
            let half = t.byte_size() / 2;
            write!(f, "(")?;
            write_float_bits(f, &bytes[..half], t.real_part())?;
            write!(f, ", ")?;
            write_float_bits(f, &bytes[half..], t.real_part())?;
            write!(f, ")")
        }
        _ => write_float_bits(f, &bytes[..t.byte_size()], t),
    }
}

/// Above this many elements a non-splat constant is printed as a hex string.
const LIST_PRINT_LIMIT: usize = 64;

fn write_nested(f: &mut fmt::Formatter<'_>, lit: &Literal, dim: usize, offset: &mut usize) -> fmt::Result {
    let esize = lit.ty.elem.byte_size();
    if dim == lit.ty.rank() {
        let start = *offset * esize;
        *offset += 1;
        return write_element(f, &lit.bytes[start..start + esize], lit.ty.elem);
    }
    write!(f, "[")?;
    for i in 0..lit.ty.shape[dim].max(0) {
        if i > 0 {
            write!(f, ", ")?;
        }
        write_nested(f, lit, dim + 1, offset)?;
    }
    write!(f, "]")
}

/// Writes `dense<...> : tensor<...>`.
pub fn write_dense(f: &mut fmt::Formatter<'_>, lit: &Literal) -> fmt::Result {
    let n = lit.ty.num_elements();
    write!(f, "dense<")?;
    let esize = lit.ty.elem.byte_size();
    if lit.splat && n != 0 {
        write_element(f, &lit.bytes, lit.ty.elem)?;
    } else if n > 1 && lit.bytes.len() == lit.ty.byte_size() && all_equal(&lit.bytes, esize) {
        // MLIR prints a constant whose elements are all equal as a splat.
        write_element(f, &lit.bytes[..esize], lit.ty.elem)?;
    } else if n == 0 {
        // Nothing between the brackets; MLIR prints `dense<>` for empty tensors.
    } else if n > LIST_PRINT_LIMIT || lit.bytes.len() != lit.ty.byte_size() {
        write!(f, "\"0x")?;
        for b in lit.bytes.iter() {
            write!(f, "{b:02X}")?;
        }
        write!(f, "\"")?;
    } else if lit.ty.rank() == 0 {
        write_element(f, &lit.bytes, lit.ty.elem)?;
    } else {
        write_nested(f, lit, 0, &mut 0)?;
    }
    write!(f, "> : {}", lit.ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct F(f64, ElementType);
    impl fmt::Display for F {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_float(f, self.0, self.1)
        }
    }

    #[test]
    fn floats_print_like_mlir_and_round_trip() {
        assert_eq!(F(1.0, ElementType::F32).to_string(), "1.000000e+00");
        assert_eq!(F(-2.954600e-03, ElementType::F32).to_string(), "-2.954600e-03");
        assert_eq!(F(f64::NEG_INFINITY, ElementType::F32).to_string(), "0xFF800000");
        let v = -0.99999994f32 as f64;
        let s = F(v, ElementType::F32).to_string();
        assert_eq!(s.parse::<f64>().unwrap() as f32, v as f32);
        let tiny = 1e-30f32 as f64;
        let s = F(tiny, ElementType::F32).to_string();
        assert!(s.contains('.'), "{s}");
        assert_eq!(s.parse::<f64>().unwrap() as f32, tiny as f32);
    }

    #[test]
    fn floats_print_exactly_as_mlir_does() {
        // Spellings taken from MLIR's printout of StableHLO constants.
        for s in ["-2.72614237E-10", "0.00943887047", "2.1858087E-4", "-0.0142647391", "1.41421354", "-0.99999994", "0.333333343", "2.000000e+00"] {
            let v = s.parse::<f32>().unwrap() as f64;
            assert_eq!(F(v, ElementType::F32).to_string(), s);
        }
        for s in ["-709.78271289338397", "2.4619698147353052E-10", "0.56418958354775506", "557.53533536939938", "-0.0060336708714301491", "6.6376381343583238E-15", "1.6536545626831027"] {
            let v = s.parse::<f64>().unwrap();
            assert_eq!(F(v, ElementType::F64).to_string(), s);
        }
        // No '.' in the natural form: the bit pattern instead, as MLIR does.
        assert_eq!(F(16777217.0, ElementType::F64).to_string(), "0x4170000010000000");
    }

    #[test]
    fn builds_nested_and_splat_literals() {
        let ty = TensorType::new(vec![2, 2], ElementType::S64);
        let body = DenseBody::Elems(DenseElem::List(vec![
            DenseElem::List(vec![DenseElem::Int(5), DenseElem::Int(0)]),
            DenseElem::List(vec![DenseElem::Int(-1), DenseElem::Int(0)]),
        ]));
        let lit = build_literal(&body, &ty).unwrap();
        assert_eq!(&lit.bytes[16..24], &(-1i64).to_le_bytes());
        let splat = build_literal(&DenseBody::Elems(DenseElem::Int(1)), &ty).unwrap();
        assert!(splat.splat);
        let same = DenseBody::Elems(DenseElem::List(vec![DenseElem::List(vec![DenseElem::Int(3), DenseElem::Int(3)]); 2]));
        let lit = build_literal(&same, &ty).unwrap();
        assert!(lit.splat && lit.bytes.len() == 8, "a list of equal elements is a splat");
        assert!(build_literal(&DenseBody::Elems(DenseElem::List(vec![DenseElem::Int(1)])), &ty).is_err());
        let u8t = TensorType::scalar(ElementType::U8);
        assert!(build_literal(&DenseBody::Elems(DenseElem::Int(256)), &u8t).is_err());
        assert!(build_literal(&DenseBody::Elems(DenseElem::Int(-1)), &u8t).is_err());
    }

    #[test]
    fn hex_float_bit_patterns() {
        let ty = TensorType::scalar(ElementType::F32);
        let lit = build_literal(&DenseBody::Elems(DenseElem::Hex(0xFF800000)), &ty).unwrap();
        assert_eq!(f32::from_le_bytes(lit.bytes[..4].try_into().unwrap()), f32::NEG_INFINITY);
    }
}
