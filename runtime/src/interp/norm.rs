//! `batch_norm_inference`, `batch_norm_training` and `batch_norm_grad`, following the spec's
//! decompositions but computed in f64 and rounded once per result element (the decomposition
//! rounds after every step, so low-precision types may differ in the last bits).

use super::array::{to_f64, Array, Scalar};
use super::index::strides;
use super::value::Dense;
use apu_compiler::ir::TensorType;
use apu_compiler::{Error, Result};

/// Per-element feature index and feature count, after checking the per-feature operands.
struct Features {
    of_element: Vec<usize>,
    count: usize,
    per_feature: f64,
}

fn features(x: &Dense, feature_index: i64, vectors: &[&Dense]) -> Result<Features> {
    let rank = x.ty.rank();
    if feature_index < 0 || feature_index as usize >= rank {
        return Err(Error::invalid(format!("batch norm: feature_index {feature_index} out of range for {}", x.ty)));
    }
    if !x.elem().is_float() {
        return Err(Error::unimplemented(format!("batch norm for {}", x.elem())));
    }
    let f = feature_index as usize;
    let count = x.ty.shape[f] as usize;
    for v in vectors {
        if v.ty.shape != [count as i64] {
            return Err(Error::invalid(format!("batch norm: per-feature operand {} does not match {} features", v.ty, count)));
        }
    }
    let st = strides(&x.ty.shape);
    let of_element = (0..x.data.len()).map(|k| (k / st[f]) % count.max(1)).collect();
    let per_feature = if count == 0 { 0.0 } else { x.data.len() as f64 / count as f64 };
    Ok(Features { of_element, count, per_feature })
}

fn values(d: &Dense) -> Vec<f64> {
    (0..d.data.len()).map(|k| to_f64(d.data.get(k))).collect()
}

fn store(ty: &TensorType, v: Vec<f64>) -> Result<Dense> {
    Dense::new(ty.clone(), Array::from_scalars(ty.elem, v.into_iter().map(Scalar::Float))?)
}

/// Per-feature sums of `v`.
fn feature_sums(fs: &Features, v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut sums = vec![0.0; fs.count];
    for (k, x) in v.enumerate() {
        sums[fs.of_element[k]] += x;
    }
    sums
}

fn normalize(x: &[f64], fs: &Features, scale: &[f64], offset: &[f64], mean: &[f64], var: &[f64], eps: f64) -> Vec<f64> {
    x.iter()
        .enumerate()
        .map(|(k, &v)| {
            let c = fs.of_element[k];
            scale[c] * (v - mean[c]) / (var[c] + eps).sqrt() + offset[c]
        })
        .collect()
}

pub fn inference(ops: &[&Dense], epsilon: f32, feature_index: i64) -> Result<Dense> {
    let [x, scale, offset, mean, var] = ops else {
        return Err(Error::invalid("batch_norm_inference takes 5 operands"));
    };
    let fs = features(x, feature_index, &[scale, offset, mean, var])?;
    let out = normalize(&values(x), &fs, &values(scale), &values(offset), &values(mean), &values(var), epsilon as f64);
    store(&x.ty, out)
}

pub fn training(ops: &[&Dense], epsilon: f32, feature_index: i64) -> Result<Vec<Dense>> {
    let [x, scale, offset] = ops else {
        return Err(Error::invalid("batch_norm_training takes 3 operands"));
    };
    let fs = features(x, feature_index, &[scale, offset])?;
    let xv = values(x);
    let mean: Vec<f64> = feature_sums(&fs, xv.iter().copied()).iter().map(|s| s / fs.per_feature).collect();
    let var: Vec<f64> = feature_sums(&fs, xv.iter().enumerate().map(|(k, v)| (v - mean[fs.of_element[k]]).powi(2)))
        .iter()
        .map(|s| s / fs.per_feature)
        .collect();
    let out = normalize(&xv, &fs, &values(scale), &values(offset), &mean, &var, epsilon as f64);
    let vec_ty = scale.ty.clone();
    Ok(vec![store(&x.ty, out)?, store(&vec_ty, mean)?, store(&vec_ty, var)?])
}

pub fn grad(ops: &[&Dense], epsilon: f32, feature_index: i64) -> Result<Vec<Dense>> {
    let [x, scale, mean, var, dy] = ops else {
        return Err(Error::invalid("batch_norm_grad takes 5 operands"));
    };
    let fs = features(x, feature_index, &[scale, mean, var])?;
    if dy.ty != x.ty {
        return Err(Error::invalid(format!("batch_norm_grad: grad_output {} does not match operand {}", dy.ty, x.ty)));
    }
    let (xv, dyv, sc, mu, vr) = (values(x), values(dy), values(scale), values(mean), values(var));
    let eps = epsilon as f64;
    let centered: Vec<f64> = xv.iter().enumerate().map(|(k, v)| v - mu[fs.of_element[k]]).collect();
    let sum_dy = feature_sums(&fs, dyv.iter().copied());
    let sum_dy_centered = feature_sums(&fs, dyv.iter().zip(&centered).map(|(a, b)| a * b));
    let n = fs.per_feature;
    let grad_x: Vec<f64> = (0..xv.len())
        .map(|k| {
            let c = fs.of_element[k];
            let stddev = (vr[c] + eps).sqrt();
            let i6 = dyv[k] * n - sum_dy[c] - sum_dy_centered[c] * centered[k] / (vr[c] + eps);
            sc[c] / stddev / n * i6
        })
        .collect();
    let grad_scale: Vec<f64> = (0..fs.count).map(|c| sum_dy_centered[c] / (vr[c] + eps).sqrt()).collect();
    let vec_ty = scale.ty.clone();
    Ok(vec![store(&x.ty, grad_x)?, store(&vec_ty, grad_scale)?, store(&vec_ty, sum_dy)?])
}
