//! f32 `erf` and `erf_inv`: the elementwise polynomial expansions StableHLO's CHLO legalization
//! produces for f32 (a portable artifact of the same program carries exactly these op sequences).
//! f16/bf16 reach them through f32; f64 has its own expansions in `erfc.rs`.

use super::Builder;
use crate::ir::*;
use crate::Result;

/// Horner evaluation `((c0 * x + c1) * x + c2) ...` with f32 constants.
fn horner(b: &mut Builder, x: ValueId, coeffs: &[f32], ty: &TensorType) -> Result<ValueId> {
    let mut acc = b.splat_f32(coeffs[0], ty)?;
    for &c in &coeffs[1..] {
        let m = b.bin(BinaryOp::Multiply, acc, x);
        let k = b.splat_f32(c, ty)?;
        acc = b.bin(BinaryOp::Add, m, k);
    }
    Ok(acc)
}

/// erf(x) ≈ x·P(x²)/Q(x²) on x clamped to [-4, 4], then clamped to [-1, 1].
#[allow(clippy::excessive_precision)] // coefficients as published; the compiler rounds them to f32
pub(super) fn erf_f32(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    const P: [f32; 7] = [-2.72614237e-10, 2.77068146e-8, -2.10102394e-6, -5.69250624e-5, -7.34990637e-4, -2.954600e-03, -0.0160960332];
    const Q: [f32; 5] = [-1.45660715e-5, -2.13374049e-4, -0.00168282702, -0.00737332925, -0.0142647391];
    let lo = b.splat_f32(-4.0, ty)?;
    let hi = b.splat_f32(4.0, ty)?;
    let xc = b.op(OpKind::Clamp, vec![lo, x, hi], Type::Tensor(ty.clone()));
    let x2 = b.bin(BinaryOp::Multiply, xc, xc);
    let p = horner(b, x2, &P, ty)?;
    let q = horner(b, x2, &Q, ty)?;
    let num = b.bin(BinaryOp::Multiply, xc, p);
    let ratio = b.bin(BinaryOp::Divide, num, q);
    let m1 = b.splat_f32(-1.0, ty)?;
    let p1 = b.splat_f32(1.0, ty)?;
    Ok(b.op(OpKind::Clamp, vec![m1, ratio, p1], Type::Tensor(ty.clone())))
}

/// erf⁻¹(x) by Giles' single-precision approximation: w = -log(1 - x²); a polynomial in
/// (w - 2.5) for w < 5, in (√w - 3) otherwise; ±inf at x = ±1.
#[allow(clippy::excessive_precision)]
pub(super) fn erf_inv_f32(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    const SMALL: [f32; 9] = [2.81022636e-8, 3.43273939e-7, -3.5233877e-6, -4.39150654e-6, 2.1858087e-4, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941];
    const LARGE: [f32; 9] = [-2.00214257e-4, 1.00950558e-4, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682];
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let neg_x = b.un(UnaryOp::Negate, x);
    let minus_x2 = b.bin(BinaryOp::Multiply, x, neg_x);
    let l = b.un(UnaryOp::LogPlusOne, minus_x2);
    let w = b.un(UnaryOp::Negate, l);
    let five = b.splat_f32(5.0, ty)?;
    let small = b.compare(ComparisonDirection::Lt, w, five, &pred);
    let c25 = b.splat_f32(2.5, ty)?;
    let w_small = b.bin(BinaryOp::Subtract, w, c25);
    let sw = b.un(UnaryOp::Sqrt, w);
    let c3 = b.splat_f32(3.0, ty)?;
    let w_large = b.bin(BinaryOp::Subtract, sw, c3);
    let t = b.select(small, w_small, w_large);
    let mut p = {
        let s = b.splat_f32(SMALL[0], ty)?;
        let l = b.splat_f32(LARGE[0], ty)?;
        b.select(small, s, l)
    };
    for k in 1..SMALL.len() {
        let s = b.splat_f32(SMALL[k], ty)?;
        let l = b.splat_f32(LARGE[k], ty)?;
        let c = b.select(small, s, l);
        let m = b.bin(BinaryOp::Multiply, p, t);
        p = b.bin(BinaryOp::Add, c, m);
    }
    let r = b.bin(BinaryOp::Multiply, p, x);
    let ax = b.un(UnaryOp::Abs, x);
    let one = b.splat_f32(1.0, ty)?;
    let at_one = b.compare(ComparisonDirection::Eq, ax, one, &pred);
    let inf = b.splat_f32(f32::INFINITY, ty)?;
    let x_inf = b.bin(BinaryOp::Multiply, x, inf);
    Ok(b.select(at_one, x_inf, r))
}
