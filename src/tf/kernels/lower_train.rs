//! Lowerings of the ops a Keras CNN or LSTM training step needs beyond the forward kernels: the
//! convolution and pooling gradients, and the slicing, stacking, splitting and gathering that
//! Keras's layers and their gradients emit. Each is IR the plan executor runs as fused, copy,
//! convolution, window or gather steps (no interpreter step: `plan_check` checks every kernel).
//!
//! The gradients are the transposes XLA's own autodiff uses: the input gradient of a convolution is
//! a convolution of the stride-dilated output gradient with the reversed filter; the filter
//! gradient a convolution of the input with the output gradient as the window; the max-pool
//! gradient a select-and-scatter; the average-pool gradient a window sum of the interior-padded,
//! count-divided output gradient.

use super::builder::Builder;
use super::lower::{image_by_hwio, window_padding};
use super::lower_more::read_ints;
use super::ops::{Padding, PoolKind, SliceMasks, TfOp};
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ConvDims, ElementType, GatherDims, OpKind, TensorType, ValueId};
use apu_compiler::{Error, Result};
use apu_runtime::Tensor;

type Lowering = Result<(Vec<ValueId>, Vec<usize>)>;

fn expect(op: &TfOp, inputs: &[Tensor], n: usize) -> Result<()> {
    if inputs.len() != n {
        return Err(Error::invalid(format!("{} expects {n} inputs, got {}", op.name(), inputs.len())));
    }
    Ok(())
}

/// Lowers the ops of this file; `None` for ops handled elsewhere.
pub fn lower(op: &TfOp, inputs: &[Tensor], b: &mut Builder) -> Option<Lowering> {
    Some(match op {
        TfOp::Conv2DBackpropInput { strides, dilations, padding, channels_first } => conv_input_grad(op, inputs, b, strides, dilations, padding, *channels_first),
        TfOp::Conv2DBackpropFilter { strides, dilations, padding, channels_first } => conv_filter_grad(op, inputs, b, strides, dilations, padding, *channels_first),
        TfOp::PoolGrad { kind: PoolKind::Max, ksize, strides, same, channels_first } => max_pool_grad(op, inputs, b, ksize, strides, *same, *channels_first),
        TfOp::PoolGrad { kind: PoolKind::Avg, ksize, strides, same, channels_first } => avg_pool_grad(op, inputs, b, ksize, strides, *same, *channels_first),
        TfOp::StridedSlice(masks) => strided_slice(op, inputs, b, masks),
        TfOp::StridedSliceGrad(masks) => strided_slice_grad(op, inputs, b, masks),
        TfOp::Slice => slice(op, inputs, b),
        TfOp::Pack { axis } => pack(op, inputs, b, *axis),
        TfOp::Unpack { axis, num } => unpack(op, inputs, b, *axis, *num),
        TfOp::ConcatV2 => concat(op, inputs, b),
        TfOp::Split { num } => split(op, inputs, b, *num),
        TfOp::SplitV { num } => split_v(op, inputs, b, *num),
        TfOp::GatherV2 { batch_dims } => gather(op, inputs, b, *batch_dims),
        _ => return None,
    })
}

/// A dimension index in `[-rank, rank)` made non-negative.
fn axis_of(op: &TfOp, axis: i64, rank: usize) -> Result<usize> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    if a < 0 || a >= rank as i64 {
        return Err(Error::invalid(format!("{}: axis {axis} is out of range for rank {rank}", op.name())));
    }
    Ok(a as usize)
}

fn scalar_int(op: &TfOp, what: &str, t: &Tensor) -> Result<i64> {
    match read_ints(op, what, t)?.as_slice() {
        [v] => Ok(*v),
        other => Err(Error::invalid(format!("{}: {what} must be one integer, got {other:?}", op.name()))),
    }
}

/// The feature dimension and the two spatial dimensions of a 4-D tensor in the op's layout.
fn layout(channels_first: bool) -> (usize, [usize; 2]) {
    if channels_first {
        (1, [2, 3])
    } else {
        (3, [1, 2])
    }
}

fn check_conv_attrs(op: &TfOp, strides: &[i64], dilations: &[i64], feature: usize) -> Result<()> {
    if strides.len() != 4 || dilations.len() != 4 || strides[0] != 1 || strides[feature] != 1 || dilations[0] != 1 || dilations[feature] != 1 {
        return Err(Error::unimplemented(format!("{} with strides {strides:?} / dilations {dilations:?} (batch and channel must be 1)", op.name())));
    }
    Ok(())
}

/// dx = conv(dy dilated by the strides, the filter reversed in space with its feature axes swapped).
#[allow(clippy::too_many_arguments)]
fn conv_input_grad(op: &TfOp, inputs: &[Tensor], b: &mut Builder, strides: &[i64], dilations: &[i64], padding: &Padding, channels_first: bool) -> Lowering {
    expect(op, inputs, 3)?;
    let sizes = read_ints(op, "input_sizes", &inputs[0])?;
    let (tw, tdy) = (inputs[1].ty.clone(), inputs[2].ty.clone());
    let (feature, spatial) = layout(channels_first);
    check_conv_attrs(op, strides, dilations, feature)?;
    if sizes.len() != 4 || tw.rank() != 4 || tdy.rank() != 4 || tw.shape[2] != sizes[feature] || tw.shape[3] != tdy.shape[feature] || tdy.shape[0] != sizes[0] {
        return Err(Error::invalid(format!("{}: input_sizes {sizes:?}, filter {tw}, out_backprop {tdy} do not fit", op.name())));
    }
    let mut pads = Vec::new();
    for (i, &d) in spatial.iter().enumerate() {
        let (n, k, s, dil) = (sizes[d], tw.shape[i], strides[d], dilations[d]);
        let ek = (k - 1) * dil + 1;
        let ((lo, hi), out) = window_padding(&op.name(), padding, d, n, ek, s)?;
        if out != tdy.shape[d] {
            return Err(Error::invalid(format!("{}: out_backprop {tdy} does not match the forward output size {out} of dimension {d}", op.name())));
        }
        if hi > ek - 1 || lo > ek - 1 {
            return Err(Error::unimplemented(format!("{}: padding ({lo}, {hi}) wider than the window {ek}", op.name())));
        }
        pads.push((ek - 1 - lo, n - 1 - (out - 1) * s + lo));
    }
    let w = b.param(tw.clone());
    let dy = b.param(tdy.clone());
    let w = b.push(OpKind::Reverse { dimensions: vec![0, 1] }, vec![w], tw.clone());
    let dims = image_by_hwio(feature, spatial, true);
    let (lhs_dilation, rhs_dilation) = (spatial.iter().map(|&d| strides[d]).collect(), spatial.iter().map(|&d| dilations[d]).collect());
    Ok((vec![b.convolution(dy, w, dims, vec![1, 1], pads, lhs_dilation, rhs_dilation, TensorType::new(sizes, tdy.elem))], vec![1, 2]))
}

/// dw[kh, kw, i, o] = sum over n, y, x of input[n, y*s + kh*dil - lo, x*s + kw*dil - lo, i] * dy[n, y, x, o]:
/// a convolution whose "batch" is the input channels, "features" the batch, and window the
/// stride-dilated dy.
#[allow(clippy::too_many_arguments)]
fn conv_filter_grad(op: &TfOp, inputs: &[Tensor], b: &mut Builder, strides: &[i64], dilations: &[i64], padding: &Padding, channels_first: bool) -> Lowering {
    expect(op, inputs, 3)?;
    let (tx, tdy) = (inputs[0].ty.clone(), inputs[2].ty.clone());
    let sizes = read_ints(op, "filter_sizes", &inputs[1])?;
    let (feature, spatial) = layout(channels_first);
    check_conv_attrs(op, strides, dilations, feature)?;
    if sizes.len() != 4 || tx.rank() != 4 || tdy.rank() != 4 || sizes[2] != tx.shape[feature] || sizes[3] != tdy.shape[feature] || tdy.shape[0] != tx.shape[0] {
        return Err(Error::invalid(format!("{}: input {tx}, filter_sizes {sizes:?}, out_backprop {tdy} do not fit", op.name())));
    }
    let mut x = b.param(tx.clone());
    let dy = b.param(tdy.clone());
    let mut pads = Vec::new();
    let mut trimmed = tx.shape.clone();
    for (i, &d) in spatial.iter().enumerate() {
        let (n, k, s, dil) = (tx.shape[d], sizes[i], strides[d], dilations[d]);
        let ek = (k - 1) * dil + 1;
        let ((lo, _), out) = window_padding(&op.name(), padding, d, n, ek, s)?;
        if out != tdy.shape[d] {
            return Err(Error::invalid(format!("{}: out_backprop {tdy} does not match the forward output size {out} of dimension {d}", op.name())));
        }
        // The padding that makes the output exactly k; input rows no window reached are cut off.
        let hi = (k - 1) * dil + (out - 1) * s + 1 - n - lo;
        if hi < 0 {
            trimmed[d] = n + hi;
        }
        pads.push((lo, hi.max(0)));
    }
    if trimmed != tx.shape {
        x = b.slice(x, vec![0; 4], trimmed, vec![1; 4]);
    }
    let sp: Vec<i64> = spatial.iter().map(|&d| d as i64).collect();
    let dims = ConvDims {
        input_batch: feature as i64,
        input_feature: 0,
        input_spatial: sp.clone(),
        kernel_input_feature: 0,
        kernel_output_feature: feature as i64,
        kernel_spatial: sp,
        output_batch: 2,
        output_feature: 3,
        output_spatial: vec![0, 1],
    };
    // The forward dilations step the window over the input; the forward strides dilate dy.
    let (window_strides, rhs_dilation) = (spatial.iter().map(|&d| dilations[d]).collect(), spatial.iter().map(|&d| strides[d]).collect());
    Ok((vec![b.convolution(x, dy, dims, window_strides, pads, vec![1, 1], rhs_dilation, TensorType::new(sizes, tdy.elem))], vec![0, 2]))
}

/// Window sizes, strides and (low, high) padding of every dimension of a pooling op, and its output shape.
fn pool_windows(op: &TfOp, shape: &[i64], ksize: &[i64], strides: &[i64], same: bool, channels_first: bool) -> Result<(Vec<(i64, i64)>, Vec<i64>)> {
    let (feature, spatial) = layout(channels_first);
    if shape.len() != 4 || ksize.len() != 4 || strides.len() != 4 {
        return Err(Error::invalid(format!("{}: input {shape:?}, ksize {ksize:?}, strides {strides:?} (need rank 4)", op.name())));
    }
    if ksize[0] != 1 || ksize[feature] != 1 || strides[0] != 1 || strides[feature] != 1 {
        return Err(Error::unimplemented(format!("{} over the batch or channel dimension", op.name())));
    }
    let padding = if same { Padding::Same } else { Padding::Valid };
    let mut pads = vec![(0, 0); 4];
    let mut out = shape.to_vec();
    for &d in &spatial {
        if ksize[d] < 1 {
            return Err(Error::invalid(format!("{}: window {}", op.name(), ksize[d])));
        }
        let (p, o) = window_padding(&op.name(), &padding, d, shape[d], ksize[d], strides[d])?;
        pads[d] = p;
        out[d] = o;
    }
    Ok((pads, out))
}

/// The max-pool gradient: each window's gradient goes to the first of its largest inputs.
#[allow(clippy::too_many_arguments)]
fn max_pool_grad(op: &TfOp, inputs: &[Tensor], b: &mut Builder, ksize: &[i64], strides: &[i64], same: bool, channels_first: bool) -> Lowering {
    expect(op, inputs, 3)?;
    let (tx, tdy) = (inputs[0].ty.clone(), inputs[2].ty.clone());
    let (pads, out) = pool_windows(op, &tx.shape, ksize, strides, same, channels_first)?;
    if out != tdy.shape || tdy.elem != tx.elem {
        return Err(Error::invalid(format!("{}: grad {tdy} does not match the pooled shape {out:?}", op.name())));
    }
    let x = b.param(tx.clone());
    let dy = b.param(tdy.clone());
    let zero = b.splat(&TensorType::scalar(tx.elem), 0.0)?;
    let select = b.scalar_region(tx.elem, OpKind::Compare { direction: ComparisonDirection::Ge, compare_type: None }, ElementType::Pred);
    let scatter = b.scalar_region(tx.elem, OpKind::Binary(BinaryOp::Add), tx.elem);
    let kind = OpKind::SelectAndScatter { window_dimensions: ksize.to_vec(), window_strides: strides.to_vec(), padding: pads };
    Ok((vec![b.push_with_regions(kind, vec![x, dy, zero], tx, vec![select, scatter])], vec![0, 2]))
}

/// The average-pool gradient: dy divided by each window's count of real (unpadded) inputs, spread
/// back over the window: a window sum of dy interior-padded by the stride.
#[allow(clippy::too_many_arguments)]
fn avg_pool_grad(op: &TfOp, inputs: &[Tensor], b: &mut Builder, ksize: &[i64], strides: &[i64], same: bool, channels_first: bool) -> Lowering {
    expect(op, inputs, 2)?;
    let shape = read_ints(op, "orig_input_shape", &inputs[0])?;
    let tdy = inputs[1].ty.clone();
    let (pads, out) = pool_windows(op, &shape, ksize, strides, same, channels_first)?;
    if out != tdy.shape {
        return Err(Error::invalid(format!("{}: grad {tdy} does not match the pooled shape {out:?}", op.name())));
    }
    let (_, spatial) = layout(channels_first);
    let dy = b.param(tdy.clone());
    // Real inputs per window, per spatial dimension (known from the shapes alone).
    let counts = |d: usize| -> Vec<i64> {
        (0..out[d]).map(|i| {
            let start = i * strides[d] - pads[d].0;
            (start + ksize[d]).min(shape[d]) - start.max(0)
        }).collect()
    };
    let (ch, cw) = (counts(spatial[0]), counts(spatial[1]));
    let grid: Vec<u8> = ch.iter().flat_map(|&h| cw.iter().map(move |&w| (h * w) as f32)).flat_map(f32::to_le_bytes).collect();
    let grid_ty = TensorType::new(vec![out[spatial[0]], out[spatial[1]]], ElementType::F32);
    let grid = b.dense(&grid_ty, grid)?;
    let grid = b.broadcast_in_dim(grid, spatial.iter().map(|&d| d as i64).collect(), &tdy.shape);
    let g = b.binary(BinaryOp::Divide, dy, grid);
    let (mut low, mut high, mut interior) = (vec![0; 4], vec![0; 4], vec![0; 4]);
    for &d in &spatial {
        let (k, s, lo) = (ksize[d], strides[d], pads[d].0);
        low[d] = k - 1 - lo;
        high[d] = shape[d] - 1 - (out[d] - 1) * s + lo;
        interior[d] = s - 1;
    }
    let padded_shape: Vec<i64> = (0..4).map(|d| low[d] + high[d] + tdy.shape[d] + (tdy.shape[d] - 1).max(0) * interior[d]).collect();
    let zero = b.splat(&TensorType::scalar(tdy.elem), 0.0)?;
    let padded = b.push(
        OpKind::Pad { edge_padding_low: low, edge_padding_high: high, interior_padding: interior },
        vec![g, zero],
        TensorType::new(padded_shape, tdy.elem),
    );
    let add = b.scalar_region(tdy.elem, OpKind::Binary(BinaryOp::Add), tdy.elem);
    let kind = OpKind::ReduceWindow {
        window_dimensions: ksize.to_vec(),
        window_strides: vec![1; 4],
        base_dilations: vec![1; 4],
        window_dilations: vec![1; 4],
        padding: vec![(0, 0); 4],
    };
    Ok((vec![b.push_with_regions(kind, vec![padded, zero], TensorType::new(shape, tdy.elem), vec![add])], vec![1]))
}

/// One input dimension of a strided slice: the first index read, the step between reads (its
/// magnitude), how many are read, whether the dimension is read backwards, and whether it is
/// dropped from the result.
#[derive(Clone, Copy, Debug)]
struct DimSlice {
    start: i64,
    step: i64,
    size: i64,
    reversed: bool,
}

/// A strided slice resolved against a shape: one `DimSlice` per input dimension, and the result's
/// shape (new axes inserted, shrunk axes dropped).
struct DenseSlice {
    dims: Vec<DimSlice>,
    result_shape: Vec<i64>,
}

/// Resolves begin/end/strides and the masks against `shape`, as TensorFlow's StridedSlice reads them.
fn dense_slice(op: &TfOp, shape: &[i64], begin: &[i64], end: &[i64], strides: &[i64], m: &SliceMasks) -> Result<DenseSlice> {
    let rank = shape.len();
    let n = begin.len();
    if end.len() != n || strides.len() != n {
        return Err(Error::invalid(format!("{}: begin {begin:?}, end {end:?} and strides {strides:?} differ in length", op.name())));
    }
    let bit = |mask: i64, i: usize| (mask >> i) & 1 == 1;
    let has_ellipsis = (0..n).any(|i| bit(m.ellipsis, i));
    // Entries that consume an input dimension (not the ellipsis, not new axes).
    let consuming = (0..n).filter(|&i| !bit(m.ellipsis, i) && !bit(m.new_axis, i)).count();
    if consuming > rank {
        return Err(Error::invalid(format!("{}: {consuming} sliced dimensions for an input of rank {rank}", op.name())));
    }
    let full = |d: usize| DimSlice { start: 0, step: 1, size: shape[d], reversed: false };
    let mut dims = Vec::with_capacity(rank);
    let mut result_shape = Vec::new();
    let mut ellipsis_seen = false;
    for i in 0..n {
        if bit(m.ellipsis, i) {
            if ellipsis_seen {
                return Err(Error::invalid(format!("{}: more than one ellipsis", op.name())));
            }
            ellipsis_seen = true;
            for _ in 0..rank - consuming {
                let d = dims.len();
                dims.push(full(d));
                result_shape.push(shape[d]);
            }
            continue;
        }
        if bit(m.new_axis, i) {
            result_shape.push(1);
            continue;
        }
        let d = dims.len();
        let len = shape[d];
        let s = strides[i];
        if s == 0 {
            return Err(Error::invalid(format!("{}: stride of dimension {d} is 0", op.name())));
        }
        if bit(m.shrink_axis, i) {
            let idx = if begin[i] < 0 { begin[i] + len } else { begin[i] };
            if idx < 0 || idx >= len {
                return Err(Error::invalid(format!("{}: index {} is out of bounds for dimension {d} of size {len}", op.name(), begin[i])));
            }
            dims.push(DimSlice { start: idx, step: 1, size: 1, reversed: false });
            continue;
        }
        let canon = |v: i64, masked: bool, first: bool| -> i64 {
            if masked {
                return match (first, s > 0) {
                    (true, true) => 0,
                    (true, false) => len - 1,
                    (false, true) => len,
                    (false, false) => -1,
                };
            }
            let v = if v < 0 { v + len } else { v };
            if s > 0 {
                v.clamp(0, len)
            } else {
                v.clamp(-1, len - 1)
            }
        };
        let (b0, e0) = (canon(begin[i], bit(m.begin, i), true), canon(end[i], bit(m.end, i), false));
        let size = if s > 0 { (e0 - b0 + s - 1).div_euclid(s).max(0) } else { (b0 - e0 - s - 1).div_euclid(-s).max(0) };
        // A backwards read is a forward read of the reversed dimension.
        let (start, reversed) = if s > 0 { (b0, false) } else { (len - 1 - b0, true) };
        dims.push(DimSlice { start: if size == 0 { 0 } else { start }, step: s.abs(), size, reversed });
        result_shape.push(size);
    }
    if !has_ellipsis {
        while dims.len() < rank {
            let d = dims.len();
            dims.push(full(d));
            result_shape.push(shape[d]);
        }
    }
    Ok(DenseSlice { dims, result_shape })
}

fn slice_masks_and_ints(op: &TfOp, inputs: &[Tensor], first: usize) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    Ok((read_ints(op, "begin", &inputs[first])?, read_ints(op, "end", &inputs[first + 1])?, read_ints(op, "strides", &inputs[first + 2])?))
}

fn strided_slice(op: &TfOp, inputs: &[Tensor], b: &mut Builder, masks: &SliceMasks) -> Lowering {
    expect(op, inputs, 4)?;
    let ty = inputs[0].ty.clone();
    let (begin, end, strides) = slice_masks_and_ints(op, inputs, 1)?;
    let s = dense_slice(op, &ty.shape, &begin, &end, &strides, masks)?;
    let mut x = b.param(ty.clone());
    let reversed: Vec<i64> = (0..s.dims.len()).filter(|&d| s.dims[d].reversed).map(|d| d as i64).collect();
    if !reversed.is_empty() {
        x = b.push(OpKind::Reverse { dimensions: reversed }, vec![x], ty.clone());
    }
    let start: Vec<i64> = s.dims.iter().map(|d| d.start).collect();
    let limit: Vec<i64> = s.dims.iter().map(|d| if d.size == 0 { d.start } else { d.start + (d.size - 1) * d.step + 1 }).collect();
    let step: Vec<i64> = s.dims.iter().map(|d| d.step).collect();
    let r = b.slice(x, start, limit, step);
    Ok((vec![b.reshape(r, s.result_shape)], vec![0]))
}

/// The gradient of a strided slice: dy placed where the slice read, zeros elsewhere (an interior
/// pad by the step, in the reversed frame for backwards reads).
fn strided_slice_grad(op: &TfOp, inputs: &[Tensor], b: &mut Builder, masks: &SliceMasks) -> Lowering {
    expect(op, inputs, 5)?;
    let shape = read_ints(op, "shape", &inputs[0])?;
    let (begin, end, strides) = slice_masks_and_ints(op, inputs, 1)?;
    let tdy = inputs[4].ty.clone();
    let s = dense_slice(op, &shape, &begin, &end, &strides, masks)?;
    if s.result_shape.iter().product::<i64>() != tdy.shape.iter().product::<i64>() {
        return Err(Error::invalid(format!("{}: dy {tdy} does not match the slice's shape {:?}", op.name(), s.result_shape)));
    }
    let dy = b.param(tdy.clone());
    let out_ty = TensorType::new(shape.clone(), tdy.elem);
    if s.dims.iter().any(|d| d.size == 0) {
        return Ok((vec![b.splat(&out_ty, 0.0)?], vec![]));
    }
    let sizes: Vec<i64> = s.dims.iter().map(|d| d.size).collect();
    let g = b.reshape(dy, sizes);
    let low: Vec<i64> = s.dims.iter().map(|d| d.start).collect();
    let interior: Vec<i64> = s.dims.iter().map(|d| d.step - 1).collect();
    let high: Vec<i64> = s.dims.iter().zip(&shape).map(|(d, &n)| n - (d.start + (d.size - 1) * d.step + 1)).collect();
    let zero = b.splat(&TensorType::scalar(tdy.elem), 0.0)?;
    let mut r = b.push(OpKind::Pad { edge_padding_low: low, edge_padding_high: high, interior_padding: interior }, vec![g, zero], out_ty.clone());
    let reversed: Vec<i64> = (0..s.dims.len()).filter(|&d| s.dims[d].reversed).map(|d| d as i64).collect();
    if !reversed.is_empty() {
        r = b.push(OpKind::Reverse { dimensions: reversed }, vec![r], out_ty);
    }
    Ok((vec![r], vec![4]))
}

fn slice(op: &TfOp, inputs: &[Tensor], b: &mut Builder) -> Lowering {
    expect(op, inputs, 3)?;
    let ty = inputs[0].ty.clone();
    let (begin, size) = (read_ints(op, "begin", &inputs[1])?, read_ints(op, "size", &inputs[2])?);
    if begin.len() != ty.rank() || size.len() != ty.rank() {
        return Err(Error::invalid(format!("{}: begin {begin:?} and size {size:?} for input {ty}", op.name())));
    }
    let mut limit = Vec::new();
    for d in 0..ty.rank() {
        let n = ty.shape[d];
        let len = if size[d] == -1 { n - begin[d] } else { size[d] };
        if begin[d] < 0 || len < 0 || begin[d] + len > n {
            return Err(Error::invalid(format!("{}: begin {} size {} out of bounds for dimension {d} of {ty}", op.name(), begin[d], size[d])));
        }
        limit.push(begin[d] + len);
    }
    let x = b.param(ty.clone());
    Ok((vec![b.slice(x, begin, limit, vec![1; ty.rank()])], vec![0]))
}

fn pack(op: &TfOp, inputs: &[Tensor], b: &mut Builder, axis: i64) -> Lowering {
    let Some(first) = inputs.first() else { return Err(Error::invalid("Pack needs at least one input")) };
    let ty = first.ty.clone();
    let a = axis_of(op, axis, ty.rank() + 1)?;
    let mut shape = ty.shape.clone();
    shape.insert(a, 1);
    let mut parts = Vec::new();
    for t in inputs {
        if t.ty != ty {
            return Err(Error::invalid(format!("{}: inputs {ty} and {} differ", op.name(), t.ty)));
        }
        let p = b.param(ty.clone());
        parts.push(b.reshape(p, shape.clone()));
    }
    let r = if parts.len() == 1 { parts[0] } else { b.concatenate(parts, a) };
    Ok((vec![r], (0..inputs.len()).collect()))
}

fn unpack(op: &TfOp, inputs: &[Tensor], b: &mut Builder, axis: i64, num: i64) -> Lowering {
    expect(op, inputs, 1)?;
    let ty = inputs[0].ty.clone();
    let a = axis_of(op, axis, ty.rank())?;
    if ty.shape[a] != num {
        return Err(Error::invalid(format!("{}: num {num} but dimension {a} of {ty} has {}", op.name(), ty.shape[a])));
    }
    let x = b.param(ty.clone());
    let mut rest = ty.shape.clone();
    rest.remove(a);
    let outs = (0..num)
        .map(|i| {
            let (mut start, mut limit) = (vec![0; ty.rank()], ty.shape.clone());
            start[a] = i;
            limit[a] = i + 1;
            let s = b.slice(x, start, limit, vec![1; ty.rank()]);
            b.reshape(s, rest.clone())
        })
        .collect();
    Ok((outs, vec![0]))
}

fn concat(op: &TfOp, inputs: &[Tensor], b: &mut Builder) -> Lowering {
    let Some((axis_t, values)) = inputs.split_last() else { return Err(Error::invalid("ConcatV2 needs an axis")) };
    let Some(first) = values.first() else { return Err(Error::invalid("ConcatV2 needs at least one value")) };
    let ty = first.ty.clone();
    let a = axis_of(op, scalar_int(op, "axis", axis_t)?, ty.rank())?;
    let mut parts = Vec::new();
    for t in values {
        let same_rest = t.ty.rank() == ty.rank() && (0..ty.rank()).all(|d| d == a || t.ty.shape[d] == ty.shape[d]);
        if !same_rest || t.ty.elem != ty.elem {
            return Err(Error::invalid(format!("{}: {} cannot be concatenated with {ty} along axis {a}", op.name(), t.ty)));
        }
        parts.push(b.param(t.ty.clone()));
    }
    let r = if parts.len() == 1 { parts[0] } else { b.concatenate(parts, a) };
    Ok((vec![r], (0..values.len()).collect()))
}

/// Consecutive slices of `x` along `a` of the given sizes.
fn cut(b: &mut Builder, x: ValueId, a: usize, sizes: &[i64]) -> Vec<ValueId> {
    let ty = b.ty(x);
    let mut at = 0;
    sizes
        .iter()
        .map(|&len| {
            let (mut start, mut limit) = (vec![0; ty.rank()], ty.shape.clone());
            start[a] = at;
            limit[a] = at + len;
            at += len;
            b.slice(x, start, limit, vec![1; ty.rank()])
        })
        .collect()
}

fn split(op: &TfOp, inputs: &[Tensor], b: &mut Builder, num: i64) -> Lowering {
    expect(op, inputs, 2)?;
    let ty = inputs[1].ty.clone();
    let a = axis_of(op, scalar_int(op, "axis", &inputs[0])?, ty.rank())?;
    if num < 1 || ty.shape[a] % num != 0 {
        return Err(Error::invalid(format!("{}: dimension {a} of {ty} does not split into {num} equal parts", op.name())));
    }
    let x = b.param(ty.clone());
    Ok((cut(b, x, a, &vec![ty.shape[a] / num; num as usize]), vec![1]))
}

fn split_v(op: &TfOp, inputs: &[Tensor], b: &mut Builder, num: i64) -> Lowering {
    expect(op, inputs, 3)?;
    let ty = inputs[0].ty.clone();
    let mut sizes = read_ints(op, "size_splits", &inputs[1])?;
    let a = axis_of(op, scalar_int(op, "axis", &inputs[2])?, ty.rank())?;
    let unknown: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] == -1).collect();
    let known: i64 = sizes.iter().filter(|&&s| s != -1).sum();
    if let [i] = unknown.as_slice() {
        sizes[*i] = ty.shape[a] - known;
    }
    if sizes.len() as i64 != num || unknown.len() > 1 || sizes.iter().any(|&s| s < 0) || sizes.iter().sum::<i64>() != ty.shape[a] {
        return Err(Error::invalid(format!("{}: size_splits {sizes:?} do not split dimension {a} of {ty} into {num}", op.name())));
    }
    let x = b.param(ty);
    Ok((cut(b, x, a, &sizes), vec![0]))
}

/// `params` gathered along `axis` at `indices` (batch_dims 0): result shape params[..axis] +
/// indices + params[axis+1..]. Indices out of range are clamped, as XLA does (TensorFlow's CPU
/// kernel reports an error instead).
fn gather(op: &TfOp, inputs: &[Tensor], b: &mut Builder, batch_dims: i64) -> Lowering {
    expect(op, inputs, 3)?;
    if batch_dims != 0 {
        return Err(Error::unimplemented(format!("{} with batch_dims {batch_dims}", op.name())));
    }
    let (tp, ti) = (inputs[0].ty.clone(), inputs[1].ty.clone());
    if !matches!(ti.elem, ElementType::S32 | ElementType::S64) {
        return Err(Error::invalid(format!("{}: indices must be int32 or int64, got {ti}", op.name())));
    }
    let a = axis_of(op, scalar_int(op, "axis", &inputs[2])?, tp.rank())?;
    let (r, q) = (tp.rank() as i64, ti.rank() as i64);
    let a64 = a as i64;
    let offset_dims: Vec<i64> = (0..a64).chain(a64 + q..r - 1 + q).collect();
    let mut slice_sizes = tp.shape.clone();
    slice_sizes[a] = 1;
    let mut shape: Vec<i64> = tp.shape[..a].to_vec();
    shape.extend(&ti.shape);
    shape.extend(&tp.shape[a + 1..]);
    let p = b.param(tp.clone());
    let i = b.param(ti.clone());
    let dims = GatherDims {
        offset_dims,
        collapsed_slice_dims: vec![a64],
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
        start_index_map: vec![a64],
        index_vector_dim: q,
    };
    let kind = OpKind::Gather { dims, slice_sizes, indices_are_sorted: false };
    Ok((vec![b.push(kind, vec![p, i], TensorType::new(shape, tp.elem))], vec![0, 1]))
}
