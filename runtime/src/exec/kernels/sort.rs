//! The plan's sort (`plan::sort`): each lane along the dimension is ordered stably by one operand's
//! elements, mapped to unsigned integers that compare in the same order (floats in IEEE total
//! order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; signed integers with the sign bit
//! flipped), and every operand's elements move by that permutation. Lanes run in parallel.

use apu_compiler::ir::ElementType;
use apu_compiler::plan::sort::SortKernel;
use apu_compiler::{Error, Result};
use rayon::prelude::*;

/// Mantissa bits of the float types the kernel sorts.
fn mantissa_bits(elem: ElementType) -> u32 {
    match elem {
        ElementType::F16 => 10,
        ElementType::BF16 => 7,
        ElementType::F32 => 23,
        _ => 52,
    }
}

/// The order-preserving unsigned image of one element of `elem` (its little-endian `bytes`).
/// `canonical`: -0 orders as +0 and every NaN as the same positive NaN.
fn order_key(elem: ElementType, bytes: &[u8], canonical: bool) -> u64 {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let mut bits = u64::from_le_bytes(raw);
    let width = bytes.len() as u32 * 8;
    let sign = 1u64 << (width - 1);
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    if elem.is_float() && canonical {
        let m = mantissa_bits(elem);
        let exponent = (sign - 1) & !((1u64 << m) - 1);
        if bits & exponent == exponent && bits & ((1u64 << m) - 1) != 0 {
            bits = exponent | (1u64 << (m - 1));
        } else if bits == sign {
            bits = 0;
        }
    }
    if elem.is_float() {
        // Negative values reverse (all bits flipped); non-negative ones go above them.
        if bits & sign != 0 { !bits & mask } else { bits | sign }
    } else if elem.is_unsigned_int() || elem.is_pred() {
        bits
    } else {
        bits ^ sign
    }
}

/// Sorts `inputs` (each of `k.shape`, row-major) into `outputs`.
pub fn sort(k: &SortKernel, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
    let dims: Vec<usize> = k.shape.iter().map(|&d| d.max(0) as usize).collect();
    let n = dims.get(k.dimension).copied().ok_or_else(|| Error::internal("sort dimension out of range"))?;
    let inner: usize = dims[k.dimension + 1..].iter().product();
    let total: usize = dims.iter().product();
    for (i, (x, o)) in inputs.iter().zip(outputs.iter()).enumerate() {
        if x.len() != total * k.elem_bytes[i] || o.len() != x.len() {
            return Err(Error::internal(format!("sort operand {i}: {} and {} bytes for {:?}", x.len(), o.len(), k.shape)));
        }
    }
    if total == 0 {
        return Ok(());
    }
    let lanes = total / n;
    let kb = k.elem_bytes[k.key];
    // One permutation per lane: lane l covers elements outer * n * inner + j * inner + in for j < n.
    let perms: Vec<Vec<u32>> = (0..lanes)
        .into_par_iter()
        .map(|lane| {
            let (outer, within) = (lane / inner, lane % inner);
            let at = |j: usize| outer * n * inner + j * inner + within;
            let keys: Vec<u64> = (0..n).map(|j| order_key(k.key_elem, &inputs[k.key][at(j) * kb..(at(j) + 1) * kb], k.canonical)).collect();
            let mut perm: Vec<u32> = (0..n as u32).collect();
            if k.descending {
                perm.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize]));
            } else {
                perm.sort_by_key(|&a| keys[a as usize]);
            }
            perm
        })
        .collect();
    for (i, (x, o)) in inputs.iter().zip(outputs.iter_mut()).enumerate() {
        let eb = k.elem_bytes[i];
        for (lane, perm) in perms.iter().enumerate() {
            let (outer, within) = (lane / inner, lane % inner);
            let at = |j: usize| (outer * n * inner + j * inner + within) * eb;
            for (j, &from) in perm.iter().enumerate() {
                let (dst, src) = (at(j), at(from as usize));
                o[dst..dst + eb].copy_from_slice(&x[src..src + eb]);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_follow_total_order_and_signedness() {
        let f = |v: f32| order_key(ElementType::F32, &v.to_le_bytes(), false);
        let seq = [f32::NEG_INFINITY, -2.0, -0.0, 0.0, 1.5, f32::INFINITY, f32::NAN];
        assert!(seq.windows(2).all(|w| f(w[0]) < f(w[1])), "{:?}", seq.map(f));
        assert!(f(-f32::NAN) < f(f32::NEG_INFINITY));
        let i = |v: i8| order_key(ElementType::S8, &v.to_le_bytes(), false);
        assert!(i(-128) < i(-1) && i(-1) < i(0) && i(0) < i(127));
        let u = |v: u16| order_key(ElementType::U16, &v.to_le_bytes(), false);
        assert!(u(1) < u(0x8000) && u(0x8000) < u(0xffff));
        // Canonical: -0 ties with +0, every NaN (either sign, any payload) ties above +inf.
        let c = |v: f32| order_key(ElementType::F32, &v.to_le_bytes(), true);
        assert_eq!(c(-0.0), c(0.0));
        assert_eq!(c(-f32::NAN), c(f32::from_bits(0x7f80_0001)));
        assert!(c(f32::INFINITY) < c(f32::NAN) && c(-1.0) < c(-0.0));
        let h = |v: half::bf16| order_key(ElementType::BF16, &v.to_le_bytes(), true);
        assert_eq!(h(-half::bf16::NAN), h(half::bf16::NAN));
        assert!(h(half::bf16::from_f32(-2.0)) < h(half::bf16::from_f32(1.0)));
    }
}
