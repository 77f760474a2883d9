//! CHLO math functions with closed-form expansions into IR ops (f32 and f64; f16/bf16 go through
//! f32).
//! These follow the textbook identities with care for the usual cancellation and overflow spots;
//! they are not bit-identical to XLA's own expansions.

use super::{Builder, Expansion};
use crate::ir::*;
use crate::Result;

/// The expansion for `chlo.<op>`, if apu has one.
pub(super) fn formula(op: &str) -> Option<Expansion> {
    Some(match op {
        "tan" => |b, x, _| Ok(b.un(UnaryOp::Tan, x)),
        // jax 0.12 writes `x ** 2` (e.g. flax BatchNorm's variance) as chlo.square in StableHLO text.
        "square" => |b, x, _| Ok(b.bin(BinaryOp::Multiply, x, x)),
        "atan" => atan,
        "asin" => asin,
        "acos" => acos,
        "sinh" => sinh,
        "cosh" => cosh,
        "asinh" => asinh,
        "acosh" => acosh,
        "atanh" => atanh,
        "is_inf" => is_inf,
        "lgamma" => super::gamma::lgamma,
        "digamma" => super::gamma::digamma,
        "is_pos_inf" => |b, x, ty| inf_compare(b, x, ty, f64::INFINITY),
        "is_neg_inf" => |b, x, ty| inf_compare(b, x, ty, f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Ops whose result is i1 rather than the operand's type.
pub(super) fn is_predicate(op: &str) -> bool {
    matches!(op, "is_inf" | "is_pos_inf" | "is_neg_inf")
}

fn pred_of(ty: &TensorType) -> TensorType {
    TensorType::new(ty.shape.clone(), ElementType::Pred)
}

/// Above this magnitude `x * x` overflows, so the large-argument forms take over.
fn large(ty: &TensorType) -> f64 {
    if ty.elem == ElementType::F64 {
        1e150
    } else {
        1e18
    }
}

/// atan(x) = atan2(x, 1).
fn atan(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let one = b.splat(1.0, ty)?;
    Ok(b.bin(BinaryOp::Atan2, x, one))
}

/// sqrt(1 - x²) computed as sqrt((1 - x)(1 + x)) to keep precision near ±1.
fn sqrt_one_minus_sq(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let one = b.splat(1.0, ty)?;
    let a = b.bin(BinaryOp::Subtract, one, x);
    let c = b.bin(BinaryOp::Add, one, x);
    let p = b.bin(BinaryOp::Multiply, a, c);
    Ok(b.un(UnaryOp::Sqrt, p))
}

/// asin(x) = 2·atan2(x, 1 + sqrt(1 - x²)).
fn asin(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let s = sqrt_one_minus_sq(b, x, ty)?;
    let one = b.splat(1.0, ty)?;
    let d = b.bin(BinaryOp::Add, one, s);
    let a = b.bin(BinaryOp::Atan2, x, d);
    let two = b.splat(2.0, ty)?;
    Ok(b.bin(BinaryOp::Multiply, two, a))
}

/// acos(x) = 2·atan2(sqrt(1 - x²), 1 + x), and π at x = -1 (where that reads atan2(0, 0)).
fn acos(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let s = sqrt_one_minus_sq(b, x, ty)?;
    let one = b.splat(1.0, ty)?;
    let d = b.bin(BinaryOp::Add, one, x);
    let a = b.bin(BinaryOp::Atan2, s, d);
    let two = b.splat(2.0, ty)?;
    let r = b.bin(BinaryOp::Multiply, two, a);
    let m1 = b.splat(-1.0, ty)?;
    let at_m1 = b.compare(ComparisonDirection::Eq, x, m1, &pred_of(ty));
    let pi = b.splat(std::f64::consts::PI, ty)?;
    Ok(b.select(at_m1, pi, r))
}

/// Above this |x| e^|x| overflows while e^|x|/2 may not, so sinh/cosh switch to e^(|x| - ln 2).
fn exp_overflow(ty: &TensorType) -> f64 {
    if ty.elem == ElementType::F64 {
        709.0
    } else {
        88.0
    }
}

/// e^(|x| - ln 2) = e^|x|/2 without overflowing before the result does (a few ulps less precise
/// than exp(x)/2, so only used past `exp_overflow`), and whether |x| is past it.
fn half_exp_abs(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<(ValueId, ValueId)> {
    let a = b.un(UnaryOp::Abs, x);
    let ln2 = b.splat(std::f64::consts::LN_2, ty)?;
    let shifted = b.bin(BinaryOp::Subtract, a, ln2);
    let limit = b.splat(exp_overflow(ty), ty)?;
    let huge = b.compare(ComparisonDirection::Gt, a, limit, &pred_of(ty));
    Ok((b.un(UnaryOp::Exponential, shifted), huge))
}

/// sinh(x) = (expm1(x) - expm1(-x)) / 2: the two terms have opposite signs, so nothing cancels;
/// sign(x)·e^(|x| - ln 2) for huge |x|.
fn sinh(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let e1 = b.un(UnaryOp::ExponentialMinusOne, x);
    let nx = b.un(UnaryOp::Negate, x);
    let e2 = b.un(UnaryOp::ExponentialMinusOne, nx);
    let d = b.bin(BinaryOp::Subtract, e1, e2);
    let half = b.splat(0.5, ty)?;
    let moderate = b.bin(BinaryOp::Multiply, d, half);
    let (h, huge) = half_exp_abs(b, x, ty)?;
    let s = b.un(UnaryOp::Sign, x);
    let big = b.bin(BinaryOp::Multiply, s, h);
    Ok(b.select(huge, big, moderate))
}

/// cosh(x) = (exp(x) + exp(-x)) / 2, and e^(|x| - ln 2) for huge |x|.
fn cosh(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let e1 = b.un(UnaryOp::Exponential, x);
    let nx = b.un(UnaryOp::Negate, x);
    let e2 = b.un(UnaryOp::Exponential, nx);
    let s = b.bin(BinaryOp::Add, e1, e2);
    let half = b.splat(0.5, ty)?;
    let moderate = b.bin(BinaryOp::Multiply, s, half);
    let (h, huge) = half_exp_abs(b, x, ty)?;
    Ok(b.select(huge, h, moderate))
}

/// asinh(x) = sign(x)·log1p(|x| + x²/(1 + sqrt(x² + 1))), and sign(x)·(log|x| + ln 2) for huge |x|.
fn asinh(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let a = b.un(UnaryOp::Abs, x);
    let a2 = b.bin(BinaryOp::Multiply, a, a);
    let one = b.splat(1.0, ty)?;
    let a2p1 = b.bin(BinaryOp::Add, a2, one);
    let r = b.un(UnaryOp::Sqrt, a2p1);
    let d = b.bin(BinaryOp::Add, one, r);
    let q = b.bin(BinaryOp::Divide, a2, d);
    let t = b.bin(BinaryOp::Add, a, q);
    let small = b.un(UnaryOp::LogPlusOne, t);
    let la = b.un(UnaryOp::Log, a);
    let ln2 = b.splat(std::f64::consts::LN_2, ty)?;
    let big = b.bin(BinaryOp::Add, la, ln2);
    let limit = b.splat(large(ty), ty)?;
    let is_big = b.compare(ComparisonDirection::Gt, a, limit, &pred_of(ty));
    let m = b.select(is_big, big, small);
    let s = b.un(UnaryOp::Sign, x);
    Ok(b.bin(BinaryOp::Multiply, s, m))
}

/// acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), and log(x) + ln 2 for huge x; NaN below 1.
fn acosh(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let one = b.splat(1.0, ty)?;
    let xm1 = b.bin(BinaryOp::Subtract, x, one);
    let xp1 = b.bin(BinaryOp::Add, x, one);
    let p = b.bin(BinaryOp::Multiply, xm1, xp1);
    let r = b.un(UnaryOp::Sqrt, p);
    let t = b.bin(BinaryOp::Add, xm1, r);
    let small = b.un(UnaryOp::LogPlusOne, t);
    let lx = b.un(UnaryOp::Log, x);
    let ln2 = b.splat(std::f64::consts::LN_2, ty)?;
    let big = b.bin(BinaryOp::Add, lx, ln2);
    let limit = b.splat(large(ty), ty)?;
    let is_big = b.compare(ComparisonDirection::Gt, x, limit, &pred_of(ty));
    Ok(b.select(is_big, big, small))
}

/// atanh(x) = log1p(2x / (1 - x)) / 2 (NaN for |x| > 1, ±inf at ±1).
fn atanh(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let one = b.splat(1.0, ty)?;
    let d = b.bin(BinaryOp::Subtract, one, x);
    let two_x = b.bin(BinaryOp::Add, x, x);
    let q = b.bin(BinaryOp::Divide, two_x, d);
    let l = b.un(UnaryOp::LogPlusOne, q);
    let half = b.splat(0.5, ty)?;
    Ok(b.bin(BinaryOp::Multiply, l, half))
}

fn is_inf(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let a = b.un(UnaryOp::Abs, x);
    inf_compare(b, a, ty, f64::INFINITY)
}

fn inf_compare(b: &mut Builder, x: ValueId, ty: &TensorType, inf: f64) -> Result<ValueId> {
    let c = b.splat(inf, ty)?;
    Ok(b.compare(ComparisonDirection::Eq, x, c, &pred_of(ty)))
}
