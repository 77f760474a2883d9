//! dynamic_slice and dynamic_update_slice as byte copies of a box. dynamic_update_slice writes into
//! the operand's buffer when the plan says it is the operand's last use and no one else holds it,
//! so a loop that updates one row of its carried state per iteration costs one row, not a copy.

use crate::AlignedBytes;
use apu_compiler::ir::{ElementType as E, TensorType};
use apu_compiler::plan::DynamicSliceKernel;
use apu_compiler::{Error, Result};

/// Reads an integer scalar of `elem` from little-endian bytes.
pub fn read_index(elem: E, b: &[u8]) -> Result<i64> {
    let get = |n: usize| -> Result<[u8; 8]> {
        let mut out = [0u8; 8];
        out[..n].copy_from_slice(b.get(..n).ok_or_else(|| Error::internal("index slot too short"))?);
        Ok(out)
    };
    Ok(match elem {
        E::S8 => b.first().map(|&x| x as i8 as i64).unwrap_or(0),
        E::U8 => b.first().map(|&x| x as i64).unwrap_or(0),
        E::S16 => i16::from_le_bytes(get(2)?[..2].try_into().unwrap()) as i64,
        E::U16 => u16::from_le_bytes(get(2)?[..2].try_into().unwrap()) as i64,
        E::S32 => i32::from_le_bytes(get(4)?[..4].try_into().unwrap()) as i64,
        E::U32 => u32::from_le_bytes(get(4)?[..4].try_into().unwrap()) as i64,
        E::S64 => i64::from_le_bytes(get(8)?),
        // Clamping below treats huge unsigned starts as "past the end", as the spec's clamp does.
        E::U64 => u64::from_le_bytes(get(8)?).min(i64::MAX as u64) as i64,
        other => return Err(Error::unimplemented(format!("dynamic slice index of type {other}"))),
    })
}

/// Runs `f` on a zeroed scratch slice of `n` values, on the stack for the usual ranks: a loop
/// slicing one element per iteration would otherwise allocate for its index bookkeeping.
pub(in crate::exec) fn with_scratch<T: Copy + Default, R>(n: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    const STACK: usize = 16;
    if n <= STACK {
        let mut small = [T::default(); STACK];
        f(&mut small[..n])
    } else {
        f(&mut vec![T::default(); n])
    }
}

/// Calls `f(operand_byte_offset, box_byte_offset, bytes)` for every row (last dimension) of the
/// box of `sizes` whose start per dimension is `indices` clamped so that the box fits (spec).
fn for_rows(shape: &[i64], sizes: &[usize], indices: &[i64], esize: usize, mut f: impl FnMut(usize, usize, usize)) {
    let rank = shape.len();
    if sizes.contains(&0) {
        return;
    }
    if rank == 0 {
        f(0, 0, esize);
        return;
    }
    with_scratch(2 * rank, |scratch: &mut [usize]| {
        let (strides, idx) = scratch.split_at_mut(rank);
        let mut stride = 1usize;
        let mut base = 0usize;
        for d in (0..rank).rev() {
            strides[d] = stride;
            let start = indices[d].clamp(0, (shape[d] - sizes[d] as i64).max(0)) as usize;
            base += start * stride;
            stride *= shape[d].max(0) as usize;
        }
        let row = sizes[rank - 1] * esize;
        let rows: usize = sizes[..rank - 1].iter().product();
        let idx = &mut idx[..rank - 1];
        for r in 0..rows {
            let off = base + idx.iter().zip(strides.iter()).map(|(i, s)| i * s).sum::<usize>();
            f(off * esize, r * row, row);
            for d in (0..rank - 1).rev() {
                idx[d] += 1;
                if idx[d] < sizes[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    });
}

/// dynamic_slice: copies the box out of `operand` into `out`.
pub fn slice(k: &DynamicSliceKernel, operand_ty: &TensorType, operand: &[u8], indices: &[i64], out: &mut [u8]) {
    let esize = operand_ty.elem.byte_size();
    for_rows(&operand_ty.shape, &k.sizes, indices, esize, |src, dst, n| out[dst..dst + n].copy_from_slice(&operand[src..src + n]));
}

/// dynamic_update_slice: writes `update` into `target` (already holding the operand's bytes).
pub fn update(k: &DynamicSliceKernel, operand_ty: &TensorType, target: &mut AlignedBytes, update: &[u8], indices: &[i64]) {
    let esize = operand_ty.elem.byte_size();
    let t = target.as_mut_slice();
    for_rows(&operand_ty.shape, &k.sizes, indices, esize, |dst, src, n| t[dst..dst + n].copy_from_slice(&update[src..src + n]));
}
