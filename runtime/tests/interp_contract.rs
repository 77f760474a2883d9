//! dot_general and convolution. Dot results are compared with naive loops; the grouped and
//! dilated convolutions with outputs of `lax.conv_general_dilated` on JAX's CPU backend (jax
//! 0.10.2), on small integer-valued inputs so that every result is exact.

mod common;

use apu_compiler::ir::{ConvDims, DotDims, ElementType::*, OpKind, Precision};
use apu_runtime::Tensor;
use common::*;

#[test]
fn dot_general_with_batch_dims() {
    // lhs [B=2, K=3, M=2], rhs [N=2, B=2, K=3] → result [B, M, N].
    let l: Vec<f32> = (0..12).map(|i| (i % 5) as f32 - 2.0).collect();
    let r: Vec<f32> = (0..12).map(|i| (i % 7) as f32 - 3.0).collect();
    let dims = DotDims { lhs_batch: vec![0], rhs_batch: vec![1], lhs_contracting: vec![1], rhs_contracting: vec![2] };
    let kind = OpKind::DotGeneral { dims, precision: vec![Precision::Default; 2], preferred_element_type: None };
    let out = to_f32(&run_op(kind, &[f32s(&[2, 3, 2], &l), f32s(&[2, 2, 3], &r)], tt(&[2, 2, 2], F32)).unwrap());
    for b in 0..2 {
        for m in 0..2 {
            for n in 0..2 {
                let want: f32 = (0..3).map(|k| l[b * 6 + k * 2 + m] * r[n * 6 + b * 3 + k]).sum();
                assert_eq!(out[b * 4 + m * 2 + n], want);
            }
        }
    }
}

#[test]
fn dot_general_int8_to_int32_does_not_wrap_in_int8() {
    let dims = DotDims { lhs_contracting: vec![0], rhs_contracting: vec![0], ..Default::default() };
    let kind = OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: Some(S32) };
    let out = run_op(kind, &[i8s(&[3], &[127, 127, -128]), i8s(&[3], &[127, 1, -128])], tt(&[], S32)).unwrap();
    assert_eq!(to_i32(&out), [127 * 127 + 127 + 128 * 128]);
}

#[allow(clippy::too_many_arguments)]
fn conv1d(x: Tensor, w: Tensor, out: &[i64], strides: i64, pad: (i64, i64), lhs_dil: i64, rhs_dil: i64, fg: i64, bg: i64, reverse: bool) -> Vec<f32> {
    let kind = OpKind::Convolution {
        window_strides: vec![strides],
        padding: vec![pad],
        lhs_dilation: vec![lhs_dil],
        rhs_dilation: vec![rhs_dil],
        window_reversal: vec![reverse],
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
        feature_group_count: fg,
        batch_group_count: bg,
        precision: vec![],
    };
    to_f32(&run_op(kind, &[x, w], tt(out, F32)).unwrap())
}

fn ints(v: &[i32]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

#[test]
fn convolution_feature_groups_dilations_strides_padding() {
    let x = ints(&[-3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1]);
    let w = ints(&[-2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2, -1, 0, 1, 2, -2]);
    let want = ints(&[1, 22, 6, -3, -9, 3, 16, 1, -9, -11, -4, 10, -3, 0, 1, 16, -5, -5, -3, 6, -2, -5, -7, -9, -5, -4, 22, 6, -7, -10, 3, 16, -4, -11, -11, -4, -4, -1, 0, 1, -5, -7, -5, -3, -1, -3, -5, -7]);
    let got = conv1d(f32s(&[2, 4, 5], &x), f32s(&[6, 2, 3], &w), &[2, 6, 4], 2, (2, 1), 2, 2, 2, 1, false);
    assert_eq!(got, want);
}

#[test]
fn convolution_batch_groups() {
    let x = ints(&[-1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0, 1, 2, 3]);
    let w = ints(&[-1, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, -1]);
    let want = ints(&[0, -1, -2, -3, 1, 1, 1, 1, -1, 0, 1, 2, 0, -1, -2, -3, 0, -1, -2, -3, 1, 1, 1, 1, -1, 0, 1, 2, 0, -1, -2, -3]);
    let got = conv1d(f32s(&[4, 2, 5], &x), f32s(&[4, 2, 2], &w), &[2, 4, 4], 1, (0, 0), 1, 1, 1, 2, false);
    assert_eq!(got, want);
}

#[test]
fn convolution_window_reversal_is_true_convolution() {
    // One channel: correlation with [1, 2, 3] reversed is convolution with [1, 2, 3].
    let x = f32s(&[1, 1, 4], &[1.0, 0.0, 0.0, 2.0]);
    let w = f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]);
    let got = conv1d(x, w, &[1, 1, 6], 1, (2, 2), 1, 1, 1, 1, true);
    // full convolution of [1 0 0 2] and [1 2 3]
    assert_eq!(got, [1.0, 2.0, 3.0, 2.0, 4.0, 6.0]);
}
