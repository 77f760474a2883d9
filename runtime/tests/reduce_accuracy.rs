//! Accuracy of the plan's f32 sums against a float64 sum of the same inputs (decision 66).
//!
//! BatchNorm's statistics sum over N, H and W (the outer axes of an NHWC tensor); its backward pass
//! subtracts the mean of a nearly constant cotangent, which magnifies the sums' rounding error a
//! thousandfold. A sum folded one term at a time into one f32 accumulator per column has an error
//! that grows with the number of terms (about 3e-6 of the magnitude over 16K terms, where a
//! pairwise sum stays near one rounding); these tests pin the error of every reduce layout over
//! tens of thousands of terms to a small multiple of f32's epsilon.

mod common;

use apu_compiler::ir::{BinaryOp, ElementType as E, OpKind, Type};
use apu_runtime::exec::{Options, Program, DEFAULT_ROW_BLOCK_BYTES};
use apu_runtime::Tensor;
use common::{f32s, module, to_f32, FnBuilder};

/// Values of mixed magnitude around an offset, like activations before BatchNorm subtracts their
/// mean: a nearly constant part plus noise, and a few terms a hundred times larger.
fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|i| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (s >> 40) as f32 / (1u64 << 24) as f32;
            let big = if i % 97 == 5 { 100.0 } else { 1.0 };
            (3.0 + (u - 0.5) * 0.1) * big
        })
        .collect()
}

/// The worst error of the plan's sum of `x` (of `shape`) over `dims` against a float64 sum of the
/// same f32 terms, relative to the sum of their magnitudes, at 1 and 2 threads (split kernels).
fn worst_relative_error(shape: &[i64], dims: &[i64], squared: bool) -> f64 {
    let n: usize = shape.iter().product::<i64>() as usize;
    let x = inputs(n, 7);
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !dims.contains(&(*d as i64))).collect();
    let out_shape: Vec<i64> = kept.iter().map(|&d| shape[d]).collect();
    let mut b = FnBuilder::new("main");
    let t = Type::tensor(shape.to_vec(), E::F32);
    let p = b.param(t.clone());
    let input = if squared { b.op(OpKind::Binary(BinaryOp::Multiply), &[p, p], t) } else { p };
    let zero = b.constant(&f32s(&[], &[0.0]));
    let region = b.binary_region(BinaryOp::Add, E::F32);
    let r = b.ops(OpKind::Reduce { dimensions: dims.to_vec() }, &[input, zero], &[Type::tensor(out_shape.clone(), E::F32)], vec![region]);
    let m = module(vec![b.finish(&r)]);

    // The float64 sums and magnitudes, per output element.
    let outs: usize = out_shape.iter().product::<i64>() as usize;
    let (mut want, mut mag) = (vec![0f64; outs], vec![0f64; outs]);
    let mut idx = vec![0i64; shape.len()];
    for &v in &x {
        let o = kept.iter().fold(0usize, |a, &d| a * shape[d] as usize + idx[d] as usize);
        let term = if squared { (v * v) as f64 } else { v as f64 };
        want[o] += term;
        mag[o] += term.abs();
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let arg = f32s(shape, &x);
    let mut worst = 0f64;
    for (threads, min_parallel_work) in [(1, usize::MAX), (2, 1)] {
        let p = Program::compile_with(&m, &Options { threads, min_parallel_work, interpret: false, row_block_bytes: DEFAULT_ROW_BLOCK_BYTES }).unwrap();
        assert!(p.fallbacks().is_empty(), "the reduce must run as a plan kernel");
        let got: Vec<Tensor> = p.run(std::slice::from_ref(&arg)).unwrap();
        for ((g, w), m) in to_f32(&got[0]).iter().zip(&want).zip(&mag) {
            worst = worst.max((*g as f64 - w).abs() / m);
        }
    }
    worst
}

/// A few roundings of f32 (epsilon 1.19e-7): what a pairwise sum keeps to, and XLA:CPU's error
/// on these sums (about 1e-7); a sequential sum over 16K terms was 20-30 times larger.
const BOUND: f64 = 2.5e-7;

#[test]
fn outer_axis_sums_stay_within_a_few_roundings() {
    // BatchNorm's statistics on NHWC: sums over N, H, W (a column reduce of 16K rows).
    for (shape, dims) in [(&[16i64, 32, 32, 64][..], &[0i64, 1, 2][..]), (&[16384, 3][..], &[0][..]), (&[20000, 1100][..], &[0][..])] {
        for squared in [false, true] {
            let e = worst_relative_error(shape, dims, squared);
            println!("{shape:?} over {dims:?} squared={squared}: {e:.3e}");
            assert!(e <= BOUND, "sum of {shape:?} over {dims:?} (squared {squared}): relative error {e:.3e} > {BOUND:e}");
        }
    }
}

#[test]
fn middle_axis_sums_stay_within_a_few_roundings() {
    // A reduce of middle axes (NCHW statistics over H, W per sample and channel, or N*H*W on a
    // [N, H*W, C] view).
    for (shape, dims) in [(&[2i64, 16384, 8][..], &[1i64][..]), (&[3, 128, 128, 5][..], &[1, 2][..])] {
        let e = worst_relative_error(shape, dims, false);
        println!("{shape:?} over {dims:?}: {e:.3e}");
        assert!(e <= BOUND, "sum of {shape:?} over {dims:?}: relative error {e:.3e} > {BOUND:e}");
    }
}

#[test]
fn minor_axis_sums_stay_within_a_few_roundings() {
    // Rows: a whole-tensor sum (split across threads) and long rows.
    for (shape, dims) in [(&[1i64 << 21][..], &[0i64][..]), (&[4, 1 << 19][..], &[1][..]), (&[64, 65536][..], &[1][..])] {
        let e = worst_relative_error(shape, dims, false);
        println!("{shape:?} over {dims:?}: {e:.3e}");
        assert!(e <= BOUND, "sum of {shape:?} over {dims:?}: relative error {e:.3e} > {BOUND:e}");
    }
}
