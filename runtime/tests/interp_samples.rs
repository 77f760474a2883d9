//! Hand-built IR of sample JAX programs (their StableHLO text is in
//! `shared/samples/jax/<name>.stablehlo.mlir`), run by the interpreter and compared with the
//! outputs JAX's CPU backend produced (`<name>.io.npz`).
//!
//! Tolerances: f32 rtol 1e-5 / atol 1e-6; programs with transcendentals (tanh, exp, sin, cos)
//! use rtol 1e-5 / atol 1e-5 because the interpreter computes them in f64 and rounds once while
//! XLA uses f32 approximations (a few ulp apart).

mod common;

use apu_compiler::ir::{BinaryOp, DotDims, ElementType::*, Literal, OpKind, Precision, TensorType, UnaryOp};
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
    let Some((inputs, outputs)) = sample_io(name) else { return };
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
