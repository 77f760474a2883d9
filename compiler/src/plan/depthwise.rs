//! Which convolutions are depthwise (every channel its own group, one input and one output feature
//! per group) and run on the channel-vector kernel (`DepthwiseConvKernel`) instead of im2col + GEMM:
//! there a group's product is a GEMM of one column (`k` = the window) whose packing and call
//! overhead outweigh its arithmetic, and a filter gradient's im2col copies every input element once
//! per window position.
//!
//! Two forms, both as JAX writes them (`_conv_general_dilated_transpose_rhs` in jax/_src/lax/convolution.py):
//! - feature groups = input features = output features, one kernel input feature: the forward
//!   convolution and its input gradient;
//! - batch groups = lhs batch = output features, output batch 1: the filter gradient, whose lhs is
//!   the forward input with batch and features swapped (the forward batch is contracted).

use super::view::row_major;
use super::{DepthwiseConvKernel, SlotId};
use crate::ir::{ConvDims, ElementType, TensorType};

/// The window attributes of a convolution, lists already checked to have one entry per spatial
/// dimension (or none: the default).
pub struct Window<'a> {
    pub strides: &'a [i64],
    pub padding: &'a [(i64, i64)],
    pub lhs_dilation: &'a [i64],
    pub rhs_dilation: &'a [i64],
}

/// The kernel for a depthwise convolution of one or two spatial dimensions, or `None`.
#[allow(clippy::too_many_arguments)]
pub fn depthwise_kernel(
    (lhs, rhs, out): (SlotId, SlotId, SlotId),
    (aty, bty, rty): (&TensorType, &TensorType, &TensorType),
    dims: &ConvDims,
    window: &Window,
    feature_groups: i64,
    batch_groups: i64,
    elem: ElementType,
) -> Option<DepthwiseConvKernel> {
    let ns = dims.input_spatial.len();
    if !(1..=2).contains(&ns) || !matches!(elem, ElementType::F32 | ElementType::F64) {
        return None;
    }
    let u = |d: i64| d as usize;
    let (a, b, r) = (&aty.shape, &bty.shape, &rty.shape);
    let (ast, bst, rst) = (row_major(a), row_major(b), row_major(r));
    let kof = b[u(dims.kernel_output_feature)];
    let kif = b[u(dims.kernel_input_feature)];
    let (channels, outer, contract, lhs_strides) = if feature_groups > 1 && batch_groups == 1 {
        let c = feature_groups;
        if a[u(dims.input_feature)] != c || kif != 1 || kof != c {
            return None;
        }
        // A forward convolution: the batch is free, nothing is contracted but the window.
        (c, a[u(dims.input_batch)], 1, [ast[u(dims.input_batch)], 0, ast[u(dims.input_feature)]])
    } else if batch_groups > 1 && feature_groups == 1 {
        let c = batch_groups;
        if a[u(dims.input_batch)] != c || kof != c || r[u(dims.output_batch)] != 1 {
            return None;
        }
        // A filter gradient: the lhs features (the forward batch) are contracted with the kernel's.
        (c, 1, a[u(dims.input_feature)], [0, ast[u(dims.input_feature)], ast[u(dims.input_batch)]])
    } else {
        return None;
    };
    if r[u(dims.output_feature)] != channels || [channels, outer, contract].iter().any(|&n| n < 0) {
        return None;
    }
    // Spatial lists as [y, x]; a 1-D convolution gets a unit y (size 1, stride 0).
    let pick = |list: &[i64], dflt: i64, d: usize| if list.is_empty() { dflt } else { list[d] };
    let two = |f: &dyn Fn(usize) -> i64, unit: i64| -> [i64; 2] {
        if ns == 1 {
            [unit, f(0)]
        } else {
            [f(0), f(1)]
        }
    };
    let size = |shape: &[i64], sd: &[i64]| two(&|d| shape[u(sd[d])], 1).map(|v| v.max(0) as usize);
    let stride = |st: &[isize], sd: &[i64]| two(&|d| st[u(sd[d])] as i64, 0).map(|v| v as isize);
    Some(DepthwiseConvKernel {
        out,
        lhs,
        rhs,
        elem,
        channels: channels as usize,
        outer: outer as usize,
        contract: contract as usize,
        in_spatial: size(a, &dims.input_spatial),
        kernel_spatial: size(b, &dims.kernel_spatial),
        out_spatial: size(r, &dims.output_spatial),
        window_strides: two(&|d| pick(window.strides, 1, d), 1).map(|v| v as usize),
        pad_low: two(&|d| if window.padding.is_empty() { 0 } else { window.padding[d].0 }, 0).map(|v| v as isize),
        rhs_dilation: two(&|d| pick(window.rhs_dilation, 1, d), 1).map(|v| v as usize),
        lhs_dilation: two(&|d| pick(window.lhs_dilation, 1, d), 1).map(|v| v as usize),
        lhs_strides,
        lhs_spatial_strides: stride(&ast, &dims.input_spatial),
        rhs_strides: [if batch_groups > 1 { bst[u(dims.kernel_input_feature)] } else { 0 }, bst[u(dims.kernel_output_feature)]],
        rhs_spatial_strides: stride(&bst, &dims.kernel_spatial),
        out_strides: [if batch_groups > 1 { 0 } else { rst[u(dims.output_batch)] }, rst[u(dims.output_feature)]],
        out_spatial_strides: stride(&rst, &dims.output_spatial),
    })
}
