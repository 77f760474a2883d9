//! Reductions, windows, select_and_scatter and sort, against naive loops in the tests.

mod common;

use apu_compiler::ir::{BinaryOp, ComparisonDirection as D, ComparisonType as CT, ElementType::*, OpKind};
use apu_runtime::Tensor;
use common::*;

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7) % 11) as f32 - 5.0).collect()
}

#[test]
fn reduce_sum_over_two_dims() {
    let v = seq(24);
    let x = f32s(&[2, 3, 4], &v);
    let out = run_op_with(OpKind::Reduce { dimensions: vec![0, 2] }, &[x, f32s(&[], &[0.5])], &[tt(&[3], F32)], |b| {
        vec![b.binary_region(BinaryOp::Add, F32)]
    })
    .unwrap();
    let mut want = [0.5f32; 3];
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                want[j] += v[i * 12 + j * 4 + k];
            }
        }
    }
    assert_eq!(to_f32(&out[0]), want);
}

#[test]
fn reduce_integer_sum_wraps() {
    let out = run_op_with(OpKind::Reduce { dimensions: vec![0] }, &[i8s(&[3], &[100, 100, 1]), i8s(&[], &[0])], &[tt(&[], S8)], |b| {
        vec![b.binary_region(BinaryOp::Add, S8)]
    })
    .unwrap();
    assert_eq!(to_i8(&out[0]), [-55]);
}

#[test]
fn variadic_reduce_argmax_first_index_wins() {
    let x = f32s(&[2, 4], &[1.0, 7.0, 7.0, 3.0, -1.0, -2.0, 0.0, 0.0]);
    let iota = i32s(&[2, 4], &[0, 1, 2, 3, 0, 1, 2, 3]);
    let s = |e| tt(&[], e);
    let out = run_op_with(
        OpKind::Reduce { dimensions: vec![1] },
        &[x, iota, f32s(&[], &[f32::NEG_INFINITY]), i32s(&[], &[0])],
        &[tt(&[2], F32), tt(&[2], S32)],
        |b| {
            // (av, ai, bv, bi) -> take a if av > bv, or av == bv and ai < bi.
            vec![b.region(&[s(F32), s(S32), s(F32), s(S32)], |b, p| {
                let gt = b.op(OpKind::Compare { direction: D::Gt, compare_type: Some(CT::Float) }, &[p[0], p[2]], s(Pred));
                let eq = b.op(OpKind::Compare { direction: D::Eq, compare_type: Some(CT::Float) }, &[p[0], p[2]], s(Pred));
                let lt = b.op(OpKind::Compare { direction: D::Lt, compare_type: Some(CT::Signed) }, &[p[1], p[3]], s(Pred));
                let tie = b.op(OpKind::Binary(BinaryOp::And), &[eq, lt], s(Pred));
                let take_a = b.op(OpKind::Binary(BinaryOp::Or), &[gt, tie], s(Pred));
                let v = b.op(OpKind::Select, &[take_a, p[0], p[2]], s(F32));
                let i = b.op(OpKind::Select, &[take_a, p[1], p[3]], s(S32));
                vec![v, i]
            })]
        },
    )
    .unwrap();
    assert_eq!(to_f32(&out[0]), [7.0, 0.0]);
    assert_eq!(to_i32(&out[1]), [1, 2]);
}

#[allow(clippy::too_many_arguments)]
fn reduce_window(x: Tensor, init: f32, wd: &[i64], ws: &[i64], bd: &[i64], wdl: &[i64], pad: &[(i64, i64)], out_shape: &[i64]) -> Vec<f32> {
    let kind = OpKind::ReduceWindow {
        window_dimensions: wd.to_vec(),
        window_strides: ws.to_vec(),
        base_dilations: bd.to_vec(),
        window_dilations: wdl.to_vec(),
        padding: pad.to_vec(),
    };
    let out = run_op_with(kind, &[x, f32s(&[], &[init])], &[tt(out_shape, F32)], |b| vec![b.binary_region(BinaryOp::Add, F32)]).unwrap();
    to_f32(&out[0])
}

#[test]
fn reduce_window_cumulative_sum() {
    // JAX's cumsum: window n, padding (n-1, 0).
    let v = [1.0, 2.0, 3.0, 4.0, 5.0];
    let r = reduce_window(f32s(&[5], &v), 0.0, &[5], &[1], &[1], &[1], &[(4, 0)], &[5]);
    assert_eq!(r, [1.0, 3.0, 6.0, 10.0, 15.0]);
}

#[test]
fn reduce_window_with_base_and_window_dilation_reads_init_in_holes() {
    // 1-D: base [a b c] dilated by 2 → [a h b h c], padded (1, 2) with init → [p a h b h c p p];
    // windows of 2 taps spaced 2 apart, stride 3 → starts 0, 3 (len 8 - 3 + 1 = 6 → 2 windows).
    let (a, b_, c) = (1.0, 10.0, 100.0);
    let init = 0.25;
    let padded = [init, a, init, b_, init, c, init, init];
    let mut want = Vec::new();
    let mut s = 0;
    while s + 2 < padded.len() {
        want.push(init + padded[s] + padded[s + 2]);
        s += 3;
    }
    let r = reduce_window(f32s(&[3], &[a, b_, c]), init, &[2], &[3], &[2], &[2], &[(1, 2)], &[want.len() as i64]);
    assert_eq!(r, want);
}

#[test]
fn select_and_scatter_routes_to_window_maximum() {
    let x = f32s(&[6], &[1.0, 3.0, 2.0, 5.0, 4.0, 4.0]);
    let src = f32s(&[3], &[10.0, 20.0, 30.0]);
    let kind = OpKind::SelectAndScatter { window_dimensions: vec![2], window_strides: vec![2], padding: vec![(0, 0)] };
    let s = tt(&[], F32);
    let out = run_op_with(kind, &[x, src, f32s(&[], &[0.0])], &[tt(&[6], F32)], |b| {
        let select = b.region(&[s.clone(), s.clone()], |b, p| {
            vec![b.op(OpKind::Compare { direction: D::Ge, compare_type: Some(CT::Float) }, &[p[0], p[1]], tt(&[], Pred))]
        });
        let scatter = b.binary_region(BinaryOp::Add, F32);
        vec![select, scatter]
    })
    .unwrap();
    // Ties (4, 4) pick the first element because GE keeps the current pick.
    assert_eq!(to_f32(&out[0]), [0.0, 10.0, 0.0, 20.0, 30.0, 0.0]);
}

fn sort_pairs(keys: &[f32], dir: D, stable: bool) -> (Vec<f32>, Vec<i32>) {
    let n = keys.len() as i64;
    let vals: Vec<i32> = (0..n as i32).collect();
    let kind = OpKind::Sort { dimension: 0, is_stable: stable };
    let s = |e| tt(&[], e);
    let out = run_op_with(kind, &[f32s(&[n], keys), i32s(&[n], &vals)], &[tt(&[n], F32), tt(&[n], S32)], |b| {
        vec![b.region(&[s(F32), s(F32), s(S32), s(S32)], |b, p| {
            vec![b.op(OpKind::Compare { direction: dir, compare_type: Some(CT::TotalOrder) }, &[p[0], p[1]], s(Pred))]
        })]
    })
    .unwrap();
    (to_f32(&out[0]), to_i32(&out[1]))
}

#[test]
fn sort_is_stable_in_both_directions() {
    let keys = [3.0, 1.0, 3.0, 1.0, 2.0, f32::NAN, -0.0, 0.0];
    let (k, v) = sort_pairs(&keys, D::Lt, true);
    assert_eq!(v, [6, 7, 1, 3, 4, 0, 2, 5]);
    assert!(k[7].is_nan());
    let (_, v) = sort_pairs(&keys, D::Gt, false);
    assert_eq!(v, [5, 0, 2, 4, 1, 3, 7, 6]);
}

#[test]
fn sort_along_leading_dimension() {
    let x = f32s(&[3, 2], &[3.0, 0.0, 1.0, 5.0, 2.0, 4.0]);
    let kind = OpKind::Sort { dimension: 0, is_stable: true };
    let s = tt(&[], F32);
    let out = run_op_with(kind, &[x], &[tt(&[3, 2], F32)], |b| {
        vec![b.region(&[s.clone(), s.clone()], |b, p| {
            vec![b.op(OpKind::Compare { direction: D::Lt, compare_type: None }, &[p[0], p[1]], tt(&[], Pred))]
        })]
    })
    .unwrap();
    assert_eq!(to_f32(&out[0]), [1.0, 0.0, 2.0, 4.0, 3.0, 5.0]);
}
