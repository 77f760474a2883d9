//! Data-movement ops against naive index arithmetic written out in the tests.

mod common;

use apu_compiler::ir::{ElementType::*, GatherDims, OpKind, ScatterDims, Type, BinaryOp};
use common::*;

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

#[test]
fn broadcast_in_dim_expands_size_one_dims() {
    let x = f32s(&[2, 1], &[1.0, 2.0]);
    let r = run_op(OpKind::BroadcastInDim { broadcast_dimensions: vec![0, 2] }, &[x], tt(&[2, 3, 4], F32)).unwrap();
    let got = to_f32(&r);
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                assert_eq!(got[i * 12 + j * 4 + k], (i + 1) as f32);
            }
        }
    }
}

#[test]
fn transpose_3d() {
    let x = f32s(&[2, 3, 4], &seq(24));
    let r = to_f32(&run_op(OpKind::Transpose { permutation: vec![2, 0, 1] }, &[x], tt(&[4, 2, 3], F32)).unwrap());
    for a in 0..4 {
        for b in 0..2 {
            for c in 0..3 {
                // result[a, b, c] = x[b, c, a]
                assert_eq!(r[a * 6 + b * 3 + c], (b * 12 + c * 4 + a) as f32);
            }
        }
    }
}

#[test]
fn reverse_and_reshape() {
    let x = f32s(&[2, 3], &seq(6));
    let r = run_op(OpKind::Reverse { dimensions: vec![1] }, std::slice::from_ref(&x), tt(&[2, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    let r = run_op(OpKind::Reshape, &[x], tt(&[3, 2], F32)).unwrap();
    assert_eq!(to_f32(&r), seq(6));
    assert_eq!(r.ty.shape, [3, 2]);
}

#[test]
fn strided_slice() {
    let x = f32s(&[4, 5], &seq(20));
    let kind = OpKind::Slice { start_indices: vec![1, 0], limit_indices: vec![4, 5], strides: vec![2, 2] };
    let r = run_op(kind, &[x], tt(&[2, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [5.0, 7.0, 9.0, 15.0, 17.0, 19.0]);
}

#[test]
fn dynamic_slice_clamps_start_indices() {
    let x = f32s(&[4, 5], &seq(20));
    let kind = OpKind::DynamicSlice { slice_sizes: vec![2, 2] };
    // Row start 3 is clamped to 2 (4 - 2); column start -7 to 0.
    let r = run_op(kind, &[x, i32s(&[], &[3]), i32s(&[], &[-7])], tt(&[2, 2], F32)).unwrap();
    assert_eq!(to_f32(&r), [10.0, 11.0, 15.0, 16.0]);
}

#[test]
fn dynamic_update_slice_clamps_start_indices() {
    let x = f32s(&[3, 3], &[0.0; 9]);
    let u = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let r = run_op(OpKind::DynamicUpdateSlice, &[x, u, i32s(&[], &[5]), i32s(&[], &[0])], tt(&[3, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0]);
}

#[test]
fn concatenate_along_inner_dimension() {
    let a = f32s(&[2, 1], &[1.0, 2.0]);
    let b = f32s(&[2, 0], &[]);
    let c = f32s(&[2, 2], &[3.0, 4.0, 5.0, 6.0]);
    let r = run_op(OpKind::Concatenate { dimension: 1 }, &[a, b, c], tt(&[2, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [1.0, 3.0, 4.0, 2.0, 5.0, 6.0]);
}

#[test]
fn pad_with_negative_low_and_interior() {
    // [1 2 3] with low -1, high 2, interior 1: [1 p 2 p 3] minus the first, plus two → [p 2 p 3 p p]
    let x = f32s(&[3], &[1.0, 2.0, 3.0]);
    let kind = OpKind::Pad { edge_padding_low: vec![-1], edge_padding_high: vec![2], interior_padding: vec![1] };
    let r = run_op(kind, &[x, f32s(&[], &[9.0])], tt(&[6], F32)).unwrap();
    assert_eq!(to_f32(&r), [9.0, 2.0, 9.0, 3.0, 9.0, 9.0]);
    let x = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let kind = OpKind::Pad { edge_padding_low: vec![1, 0], edge_padding_high: vec![0, -1], interior_padding: vec![0, 0] };
    let r = run_op(kind, &[x, f32s(&[], &[0.0])], tt(&[3, 1], F32)).unwrap();
    assert_eq!(to_f32(&r), [0.0, 1.0, 3.0]);
}

#[test]
fn iota_along_each_dimension() {
    let r = run_op(OpKind::Iota { dimension: 0 }, &[], tt(&[2, 3], S32)).unwrap();
    assert_eq!(to_i32(&r), [0, 0, 0, 1, 1, 1]);
    let r = run_op(OpKind::Iota { dimension: 1 }, &[], tt(&[2, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
}

#[test]
fn gather_clamps_out_of_range_starts() {
    let x = f32s(&[6, 5], &seq(30));
    let dims = GatherDims { offset_dims: vec![1], collapsed_slice_dims: vec![0], start_index_map: vec![0], index_vector_dim: 1, ..Default::default() };
    let kind = OpKind::Gather { dims, slice_sizes: vec![1, 3], indices_are_sorted: false };
    let r = run_op(kind, &[x, i32s(&[3, 1], &[2, 9, -4])], tt(&[3, 3], F32)).unwrap();
    assert_eq!(to_f32(&r), [10.0, 11.0, 12.0, 25.0, 26.0, 27.0, 0.0, 1.0, 2.0]);
}

#[test]
fn gather_with_batching_dims() {
    // operand [B=2, N=4, D=3], indices [B=2, K=2, 1]: result[b, k, d] = x[b, idx[b, k], d].
    let x = f32s(&[2, 4, 3], &seq(24));
    let idx = i32s(&[2, 2, 1], &[3, 0, 1, 2]);
    let dims = GatherDims {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        start_index_map: vec![1],
        index_vector_dim: 2,
    };
    let kind = OpKind::Gather { dims, slice_sizes: vec![1, 1, 3], indices_are_sorted: false };
    let r = to_f32(&run_op(kind, &[x, idx], tt(&[2, 2, 3], F32)).unwrap());
    let ids = [[3, 0], [1, 2]];
    for b in 0..2 {
        for k in 0..2 {
            for d in 0..3 {
                assert_eq!(r[b * 6 + k * 3 + d], (b * 12 + ids[b][k] * 3 + d) as f32);
            }
        }
    }
}

fn scatter_add(x: apu_runtime::Tensor, idx: apu_runtime::Tensor, u: apu_runtime::Tensor) -> Vec<f32> {
    let dims = ScatterDims { update_window_dims: vec![1], inserted_window_dims: vec![0], scatter_dims_to_operand_dims: vec![0], index_vector_dim: 1, ..Default::default() };
    let kind = OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: false };
    let ty = Type::Tensor(x.ty.clone());
    let out = run_op_with(kind, &[x, idx, u], &[ty], |b| vec![b.binary_region(BinaryOp::Add, F32)]).unwrap();
    to_f32(&out[0])
}

#[test]
fn scatter_accumulates_duplicates_and_skips_out_of_bounds() {
    let x = f32s(&[4, 2], &[0.0; 8]);
    let idx = i32s(&[4, 1], &[1, 1, 4, -1]);
    let u = f32s(&[4, 2], &[1.0, 2.0, 10.0, 20.0, 100.0, 100.0, 7.0, 7.0]);
    assert_eq!(scatter_add(x, idx, u), [0.0, 0.0, 11.0, 22.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn scatter_skips_partially_out_of_bounds_windows() {
    // A window of 2 rows starting at row 3 of 4 does not fit: XLA skips it whole.
    let dims = ScatterDims { update_window_dims: vec![1, 2], inserted_window_dims: vec![], scatter_dims_to_operand_dims: vec![0], index_vector_dim: 1, ..Default::default() };
    let kind = OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: false };
    let x = f32s(&[4, 1], &[0.0; 4]);
    let idx = i32s(&[2, 1], &[3, 1]);
    let u = f32s(&[2, 2, 1], &[5.0, 5.0, 1.0, 2.0]);
    let out = run_op_with(kind, &[x, idx, u], &[tt(&[4, 1], F32)], |b| vec![b.binary_region(BinaryOp::Add, F32)]).unwrap();
    assert_eq!(to_f32(&out[0]), [0.0, 1.0, 2.0, 0.0]);
}
