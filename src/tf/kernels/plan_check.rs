//! Every registered kernel, on a representative input, compiles to a plan with no interpreter step.

use super::cache::OpCache;
use super::compile::compile_op;
use super::lower::lower;
use super::ops::{Padding, PoolKind, SliceMasks, TfElementwise, TfOp, TfReduction, TfUnary};
use super::registry::kernel_defs;
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ElementType, TensorType};
use apu_runtime::Tensor;
use std::sync::Arc;

fn f32s(shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    let bytes: Vec<u8> = (0..n).flat_map(|i| ((i % 7) as f32 * 0.5 - 1.0).to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
}
fn ints(elem: ElementType, v: &[i64]) -> Tensor {
    let bytes: Vec<u8> = match elem {
        ElementType::S32 => v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect(),
        _ => v.iter().flat_map(|&x| x.to_le_bytes()).collect(),
    };
    Tensor::from_bytes(TensorType::new(vec![v.len() as i64], elem), &bytes).unwrap()
}
fn of(elem: ElementType, shape: &[i64]) -> Tensor {
    Tensor::zeroed(TensorType::new(shape.to_vec(), elem))
}

/// (registered op name, op, inputs) for every kernel.
fn samples() -> Vec<(&'static str, TfOp, Vec<Tensor>)> {
    use ElementType::*;
    let x = || f32s(&[4, 6]);
    let mut v: Vec<(&'static str, TfOp, Vec<Tensor>)> = vec![
        ("Relu", TfOp::Relu, vec![x()]),
        ("Relu6", TfOp::Relu6, vec![x()]),
        ("Elu", TfOp::Elu, vec![x()]),
        ("MatMul", TfOp::MatMul { transpose_a: false, transpose_b: true }, vec![x(), f32s(&[5, 6])]),
        ("BatchMatMulV2", TfOp::BatchMatMul { adj_x: false, adj_y: false }, vec![f32s(&[2, 4, 6]), f32s(&[6, 3])]),
        ("BiasAdd", TfOp::BiasAdd { channels_first: false }, vec![x(), f32s(&[6])]),
        ("Softmax", TfOp::Softmax, vec![x()]),
        ("LogSoftmax", TfOp::LogSoftmax, vec![x()]),
        ("Conv2D", TfOp::Conv2D { strides: vec![1, 1, 1, 1], dilations: vec![1, 1, 1, 1], padding: Padding::Same, channels_first: false }, vec![f32s(&[2, 5, 5, 3]), f32s(&[3, 3, 3, 4])]),
        ("ReluGrad", TfOp::ReluGrad, vec![x(), x()]),
        ("BiasAddGrad", TfOp::BiasAddGrad { channels_first: false }, vec![x()]),
        ("SoftmaxCrossEntropyWithLogits", TfOp::SoftmaxCrossEntropyWithLogits, vec![x(), x()]),
        ("SparseSoftmaxCrossEntropyWithLogits", TfOp::SparseSoftmaxCrossEntropyWithLogits, vec![x(), ints(S64, &[0, 5, 2, 1])]),
        ("AddN", TfOp::AddN, vec![x(), x(), x()]),
        ("SelectV2", TfOp::SelectV2, vec![of(Pred, &[4, 1]), x(), f32s(&[6])]),
        ("Tile", TfOp::Tile, vec![x(), ints(S32, &[2, 3])]),
        ("BroadcastTo", TfOp::BroadcastTo, vec![f32s(&[1, 6]), ints(S64, &[3, 4, 6])]),
        ("Transpose", TfOp::Transpose, vec![f32s(&[2, 3, 4]), ints(S32, &[2, 0, 1])]),
        ("Fill", TfOp::Fill, vec![ints(S32, &[3, 2]), f32s(&[])]),
        ("MaxPool", TfOp::Pool { kind: PoolKind::Max, ksize: vec![1, 3, 3, 1], strides: vec![1, 2, 2, 1], same: true, channels_first: false }, vec![f32s(&[2, 7, 7, 3])]),
        ("AvgPool", TfOp::Pool { kind: PoolKind::Avg, ksize: vec![1, 2, 2, 1], strides: vec![1, 2, 2, 1], same: false, channels_first: false }, vec![f32s(&[2, 7, 7, 3])]),
        ("Cast", TfOp::Cast { to: F32 }, vec![of(S32, &[5])]),
        ("Cast", TfOp::Cast { to: S32 }, vec![f32s(&[5])]),
        ("Cast", TfOp::Cast { to: F32 }, vec![of(S64, &[5])]),
        ("Cast", TfOp::Cast { to: S64 }, vec![f32s(&[5])]),
        ("Cast", TfOp::Cast { to: S64 }, vec![of(S32, &[5])]),
        ("Cast", TfOp::Cast { to: S32 }, vec![of(S64, &[5])]),
        ("Cast", TfOp::Cast { to: F32 }, vec![of(Pred, &[5])]),
        ("Cast", TfOp::Cast { to: S32 }, vec![of(Pred, &[5])]),
    ];
    for (name, u) in [("Neg", TfUnary::Neg), ("Abs", TfUnary::Abs), ("Exp", TfUnary::Exp), ("Log", TfUnary::Log), ("Tanh", TfUnary::Tanh), ("Sigmoid", TfUnary::Sigmoid), ("Sqrt", TfUnary::Sqrt), ("Rsqrt", TfUnary::Rsqrt), ("Square", TfUnary::Square)] {
        v.push((name, TfOp::Unary(u), vec![x()]));
    }
    for (name, k) in [("AddV2", BinaryOp::Add), ("Add", BinaryOp::Add), ("Sub", BinaryOp::Subtract), ("Mul", BinaryOp::Multiply), ("RealDiv", BinaryOp::Divide), ("Maximum", BinaryOp::Maximum), ("Minimum", BinaryOp::Minimum)] {
        v.push((name, TfOp::Binary(k), vec![x(), f32s(&[6])]));
    }
    let conv = |strides: [i64; 4], padding: Padding| (strides.to_vec(), vec![1i64, 1, 1, 1], padding);
    let (s1, d1, p1) = conv([1, 1, 1, 1], Padding::Same);
    let (s2, d2, p2) = conv([1, 2, 2, 1], Padding::Valid);
    let masks = SliceMasks { begin: 1, end: 4, ellipsis: 0, new_axis: 0, shrink_axis: 0 };
    let shrink = SliceMasks { begin: 1, end: 1, ellipsis: 0, new_axis: 0, shrink_axis: 2 };
    v.extend([
        ("Conv2DBackpropInput", TfOp::Conv2DBackpropInput { strides: s1.clone(), dilations: d1.clone(), padding: p1.clone(), channels_first: false }, vec![ints(S32, &[2, 5, 5, 3]), f32s(&[3, 3, 3, 4]), f32s(&[2, 5, 5, 4])]),
        ("Conv2DBackpropInput", TfOp::Conv2DBackpropInput { strides: s2.clone(), dilations: d2.clone(), padding: p2.clone(), channels_first: false }, vec![ints(S32, &[1, 7, 6, 2]), f32s(&[3, 2, 2, 3]), f32s(&[1, 3, 3, 3])]),
        ("Conv2DBackpropFilter", TfOp::Conv2DBackpropFilter { strides: s1, dilations: d1, padding: p1, channels_first: false }, vec![f32s(&[2, 5, 5, 3]), ints(S32, &[3, 3, 3, 4]), f32s(&[2, 5, 5, 4])]),
        ("Conv2DBackpropFilter", TfOp::Conv2DBackpropFilter { strides: s2, dilations: d2, padding: p2, channels_first: false }, vec![f32s(&[1, 7, 6, 2]), ints(S32, &[3, 2, 2, 3]), f32s(&[1, 3, 3, 3])]),
        ("MaxPoolGrad", TfOp::PoolGrad { kind: PoolKind::Max, ksize: vec![1, 3, 3, 1], strides: vec![1, 2, 2, 1], same: true, channels_first: false }, vec![f32s(&[2, 7, 7, 3]), f32s(&[2, 4, 4, 3]), f32s(&[2, 4, 4, 3])]),
        ("AvgPoolGrad", TfOp::PoolGrad { kind: PoolKind::Avg, ksize: vec![1, 3, 3, 1], strides: vec![1, 2, 2, 1], same: true, channels_first: false }, vec![ints(S32, &[2, 7, 7, 3]), f32s(&[2, 4, 4, 3])]),
        ("StridedSlice", TfOp::StridedSlice(masks), vec![f32s(&[4, 5, 6]), ints(S64, &[0, -1, 0]), ints(S64, &[2, 0, 0]), ints(S64, &[1, -2, 1])]),
        ("StridedSliceGrad", TfOp::StridedSliceGrad(masks), vec![ints(S32, &[4, 5, 6]), ints(S32, &[0, -1, 0]), ints(S32, &[2, 0, 0]), ints(S32, &[1, -2, 1]), f32s(&[2, 2, 6])]),
        ("StridedSliceGrad", TfOp::StridedSliceGrad(shrink), vec![ints(S32, &[3, 4, 5]), ints(S32, &[0, -1]), ints(S32, &[0, 0]), ints(S32, &[1, 1]), f32s(&[3, 5])]),
        ("Slice", TfOp::Slice, vec![f32s(&[4, 5, 6]), ints(S32, &[1, 0, 2]), ints(S32, &[2, -1, 3])]),
        ("Pack", TfOp::Pack { axis: 1 }, vec![x(), x(), x()]),
        ("Unpack", TfOp::Unpack { axis: -1, num: 6 }, vec![x()]),
        ("ConcatV2", TfOp::ConcatV2, vec![x(), f32s(&[4, 2]), ints(S32, &[1])]),
        ("Split", TfOp::Split { num: 3 }, vec![ints(S32, &[1]), x()]),
        ("SplitV", TfOp::SplitV { num: 3 }, vec![x(), ints(S64, &[1, -1, 2]), ints(S32, &[-1])]),
        ("GatherV2", TfOp::GatherV2 { batch_dims: 0 }, vec![x(), ints(S32, &[3, 0, 3]), ints(S64, &[0])]),
        ("GatherV2", TfOp::GatherV2 { batch_dims: 0 }, vec![f32s(&[2, 5, 3]), ints(S64, &[4, 1]), ints(S32, &[1])]),
        ("FloorMod", TfOp::Elementwise(TfElementwise::FloorMod), vec![x(), f32s(&[6])]),
    ]);
    for (name, r) in [("Sum", TfReduction::Sum), ("Mean", TfReduction::Mean), ("Max", TfReduction::Max), ("Min", TfReduction::Min), ("Prod", TfReduction::Prod)] {
        v.push((name, TfOp::Reduce { reduction: r, keep_dims: false }, vec![x(), ints(S32, &[1])]));
        v.push((name, TfOp::Reduce { reduction: r, keep_dims: true }, vec![x(), ints(S64, &[0])]));
    }
    for (name, e) in [
        ("Pow", TfElementwise::Pow),
        ("DivNoNan", TfElementwise::DivNoNan),
        ("SquaredDifference", TfElementwise::SquaredDifference),
        ("RsqrtGrad", TfElementwise::RsqrtGrad),
        ("SigmoidGrad", TfElementwise::SigmoidGrad),
        ("TanhGrad", TfElementwise::TanhGrad),
    ] {
        v.push((name, TfOp::Elementwise(e), vec![x(), x()]));
    }
    for (name, e) in [("Sign", TfElementwise::Sign), ("ZerosLike", TfElementwise::ZerosLike), ("OnesLike", TfElementwise::OnesLike)] {
        v.push((name, TfOp::Elementwise(e), vec![x()]));
    }
    for (name, d) in [
        ("Equal", ComparisonDirection::Eq),
        ("NotEqual", ComparisonDirection::Ne),
        ("Greater", ComparisonDirection::Gt),
        ("GreaterEqual", ComparisonDirection::Ge),
        ("Less", ComparisonDirection::Lt),
        ("LessEqual", ComparisonDirection::Le),
    ] {
        v.push((name, TfOp::Compare(d), vec![x(), f32s(&[1])]));
    }
    v
}

#[test]
fn every_registered_op_has_a_sample() {
    let names: Vec<&str> = samples().iter().map(|s| s.0).collect();
    for def in kernel_defs() {
        assert!(names.contains(&def.op), "no plan sample for registered op {}", def.op);
    }
}

#[test]
fn every_kernel_plans_without_interpreter_steps_and_runs() {
    let mut bad = Vec::new();
    for (name, op, inputs) in samples() {
        let lowered = lower(&op, &inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = apu_compiler::valid::validate(lowered.module).unwrap_or_else(|e| panic!("{name}: {e}"));
        let compiled = compile_op(name, &module).unwrap_or_else(|e| panic!("{name}: {e}"));
        if compiled.fallback_steps > 0 {
            bad.push(format!("{name} ({:?}): {}", op, compiled.summary));
        }
        let cache = OpCache::new(4);
        let key: Arc<str> = format!("{op:?}").into();
        cache.run(&key, &op, &inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(bad.is_empty(), "kernels with interpreter steps:\n{}", bad.join("\n"));
}

#[test]
fn pooling_matches_a_direct_window_loop() {
    let x = f32s(&[1, 5, 5, 2]);
    let xv: Vec<f32> = x.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for (kind, same) in [(PoolKind::Max, true), (PoolKind::Avg, true), (PoolKind::Max, false), (PoolKind::Avg, false)] {
        let op = TfOp::Pool { kind, ksize: vec![1, 2, 2, 1], strides: vec![1, 2, 2, 1], same, channels_first: false };
        let out = OpCache::new(1).run(&format!("{op:?}").into(), &op, std::slice::from_ref(&x)).unwrap();
        let n = if same { 3 } else { 2 };
        assert_eq!(out[0].ty.shape, vec![1, n, n, 2]);
        let got: Vec<f32> = out[0].bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        for oy in 0..n as usize {
            for ox in 0..n as usize {
                for c in 0..2 {
                    let mut vals = Vec::new();
                    for dy in 0..2 {
                        for dx in 0..2 {
                            let (iy, ix) = (oy * 2 + dy, ox * 2 + dx);
                            if iy < 5 && ix < 5 {
                                vals.push(xv[(iy * 5 + ix) * 2 + c]);
                            }
                        }
                    }
                    let want = match kind {
                        PoolKind::Max => vals.iter().cloned().fold(f32::NEG_INFINITY, f32::max),
                        PoolKind::Avg => vals.iter().sum::<f32>() / vals.len() as f32,
                    };
                    let g = got[(oy * n as usize + ox) * 2 + c];
                    assert!((g - want).abs() < 1e-6, "{kind:?} same={same} ({oy},{ox},{c}): {g} vs {want}");
                }
            }
        }
    }
}

fn dtype_name(t: apu_pjrt_api::tf::TF_DataType) -> String {
    super::tf_io::from_tf_dtype(t).map(|e| e.to_string()).unwrap_or_else(|| format!("dtype {t}"))
}

/// The kernel table of docs/tensorflow.md, generated from the registry.
fn kernel_table() -> String {
    let defs = kernel_defs();
    let mut rows: Vec<(String, Vec<String>, Vec<&str>)> = Vec::new();
    for d in &defs {
        let types = d.constraints.iter().map(|(a, t)| format!("{a}={}", dtype_name(*t))).collect::<Vec<_>>().join(" ");
        match rows.iter_mut().find(|r| r.0 == d.op) {
            Some(r) => r.1.push(types),
            None => rows.push((d.op.to_string(), vec![types], d.host_memory.to_vec())),
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut s = format!(
        "{} registrations of {} ops, every one compared with TensorFlow's CPU result in `tests/tf/test_kernels.py` \
         (which also checks that TensorFlow's registry for APU is exactly this list).\n\n| op | type constraints (one registration each) | host-memory inputs |\n|---|---|---|\n",
        defs.len(),
        rows.len()
    );
    for (op, types, host) in rows {
        s.push_str(&format!("| {op} | {} | {} |\n", types.join("; "), host.join(", ")));
    }
    s
}

#[test]
fn the_kernel_table_in_the_docs_is_generated_from_the_registry() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tensorflow.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- kernel table: generated by src/tf/kernels/plan_check.rs, BLESS=1 rewrites -->\n", "<!-- end of kernel table -->");
    let (Some(b), Some(e)) = (doc.find(begin), doc.find(end)) else { panic!("docs/tensorflow.md lacks the kernel table markers") };
    let current = &doc[b + begin.len()..e];
    let want = kernel_table();
    if std::env::var("BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, format!("{}{want}{}", &doc[..b + begin.len()], &doc[e..])).unwrap();
    } else {
        assert_eq!(current, want, "docs/tensorflow.md's kernel table is stale: rerun with BLESS=1");
    }
}
