//! `convert`, `bitcast_convert` and `reduce_precision`.

use super::array::{is_stored, Array, Scalar};
use super::value::Dense;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::{Error, Result};

/// Element-by-element conversion with the rules of [`Array::from_scalars`]: float → int truncates,
/// saturates and maps NaN to 0; int → int wraps; complex → real drops the imaginary part.
pub fn convert(x: &Dense, result: &TensorType) -> Result<Dense> {
    let data = Array::from_scalars(result.elem, (0..x.data.len()).map(|k| x.data.get(k)))?;
    Dense::new(TensorType::new(x.ty.shape.clone(), result.elem), data)
}

/// Reinterprets the bytes (little-endian, row-major), so that an element wider than the result's
/// spreads over the last result dimension, lowest byte first, as on XLA:CPU.
pub fn bitcast_convert(x: &Dense, result: &TensorType) -> Result<Dense> {
    if !is_stored(result.elem) {
        return Err(Error::unimplemented(format!("bitcast_convert for {}", result.elem)));
    }
    let wanted = result.num_elements() * stored_width(result.elem) as usize;
    if x.ty.num_elements() * stored_width(x.elem()) as usize != wanted {
        return Err(Error::invalid(format!("bitcast_convert: {} and {result} differ in bit size", x.ty)));
    }
    let bits = pack(&x.data.to_bytes_as(x.elem()), x.elem());
    Dense::new(result.clone(), Array::from_bytes(result.elem, &unpack(&bits, result.elem, result.num_elements()))?)
}

/// Bits per element as the values are laid out for bitcasts: sub-byte integers (stored one per
/// byte) are packed densely, lowest element in the lowest bits, which is how XLA and numpy's
/// reference (`lax_reference.bitcast_convert_type`) see them; predicates stay one byte.
fn stored_width(elem: ElementType) -> u32 {
    match elem {
        ElementType::Pred => 8,
        e => e.bit_width(),
    }
}

/// apu's storage bytes of `elem` values as a dense little-endian bit stream.
fn pack(stored: &[u8], elem: ElementType) -> Vec<u8> {
    let w = stored_width(elem) as usize;
    if w % 8 == 0 {
        return stored.to_vec();
    }
    let mask = (1u8 << w) - 1;
    let mut out = vec![0u8; (stored.len() * w).div_ceil(8)];
    for (k, &v) in stored.iter().enumerate() {
        out[k * w / 8] |= (v & mask) << (k * w % 8);
    }
    out
}

/// The inverse of [`pack`]: `n` values of `elem` in apu's storage format (one byte per sub-byte
/// value; `Array::from_bytes` re-extends signed ones from their width).
fn unpack(bits: &[u8], elem: ElementType, n: usize) -> Vec<u8> {
    let w = stored_width(elem) as usize;
    if w % 8 == 0 {
        return bits.to_vec();
    }
    let mask = (1u8 << w) - 1;
    (0..n).map(|k| (bits[k * w / 8] >> (k * w % 8)) & mask).collect()
}

/// Rounds an f64 to `mantissa_bits` (ties to even) and then flushes or overflows values whose
/// exponent does not fit in `exponent_bits`, in that order (XLA's order). Applying this to the
/// widened value equals applying it to the original type's bits, because widening is exact and the
/// original type's range is inside f64's.
pub fn reduce_precision_f64(x: f64, exponent_bits: i32, mantissa_bits: i32) -> f64 {
    if x.is_nan() {
        return x;
    }
    let sign = x.to_bits() & (1u64 << 63);
    let mut mag = x.to_bits() & !(1u64 << 63);
    if mantissa_bits < 52 {
        let shift = (52 - mantissa_bits.max(0)) as u32;
        let last_kept = (mag >> shift) & 1;
        let bias = (1u64 << (shift - 1)) - 1 + last_kept;
        mag = (mag + bias) & !((1u64 << shift) - 1);
    }
    if exponent_bits < 11 {
        let ebias = (1i64 << (exponent_bits.max(1) - 1)) - 1;
        let exp = ((mag >> 52) & 0x7ff) as i64 - 1023;
        if exp > ebias {
            mag = 0x7ff0_0000_0000_0000; // infinity
        } else if exp < 1 - ebias {
            mag = 0;
        }
    }
    f64::from_bits(sign | mag)
}

pub fn reduce_precision(x: &Dense, exponent_bits: i32, mantissa_bits: i32) -> Result<Dense> {
    if !x.elem().is_float() || !is_stored(x.elem()) {
        return Err(Error::unimplemented(format!("reduce_precision for {}", x.elem())));
    }
    let data = Array::from_scalars(
        x.elem(),
        (0..x.data.len()).map(|k| match x.data.get(k) {
            Scalar::Float(v) => Scalar::Float(reduce_precision_f64(v, exponent_bits, mantissa_bits)),
            other => other,
        }),
    )?;
    Dense::new(x.ty.clone(), data)
}
