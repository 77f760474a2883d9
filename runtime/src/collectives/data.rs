//! Moving row-major tensors in pieces: concatenation, even pieces along one dimension, and the
//! blocks of a manual computation's shardings; plus the plan's typed elementwise reductions.

use crate::{AlignedBytes, Tensor};
use apu_compiler::ir::{BinaryOp, ElementType, TensorType};
use apu_compiler::{Error, Result};
use std::sync::Arc;

/// The contiguous runs of the block of a row-major `big_shape` tensor that starts at `offset` and
/// has shape `small_shape`: (byte offset in big, byte offset in the block, bytes).
pub fn block_runs(big_shape: &[i64], small_shape: &[i64], offset: &[i64], esize: usize) -> Vec<(usize, usize, usize)> {
    let rank = big_shape.len();
    if small_shape.iter().any(|&d| d == 0) {
        return Vec::new();
    }
    if rank == 0 {
        return vec![(0, 0, esize)];
    }
    let mut big_stride = vec![1i64; rank];
    for d in (0..rank - 1).rev() {
        big_stride[d] = big_stride[d + 1] * big_shape[d + 1];
    }
    let run = small_shape[rank - 1] as usize * esize;
    let rows: i64 = small_shape[..rank - 1].iter().product();
    let mut idx = vec![0i64; rank - 1];
    let mut out = Vec::with_capacity(rows as usize);
    for row in 0..rows as usize {
        let mut b = offset[rank - 1];
        for d in 0..rank - 1 {
            b += (offset[d] + idx[d]) * big_stride[d];
        }
        out.push((b as usize * esize, row * run, run));
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            if idx[d] < small_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// The block of `t` of type `ty` starting at `offset`.
pub fn extract(t: &Tensor, ty: TensorType, offset: &[i64]) -> Tensor {
    let mut out = AlignedBytes::zeroed(ty.byte_size());
    let (src, dst) = (t.data.as_slice(), out.as_mut_slice());
    for (b, s, n) in block_runs(&t.ty.shape, &ty.shape, offset, ty.elem.byte_size()) {
        dst[s..s + n].copy_from_slice(&src[b..b + n]);
    }
    Tensor { ty, data: Arc::new(out) }
}

/// Writes `block` into `big` (of shape `big_shape`) at `offset`.
pub fn insert(big: &mut [u8], big_shape: &[i64], block: &Tensor, offset: &[i64]) {
    let src = block.data.as_slice();
    for (b, s, n) in block_runs(big_shape, &block.ty.shape, offset, block.ty.elem.byte_size()) {
        big[b..b + n].copy_from_slice(&src[s..s + n]);
    }
}

/// Piece `index` of `count` equal pieces of `t` along `dim`.
pub fn piece(t: &Tensor, dim: usize, count: i64, index: i64) -> Result<Tensor> {
    let mut shape = t.ty.shape.clone();
    if dim >= shape.len() || count < 1 || shape[dim] % count != 0 {
        return Err(Error::invalid(format!("cannot split {} into {count} pieces along dimension {dim}", t.ty)));
    }
    shape[dim] /= count;
    let mut offset = vec![0; shape.len()];
    offset[dim] = shape[dim] * index;
    Ok(extract(t, TensorType::new(shape, t.ty.elem), &offset))
}

/// The tensors concatenated along `dim`.
pub fn concat(parts: &[&Tensor], dim: usize) -> Result<Tensor> {
    let first = parts.first().ok_or_else(|| Error::internal("concatenation of nothing"))?;
    let mut shape = first.ty.shape.clone();
    if dim >= shape.len() {
        return Err(Error::invalid(format!("cannot concatenate {} along dimension {dim}", first.ty)));
    }
    shape[dim] = parts.iter().map(|p| p.ty.shape[dim]).sum();
    let ty = TensorType::new(shape, first.ty.elem);
    let esize = ty.elem.byte_size();
    let outer: i64 = ty.shape[..dim].iter().product();
    let inner: i64 = ty.shape[dim + 1..].iter().product();
    let mut out = AlignedBytes::zeroed(ty.byte_size());
    let out_row = (ty.shape[dim] * inner) as usize * esize;
    let mut col = 0;
    for p in parts {
        if p.ty.elem != ty.elem || p.ty.shape.len() != ty.shape.len() {
            return Err(Error::invalid(format!("cannot concatenate {} with {}", p.ty, first.ty)));
        }
        let n = (p.ty.shape[dim] * inner) as usize * esize;
        let src = p.data.as_slice();
        let dst = out.as_mut_slice();
        for o in 0..outer as usize {
            dst[o * out_row + col..o * out_row + col + n].copy_from_slice(&src[o * n..(o + 1) * n]);
        }
        col += n;
    }
    Ok(Tensor { ty, data: Arc::new(out) })
}

macro_rules! fold_native {
    ($t:ty, $parts:expr, $out:expr, $f:expr) => {{
        let size = std::mem::size_of::<$t>();
        let out: &mut [u8] = $out;
        for (i, chunk) in out.chunks_exact_mut(size).enumerate() {
            let read = |p: &Tensor| <$t>::from_le_bytes(p.data.as_slice()[i * size..(i + 1) * size].try_into().unwrap());
            let mut acc = read($parts[0]);
            for p in &$parts[1..] {
                acc = $f(acc, read(p));
            }
            chunk.copy_from_slice(&acc.to_le_bytes());
        }
    }};
}

macro_rules! int_op {
    ($t:ty, $op:expr) => {{
        let f: fn($t, $t) -> $t = match $op {
            BinaryOp::Add => |a, b| a.wrapping_add(b),
            BinaryOp::Multiply => |a, b| a.wrapping_mul(b),
            BinaryOp::Minimum => |a, b| if b < a { b } else { a },
            BinaryOp::Maximum => |a, b| if b > a { b } else { a },
            BinaryOp::And => |a, b| a & b,
            BinaryOp::Or => |a, b| a | b,
            BinaryOp::Xor => |a, b| a ^ b,
            _ => return None,
        };
        f
    }};
}

/// NaN-propagating min/max, as StableHLO's minimum and maximum.
fn fmin<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a != a {
        a
    } else if b != b || b < a {
        b
    } else {
        a
    }
}
fn fmax<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a != a {
        a
    } else if b != b || b > a {
        b
    } else {
        a
    }
}

macro_rules! float_op {
    ($t:ty, $op:expr) => {{
        let f: fn($t, $t) -> $t = match $op {
            BinaryOp::Add => |a, b| a + b,
            BinaryOp::Multiply => |a, b| a * b,
            BinaryOp::Minimum => fmin,
            BinaryOp::Maximum => fmax,
            _ => return None,
        };
        f
    }};
}

/// The elementwise fold of `parts` (in order) with `op`, on native types; `None` for element
/// types and ops this has no loop for (the caller uses the interpreter's elementwise functions).
pub fn fold_typed(op: BinaryOp, parts: &[&Tensor]) -> Option<Tensor> {
    let ty = parts.first()?.ty.clone();
    let mut out = AlignedBytes::zeroed(ty.byte_size());
    let buf = out.as_mut_slice();
    match ty.elem {
        ElementType::F32 => fold_native!(f32, parts, buf, float_op!(f32, op)),
        ElementType::F64 => fold_native!(f64, parts, buf, float_op!(f64, op)),
        ElementType::S8 => fold_native!(i8, parts, buf, int_op!(i8, op)),
        ElementType::S16 => fold_native!(i16, parts, buf, int_op!(i16, op)),
        ElementType::S32 => fold_native!(i32, parts, buf, int_op!(i32, op)),
        ElementType::S64 => fold_native!(i64, parts, buf, int_op!(i64, op)),
        ElementType::U8 => fold_native!(u8, parts, buf, int_op!(u8, op)),
        ElementType::U16 => fold_native!(u16, parts, buf, int_op!(u16, op)),
        ElementType::U32 => fold_native!(u32, parts, buf, int_op!(u32, op)),
        ElementType::U64 => fold_native!(u64, parts, buf, int_op!(u64, op)),
        // Predicates are 0/1 bytes: and/or/xor and min/max act bitwise on them; add is or.
        ElementType::Pred => {
            let f: fn(u8, u8) -> u8 = match op {
                BinaryOp::And | BinaryOp::Minimum | BinaryOp::Multiply => |a, b| a & b,
                BinaryOp::Or | BinaryOp::Maximum | BinaryOp::Add => |a, b| a | b,
                BinaryOp::Xor => |a, b| a ^ b,
                _ => return None,
            };
            fold_native!(u8, parts, buf, f)
        }
        _ => return None,
    }
    Some(Tensor { ty, data: Arc::new(out) })
}

/// The elementwise sum of same-typed `parts`, of any element type (native loops where
/// [`fold_typed`] has them, the one-element evaluator's functions otherwise).
pub fn sum(parts: &[&Tensor]) -> Result<Tensor> {
    fold_typed(BinaryOp::Add, parts).map_or_else(|| crate::exec::fold_other(BinaryOp::Add, parts), Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
    }
    fn values(t: &Tensor) -> Vec<f32> {
        t.data.as_slice().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn pieces_and_concatenation_are_inverse() {
        let t = f32s(&[2, 4], &[0., 1., 2., 3., 4., 5., 6., 7.]);
        let cols: Vec<Tensor> = (0..2).map(|i| piece(&t, 1, 2, i).unwrap()).collect();
        assert_eq!(values(&cols[1]), vec![2., 3., 6., 7.]);
        assert_eq!(values(&concat(&cols.iter().collect::<Vec<_>>(), 1).unwrap()), values(&t));
        let rows = concat(&[&cols[0], &cols[1]], 0).unwrap();
        assert_eq!(rows.ty.shape, vec![4, 2]);
        assert_eq!(values(&rows), vec![0., 1., 4., 5., 2., 3., 6., 7.]);
    }

    #[test]
    fn typed_folds_follow_the_op() {
        let (a, b) = (f32s(&[2], &[1., f32::NAN]), f32s(&[2], &[3., 0.]));
        assert_eq!(values(&fold_typed(BinaryOp::Add, &[&a, &b]).unwrap())[0], 4.);
        let m = values(&fold_typed(BinaryOp::Maximum, &[&a, &b]).unwrap());
        assert_eq!(m[0], 3.);
        assert!(m[1].is_nan());
        assert!(fold_typed(BinaryOp::Power, &[&a, &b]).is_none());
    }
}
