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

/// Start of the box per dimension, clamped so that the box fits (spec).
pub fn starts(shape: &[i64], sizes: &[usize], indices: &[i64]) -> Vec<usize> {
    shape.iter().zip(sizes).zip(indices).map(|((&d, &s), &i)| i.clamp(0, (d - s as i64).max(0)) as usize).collect()
}

/// Calls `f(operand_byte_offset, box_byte_offset, bytes)` for every row (last dimension) of the box.
fn for_rows(shape: &[i64], sizes: &[usize], start: &[usize], esize: usize, mut f: impl FnMut(usize, usize, usize)) {
    let rank = shape.len();
    if sizes.contains(&0) {
        return;
    }
    if rank == 0 {
        f(0, 0, esize);
        return;
    }
    let strides = apu_compiler::plan::view::row_major(shape);
    let row = sizes[rank - 1] * esize;
    let rows: usize = sizes[..rank - 1].iter().product();
    let mut idx = vec![0usize; rank - 1];
    for r in 0..rows {
        let off: usize = (0..rank).map(|d| (start[d] + if d < rank - 1 { idx[d] } else { 0 }) * strides[d] as usize).sum();
        f(off * esize, r * row, row);
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// dynamic_slice: copies the box out of `operand` into `out`.
pub fn slice(k: &DynamicSliceKernel, operand_ty: &TensorType, operand: &[u8], indices: &[i64], out: &mut [u8]) {
    let start = starts(&operand_ty.shape, &k.sizes, indices);
    let esize = operand_ty.elem.byte_size();
    for_rows(&operand_ty.shape, &k.sizes, &start, esize, |src, dst, n| out[dst..dst + n].copy_from_slice(&operand[src..src + n]));
}

/// dynamic_update_slice: writes `update` into `target` (already holding the operand's bytes).
pub fn update(k: &DynamicSliceKernel, operand_ty: &TensorType, target: &mut AlignedBytes, update: &[u8], indices: &[i64]) {
    let start = starts(&operand_ty.shape, &k.sizes, indices);
    let esize = operand_ty.elem.byte_size();
    let t = target.as_mut_slice();
    for_rows(&operand_ty.shape, &k.sizes, &start, esize, |dst, src, n| t[dst..dst + n].copy_from_slice(&update[src..src + n]));
}
