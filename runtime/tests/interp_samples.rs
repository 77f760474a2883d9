//! Hand-built IR of sample JAX programs (their StableHLO text is in
//! `shared/samples/jax/<name>.stablehlo.mlir`), run by the interpreter and compared with the
//! outputs JAX's CPU backend produced (`<name>.io.npz`).
//!
//! Tolerances: f32 rtol 1e-5 / atol 1e-6; programs with transcendentals (tanh, exp, sin, cos)
//! use rtol 1e-5 / atol 1e-5 because the interpreter computes them in f64 and rounds once while
//! XLA uses f32 approximations (a few ulp apart).

mod common;

use apu_compiler::ir::{BinaryOp, ComparisonDirection as Dir, ComparisonType, ConvDims, DotDims, ElementType::*, GatherDims, Literal, OpKind, Precision, ScatterDims, TensorType, UnaryOp, ValueId};
use apu_runtime::interp;
use apu_runtime::npz::load_npz;
use apu_runtime::Tensor;
use common::*;

/// Inputs and expected outputs of a sample, or `None` (with a message) when samples are absent.
fn sample_io(name: &str) -> Option<(Vec<Tensor>, Vec<Tensor>)> {
    let Some(dir) = samples_dir() else {
        eprintln!("skipped: samples not found");
        return None;
    };
    let entries = load_npz(&dir.join(format!("jax/{name}.io.npz"))).unwrap();
    let pick = |prefix: &str| -> Vec<Tensor> {
        let mut v: Vec<(usize, Tensor)> = entries
            .iter()
            .filter_map(|(n, t)| n.strip_prefix(prefix).and_then(|i| i.parse().ok()).map(|i| (i, t.clone())))
            .collect();
        v.sort_by_key(|(i, _)| *i);
        v.into_iter().map(|(_, t)| t).collect()
    };
    Some((pick("in"), pick("out")))
}

fn check_sample(name: &str, functions: Vec<apu_compiler::ir::Function>, rtol: f32, atol: f32) {
    check_sample_outputs(name, functions, None, rtol, atol)
}

/// Like [`check_sample`], comparing the program's results with the expected outputs `which`.
fn check_sample_outputs(name: &str, functions: Vec<apu_compiler::ir::Function>, which: Option<&[usize]>, rtol: f32, atol: f32) {
    let Some((inputs, outputs)) = sample_io(name) else { return };
    let outputs: Vec<Tensor> = match which {
        Some(w) => w.iter().map(|&i| outputs[i].clone()).collect(),
        None => outputs,
    };
    let m = module(functions);
    interp::check_supported(&m).unwrap();
    let got = interp::run(&m, &inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got.len(), outputs.len(), "{name}: result count");
    for (i, (g, w)) in got.iter().zip(&outputs).enumerate() {
        assert_eq!(g.ty, w.ty, "{name}: type of result {i}");
        match w.ty.elem {
            F32 => assert_close(&to_f32(g), &to_f32(w), rtol, atol),
            _ => assert_eq!(g.bytes(), w.bytes(), "{name}: result {i}"),
        }
    }
}

fn scalar_f32(b: &mut FnBuilder, v: f32) -> apu_compiler::ir::ValueId {
    b.op(
        OpKind::Constant(Literal::dense(TensorType::scalar(F32), v.to_le_bytes().to_vec()).unwrap()),
        &[],
        tt(&[], F32),
    )
}

fn bcast(b: &mut FnBuilder, x: apu_compiler::ir::ValueId, dims: &[i64], shape: &[i64]) -> apu_compiler::ir::ValueId {
    b.op(OpKind::BroadcastInDim { broadcast_dimensions: dims.to_vec() }, &[x], tt(shape, F32))
}

fn matmul_dims() -> OpKind {
    OpKind::DotGeneral {
        dims: DotDims { lhs_contracting: vec![1], rhs_contracting: vec![0], ..Default::default() },
        precision: vec![Precision::Default, Precision::Default],
        preferred_element_type: None,
    }
}

#[test]
fn sample_add() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[8], F32));
    let y = b.param(tt(&[8], F32));
    let s = b.op(OpKind::Binary(BinaryOp::Add), &[x, y], tt(&[8], F32));
    check_sample("add", vec![b.finish(&[s])], 1e-5, 1e-6);
}

#[test]
fn sample_tanh_chain() {
    let mut b = FnBuilder::new("main");
    let t = tt(&[4, 8], F32);
    let x = b.param(t.clone());
    let t0 = b.op(OpKind::Unary(UnaryOp::Tanh), &[x], t.clone());
    let two = scalar_f32(&mut b, 2.0);
    let two = bcast(&mut b, two, &[], &[4, 8]);
    let m = b.op(OpKind::Binary(BinaryOp::Multiply), &[t0, two], t.clone());
    let one = scalar_f32(&mut b, 1.0);
    let one = bcast(&mut b, one, &[], &[4, 8]);
    let a = b.op(OpKind::Binary(BinaryOp::Add), &[m, one], t.clone());
    let r = b.op(OpKind::Unary(UnaryOp::Tanh), &[a], t);
    check_sample("tanh_chain", vec![b.finish(&[r])], 1e-5, 1e-5);
}

#[test]
fn sample_reduce_sum_axis1() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[4, 16], F32));
    let zero = scalar_f32(&mut b, 0.0);
    let body = b.binary_region(BinaryOp::Add, F32);
    let r = b.ops(OpKind::Reduce { dimensions: vec![1] }, &[x, zero], &[tt(&[4], F32)], vec![body])[0];
    check_sample("reduce_sum_axis1", vec![b.finish(&[r])], 1e-5, 1e-6);
}

#[test]
fn sample_matmul() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[4, 8], F32));
    let y = b.param(tt(&[8, 3], F32));
    let r = b.op(matmul_dims(), &[x, y], tt(&[4, 3], F32));
    check_sample("matmul", vec![b.finish(&[r])], 1e-5, 1e-6);
}

#[test]
fn sample_mlp_relu_softmax() {
    let mut relu = FnBuilder::new("relu");
    let x = relu.param(tt(&[2, 16], F32));
    let z = scalar_f32(&mut relu, 0.0);
    let z = bcast(&mut relu, z, &[], &[2, 16]);
    let r = relu.op(OpKind::Binary(BinaryOp::Maximum), &[x, z], tt(&[2, 16], F32));
    let relu = relu.finish(&[r]);

    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2, 8], F32));
    let w1 = b.param(tt(&[8, 16], F32));
    let b1 = b.param(tt(&[16], F32));
    let w2 = b.param(tt(&[16, 4], F32));
    let b2 = b.param(tt(&[4], F32));
    let h = b.op(matmul_dims(), &[x, w1], tt(&[2, 16], F32));
    let bb = bcast(&mut b, b1, &[1], &[1, 16]);
    let bb = bcast(&mut b, bb, &[0, 1], &[2, 16]);
    let h = b.op(OpKind::Binary(BinaryOp::Add), &[h, bb], tt(&[2, 16], F32));
    let h = b.op(OpKind::Call { callee: "relu".into() }, &[h], tt(&[2, 16], F32));
    let o = b.op(matmul_dims(), &[h, w2], tt(&[2, 4], F32));
    let bb = bcast(&mut b, b2, &[1], &[1, 4]);
    let bb = bcast(&mut b, bb, &[0, 1], &[2, 4]);
    let o = b.op(OpKind::Binary(BinaryOp::Add), &[o, bb], tt(&[2, 4], F32));
    let ninf = scalar_f32(&mut b, f32::NEG_INFINITY);
    let maxr = b.binary_region(BinaryOp::Maximum, F32);
    let mx = b.ops(OpKind::Reduce { dimensions: vec![1] }, &[o, ninf], &[tt(&[2], F32)], vec![maxr])[0];
    let ninf2 = scalar_f32(&mut b, f32::NEG_INFINITY);
    let ninf2 = bcast(&mut b, ninf2, &[], &[2]);
    let mx = b.op(OpKind::Binary(BinaryOp::Maximum), &[ninf2, mx], tt(&[2], F32));
    let mx = bcast(&mut b, mx, &[0], &[2, 1]);
    let mx = bcast(&mut b, mx, &[0, 1], &[2, 4]);
    let d = b.op(OpKind::Binary(BinaryOp::Subtract), &[o, mx], tt(&[2, 4], F32));
    let e = b.op(OpKind::Unary(UnaryOp::Exponential), &[d], tt(&[2, 4], F32));
    let zero = scalar_f32(&mut b, 0.0);
    let addr = b.binary_region(BinaryOp::Add, F32);
    let s = b.ops(OpKind::Reduce { dimensions: vec![1] }, &[e, zero], &[tt(&[2], F32)], vec![addr])[0];
    let s = bcast(&mut b, s, &[0], &[2, 1]);
    let s = bcast(&mut b, s, &[0, 1], &[2, 4]);
    let r = b.op(OpKind::Binary(BinaryOp::Divide), &[e, s], tt(&[2, 4], F32));
    check_sample("mlp_relu_softmax", vec![b.finish(&[r]), relu], 1e-5, 1e-5);
}

fn scalar_i32(b: &mut FnBuilder, v: i32) -> ValueId {
    b.op(
        OpKind::Constant(Literal::dense(TensorType::scalar(S32), v.to_le_bytes().to_vec()).unwrap()),
        &[],
        tt(&[], S32),
    )
}

fn cmp(b: &mut FnBuilder, dir: Dir, ty: ComparisonType, x: ValueId, y: ValueId, shape: &[i64]) -> ValueId {
    b.op(OpKind::Compare { direction: dir, compare_type: Some(ty) }, &[x, y], tt(shape, Pred))
}

#[test]
fn sample_cond() {
    let mut b = FnBuilder::new("main");
    let p = b.param(tt(&[], Pred));
    let x = b.param(tt(&[3], F32));
    let i = b.op(OpKind::Convert, &[p], tt(&[], S32));
    let cos = b.region(&[], |b, _| vec![b.op(OpKind::Unary(UnaryOp::Cosine), &[x], tt(&[3], F32))]);
    let sin = b.region(&[], |b, _| vec![b.op(OpKind::Unary(UnaryOp::Sine), &[x], tt(&[3], F32))]);
    let r = b.ops(OpKind::Case, &[i], &[tt(&[3], F32)], vec![cos, sin])[0];
    check_sample("cond", vec![b.finish(&[r])], 1e-5, 1e-5);
}

#[test]
fn sample_while_loop() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[3], F32));
    let n = b.param(tt(&[], S32));
    let c0 = scalar_i32(&mut b, 0);
    let state = [tt(&[], S32), tt(&[], S32), tt(&[3], F32)];
    let cond = b.region(&state, |b, p| vec![cmp(b, Dir::Lt, ComparisonType::Signed, p[1], p[0], &[])]);
    let body = b.region(&state, |b, p| {
        let one = scalar_i32(b, 1);
        let i = b.op(OpKind::Binary(BinaryOp::Add), &[p[1], one], tt(&[], S32));
        let k = scalar_f32(b, 1.5);
        let k = bcast(b, k, &[], &[3]);
        let m = b.op(OpKind::Binary(BinaryOp::Multiply), &[p[2], k], tt(&[3], F32));
        let one = scalar_f32(b, 1.0);
        let one = bcast(b, one, &[], &[3]);
        let v = b.op(OpKind::Binary(BinaryOp::Add), &[m, one], tt(&[3], F32));
        vec![p[0], i, v]
    });
    let r = b.ops(OpKind::While, &[n, c0, x], &state, vec![cond, body]);
    check_sample("while_loop", vec![b.finish(&[r[1], r[2]])], 1e-5, 1e-6);
}

#[test]
fn sample_conv2d_nhwc() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[1, 8, 8, 3], F32));
    let k = b.param(tt(&[3, 3, 3, 4], F32));
    let conv = OpKind::Convolution {
        window_strides: vec![1, 1],
        padding: vec![(1, 1), (1, 1)],
        lhs_dilation: vec![1, 1],
        rhs_dilation: vec![1, 1],
        window_reversal: vec![false, false],
        dims: ConvDims {
            input_batch: 0,
            input_feature: 3,
            input_spatial: vec![1, 2],
            kernel_input_feature: 2,
            kernel_output_feature: 3,
            kernel_spatial: vec![0, 1],
            output_batch: 0,
            output_feature: 3,
            output_spatial: vec![1, 2],
        },
        feature_group_count: 1,
        batch_group_count: 1,
        precision: vec![],
    };
    let r = b.op(conv, &[x, k], tt(&[1, 8, 8, 4], F32));
    check_sample("conv2d_nhwc", vec![b.finish(&[r])], 1e-5, 1e-5);
}

/// JAX's index normalisation: `idx < 0 ? idx + 6 : idx`, then a trailing index-vector dim.
fn normalized_indices(b: &mut FnBuilder, idx: ValueId, n: i64) -> ValueId {
    let z = scalar_i32(b, 0);
    let z = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[z], tt(&[n], S32));
    let neg = cmp(b, Dir::Lt, ComparisonType::Signed, idx, z, &[n]);
    let six = scalar_i32(b, 6);
    let six = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[six], tt(&[n], S32));
    let wrapped = b.op(OpKind::Binary(BinaryOp::Add), &[idx, six], tt(&[n], S32));
    let sel = b.op(OpKind::Select, &[neg, wrapped, idx], tt(&[n], S32));
    b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![0] }, &[sel], tt(&[n, 1], S32))
}

#[test]
fn sample_gather() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[6, 5], F32));
    let idx = b.param(tt(&[3], S32));
    let idx = normalized_indices(&mut b, idx, 3);
    let dims = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let r = b.op(OpKind::Gather { dims, slice_sizes: vec![1, 5], indices_are_sorted: false }, &[x, idx], tt(&[3, 5], F32));
    check_sample("gather", vec![b.finish(&[r])], 0.0, 0.0);
}

#[test]
fn sample_scatter_add() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[6, 5], F32));
    let idx = b.param(tt(&[2], S32));
    let u = b.param(tt(&[2, 5], F32));
    let idx = normalized_indices(&mut b, idx, 2);
    let dims = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let add = b.binary_region(BinaryOp::Add, F32);
    let r = b.ops(OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: false }, &[x, idx, u], &[tt(&[6, 5], F32)], vec![add])[0];
    check_sample("scatter_add", vec![b.finish(&[r])], 1e-5, 1e-6);
}

/// JAX's float sort comparator: -0 → 0, any NaN → canonical NaN, then TOTALORDER less-than.
fn float_less_region(b: &mut FnBuilder, extra: &[apu_compiler::ir::Type]) -> apu_compiler::ir::Region {
    let mut params = vec![tt(&[], F32), tt(&[], F32)];
    params.extend_from_slice(extra);
    b.region(&params, |b, p| {
        let canon = |b: &mut FnBuilder, v: ValueId| {
            let z = scalar_f32(b, 0.0);
            let is_zero = cmp(b, Dir::Eq, ComparisonType::Float, v, z, &[]);
            let z2 = scalar_f32(b, 0.0);
            let v2 = b.op(OpKind::Select, &[is_zero, z2, v], tt(&[], F32));
            let is_nan = cmp(b, Dir::Ne, ComparisonType::Float, v, v, &[]);
            let nan = scalar_f32(b, f32::from_bits(0x7FC0_0000));
            b.op(OpKind::Select, &[is_nan, nan, v2], tt(&[], F32))
        };
        let l = canon(b, p[0]);
        let r = canon(b, p[1]);
        vec![cmp(b, Dir::Lt, ComparisonType::TotalOrder, l, r, &[])]
    })
}

#[test]
fn sample_sort() {
    let mut sort = FnBuilder::new("sort");
    let x = sort.param(tt(&[4, 6], F32));
    let less = float_less_region(&mut sort, &[]);
    let r = sort.ops(OpKind::Sort { dimension: 1, is_stable: true }, &[x], &[tt(&[4, 6], F32)], vec![less])[0];
    let sort = sort.finish(&[r]);

    let mut argsort = FnBuilder::new("argsort");
    let x = argsort.param(tt(&[4, 6], F32));
    let iota = argsort.op(OpKind::Iota { dimension: 1 }, &[], tt(&[4, 6], S32));
    let less = float_less_region(&mut argsort, &[tt(&[], S32), tt(&[], S32)]);
    let r = argsort.ops(OpKind::Sort { dimension: 1, is_stable: true }, &[x, iota], &[tt(&[4, 6], F32), tt(&[4, 6], S32)], vec![less]);
    let argsort = argsort.finish(&[r[1]]);

    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[4, 6], F32));
    let s = b.op(OpKind::Call { callee: "sort".into() }, &[x], tt(&[4, 6], F32));
    let a = b.op(OpKind::Call { callee: "argsort".into() }, &[x], tt(&[4, 6], S32));
    check_sample("sort", vec![b.finish(&[s, a]), sort, argsort], 0.0, 0.0);
}

#[test]
fn sample_scan_cumsum() {
    let mut index = FnBuilder::new("dynamic_index_in_dim");
    let xs = index.param(tt(&[5], F32));
    let i = index.param(tt(&[], S32));
    let s = index.op(OpKind::DynamicSlice { slice_sizes: vec![1] }, &[xs, i], tt(&[1], F32));
    let s = index.op(OpKind::Reshape, &[s], tt(&[], F32));
    let index = index.finish(&[s]);

    let mut step = FnBuilder::new("closed_call");
    let c = step.param(tt(&[], F32));
    let x = step.param(tt(&[], F32));
    let sum = step.op(OpKind::Binary(BinaryOp::Add), &[c, x], tt(&[], F32));
    let two = scalar_f32(&mut step, 2.0);
    let twice = step.op(OpKind::Binary(BinaryOp::Multiply), &[sum, two], tt(&[], F32));
    let step = step.finish(&[sum, twice]);

    let mut update = FnBuilder::new("dynamic_update_index_in_dim");
    let ys = update.param(tt(&[5], F32));
    let y = update.param(tt(&[], F32));
    let i = update.param(tt(&[], S32));
    let y = update.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[y], tt(&[1], F32));
    let r = update.op(OpKind::DynamicUpdateSlice, &[ys, y, i], tt(&[5], F32));
    let update = update.finish(&[r]);

    let mut b = FnBuilder::new("main");
    let xs = b.param(tt(&[5], F32));
    let zero = scalar_f32(&mut b, 0.0);
    let zeros = bcast(&mut b, zero, &[], &[5]);
    let c0 = scalar_i32(&mut b, 0);
    let state = [tt(&[5], F32), tt(&[], S32), tt(&[], F32), tt(&[5], F32)];
    let cond = b.region(&state, |b, p| {
        let five = scalar_i32(b, 5);
        vec![cmp(b, Dir::Lt, ComparisonType::Signed, p[1], five, &[])]
    });
    let body = b.region(&state, |b, p| {
        let x = b.op(OpKind::Call { callee: "dynamic_index_in_dim".into() }, &[p[0], p[1]], tt(&[], F32));
        let r = b.ops(OpKind::Call { callee: "closed_call".into() }, &[p[2], x], &[tt(&[], F32), tt(&[], F32)], vec![]);
        let ys = b.op(OpKind::Call { callee: "dynamic_update_index_in_dim".into() }, &[p[3], r[1], p[1]], tt(&[5], F32));
        let one = scalar_i32(b, 1);
        let i = b.op(OpKind::Binary(BinaryOp::Add), &[p[1], one], tt(&[], S32));
        vec![p[0], i, r[0], ys]
    });
    let r = b.ops(OpKind::While, &[xs, c0, zero, zeros], &state, vec![cond, body]);
    check_sample("scan_cumsum", vec![b.finish(&[r[2], r[3]]), index, step, update], 1e-5, 1e-6);
}

/// misc_ops without its `chlo.erf` composite (out2), whose decomposition the portable artifact
/// holds as a long polynomial: argmax (variadic reduce), where + concatenate + strided slice,
/// the bf16 round trip and cumsum (reduce_window).
#[test]
fn sample_misc_ops_without_erf() {
    let s = |e| tt(&[], e);
    let mut argmax = FnBuilder::new("argmax");
    let x = argmax.param(tt(&[6, 5], F32));
    let iota = argmax.op(OpKind::Iota { dimension: 1 }, &[], tt(&[6, 5], S32));
    let ninf = scalar_f32(&mut argmax, f32::NEG_INFINITY);
    let zero = scalar_i32(&mut argmax, 0);
    let reducer = argmax.region(&[s(F32), s(S32), s(F32), s(S32)], |b, p| {
        let (a1, a2, a3, a4) = (p[0], p[1], p[2], p[3]);
        let gt = cmp(b, Dir::Gt, ComparisonType::Float, a1, a3, &[]);
        let nan = cmp(b, Dir::Ne, ComparisonType::Float, a1, a1, &[]);
        let take = b.op(OpKind::Binary(BinaryOp::Or), &[gt, nan], s(Pred));
        let eq = cmp(b, Dir::Eq, ComparisonType::Float, a1, a3, &[]);
        let lt = cmp(b, Dir::Lt, ComparisonType::Signed, a2, a4, &[]);
        let tie = b.op(OpKind::Binary(BinaryOp::And), &[eq, lt], s(Pred));
        let take_i = b.op(OpKind::Binary(BinaryOp::Or), &[take, tie], s(Pred));
        let v = b.op(OpKind::Select, &[take, a1, a3], s(F32));
        let i = b.op(OpKind::Select, &[take_i, a2, a4], s(S32));
        vec![v, i]
    });
    let r = argmax.ops(OpKind::Reduce { dimensions: vec![1] }, &[x, iota, ninf, zero], &[tt(&[6], F32), tt(&[6], S32)], vec![reducer]);
    let argmax = argmax.finish(&[r[1]]);

    let mut cumsum = FnBuilder::new("cumsum");
    let x = cumsum.param(tt(&[6, 5], F32));
    let zero = scalar_f32(&mut cumsum, 0.0);
    let add = cumsum.binary_region(BinaryOp::Add, F32);
    let kind = OpKind::ReduceWindow {
        window_dimensions: vec![6, 1],
        window_strides: vec![1, 1],
        base_dilations: vec![1, 1],
        window_dilations: vec![1, 1],
        padding: vec![(5, 0), (0, 0)],
    };
    let r = cumsum.ops(kind, &[x, zero], &[tt(&[6, 5], F32)], vec![add])[0];
    let cumsum = cumsum.finish(&[r]);

    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[6, 5], F32));
    let am = b.op(OpKind::Call { callee: "argmax".into() }, &[x], tt(&[6], S32));
    let zero = scalar_f32(&mut b, 0.0);
    let zeros = bcast(&mut b, zero, &[], &[6, 5]);
    let pos = cmp(&mut b, Dir::Gt, ComparisonType::Float, x, zeros, &[6, 5]);
    let neg = b.op(OpKind::Unary(UnaryOp::Negate), &[x], tt(&[6, 5], F32));
    let w = b.op(OpKind::Select, &[pos, x, neg], tt(&[6, 5], F32));
    let cat = b.op(OpKind::Concatenate { dimension: 0 }, &[x, w], tt(&[12, 5], F32));
    let sl = b.op(OpKind::Slice { start_indices: vec![0, 0], limit_indices: vec![12, 5], strides: vec![1, 2] }, &[cat], tt(&[12, 3], F32));
    let h = b.op(OpKind::Convert, &[x], tt(&[6, 5], BF16));
    let h = b.op(OpKind::Convert, &[h], tt(&[6, 5], F32));
    let cs = b.op(OpKind::Call { callee: "cumsum".into() }, &[x], tt(&[6, 5], F32));
    check_sample_outputs("misc_ops", vec![b.finish(&[am, sl, h, cs]), argmax, cumsum], Some(&[0, 1, 3, 4]), 1e-5, 1e-6);
}
