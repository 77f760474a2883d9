//! Lowerings of the ops a Keras training step needs beyond the first kernel set: elementwise
//! gradients, shape ops whose shapes come from host-memory inputs, selection, comparison, pooling
//! and the sparse softmax cross-entropy. Each builds single-op IR that the plan executor runs as
//! fused, reduce, copy or dot steps (no interpreter step: `registry` tests check every kernel's plan).

use super::builder::{broadcast_shapes, Builder};
use super::ops::{PoolKind, TfElementwise, TfOp};
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ElementType, OpKind, TensorType, UnaryOp, ValueId};
use apu_compiler::{Error, Result};
use apu_runtime::Tensor;

/// Reads a host-memory int32/int64 vector (or scalar).
pub fn read_ints(op: &TfOp, what: &str, t: &Tensor) -> Result<Vec<i64>> {
    Ok(match t.ty.elem {
        ElementType::S32 => t.bytes().chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        ElementType::S64 => t.bytes().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect(),
        e => return Err(Error::invalid(format!("{}: {what} must be int32 or int64, got {e}", op.name()))),
    })
}

fn expect(op: &TfOp, inputs: &[Tensor], n: usize) -> Result<()> {
    if inputs.len() != n {
        return Err(Error::invalid(format!("{} expects {n} inputs, got {}", op.name(), inputs.len())));
    }
    Ok(())
}

fn same_shape(op: &TfOp, a: &TensorType, b: &TensorType) -> Result<()> {
    if a != b {
        return Err(Error::invalid(format!("{}: operands {a} and {b} differ", op.name())));
    }
    Ok(())
}

/// Lowers the ops of this file; `None` for ops handled elsewhere.
pub fn lower(op: &TfOp, inputs: &[Tensor], b: &mut Builder) -> Option<Result<(Vec<ValueId>, Vec<usize>)>> {
    Some(match op {
        TfOp::Elementwise(e) => elementwise(op, *e, inputs, b),
        TfOp::AddN => (|| {
            if inputs.is_empty() {
                return Err(Error::invalid("AddN needs at least one input"));
            }
            let ty = inputs[0].ty.clone();
            let mut acc = b.param(ty.clone());
            for t in &inputs[1..] {
                same_shape(op, &ty, &t.ty)?;
                let v = b.param(t.ty.clone());
                acc = b.binary(BinaryOp::Add, acc, v);
            }
            Ok((vec![acc], (0..inputs.len()).collect()))
        })(),
        TfOp::Compare(dir) => (|| {
            expect(op, inputs, 2)?;
            let x = b.param(inputs[0].ty.clone());
            let y = b.param(inputs[1].ty.clone());
            let shape = broadcast_shapes(&inputs[0].ty.shape, &inputs[1].ty.shape)?;
            let (x, y) = (b.broadcast_to(x, &shape), b.broadcast_to(y, &shape));
            Ok((vec![b.compare(*dir, x, y)], vec![0, 1]))
        })(),
        TfOp::SelectV2 => (|| {
            expect(op, inputs, 3)?;
            if inputs[0].ty.elem != ElementType::Pred {
                return Err(Error::invalid(format!("SelectV2: condition must be bool, got {}", inputs[0].ty)));
            }
            let shape = broadcast_shapes(&inputs[0].ty.shape, &broadcast_shapes(&inputs[1].ty.shape, &inputs[2].ty.shape)?)?;
            let c = b.param(inputs[0].ty.clone());
            let t = b.param(inputs[1].ty.clone());
            let e = b.param(inputs[2].ty.clone());
            let (c, t, e) = (b.broadcast_to(c, &shape), b.broadcast_to(t, &shape), b.broadcast_to(e, &shape));
            Ok((vec![b.select(c, t, e)], vec![0, 1, 2]))
        })(),
        TfOp::Tile => (|| {
            expect(op, inputs, 2)?;
            let ty = inputs[0].ty.clone();
            let m = read_ints(op, "multiples", &inputs[1])?;
            if m.len() != ty.rank() || m.iter().any(|&v| v < 0) {
                return Err(Error::invalid(format!("Tile: multiples {m:?} do not fit input {ty}")));
            }
            let x = b.param(ty.clone());
            let wide: Vec<i64> = m.iter().zip(&ty.shape).flat_map(|(&k, &d)| [k, d]).collect();
            let dims: Vec<i64> = (0..ty.rank() as i64).map(|i| 2 * i + 1).collect();
            let w = b.broadcast_in_dim(x, dims, &wide);
            let out: Vec<i64> = m.iter().zip(&ty.shape).map(|(&k, &d)| k * d).collect();
            Ok((vec![b.reshape(w, out)], vec![0]))
        })(),
        TfOp::BroadcastTo => (|| {
            expect(op, inputs, 2)?;
            let shape = read_ints(op, "shape", &inputs[1])?;
            let ty = inputs[0].ty.clone();
            if ty.rank() > shape.len() || broadcast_shapes(&ty.shape, &shape)? != shape {
                return Err(Error::invalid(format!("BroadcastTo: {ty} cannot be broadcast to {shape:?}")));
            }
            let x = b.param(ty);
            Ok((vec![b.broadcast_to(x, &shape)], vec![0]))
        })(),
        TfOp::Transpose => (|| {
            expect(op, inputs, 2)?;
            let ty = inputs[0].ty.clone();
            let perm = read_ints(op, "perm", &inputs[1])?;
            let mut seen = vec![false; ty.rank()];
            for &p in &perm {
                match seen.get_mut(p as usize) {
                    Some(s) if !*s && p >= 0 => *s = true,
                    _ => return Err(Error::invalid(format!("Transpose: {perm:?} is not a permutation of {} dimensions", ty.rank()))),
                }
            }
            if perm.len() != ty.rank() {
                return Err(Error::invalid(format!("Transpose: {perm:?} is not a permutation of {} dimensions", ty.rank())));
            }
            let x = b.param(ty.clone());
            let shape = perm.iter().map(|&p| ty.shape[p as usize]).collect();
            Ok((vec![b.push(OpKind::Transpose { permutation: perm }, vec![x], TensorType::new(shape, ty.elem))], vec![0]))
        })(),
        TfOp::Fill => (|| {
            expect(op, inputs, 2)?;
            let dims = read_ints(op, "dims", &inputs[0])?;
            if inputs[1].ty.rank() != 0 || dims.iter().any(|&d| d < 0) {
                return Err(Error::invalid(format!("Fill: dims {dims:?} and value {} (must be a scalar)", inputs[1].ty)));
            }
            let v = b.param(inputs[1].ty.clone());
            Ok((vec![b.broadcast_in_dim(v, vec![], &dims)], vec![1]))
        })(),
        TfOp::SparseSoftmaxCrossEntropyWithLogits => sparse_xent(op, inputs, b),
        TfOp::Pool { kind, ksize, strides, same, channels_first } => pool(op, *kind, ksize, strides, *same, *channels_first, inputs, b),
        _ => return None,
    })
}

fn elementwise(op: &TfOp, e: TfElementwise, inputs: &[Tensor], b: &mut Builder) -> Result<(Vec<ValueId>, Vec<usize>)> {
    use TfElementwise::*;
    if matches!(e, Sign | ZerosLike | OnesLike) {
        expect(op, inputs, 1)?;
        let ty = inputs[0].ty.clone();
        return Ok(match e {
            Sign => {
                let x = b.param(ty);
                (vec![b.unary(UnaryOp::Sign, x)], vec![0])
            }
            ZerosLike => (vec![b.splat(&ty, 0.0)?], vec![]),
            _ => (vec![b.splat(&ty, 1.0)?], vec![]),
        });
    }
    expect(op, inputs, 2)?;
    let (ta, tb) = (inputs[0].ty.clone(), inputs[1].ty.clone());
    let x = b.param(ta.clone());
    let y = b.param(tb.clone());
    let r = match e {
        Pow => b.broadcasting_binary(BinaryOp::Power, x, y)?,
        SquaredDifference => {
            let d = b.broadcasting_binary(BinaryOp::Subtract, x, y)?;
            b.binary(BinaryOp::Multiply, d, d)
        }
        DivNoNan => {
            let shape = broadcast_shapes(&ta.shape, &tb.shape)?;
            let (x, y) = (b.broadcast_to(x, &shape), b.broadcast_to(y, &shape));
            let q = b.binary(BinaryOp::Divide, x, y);
            let zero = b.splat(&TensorType::new(shape, ta.elem), 0.0)?;
            let is_zero = b.compare(ComparisonDirection::Eq, y, zero);
            b.select(is_zero, zero, q)
        }
        // The gradients take the forward output y and the incoming gradient dy, of one shape.
        RsqrtGrad | SigmoidGrad | TanhGrad => {
            same_shape(op, &ta, &tb)?;
            let (yv, dy) = (x, y);
            match e {
                RsqrtGrad => {
                    let y2 = b.binary(BinaryOp::Multiply, yv, yv);
                    let y3 = b.binary(BinaryOp::Multiply, y2, yv);
                    let k = b.splat(&ta, -0.5)?;
                    let s = b.binary(BinaryOp::Multiply, y3, k);
                    b.binary(BinaryOp::Multiply, dy, s)
                }
                SigmoidGrad => {
                    let one = b.splat(&ta, 1.0)?;
                    let om = b.binary(BinaryOp::Subtract, one, yv);
                    let s = b.binary(BinaryOp::Multiply, yv, om);
                    b.binary(BinaryOp::Multiply, dy, s)
                }
                _ => {
                    let one = b.splat(&ta, 1.0)?;
                    let y2 = b.binary(BinaryOp::Multiply, yv, yv);
                    let om = b.binary(BinaryOp::Subtract, one, y2);
                    b.binary(BinaryOp::Multiply, dy, om)
                }
            }
        }
        FloorMod => {
            let shape = broadcast_shapes(&ta.shape, &tb.shape)?;
            let (x, y) = (b.broadcast_to(x, &shape), b.broadcast_to(y, &shape));
            let r = b.binary(BinaryOp::Remainder, x, y);
            let zero = b.splat(&TensorType::new(shape, ta.elem), 0.0)?;
            let nonzero = b.compare(ComparisonDirection::Ne, r, zero);
            let r_neg = b.compare(ComparisonDirection::Lt, r, zero);
            let y_neg = b.compare(ComparisonDirection::Lt, y, zero);
            let signs_differ = b.compare(ComparisonDirection::Ne, r_neg, y_neg);
            let fix = b.binary(BinaryOp::And, nonzero, signs_differ);
            let shifted = b.binary(BinaryOp::Add, r, y);
            b.select(fix, shifted, r)
        }
        Sign | ZerosLike | OnesLike => unreachable!("handled above"),
    };
    Ok((vec![r], vec![0, 1]))
}

fn sparse_xent(op: &TfOp, inputs: &[Tensor], b: &mut Builder) -> Result<(Vec<ValueId>, Vec<usize>)> {
    expect(op, inputs, 2)?;
    let (tf, tl) = (inputs[0].ty.clone(), inputs[1].ty.clone());
    if tf.rank() != 2 || tl.rank() != 1 || tl.shape[0] != tf.shape[0] {
        return Err(Error::invalid(format!("SparseSoftmaxCrossEntropyWithLogits: logits {tf} and labels {tl} (need [batch, classes] and [batch])")));
    }
    let f = b.param(tf.clone());
    let l = b.param(tl.clone());
    let shape = tf.shape.clone();
    let classes = b.push(OpKind::Iota { dimension: 1 }, vec![], TensorType::new(shape.clone(), tl.elem));
    let lb = b.broadcast_in_dim(l, vec![0], &shape);
    let hit = b.compare(ComparisonDirection::Eq, classes, lb);
    let onehot = b.push(OpKind::Convert, vec![hit], tf.clone());
    let last = [1i64];
    let m = b.reduce(f, &last, BinaryOp::Maximum, f64::NEG_INFINITY)?;
    let m = b.unreduce(m, &last, &shape);
    let shifted = b.binary(BinaryOp::Subtract, f, m);
    let e = b.unary(UnaryOp::Exponential, shifted);
    let sum = b.reduce(e, &last, BinaryOp::Add, 0.0)?;
    let lse = b.unary(UnaryOp::Log, sum);
    let lse = b.unreduce(lse, &last, &shape);
    let log_softmax = b.binary(BinaryOp::Subtract, shifted, lse);
    let weighted = b.binary(BinaryOp::Multiply, onehot, log_softmax);
    let total = b.reduce(weighted, &last, BinaryOp::Add, 0.0)?;
    let loss = b.unary(UnaryOp::Negate, total);
    let softmax = b.unary(UnaryOp::Exponential, log_softmax);
    let backprop = b.binary(BinaryOp::Subtract, softmax, onehot);
    Ok((vec![loss, backprop], vec![0, 1]))
}

/// Max or average pooling as a combination of strided slices of the (padded) input: one slice per
/// window offset, combined elementwise, so the plan fuses the whole window into one kernel.
#[allow(clippy::too_many_arguments)]
fn pool(
    op: &TfOp,
    kind: PoolKind,
    ksize: &[i64],
    strides: &[i64],
    same: bool,
    channels_first: bool,
    inputs: &[Tensor],
    b: &mut Builder,
) -> Result<(Vec<ValueId>, Vec<usize>)> {
    expect(op, inputs, 1)?;
    let ty = inputs[0].ty.clone();
    if ty.rank() != 4 || ksize.len() != 4 || strides.len() != 4 {
        return Err(Error::invalid(format!("{}: input {ty}, ksize {ksize:?}, strides {strides:?} (need rank 4)", op.name())));
    }
    let (feature, spatial) = if channels_first { (1usize, [2usize, 3]) } else { (3, [1, 2]) };
    if ksize[0] != 1 || ksize[feature] != 1 || strides[0] != 1 || strides[feature] != 1 {
        return Err(Error::unimplemented(format!("{} over the batch or channel dimension", op.name())));
    }
    let x = b.param(ty.clone());
    let fill = if kind == PoolKind::Max { f64::NEG_INFINITY } else { 0.0 };
    let mut padded = x;
    let mut ones = None;
    let mut out_shape = ty.shape.clone();
    for &d in &spatial {
        let (n, k, s) = (ty.shape[d], ksize[d], strides[d]);
        if k < 1 || s < 1 {
            return Err(Error::invalid(format!("{}: window {k} / stride {s}", op.name())));
        }
        let (out, lo, hi) = if same {
            let out = (n + s - 1) / s;
            let total = ((out - 1) * s + k - n).max(0);
            (out, total / 2, total - total / 2)
        } else {
            if n < k {
                return Err(Error::invalid(format!("{}: window {k} larger than input dimension {n}", op.name())));
            }
            ((n - k) / s + 1, 0, 0)
        };
        out_shape[d] = out;
        if lo + hi > 0 {
            padded = pad_dim(b, padded, d, lo, hi, fill)?;
            if kind == PoolKind::Avg {
                let base = match ones {
                    Some(o) => o,
                    None => b.splat(&ty, 1.0)?,
                };
                ones = Some(pad_dim(b, base, d, lo, hi, 0.0)?);
            }
        } else if let Some(o) = ones {
            ones = Some(o);
        }
    }
    let combiner = if kind == PoolKind::Max { BinaryOp::Maximum } else { BinaryOp::Add };
    let window = |b: &mut Builder, src: ValueId| -> ValueId {
        let mut acc: Option<ValueId> = None;
        for i in 0..ksize[spatial[0]] {
            for j in 0..ksize[spatial[1]] {
                let mut start = vec![0i64; 4];
                start[spatial[0]] = i;
                start[spatial[1]] = j;
                let limit: Vec<i64> = (0..4)
                    .map(|d| if spatial.contains(&d) { start[d] + (out_shape[d] - 1) * strides[d] + 1 } else { ty.shape[d] })
                    .collect();
                let st: Vec<i64> = (0..4).map(|d| if spatial.contains(&d) { strides[d] } else { 1 }).collect();
                let elem = b.ty(src).elem;
                let s = b.push(OpKind::Slice { start_indices: start, limit_indices: limit, strides: st }, vec![src], TensorType::new(out_shape.clone(), elem));
                acc = Some(match acc {
                    None => s,
                    Some(a) => b.binary(combiner, a, s),
                });
            }
        }
        acc.expect("a window has at least one element")
    };
    let mut r = window(b, padded);
    if kind == PoolKind::Avg {
        let count = match ones {
            Some(o) => window(b, o),
            None => b.splat(&TensorType::new(out_shape.clone(), ty.elem), (ksize[spatial[0]] * ksize[spatial[1]]) as f64)?,
        };
        r = b.binary(BinaryOp::Divide, r, count);
    }
    Ok((vec![r], vec![0]))
}

/// `x` with `lo` and `hi` elements of value `fill` added around dimension `d` (by concatenation).
fn pad_dim(b: &mut Builder, x: ValueId, d: usize, lo: i64, hi: i64, fill: f64) -> Result<ValueId> {
    let ty = b.ty(x);
    let mut parts = Vec::new();
    for (n, first) in [(lo, true), (hi, false)] {
        if n == 0 {
            continue;
        }
        let mut shape = ty.shape.clone();
        shape[d] = n;
        let c = b.splat(&TensorType::new(shape, ty.elem), fill)?;
        parts.push((first, c));
    }
    let mut operands: Vec<ValueId> = parts.iter().filter(|p| p.0).map(|p| p.1).collect();
    operands.push(x);
    operands.extend(parts.iter().filter(|p| !p.0).map(|p| p.1));
    let mut shape = ty.shape.clone();
    shape[d] += lo + hi;
    Ok(b.push(OpKind::Concatenate { dimension: d as i64 }, operands, TensorType::new(shape, ty.elem)))
}
