//! `chlo.lgamma` and `chlo.digamma` by the Lanczos approximation (g = 7, 9 terms), with the
//! reflection formula for x < 1/2 — the method XLA uses for these functions.

use super::Builder;
use crate::ir::*;
use crate::Result;

const LANCZOS_G: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.99999999999980993227684700473478;
#[allow(clippy::excessive_precision)]
const LANCZOS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

fn pred_of(ty: &TensorType) -> TensorType {
    TensorType::new(ty.shape.clone(), ElementType::Pred)
}

/// Shared start: whether to reflect, and z = reflect ? -x : x - 1.
fn reflect_and_z(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<(ValueId, ValueId)> {
    let half = b.splat(0.5, ty)?;
    let reflect = b.compare(ComparisonDirection::Lt, x, half, &pred_of(ty));
    let neg = b.un(UnaryOp::Negate, x);
    let one = b.splat(1.0, ty)?;
    let xm1 = b.bin(BinaryOp::Subtract, x, one);
    let z = b.select(reflect, neg, xm1);
    Ok((reflect, z))
}

/// log(t) with t = z + g + 1/2, written as log(g + 1/2) + log1p(z / (g + 1/2)) for accuracy.
fn log_t(b: &mut Builder, z: ValueId, ty: &TensorType) -> Result<(ValueId, ValueId)> {
    let gh = b.splat(LANCZOS_G + 0.5, ty)?;
    let t = b.bin(BinaryOp::Add, z, gh);
    let q = b.bin(BinaryOp::Divide, z, gh);
    let l1p = b.un(UnaryOp::LogPlusOne, q);
    let lg = b.splat((LANCZOS_G + 0.5).ln(), ty)?;
    Ok((t, b.bin(BinaryOp::Add, lg, l1p)))
}

pub(super) fn lgamma(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let pred = pred_of(ty);
    let (reflect, z) = reflect_and_z(b, x, ty)?;
    let mut sum = b.splat(LANCZOS_BASE, ty)?;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let k = b.splat(i as f64 + 1.0, ty)?;
        let d = b.bin(BinaryOp::Add, z, k);
        let cv = b.splat(c, ty)?;
        let q = b.bin(BinaryOp::Divide, cv, d);
        sum = b.bin(BinaryOp::Add, sum, q);
    }
    let (t, lt) = log_t(b, z, ty)?;
    // log Γ(z + 1) = log √(2π) + (z + 1/2 - t / log t)·log t + log(sum).
    let half = b.splat(0.5, ty)?;
    let zh = b.bin(BinaryOp::Add, z, half);
    let t_over = b.bin(BinaryOp::Divide, t, lt);
    let f = b.bin(BinaryOp::Subtract, zh, t_over);
    let fl = b.bin(BinaryOp::Multiply, f, lt);
    let ls = b.un(UnaryOp::Log, sum);
    let lsqrt2pi = b.splat(0.5 * (2.0 * std::f64::consts::PI).ln(), ty)?;
    let a = b.bin(BinaryOp::Add, lsqrt2pi, fl);
    let log_y = b.bin(BinaryOp::Add, a, ls);
    // Reflection: log Γ(x) = log π - log|sin(π x)| - log Γ(1 - x), with sin(π x) taken on the
    // fractional part folded into [0, 1/2] to keep it accurate.
    let ax = b.un(UnaryOp::Abs, x);
    let fl_ax = b.un(UnaryOp::Floor, ax);
    let frac = b.bin(BinaryOp::Subtract, ax, fl_ax);
    let over_half = b.compare(ComparisonDirection::Gt, frac, half, &pred);
    let one = b.splat(1.0, ty)?;
    let one_minus = b.bin(BinaryOp::Subtract, one, frac);
    let reduced = b.select(over_half, one_minus, frac);
    let pi = b.splat(std::f64::consts::PI, ty)?;
    let pr = b.bin(BinaryOp::Multiply, pi, reduced);
    let s = b.un(UnaryOp::Sine, pr);
    let denom = b.un(UnaryOp::Log, s);
    let lpi = b.splat(std::f64::consts::PI.ln(), ty)?;
    let r1 = b.bin(BinaryOp::Subtract, lpi, denom);
    let r2 = b.bin(BinaryOp::Subtract, r1, log_y);
    let finite = b.op(OpKind::Unary(UnaryOp::IsFinite), vec![denom], Type::Tensor(pred.clone()));
    let neg_denom = b.un(UnaryOp::Negate, denom);
    let reflection = b.select(finite, r2, neg_denom);
    let result = b.select(reflect, reflection, log_y);
    // lgamma(±inf) = +inf.
    let inf = b.splat(f64::INFINITY, ty)?;
    let is_inf = b.compare(ComparisonDirection::Eq, ax, inf, &pred);
    Ok(b.select(is_inf, inf, result))
}

pub(super) fn digamma(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let pred = pred_of(ty);
    let (reflect, z) = reflect_and_z(b, x, ty)?;
    let mut num = b.splat(0.0, ty)?;
    let mut denom = b.splat(LANCZOS_BASE, ty)?;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let k = b.splat(i as f64 + 1.0, ty)?;
        let d = b.bin(BinaryOp::Add, z, k);
        let d2 = b.bin(BinaryOp::Multiply, d, d);
        let cv = b.splat(c, ty)?;
        let q2 = b.bin(BinaryOp::Divide, cv, d2);
        num = b.bin(BinaryOp::Subtract, num, q2);
        let q = b.bin(BinaryOp::Divide, cv, d);
        denom = b.bin(BinaryOp::Add, denom, q);
    }
    let (t, lt) = log_t(b, z, ty)?;
    // ψ(z + 1) = log t + num/denom - g / t.
    let nd = b.bin(BinaryOp::Divide, num, denom);
    let g = b.splat(LANCZOS_G, ty)?;
    let gt = b.bin(BinaryOp::Divide, g, t);
    let a = b.bin(BinaryOp::Add, lt, nd);
    let y = b.bin(BinaryOp::Subtract, a, gt);
    // Reflection: ψ(x) = ψ(1 - x) - π cos(π x) / sin(π x), evaluated at x shifted by an integer.
    let half = b.splat(0.5, ty)?;
    let xh = b.bin(BinaryOp::Add, x, half);
    let fl = b.un(UnaryOp::Floor, xh);
    let afl = b.un(UnaryOp::Abs, fl);
    let reduced = b.bin(BinaryOp::Add, x, afl);
    let pi = b.splat(std::f64::consts::PI, ty)?;
    let pr = b.bin(BinaryOp::Multiply, pi, reduced);
    let c = b.un(UnaryOp::Cosine, pr);
    let s = b.un(UnaryOp::Sine, pr);
    let pc = b.bin(BinaryOp::Multiply, pi, c);
    let cot = b.bin(BinaryOp::Divide, pc, s);
    let reflection = b.bin(BinaryOp::Subtract, y, cot);
    let real = b.select(reflect, reflection, y);
    // Poles at 0, -1, -2, ...: NaN.
    let zero = b.splat(0.0, ty)?;
    let non_pos = b.compare(ComparisonDirection::Le, x, zero, &pred);
    let fx = b.un(UnaryOp::Floor, x);
    let integral = b.compare(ComparisonDirection::Eq, x, fx, &pred);
    let pole = b.bin(BinaryOp::And, non_pos, integral);
    let nan = b.splat(f64::NAN, ty)?;
    Ok(b.select(pole, nan, real))
}
