//! Data movement: every op here computes, for each result index, the operand element it copies
//! (or the padding value), then gathers those elements in one pass.

use super::array::{Array, Scalar};
use super::index::{for_each_index, linear, strides};
use super::value::Dense;
use apu_compiler::ir::TensorType;
use apu_compiler::{Error, Result};

fn dim(d: i64, rank: usize, what: &str) -> Result<usize> {
    if d < 0 || d as usize >= rank {
        return Err(Error::invalid(format!("{what}: dimension {d} out of range for rank {rank}")));
    }
    Ok(d as usize)
}

/// Gathers `x` at the operand index `map` gives for each result index.
fn gather_by(x: &Dense, result: &TensorType, mut map: impl FnMut(&[i64], &mut [i64])) -> Result<Dense> {
    let src_strides = strides(&x.ty.shape);
    let mut src = vec![0i64; x.ty.rank()];
    let mut picks = Vec::with_capacity(result.num_elements());
    for_each_index(&result.shape, |out| {
        map(out, &mut src);
        picks.push(linear(&src, &src_strides));
    });
    Dense::new(TensorType::new(result.shape.clone(), x.elem()), x.data.take(&picks))
}

pub fn broadcast_in_dim(x: &Dense, dims: &[i64], result: &TensorType) -> Result<Dense> {
    if dims.len() != x.ty.rank() {
        return Err(Error::invalid(format!("broadcast_in_dim: {} dimensions for operand {}", dims.len(), x.ty)));
    }
    let mut map = Vec::with_capacity(dims.len());
    for (i, &d) in dims.iter().enumerate() {
        let d = dim(d, result.rank(), "broadcast_in_dim")?;
        let size = x.ty.shape[i];
        if size != 1 && size != result.shape[d] {
            return Err(Error::invalid(format!("broadcast_in_dim: operand {} does not fit {result}", x.ty)));
        }
        map.push((d, size == 1));
    }
    gather_by(x, result, |out, src| {
        for (i, &(d, degenerate)) in map.iter().enumerate() {
            src[i] = if degenerate { 0 } else { out[d] };
        }
    })
}

pub fn reshape(x: &Dense, result: &TensorType) -> Result<Dense> {
    if x.ty.num_elements() != result.num_elements() {
        return Err(Error::invalid(format!("reshape: {} and {result} differ in element count", x.ty)));
    }
    Dense::new(TensorType::new(result.shape.clone(), x.elem()), x.data.clone())
}

pub fn transpose(x: &Dense, perm: &[i64], result: &TensorType) -> Result<Dense> {
    if perm.len() != x.ty.rank() {
        return Err(Error::invalid(format!("transpose: permutation of length {} for {}", perm.len(), x.ty)));
    }
    let perm: Vec<usize> = perm.iter().map(|&p| dim(p, x.ty.rank(), "transpose")).collect::<Result<_>>()?;
    gather_by(x, result, |out, src| {
        for (i, &p) in perm.iter().enumerate() {
            src[p] = out[i];
        }
    })
}

pub fn reverse(x: &Dense, dims: &[i64]) -> Result<Dense> {
    let rank = x.ty.rank();
    let mut flip = vec![false; rank];
    for &d in dims {
        flip[dim(d, rank, "reverse")?] = true;
    }
    let shape = x.ty.shape.clone();
    gather_by(x, &x.ty.clone(), |out, src| {
        for d in 0..rank {
            src[d] = if flip[d] { shape[d] - 1 - out[d] } else { out[d] };
        }
    })
}

pub fn slice(x: &Dense, start: &[i64], limit: &[i64], stride: &[i64], result: &TensorType) -> Result<Dense> {
    let rank = x.ty.rank();
    if start.len() != rank || limit.len() != rank || stride.len() != rank {
        return Err(Error::invalid(format!("slice: attribute lengths do not match rank of {}", x.ty)));
    }
    for d in 0..rank {
        if start[d] < 0 || limit[d] > x.ty.shape[d] || start[d] > limit[d] || stride[d] < 1 {
            return Err(Error::invalid(format!(
                "slice: [{}:{}:{}] out of range in dimension {d} of {}",
                start[d], limit[d], stride[d], x.ty
            )));
        }
        let expect = (limit[d] - start[d] + stride[d] - 1) / stride[d];
        if result.shape.get(d) != Some(&expect) {
            return Err(Error::invalid(format!("slice: result {result} does not match the slice of {}", x.ty)));
        }
    }
    gather_by(x, result, |out, src| {
        for d in 0..rank {
            src[d] = start[d] + out[d] * stride[d];
        }
    })
}

/// Start indices from scalar operands, clamped so that a window of `sizes` stays inside `shape`.
fn clamped_starts(starts: &[&Dense], shape: &[i64], sizes: &[i64], what: &str) -> Result<Vec<i64>> {
    if starts.len() != shape.len() {
        return Err(Error::invalid(format!("{what}: {} start indices for rank {}", starts.len(), shape.len())));
    }
    starts
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let v = s.data.get_index(0).filter(|_| s.data.len() == 1).ok_or_else(|| {
                Error::invalid(format!("{what}: start index {d} must be an integer scalar, got {}", s.ty))
            })?;
            let hi = (shape[d] - sizes[d]).max(0) as i128;
            Ok(v.clamp(0, hi) as i64)
        })
        .collect()
}

pub fn dynamic_slice(x: &Dense, starts: &[&Dense], sizes: &[i64], result: &TensorType) -> Result<Dense> {
    if sizes.len() != x.ty.rank() || sizes.iter().zip(&x.ty.shape).any(|(s, d)| *s < 0 || s > d) {
        return Err(Error::invalid(format!("dynamic_slice: slice sizes {sizes:?} do not fit {}", x.ty)));
    }
    let start = clamped_starts(starts, &x.ty.shape, sizes, "dynamic_slice")?;
    gather_by(x, result, |out, src| {
        for d in 0..out.len() {
            src[d] = start[d] + out[d];
        }
    })
}

pub fn dynamic_update_slice(x: &Dense, update: &Dense, starts: &[&Dense]) -> Result<Dense> {
    if update.ty.rank() != x.ty.rank() || update.ty.shape.iter().zip(&x.ty.shape).any(|(u, d)| u > d) {
        return Err(Error::invalid(format!("dynamic_update_slice: update {} does not fit {}", update.ty, x.ty)));
    }
    let start = clamped_starts(starts, &x.ty.shape, &update.ty.shape, "dynamic_update_slice")?;
    let dst_strides = strides(&x.ty.shape);
    let mut pairs = Vec::with_capacity(update.data.len());
    let mut dst = vec![0i64; x.ty.rank()];
    let mut k = 0;
    for_each_index(&update.ty.shape, |u| {
        for d in 0..u.len() {
            dst[d] = start[d] + u[d];
        }
        pairs.push((linear(&dst, &dst_strides), k));
        k += 1;
    });
    let mut data = x.data.clone();
    data.assign(&update.data, &pairs)?;
    Dense::new(x.ty.clone(), data)
}

pub fn concatenate(parts: &[&Dense], dimension: i64, result: &TensorType) -> Result<Dense> {
    let first = parts.first().ok_or_else(|| Error::invalid("concatenate of no operands"))?;
    let d = dim(dimension, first.ty.rank(), "concatenate")?;
    // Joined into one array; each result index picks from the part that covers it.
    let joined = Array::concat(&parts.iter().map(|p| &p.data).collect::<Vec<_>>())?;
    let mut bases = Vec::new();
    let mut offset = 0usize;
    let mut along = 0i64;
    for p in parts {
        if p.ty.rank() != first.ty.rank() || p.elem() != first.elem() {
            return Err(Error::invalid(format!("concatenate: operand {} does not match {}", p.ty, first.ty)));
        }
        bases.push((along, offset, strides(&p.ty.shape)));
        along += p.ty.shape[d];
        offset += p.data.len();
    }
    let mut picks = Vec::with_capacity(result.num_elements());
    let mut local = vec![0i64; first.ty.rank()];
    for_each_index(&result.shape, |out| {
        let which = bases.iter().rposition(|(start, _, _)| *start <= out[d]).unwrap_or(0);
        let (start, base, st) = &bases[which];
        local.copy_from_slice(out);
        local[d] -= start;
        picks.push(base + linear(&local, st));
    });
    if along != result.shape[d] || picks.len() != result.num_elements() {
        return Err(Error::invalid(format!("concatenate: result {result} does not match the operands")));
    }
    Dense::new(TensorType::new(result.shape.clone(), first.elem()), joined.take(&picks))
}

pub fn pad(x: &Dense, value: &Dense, low: &[i64], high: &[i64], interior: &[i64], result: &TensorType) -> Result<Dense> {
    let rank = x.ty.rank();
    if low.len() != rank || high.len() != rank || interior.len() != rank || interior.iter().any(|&i| i < 0) {
        return Err(Error::invalid(format!("pad: padding attributes do not fit {}", x.ty)));
    }
    for d in 0..rank {
        let n = x.ty.shape[d];
        let expect = low[d] + high[d] + n + (n - 1).max(0) * interior[d];
        if result.shape.get(d) != Some(&expect) {
            return Err(Error::invalid(format!("pad: result {result} does not match padding of {}", x.ty)));
        }
    }
    let src_strides = strides(&x.ty.shape);
    let mut picks = Vec::with_capacity(result.num_elements());
    for_each_index(&result.shape, |out| {
        let mut at = 0usize;
        for d in 0..rank {
            // Position in the interior-padded operand; negative low padding shifts it up.
            let p = out[d] - low[d];
            let step = interior[d] + 1;
            if p < 0 || p % step != 0 || p / step >= x.ty.shape[d] {
                picks.push(None);
                return;
            }
            at += (p / step) as usize * src_strides[d];
        }
        picks.push(Some(at));
    });
    Dense::new(TensorType::new(result.shape.clone(), x.elem()), x.data.take_or_fill(&picks, &value.data)?)
}

pub fn iota(dimension: i64, result: &TensorType) -> Result<Dense> {
    let d = dim(dimension, result.rank(), "iota")?;
    let mut values = Vec::with_capacity(result.num_elements());
    for_each_index(&result.shape, |out| values.push(Scalar::Int(out[d] as i128)));
    Dense::new(result.clone(), Array::from_scalars(result.elem, values)?)
}
