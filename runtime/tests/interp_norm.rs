//! Batch norm ops: training statistics against naive loops, inference against training, and
//! batch_norm_grad against central finite differences of `sum(dy * batch_norm_training(x))`.

mod common;

use apu_compiler::ir::{ElementType::*, OpKind};
use apu_runtime::Tensor;
use common::*;

const EPS: f32 = 0.01;

fn training(x: &[f64], scale: &[f64], offset: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let out = run_op_with(
        OpKind::BatchNormTraining { epsilon: EPS, feature_index: 1 },
        &[f64s(&[4, 3], x), f64s(&[3], scale), f64s(&[3], offset)],
        &[tt(&[4, 3], F64), tt(&[3], F64), tt(&[3], F64)],
        |_| vec![],
    )
    .unwrap();
    (to_f64(&out[0]), to_f64(&out[1]), to_f64(&out[2]))
}

fn loss(x: &[f64], scale: &[f64], offset: &[f64], dy: &[f64]) -> f64 {
    training(x, scale, offset).0.iter().zip(dy).map(|(a, b)| a * b).sum()
}

const X: [f64; 12] = [0.5, -1.0, 2.0, 1.5, 0.25, -2.0, -0.75, 3.0, 1.0, 2.5, -0.5, 0.0];
const SCALE: [f64; 3] = [1.5, -0.5, 2.0];
const OFFSET: [f64; 3] = [0.1, 0.2, -0.3];
const DY: [f64; 12] = [0.3, -0.2, 0.5, 1.0, 0.0, -1.5, 0.25, 0.75, -0.5, -0.4, 0.9, 0.1];

#[test]
fn training_statistics_and_inference_agree() {
    let (out, mean, var) = training(&X, &SCALE, &OFFSET);
    for c in 0..3 {
        let col: Vec<f64> = (0..4).map(|r| X[r * 3 + c]).collect();
        let m = col.iter().sum::<f64>() / 4.0;
        let v = col.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 4.0;
        assert!((mean[c] - m).abs() < 1e-12 && (var[c] - v).abs() < 1e-12);
        for r in 0..4 {
            let want = SCALE[c] * (col[r] - m) / (v + EPS as f64).sqrt() + OFFSET[c];
            assert!((out[r * 3 + c] - want).abs() < 1e-12);
        }
    }
    let inf = run_op(
        OpKind::BatchNormInference { epsilon: EPS, feature_index: 1 },
        &[f64s(&[4, 3], &X), f64s(&[3], &SCALE), f64s(&[3], &OFFSET), f64s(&[3], &mean), f64s(&[3], &var)],
        tt(&[4, 3], F64),
    )
    .unwrap();
    assert_eq!(to_f64(&inf), out);
}

#[test]
fn grad_matches_finite_differences() {
    let (_, mean, var) = training(&X, &SCALE, &OFFSET);
    let inputs: Vec<Tensor> = vec![f64s(&[4, 3], &X), f64s(&[3], &SCALE), f64s(&[3], &mean), f64s(&[3], &var), f64s(&[4, 3], &DY)];
    let g = run_op_with(OpKind::BatchNormGrad { epsilon: EPS, feature_index: 1 }, &inputs, &[tt(&[4, 3], F64), tt(&[3], F64), tt(&[3], F64)], |_| vec![]).unwrap();
    let (gx, gs, go) = (to_f64(&g[0]), to_f64(&g[1]), to_f64(&g[2]));
    let h = 1e-6;
    let diff = |f: &dyn Fn(f64) -> f64| (f(h) - f(-h)) / (2.0 * h);
    for k in 0..12 {
        let d = diff(&|e| {
            let mut x = X;
            x[k] += e;
            loss(&x, &SCALE, &OFFSET, &DY)
        });
        assert!((gx[k] - d).abs() < 1e-6, "grad_operand[{k}]: {} vs {d}", gx[k]);
    }
    for c in 0..3 {
        let ds = diff(&|e| {
            let mut s = SCALE;
            s[c] += e;
            loss(&X, &s, &OFFSET, &DY)
        });
        let dof = diff(&|e| {
            let mut o = OFFSET;
            o[c] += e;
            loss(&X, &SCALE, &o, &DY)
        });
        assert!((gs[c] - ds).abs() < 1e-6, "grad_scale[{c}]: {} vs {ds}", gs[c]);
        assert!((go[c] - dof).abs() < 1e-6, "grad_offset[{c}]: {} vs {dof}", go[c]);
    }
}
