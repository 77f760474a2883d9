//! `convolution` with general dimension numbers, strides, padding, lhs/rhs dilation, window
//! reversal and feature/batch groups, as a direct loop over output elements.

use super::array::{Array, Scalar};
use super::index::{for_each_index, strides};
use super::numeric::{contraction_supported, widen, Acc, Wide};
use super::value::Dense;
use apu_compiler::ir::{OpKind, TensorType};
use apu_compiler::{Error, Result};

/// The per-spatial-dimension attributes with spec defaults filled in.
struct Geometry {
    strides: Vec<i64>,
    pad_low: Vec<i64>,
    lhs_dil: Vec<i64>,
    rhs_dil: Vec<i64>,
    reverse: Vec<bool>,
}

fn or_default<T: Clone>(v: &[T], n: usize, d: T, what: &str) -> Result<Vec<T>> {
    match v.len() {
        0 => Ok(vec![d; n]),
        l if l == n => Ok(v.to_vec()),
        l => Err(Error::invalid(format!("convolution: {what} has {l} entries for {n} spatial dimensions"))),
    }
}

pub fn convolution(kind: &OpKind, lhs: &Dense, rhs: &Dense, result: &TensorType) -> Result<Dense> {
    let OpKind::Convolution {
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        window_reversal,
        dims,
        feature_group_count,
        batch_group_count,
        ..
    } = kind
    else {
        return Err(Error::internal("convolution called with another op"));
    };
    if !contraction_supported(result.elem) {
        return Err(Error::unimplemented(format!("convolution for {}", result.elem)));
    }
    let ns = dims.input_spatial.len();
    if dims.kernel_spatial.len() != ns || dims.output_spatial.len() != ns {
        return Err(Error::invalid("convolution: spatial dimension lists differ in length"));
    }
    let lr = lhs.ty.rank() as i64;
    let all: Vec<i64> = [dims.input_batch, dims.input_feature, dims.kernel_input_feature, dims.kernel_output_feature, dims.output_batch, dims.output_feature]
        .into_iter()
        .chain(dims.input_spatial.iter().copied())
        .chain(dims.kernel_spatial.iter().copied())
        .chain(dims.output_spatial.iter().copied())
        .collect();
    if lhs.ty.rank() != rhs.ty.rank() || lhs.ty.rank() != result.rank() || all.iter().any(|&d| d < 0 || d >= lr) {
        return Err(Error::invalid("convolution: dimension numbers out of range"));
    }
    let g = Geometry {
        strides: or_default(window_strides, ns, 1, "window_strides")?,
        pad_low: or_default(&padding.iter().map(|p| p.0).collect::<Vec<_>>(), ns, 0, "padding")?,
        lhs_dil: or_default(lhs_dilation, ns, 1, "lhs_dilation")?,
        rhs_dil: or_default(rhs_dilation, ns, 1, "rhs_dilation")?,
        reverse: or_default(window_reversal, ns, false, "window_reversal")?,
    };
    let (ls, rs) = (&lhs.ty.shape, &rhs.ty.shape);
    let u = |d: i64| d as usize;
    let batch = ls[u(dims.input_batch)];
    let in_features = ls[u(dims.input_feature)];
    let kif = rs[u(dims.kernel_input_feature)];
    let kof = rs[u(dims.kernel_output_feature)];
    let (fg, bg) = (*feature_group_count, *batch_group_count);
    if fg < 1 || bg < 1 || in_features != kif * fg || kof % fg != 0 || kof % bg != 0 || batch % bg != 0 {
        return Err(Error::invalid(format!(
            "convolution: groups (feature {fg}, batch {bg}) do not fit {} and {}",
            lhs.ty, rhs.ty
        )));
    }
    let (lst, rst) = (strides(ls), strides(rs));
    let kernel_spatial: Vec<i64> = dims.kernel_spatial.iter().map(|&d| rs[u(d)]).collect();
    let out_batch = batch / bg;
    let values: Vec<Scalar> = match (widen(&lhs.data, result.elem)?, widen(&rhs.data, result.elem)?) {
        (Wide::F(l), Wide::F(r)) => run(&l, &r, lhs, rhs, result, dims, &g, &kernel_spatial, (kif, kof, fg, bg, out_batch), &lst, &rst),
        (Wide::I(l), Wide::I(r)) => run(&l, &r, lhs, rhs, result, dims, &g, &kernel_spatial, (kif, kof, fg, bg, out_batch), &lst, &rst),
        (Wide::C(l), Wide::C(r)) => run(&l, &r, lhs, rhs, result, dims, &g, &kernel_spatial, (kif, kof, fg, bg, out_batch), &lst, &rst),
        _ => return Err(Error::internal("convolution: operands widened to different domains")),
    };
    Dense::new(result.clone(), Array::from_scalars(result.elem, values)?)
}

#[allow(clippy::too_many_arguments)]
fn run<T: Acc>(
    l: &[T],
    r: &[T],
    lhs: &Dense,
    rhs: &Dense,
    result: &TensorType,
    dims: &apu_compiler::ir::ConvDims,
    g: &Geometry,
    kernel_spatial: &[i64],
    (kif, kof, fg, bg, out_batch): (i64, i64, i64, i64, i64),
    lst: &[usize],
    rst: &[usize],
) -> Vec<Scalar> {
    let u = |d: i64| d as usize;
    let ns = kernel_spatial.len();
    let mut out = Vec::with_capacity(result.num_elements());
    for_each_index(&result.shape, |o| {
        let ob = o[u(dims.output_batch)];
        let of = o[u(dims.output_feature)];
        let group = of / (kof / fg);
        let bgroup = of / (kof / bg);
        let ib = bgroup * out_batch + ob;
        let mut acc = T::zero();
        for_each_index(kernel_spatial, |k| {
            let mut l_off = u(ib) * lst[u(dims.input_batch)];
            let mut r_off = u(of) * rst[u(dims.kernel_output_feature)];
            for s in 0..ns {
                let os = o[u(dims.output_spatial[s])];
                let p = os * g.strides[s] + k[s] * g.rhs_dil[s] - g.pad_low[s];
                let in_size = lhs.ty.shape[u(dims.input_spatial[s])];
                if p < 0 || p % g.lhs_dil[s] != 0 || p / g.lhs_dil[s] >= in_size {
                    return;
                }
                l_off += u(p / g.lhs_dil[s]) * lst[u(dims.input_spatial[s])];
                let kk = if g.reverse[s] { kernel_spatial[s] - 1 - k[s] } else { k[s] };
                r_off += u(kk) * rst[u(dims.kernel_spatial[s])];
            }
            for c in 0..kif {
                let lf = u(group * kif + c) * lst[u(dims.input_feature)];
                let rf = u(c) * rst[u(dims.kernel_input_feature)];
                acc = acc.mac(l[l_off + lf], r[r_off + rf]);
            }
        });
        out.push(acc.scalar());
    });
    let _ = rhs;
    out
}
