//! `gather` and `scatter`, written as the spec's index formulas.

use super::array::{round_scalar, Array, Scalar};
use super::index::{linear, strides, try_for_each_index};
use super::reduce::ScalarBody;
use super::value::Dense;
use apu_compiler::ir::{GatherDims, ScatterDims, TensorType};
use apu_compiler::{Error, Result};

fn check_dims(what: &str, dims: &[i64], rank: usize) -> Result<Vec<usize>> {
    dims.iter()
        .map(|&d| {
            if d >= 0 && (d as usize) < rank {
                Ok(d as usize)
            } else {
                Err(Error::invalid(format!("{what}: dimension {d} out of range for rank {rank}")))
            }
        })
        .collect()
}

/// The index vector of `indices` at batch position `batch` (the non-index-vector dimensions in
/// order), per the spec's `start_index`.
fn index_vector(indices: &Dense, index_vector_dim: usize, batch: &[i64], out: &mut Vec<i128>) -> Result<()> {
    let rank = indices.ty.rank();
    let st = strides(&indices.ty.shape);
    out.clear();
    let mut full = Vec::with_capacity(rank);
    let mut b = batch.iter();
    for d in 0..rank {
        full.push(if d == index_vector_dim { 0 } else { *b.next().unwrap_or(&0) });
    }
    let count = if index_vector_dim < rank { indices.ty.shape[index_vector_dim] } else { 1 };
    for k in 0..count {
        if index_vector_dim < rank {
            full[index_vector_dim] = k;
        }
        let v = indices
            .data
            .get_index(linear(&full, &st))
            .ok_or_else(|| Error::invalid(format!("indices must be integers, got {}", indices.ty)))?;
        out.push(v);
    }
    Ok(())
}

pub fn gather(operand: &Dense, indices: &Dense, dims: &GatherDims, slice_sizes: &[i64], result: &TensorType) -> Result<Dense> {
    let rank = operand.ty.rank();
    let out_rank = result.rank();
    let offset_dims = check_dims("gather offset_dims", &dims.offset_dims, out_rank)?;
    let collapsed = check_dims("gather collapsed_slice_dims", &dims.collapsed_slice_dims, rank)?;
    let op_batching = check_dims("gather operand_batching_dims", &dims.operand_batching_dims, rank)?;
    let start_map = check_dims("gather start_index_map", &dims.start_index_map, rank)?;
    let idx_batching = check_dims("gather start_indices_batching_dims", &dims.start_indices_batching_dims, indices.ty.rank())?;
    let ivd = dims.index_vector_dim.max(0) as usize;
    if slice_sizes.len() != rank || op_batching.len() != idx_batching.len() || ivd > indices.ty.rank() {
        return Err(Error::invalid("gather: dimension numbers do not fit the operand and indices"));
    }
    let batch_dims: Vec<usize> = (0..out_rank).filter(|d| !offset_dims.contains(d)).collect();
    // Operand dimensions that offset dims map onto, in order.
    let window_dims: Vec<usize> = (0..rank).filter(|d| !collapsed.contains(d) && !op_batching.contains(d)).collect();
    if window_dims.len() != offset_dims.len() {
        return Err(Error::invalid("gather: offset_dims do not match the slice dimensions"));
    }
    let st = strides(&operand.ty.shape);
    let mut picks = Vec::with_capacity(result.num_elements());
    let mut start = Vec::new();
    let mut operand_index = vec![0i64; rank];
    try_for_each_index(&result.shape, |out| {
        let batch: Vec<i64> = batch_dims.iter().map(|&d| out[d]).collect();
        index_vector(indices, ivd, &batch, &mut start)?;
        operand_index.iter_mut().for_each(|x| *x = 0);
        for (k, &d) in start_map.iter().enumerate() {
            let hi = (operand.ty.shape[d] - slice_sizes[d]).max(0) as i128;
            operand_index[d] = start.get(k).copied().unwrap_or(0).clamp(0, hi) as i64;
        }
        for (&od, &sd) in op_batching.iter().zip(&idx_batching) {
            let pos = if sd < ivd { sd } else { sd - 1 };
            operand_index[od] += batch.get(pos).copied().unwrap_or(0);
        }
        for (&wd, &rd) in window_dims.iter().zip(&offset_dims) {
            operand_index[wd] += out[rd];
        }
        if operand_index.iter().zip(&operand.ty.shape).any(|(&i, &n)| i < 0 || i >= n) {
            return Err(Error::invalid(format!("gather: operand index {operand_index:?} out of bounds of {}", operand.ty)));
        }
        picks.push(linear(&operand_index, &st));
        Ok(())
    })?;
    Dense::new(TensorType::new(result.shape.clone(), operand.elem()), operand.data.take(&picks))
}

/// Scatter as in the spec, except for out-of-bounds windows: like XLA, an update window whose
/// start would put any part of it outside the operand is skipped whole (the spec skips only
/// the elements that fall outside).
pub fn scatter(
    inputs: &[&Dense],
    indices: &Dense,
    updates: &[&Dense],
    dims: &ScatterDims,
    types: &[TensorType],
    body: &mut ScalarBody,
) -> Result<Vec<Dense>> {
    let first = inputs.first().ok_or_else(|| Error::invalid("scatter of no inputs"))?;
    let upd0 = updates.first().ok_or_else(|| Error::invalid("scatter of no updates"))?;
    if updates.len() != inputs.len() || types.len() != inputs.len() {
        return Err(Error::invalid("scatter: inputs, updates and results do not match"));
    }
    let rank = first.ty.rank();
    let urank = upd0.ty.rank();
    let window_dims = check_dims("scatter update_window_dims", &dims.update_window_dims, urank)?;
    let inserted = check_dims("scatter inserted_window_dims", &dims.inserted_window_dims, rank)?;
    let in_batching = check_dims("scatter input_batching_dims", &dims.input_batching_dims, rank)?;
    let to_operand = check_dims("scatter scatter_dims_to_operand_dims", &dims.scatter_dims_to_operand_dims, rank)?;
    let idx_batching = check_dims("scatter scatter_indices_batching_dims", &dims.scatter_indices_batching_dims, indices.ty.rank())?;
    let ivd = dims.index_vector_dim.max(0) as usize;
    let scatter_dims: Vec<usize> = (0..urank).filter(|d| !window_dims.contains(d)).collect();
    let input_window_dims: Vec<usize> = (0..rank).filter(|d| !inserted.contains(d) && !in_batching.contains(d)).collect();
    if input_window_dims.len() != window_dims.len() || in_batching.len() != idx_batching.len() || ivd > indices.ty.rank() {
        return Err(Error::invalid("scatter: dimension numbers do not fit the inputs, indices and updates"));
    }
    // Window extent per input dimension: the update's window size, 1 for inserted/batching dims.
    let mut extent = vec![1i64; rank];
    for (&id, &ud) in input_window_dims.iter().zip(&window_dims) {
        extent[id] = upd0.ty.shape[ud];
    }
    let st = strides(&first.ty.shape);
    let mut results: Vec<Vec<Scalar>> =
        inputs.iter().map(|x| (0..x.data.len()).map(|k| x.data.get(k)).collect()).collect();
    let mut start = Vec::new();
    let mut result_index = vec![0i64; rank];
    let mut k = 0usize;
    try_for_each_index(&upd0.ty.shape, |u| {
        let at_update = k;
        k += 1;
        let scatter_index: Vec<i64> = scatter_dims.iter().map(|&d| u[d]).collect();
        index_vector(indices, ivd, &scatter_index, &mut start)?;
        let mut window_start = vec![0i128; rank];
        for (j, &d) in to_operand.iter().enumerate() {
            window_start[d] = start.get(j).copied().unwrap_or(0);
        }
        for (&id, &sd) in in_batching.iter().zip(&idx_batching) {
            let pos = if sd < ivd { sd } else { sd - 1 };
            window_start[id] += scatter_index.get(pos).copied().unwrap_or(0) as i128;
        }
        if (0..rank).any(|d| window_start[d] < 0 || window_start[d] + extent[d] as i128 > first.ty.shape[d] as i128) {
            return Ok(());
        }
        for d in 0..rank {
            result_index[d] = window_start[d] as i64;
        }
        for (&id, &ud) in input_window_dims.iter().zip(&window_dims) {
            result_index[id] += u[ud];
        }
        let at = linear(&result_index, &st);
        let mut args: Vec<Scalar> = results.iter().map(|r| r[at]).collect();
        args.extend(updates.iter().map(|x| x.data.get(at_update)));
        let out = body(&args)?;
        if out.len() != results.len() {
            return Err(Error::invalid("scatter: update computation returned the wrong number of values"));
        }
        for ((r, v), ty) in results.iter_mut().zip(out).zip(types) {
            r[at] = round_scalar(ty.elem, v);
        }
        Ok(())
    })?;
    results
        .into_iter()
        .zip(types)
        .map(|(vals, ty)| Dense::new(ty.clone(), Array::from_scalars(ty.elem, vals)?))
        .collect()
}
