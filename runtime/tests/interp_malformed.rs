//! Ill-typed IR (as a buggy reader might produce) must give errors, never panics.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{ConvDims, ElementType::*, GatherDims, Literal, OpKind, TensorType};
use common::*;

fn assert_invalid(r: apu_compiler::Result<apu_runtime::Tensor>, what: &str) {
    match r {
        Err(e) => assert_eq!(e.kind, ErrorKind::InvalidArgument, "{what}: {e}"),
        Ok(t) => panic!("{what}: accepted, produced {}", t.ty),
    }
}

#[test]
fn wrong_result_shapes_are_errors() {
    let x = f32s(&[2, 3], &[0.0; 6]);
    assert_invalid(run_op(OpKind::Transpose { permutation: vec![1, 0] }, std::slice::from_ref(&x), tt(&[4, 2], F32)), "transpose");
    assert_invalid(run_op(OpKind::Transpose { permutation: vec![0, 0] }, std::slice::from_ref(&x), tt(&[2, 2], F32)), "transpose duplicate");
    assert_invalid(
        run_op(OpKind::DynamicSlice { slice_sizes: vec![1, 1] }, &[x.clone(), i32s(&[], &[0]), i32s(&[], &[0])], tt(&[2, 2], F32)),
        "dynamic_slice",
    );
    assert_invalid(run_op(OpKind::Concatenate { dimension: 0 }, &[x.clone(), f32s(&[1, 2], &[0.0; 2])], tt(&[3, 3], F32)), "concatenate");
    let pad = OpKind::Pad { edge_padding_low: vec![0, 0], edge_padding_high: vec![0, 0], interior_padding: vec![0, 0] };
    assert_invalid(run_op(pad, &[x.clone(), f32s(&[2], &[0.0; 2])], tt(&[2, 3], F32)), "pad with a non-scalar value");
    let dims = GatherDims { offset_dims: vec![1], collapsed_slice_dims: vec![0], start_index_map: vec![0], index_vector_dim: 1, ..Default::default() };
    let gather = OpKind::Gather { dims, slice_sizes: vec![1, 3], indices_are_sorted: false };
    assert_invalid(run_op(gather, &[x.clone(), i32s(&[2, 1], &[0, 1])], tt(&[5, 3], F32)), "gather batch");
    let conv = OpKind::Convolution {
        window_strides: vec![0],
        padding: vec![],
        lhs_dilation: vec![],
        rhs_dilation: vec![],
        window_reversal: vec![],
        dims: ConvDims {
            input_batch: 0,
            input_feature: 1,
            input_spatial: vec![2],
            kernel_output_feature: 0,
            kernel_input_feature: 1,
            kernel_spatial: vec![2],
            output_batch: 0,
            output_feature: 1,
            output_spatial: vec![2],
        },
        feature_group_count: 1,
        batch_group_count: 1,
        precision: vec![],
    };
    let (l, k) = (f32s(&[1, 1, 4], &[0.0; 4]), f32s(&[1, 1, 2], &[0.0; 2]));
    assert_invalid(run_op(conv.clone(), &[l.clone(), k.clone()], tt(&[1, 1, 3], F32)), "convolution stride 0");
    let OpKind::Convolution { dims, .. } = conv else { unreachable!() };
    let conv = OpKind::Convolution {
        window_strides: vec![1],
        padding: vec![],
        lhs_dilation: vec![],
        rhs_dilation: vec![],
        window_reversal: vec![],
        dims,
        feature_group_count: 1,
        batch_group_count: 1,
        precision: vec![],
    };
    assert_invalid(run_op(conv, &[l, k], tt(&[2, 1, 9], F32)), "convolution output shape");
}

#[test]
fn bad_constants_are_errors() {
    let lit = Literal { ty: TensorType::new(vec![4], F32), bytes: Vec::new().into(), splat: true };
    assert_invalid(run_op(OpKind::Constant(lit), &[], tt(&[4], F32)), "empty splat");
    let lit = Literal { ty: TensorType::new(vec![4], F32), bytes: vec![0u8; 3].into(), splat: false };
    assert!(run_op(OpKind::Constant(lit), &[], tt(&[4], F32)).is_err(), "short dense constant");
}
