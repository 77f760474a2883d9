//! Each TensorFlow op as a single-function IR module. Host-memory operands (reduction axes) are read
//! here and become attributes; the other inputs become the module's parameters.

use super::builder::Builder;
use super::ops::{Padding, TfOp, TfReduction, TfUnary};
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ConvDims, DotDims, ElementType, Module, OpKind, TensorType, UnaryOp};
use apu_compiler::{Error, Result};
use apu_runtime::Tensor;

/// A lowered op: the module and which op inputs are its parameters, in order.
pub struct Lowered {
    pub module: Module,
    pub params: Vec<usize>,
}

fn expect_inputs(op: &TfOp, inputs: &[Tensor], n: usize) -> Result<()> {
    if inputs.len() != n {
        return Err(Error::invalid(format!("{} expects {n} inputs, got {}", op.name(), inputs.len())));
    }
    Ok(())
}

fn expect_rank_at_least(op: &TfOp, what: &str, ty: &TensorType, r: usize) -> Result<()> {
    if ty.rank() < r {
        return Err(Error::invalid(format!("{}: {what} must have rank >= {r}, got shape {:?}", op.name(), ty.shape)));
    }
    Ok(())
}

/// Reads an int32/int64 axis list from a host tensor and normalises negative axes.
fn read_axes(op: &TfOp, t: &Tensor, rank: usize) -> Result<Vec<i64>> {
    let raw: Vec<i64> = match t.ty.elem {
        ElementType::S32 => t.bytes().chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        ElementType::S64 => t.bytes().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect(),
        e => return Err(Error::invalid(format!("{}: reduction_indices must be int32 or int64, got {e}", op.name()))),
    };
    let mut axes = Vec::new();
    for a in raw {
        let n = if a < 0 { a + rank as i64 } else { a };
        if n < 0 || n >= rank as i64 {
            return Err(Error::invalid(format!("{}: axis {a} is out of range for a rank-{rank} input", op.name())));
        }
        if !axes.contains(&n) {
            axes.push(n);
        }
    }
    axes.sort_unstable();
    Ok(axes)
}

fn reduction_init(r: TfReduction) -> f64 {
    match r {
        TfReduction::Sum | TfReduction::Mean => 0.0,
        TfReduction::Max => f64::NEG_INFINITY,
        TfReduction::Min => f64::INFINITY,
        TfReduction::Prod => 1.0,
    }
}

/// Lowers `op` applied to `inputs` (their types; host-memory inputs also their values).
pub fn lower(op: &TfOp, inputs: &[Tensor]) -> Result<Lowered> {
    let mut b = Builder::new();
    let one = |n| (0..n).collect::<Vec<usize>>();
    let (results, params) = match op {
        TfOp::Relu | TfOp::Relu6 | TfOp::Elu => {
            expect_inputs(op, inputs, 1)?;
            let ty = inputs[0].ty.clone();
            let x = b.param(ty.clone());
            let zero = b.splat(&ty, 0.0)?;
            let r = match op {
                TfOp::Relu => b.binary(BinaryOp::Maximum, x, zero),
                TfOp::Relu6 => {
                    let six = b.splat(&ty, 6.0)?;
                    let m = b.binary(BinaryOp::Maximum, x, zero);
                    b.binary(BinaryOp::Minimum, m, six)
                }
                _ => {
                    let positive = b.compare(ComparisonDirection::Gt, x, zero);
                    let em1 = b.unary(UnaryOp::ExponentialMinusOne, x);
                    b.select(positive, x, em1)
                }
            };
            (vec![r], one(1))
        }
        TfOp::Unary(u) => {
            expect_inputs(op, inputs, 1)?;
            let x = b.param(inputs[0].ty.clone());
            let r = match u.ir() {
                Some(k) => b.unary(k, x),
                None => {
                    debug_assert_eq!(*u, TfUnary::Square);
                    b.binary(BinaryOp::Multiply, x, x)
                }
            };
            (vec![r], one(1))
        }
        TfOp::Binary(k) => {
            expect_inputs(op, inputs, 2)?;
            let x = b.param(inputs[0].ty.clone());
            let y = b.param(inputs[1].ty.clone());
            (vec![b.broadcasting_binary(*k, x, y)?], one(2))
        }
        TfOp::MatMul { transpose_a, transpose_b } => {
            expect_inputs(op, inputs, 2)?;
            let (ta, tb) = (&inputs[0].ty, &inputs[1].ty);
            if ta.rank() != 2 || tb.rank() != 2 {
                return Err(Error::invalid(format!("MatMul needs rank-2 operands, got {:?} and {:?}", ta.shape, tb.shape)));
            }
            let (lc, rc) = (if *transpose_a { 0 } else { 1 }, if *transpose_b { 1 } else { 0 });
            if ta.shape[lc] != tb.shape[rc] {
                return Err(Error::invalid(format!(
                    "MatMul: contracting dimensions differ: a {:?} (transpose_a={transpose_a}) and b {:?} (transpose_b={transpose_b})",
                    ta.shape, tb.shape
                )));
            }
            let x = b.param(ta.clone());
            let y = b.param(tb.clone());
            let shape = vec![ta.shape[1 - lc], tb.shape[1 - rc]];
            let dims = DotDims { lhs_contracting: vec![lc as i64], rhs_contracting: vec![rc as i64], ..Default::default() };
            let kind = OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None };
            (vec![b.push(kind, vec![x, y], TensorType::new(shape, ta.elem))], one(2))
        }
        TfOp::BatchMatMul { adj_x, adj_y } => {
            expect_inputs(op, inputs, 2)?;
            let (ta, tb) = (&inputs[0].ty, &inputs[1].ty);
            expect_rank_at_least(op, "x", ta, 2)?;
            expect_rank_at_least(op, "y", tb, 2)?;
            let (ra, rb) = (ta.rank(), tb.rank());
            let batch = super::builder::broadcast_shapes(&ta.shape[..ra - 2], &tb.shape[..rb - 2])?;
            let nb = batch.len();
            let (lc, rc) = (if *adj_x { nb } else { nb + 1 }, if *adj_y { nb + 1 } else { nb });
            let x = b.param(ta.clone());
            let y = b.param(tb.clone());
            let xs: Vec<i64> = batch.iter().chain(&ta.shape[ra - 2..]).copied().collect();
            let ys: Vec<i64> = batch.iter().chain(&tb.shape[rb - 2..]).copied().collect();
            if xs[lc] != ys[rc] {
                return Err(Error::invalid(format!(
                    "BatchMatMulV2: contracting dimensions differ: x {:?} (adj_x={adj_x}) and y {:?} (adj_y={adj_y})",
                    ta.shape, tb.shape
                )));
            }
            let x = b.broadcast_to(x, &xs);
            let y = b.broadcast_to(y, &ys);
            let free_l = if *adj_x { nb + 1 } else { nb };
            let free_r = if *adj_y { nb } else { nb + 1 };
            let mut shape = batch.clone();
            shape.push(xs[free_l]);
            shape.push(ys[free_r]);
            let bd: Vec<i64> = (0..nb as i64).collect();
            let dims = DotDims { lhs_batch: bd.clone(), rhs_batch: bd, lhs_contracting: vec![lc as i64], rhs_contracting: vec![rc as i64] };
            let kind = OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None };
            (vec![b.push(kind, vec![x, y], TensorType::new(shape, ta.elem))], one(2))
        }
        TfOp::BiasAdd { channels_first } => {
            expect_inputs(op, inputs, 2)?;
            let (tx, tbias) = (&inputs[0].ty, &inputs[1].ty);
            expect_rank_at_least(op, "value", tx, 2)?;
            let fd = if *channels_first { 1 } else { tx.rank() - 1 };
            if tbias.rank() != 1 || tbias.shape[0] != tx.shape[fd] {
                return Err(Error::invalid(format!("BiasAdd: bias shape {:?} does not match dimension {fd} of {:?}", tbias.shape, tx.shape)));
            }
            let x = b.param(tx.clone());
            let bias = b.param(tbias.clone());
            let bb = b.broadcast_in_dim(bias, vec![fd as i64], &tx.shape);
            (vec![b.binary(BinaryOp::Add, x, bb)], one(2))
        }
        TfOp::Softmax | TfOp::LogSoftmax => {
            expect_inputs(op, inputs, 1)?;
            let ty = inputs[0].ty.clone();
            expect_rank_at_least(op, "logits", &ty, 1)?;
            let x = b.param(ty.clone());
            let (shifted, sum) = shifted_exp_sum(&mut b, x, &ty)?;
            let last = [ty.rank() as i64 - 1];
            let r = if *op == TfOp::Softmax {
                let e = b.unary(UnaryOp::Exponential, shifted);
                let s = b.unreduce(sum, &last, &ty.shape);
                b.binary(BinaryOp::Divide, e, s)
            } else {
                let l = b.unary(UnaryOp::Log, sum);
                let l = b.unreduce(l, &last, &ty.shape);
                b.binary(BinaryOp::Subtract, shifted, l)
            };
            (vec![r], one(1))
        }
        TfOp::Reduce { reduction, keep_dims } => {
            expect_inputs(op, inputs, 2)?;
            let ty = inputs[0].ty.clone();
            let axes = read_axes(op, &inputs[1], ty.rank())?;
            let x = b.param(ty.clone());
            let combiner = match reduction {
                TfReduction::Sum | TfReduction::Mean => BinaryOp::Add,
                TfReduction::Max => BinaryOp::Maximum,
                TfReduction::Min => BinaryOp::Minimum,
                TfReduction::Prod => BinaryOp::Multiply,
            };
            let mut r = b.reduce(x, &axes, combiner, reduction_init(*reduction))?;
            if *reduction == TfReduction::Mean {
                let count: i64 = axes.iter().map(|&a| ty.shape[a as usize]).product();
                let rty = b.ty(r);
                let n = b.splat(&rty, count as f64)?;
                r = b.binary(BinaryOp::Divide, r, n);
            }
            if *keep_dims {
                let shape = (0..ty.rank()).map(|d| if axes.contains(&(d as i64)) { 1 } else { ty.shape[d] }).collect();
                r = b.reshape(r, shape);
            }
            (vec![r], vec![0])
        }
        TfOp::Cast { to } => {
            expect_inputs(op, inputs, 1)?;
            let x = b.param(inputs[0].ty.clone());
            let shape = inputs[0].ty.shape.clone();
            (vec![b.push(OpKind::Convert, vec![x], TensorType::new(shape, *to))], one(1))
        }
        TfOp::Conv2D { strides, dilations, padding, channels_first } => {
            expect_inputs(op, inputs, 2)?;
            (vec![lower_conv2d(&mut b, &inputs[0].ty, &inputs[1].ty, strides, dilations, padding, *channels_first)?], one(2))
        }
        TfOp::ReluGrad => {
            expect_inputs(op, inputs, 2)?;
            let (tg, tf) = (&inputs[0].ty, &inputs[1].ty);
            if tg != tf {
                return Err(Error::invalid(format!("ReluGrad: gradients {tg} and features {tf} differ")));
            }
            let g = b.param(tg.clone());
            let f = b.param(tf.clone());
            let zero = b.splat(tf, 0.0)?;
            let positive = b.compare(ComparisonDirection::Gt, f, zero);
            (vec![b.select(positive, g, zero)], one(2))
        }
        TfOp::BiasAddGrad { channels_first } => {
            expect_inputs(op, inputs, 1)?;
            let ty = inputs[0].ty.clone();
            expect_rank_at_least(op, "out_backprop", &ty, 2)?;
            let fd = if *channels_first { 1 } else { ty.rank() - 1 } as i64;
            let x = b.param(ty.clone());
            let dims: Vec<i64> = (0..ty.rank() as i64).filter(|&d| d != fd).collect();
            (vec![b.reduce(x, &dims, BinaryOp::Add, 0.0)?], one(1))
        }
        TfOp::SoftmaxCrossEntropyWithLogits => {
            expect_inputs(op, inputs, 2)?;
            let shape = super::builder::broadcast_shapes(&inputs[0].ty.shape, &inputs[1].ty.shape)?;
            if shape.len() != 2 {
                return Err(Error::invalid(format!(
                    "SoftmaxCrossEntropyWithLogits needs rank-2 logits and labels, got {:?} and {:?}",
                    inputs[0].ty.shape, inputs[1].ty.shape
                )));
            }
            let ty = TensorType::new(shape.clone(), inputs[0].ty.elem);
            let f = b.param(inputs[0].ty.clone());
            let l = b.param(inputs[1].ty.clone());
            let f = b.broadcast_to(f, &shape);
            let l = b.broadcast_to(l, &shape);
            let (shifted, sum) = shifted_exp_sum(&mut b, f, &ty)?;
            let lse = b.unary(UnaryOp::Log, sum);
            let lse = b.unreduce(lse, &[1], &shape);
            let log_softmax = b.binary(BinaryOp::Subtract, shifted, lse);
            let weighted = b.binary(BinaryOp::Multiply, l, log_softmax);
            let total = b.reduce(weighted, &[1], BinaryOp::Add, 0.0)?;
            let loss = b.unary(UnaryOp::Negate, total);
            let softmax = b.unary(UnaryOp::Exponential, log_softmax);
            let backprop = b.binary(BinaryOp::Subtract, softmax, l);
            (vec![loss, backprop], one(2))
        }
        other => match super::lower_more::lower(other, inputs, &mut b).or_else(|| super::lower_train::lower(other, inputs, &mut b)) {
            Some(r) => r?,
            None => return Err(Error::internal(format!("no lowering for TensorFlow op {}", other.name()))),
        },
    };
    Ok(Lowered { module: b.finish(results), params })
}

/// `x - max(x)` over the last axis and `sum(exp(x - max(x)))` (the numerically safe softmax pieces).
fn shifted_exp_sum(b: &mut Builder, x: apu_compiler::ir::ValueId, ty: &TensorType) -> Result<(apu_compiler::ir::ValueId, apu_compiler::ir::ValueId)> {
    let last = [ty.rank() as i64 - 1];
    let m = b.reduce(x, &last, BinaryOp::Maximum, f64::NEG_INFINITY)?;
    let m = b.unreduce(m, &last, &ty.shape);
    let shifted = b.binary(BinaryOp::Subtract, x, m);
    let e = b.unary(UnaryOp::Exponential, shifted);
    let sum = b.reduce(e, &last, BinaryOp::Add, 0.0)?;
    Ok((shifted, sum))
}

/// (low, high) padding of one spatial dimension of size `n` under a window of effective size `ek`
/// with stride `s`, and the output size (TensorFlow's SAME / VALID / EXPLICIT rules, shared by
/// Conv2D, its gradients and the pooling gradients).
pub(super) fn window_padding(name: &str, padding: &Padding, d: usize, n: i64, ek: i64, s: i64) -> Result<((i64, i64), i64)> {
    if s < 1 {
        return Err(Error::invalid(format!("{}: stride {s} must be >= 1", name)));
    }
    let (lo, hi) = match padding {
        Padding::Valid => (0, 0),
        Padding::Same => {
            let out = (n + s - 1) / s;
            let total = ((out - 1) * s + ek - n).max(0);
            (total / 2, total - total / 2)
        }
        Padding::Explicit(p) => *p.get(d).ok_or_else(|| Error::invalid(format!("{}: explicit_paddings needs 8 values", name)))?,
    };
    let padded = n + lo + hi;
    if padded < ek {
        return Err(Error::invalid(format!("{}: window of {ek} is larger than the padded input {padded}", name)));
    }
    Ok(((lo, hi), (padded - ek) / s + 1))
}

/// The dimension numbers of an image (batch first, features at `feature`, two spatial dimensions)
/// convolved by an HWIO filter into an image of the same layout; `transposed` swaps the filter's
/// I and O (the input gradient convolves the output gradient by the filter's transpose).
pub(super) fn image_by_hwio(feature: usize, spatial: [usize; 2], transposed: bool) -> ConvDims {
    let sp: Vec<i64> = spatial.iter().map(|&d| d as i64).collect();
    let (i, o) = if transposed { (3, 2) } else { (2, 3) };
    ConvDims {
        input_batch: 0,
        input_feature: feature as i64,
        input_spatial: sp.clone(),
        kernel_input_feature: i,
        kernel_output_feature: o,
        kernel_spatial: vec![0, 1],
        output_batch: 0,
        output_feature: feature as i64,
        output_spatial: sp,
    }
}

fn lower_conv2d(
    b: &mut Builder,
    tin: &TensorType,
    tfilter: &TensorType,
    strides: &[i64],
    dilations: &[i64],
    padding: &Padding,
    channels_first: bool,
) -> Result<apu_compiler::ir::ValueId> {
    if tin.rank() != 4 || tfilter.rank() != 4 {
        return Err(Error::invalid(format!("Conv2D needs rank-4 input and filter, got {:?} and {:?}", tin.shape, tfilter.shape)));
    }
    let (feature, spatial) = if channels_first { (1usize, [2usize, 3]) } else { (3, [1, 2]) };
    let stride = |v: &[i64], d: usize| v.get(d).copied().unwrap_or(1);
    if strides.len() != 4 || dilations.len() != 4 || stride(strides, 0) != 1 || stride(strides, feature) != 1 {
        return Err(Error::unimplemented(format!("Conv2D with strides {strides:?} / dilations {dilations:?} (batch and channel strides must be 1)")));
    }
    let in_ch = tin.shape[feature];
    if tfilter.shape[2] != in_ch {
        return Err(Error::unimplemented(format!(
            "Conv2D with {} input channels and a filter for {} (grouped convolution)",
            in_ch, tfilter.shape[2]
        )));
    }
    let mut pads = Vec::new();
    let mut out_spatial = Vec::new();
    for (i, &d) in spatial.iter().enumerate() {
        let (n, k, s, dil) = (tin.shape[d], tfilter.shape[i], strides[d], dilations[d]);
        if s < 1 || dil < 1 {
            return Err(Error::invalid(format!("Conv2D: stride {s} / dilation {dil} must be >= 1")));
        }
        let (p, out) = window_padding("Conv2D", padding, d, n, (k - 1) * dil + 1, s)?;
        out_spatial.push(out);
        pads.push(p);
    }
    let mut out_shape = tin.shape.clone();
    out_shape[feature] = tfilter.shape[3];
    out_shape[spatial[0]] = out_spatial[0];
    out_shape[spatial[1]] = out_spatial[1];
    let x = b.param(tin.clone());
    let w = b.param(tfilter.clone());
    let dims = image_by_hwio(feature, spatial, false);
    let (window_strides, rhs_dilation) = (spatial.iter().map(|&d| strides[d]).collect(), spatial.iter().map(|&d| dilations[d]).collect());
    Ok(b.convolution(x, w, dims, window_strides, pads, vec![1, 1], rhs_dilation, TensorType::new(out_shape, tin.elem)))
}
