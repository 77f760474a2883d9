//! CHLO ops that JAX prints in StableHLO text, expanded into plain IR ops at read time (apu's IR
//! has no CHLO ops, and no composite is needed for them).
//!
//! - `chlo.erf`, `chlo.erf_inv`: the same elementwise polynomial expansions that StableHLO's CHLO
//!   legalization produces for f32 (a portable artifact of the same program carries exactly these op
//!   sequences: the `chlo.erf.impl` composite decomposition for erf, an inline expansion for
//!   erf_inv). f16 and bf16 are computed in f32 and converted back, as the legalization does; f64
//!   has its own expansions (`chlo_f64.rs`).
//! - `chlo.top_k`: a stable descending sort of (values, iota) along the last dimension, then a slice.
//! - trigonometric/hyperbolic inverses, `sinh`, `cosh`, `tan`, `is_inf`...: closed forms in
//!   `chlo_math.rs`.
//! - `chlo.erfc`: the Cephes-based f32/f64 expansions (`chlo_f64.rs`); `lgamma`, `digamma`: Lanczos
//!   (`chlo_gamma.rs`).
//! - everything else (`bessel_i1e`, `next_after`, `polygamma`, `zeta`, `ragged_dot`, ...)
//!   is a named UNIMPLEMENTED error.

use super::ops::{FuncState, OpSyntax};
use crate::ir::*;
use crate::{Error, Result};

/// Emits ops into a region on behalf of one source op (all get its location).
pub struct Builder<'f> {
    pub fs: &'f mut FuncState,
    pub out: &'f mut Vec<Op>,
    pub location: Location,
}

impl Builder<'_> {
    pub fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Type) -> ValueId {
        let r = self.fs.new_value(ty);
        self.out.push(Op { kind, operands, results: vec![r], regions: Vec::new(), location: self.location.clone() });
        r
    }
    pub(super) fn ty(&self, v: ValueId) -> Type {
        self.fs.value_type(v).clone()
    }
    /// A constant of `ty` whose every element is `v` (ty is an f32 tensor type).
    fn splat_f32(&mut self, v: f32, ty: &TensorType) -> Result<ValueId> {
        let lit = Literal::splat(ty.clone(), v.to_le_bytes().to_vec())?;
        Ok(self.op(OpKind::Constant(lit), vec![], Type::Tensor(ty.clone())))
    }
    /// A constant of float type `ty` whose every element is `v` (rounded to the type).
    pub(super) fn splat(&mut self, v: f64, ty: &TensorType) -> Result<ValueId> {
        let mut bytes = Vec::new();
        super::literal_text::encode_float(v, ty.elem, &mut bytes).map_err(Error::invalid)?;
        let lit = Literal::splat(ty.clone(), bytes)?;
        Ok(self.op(OpKind::Constant(lit), vec![], Type::Tensor(ty.clone())))
    }
    pub(super) fn bin(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Binary(op), vec![a, b], t)
    }
    pub(super) fn un(&mut self, op: UnaryOp, a: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Unary(op), vec![a], t)
    }
    pub(super) fn select(&mut self, p: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Select, vec![p, a, b], t)
    }
    pub(super) fn compare(&mut self, dir: ComparisonDirection, a: ValueId, b: ValueId, pred: &TensorType) -> ValueId {
        self.op(OpKind::Compare { direction: dir, compare_type: None }, vec![a, b], Type::Tensor(pred.clone()))
    }
}

/// A float function expanded in one float type (`ty` is the computation type).
pub(super) type Expansion = fn(&mut Builder, ValueId, &TensorType) -> Result<ValueId>;

/// Expands a `chlo.*` op; returns its result values.
pub fn expand(b: &mut Builder, syn: &OpSyntax) -> Result<Vec<ValueId>> {
    let op = syn.name.strip_prefix("chlo.").unwrap_or(&syn.name);
    if op == "top_k" {
        return top_k(b, syn);
    }
    let f64_input = syn.operands.first().is_some_and(|&x| b.ty(x).as_tensor().is_some_and(|t| t.elem == ElementType::F64));
    // The polynomial approximations have separate f32 and f64 versions; the closed formulas work
    // in either type.
    let (unary, f32_only): (Expansion, bool) = match op {
        "erf" if f64_input => (super::chlo_f64::erf_f64, false),
        "erf_inv" if f64_input => (super::chlo_f64::erf_inv_f64, false),
        "erf" => (erf_f32, true),
        "erf_inv" => (erf_inv_f32, true),
        "erfc" if f64_input => (super::chlo_f64::erfc_f64, false),
        "erfc" => (super::chlo_f64::erfc_f32, true),
        _ => match super::chlo_math::formula(op) {
            Some(f) => (f, false),
            None => return Err(Error::unimplemented(format!("CHLO op chlo.{op} is not supported by apu's text reader"))),
        },
    };
    if syn.operands.len() != 1 || syn.result_types.len() != 1 {
        return Err(Error::invalid(format!("expects one operand and one result, got {} and {}", syn.operands.len(), syn.result_types.len())));
    }
    let x = syn.operands[0];
    let ty = b.ty(x);
    let Some(tt) = ty.as_tensor().cloned() else {
        return Err(Error::invalid(format!("expects a tensor operand, got {ty}")));
    };
    let result_elem = if super::chlo_math::is_predicate(op) { ElementType::Pred } else { tt.elem };
    let want = Type::Tensor(TensorType::new(tt.shape.clone(), result_elem));
    if want != syn.result_types[0] {
        return Err(Error::invalid(format!("result type {} should be {want} for operand {ty}", syn.result_types[0])));
    }
    let f32_ty = TensorType::new(tt.shape.clone(), ElementType::F32);
    match tt.elem {
        ElementType::F32 => Ok(vec![unary(b, x, &f32_ty)?]),
        ElementType::F64 if !f32_only => Ok(vec![unary(b, x, &tt)?]),
        ElementType::F16 | ElementType::BF16 => {
            let wide = b.op(OpKind::Convert, vec![x], Type::Tensor(f32_ty.clone()));
            let r = unary(b, wide, &f32_ty)?;
            if result_elem.is_pred() {
                Ok(vec![r])
            } else {
                Ok(vec![b.op(OpKind::Convert, vec![r], ty)])
            }
        }
        e => Err(Error::unimplemented(format!(
            "chlo.{op} on {e} is not supported (apu expands it for {})",
            if f32_only { "f32, f16 and bf16" } else { "f64, f32, f16 and bf16" }
        ))),
    }
}

/// `top_k(x, k)` along the last dimension: a stable descending sort of (x, iota) and a slice of the
/// first k columns — ties keep the lower index first, like XLA's TopK.
fn top_k(b: &mut Builder, syn: &OpSyntax) -> Result<Vec<ValueId>> {
    let k = match super::opdefs::Attrs(&syn.attrs).i64("k") {
        Ok(k) => k,
        Err(m) => return Err(Error::invalid(m)),
    };
    if syn.operands.len() != 1 || syn.result_types.len() != 2 {
        return Err(Error::invalid("top_k takes one operand and gives (values, indices)"));
    }
    let x = syn.operands[0];
    let xt = b.ty(x).as_tensor().cloned().ok_or_else(|| Error::invalid("top_k operand must be a tensor"))?;
    let Some(&last) = xt.shape.last() else {
        return Err(Error::invalid(format!("top_k needs an operand of rank >= 1, got {xt}")));
    };
    if k < 0 || k > last {
        return Err(Error::invalid(format!("k = {k} is out of range for the last dimension of {xt}")));
    }
    let idx_elem = match syn.result_types[1].as_tensor() {
        Some(t) if t.elem.is_int() => t.elem,
        _ => return Err(Error::invalid(format!("top_k indices must be an integer tensor, got {}", syn.result_types[1]))),
    };
    let dim = xt.rank() as i64 - 1;
    let idx_ty = TensorType::new(xt.shape.clone(), idx_elem);
    let iota = b.op(OpKind::Iota { dimension: dim }, vec![], Type::Tensor(idx_ty.clone()));
    // Comparator: a > b on the values (total order for floats), indices ride along.
    let scalar = Type::Tensor(TensorType::scalar(xt.elem));
    let iscalar = Type::Tensor(TensorType::scalar(idx_elem));
    let params: Vec<ValueId> = [scalar.clone(), scalar, iscalar.clone(), iscalar].into_iter().map(|t| b.fs.new_value(t)).collect();
    let compare_type = if xt.elem.is_float() {
        Some(ComparisonType::TotalOrder)
    } else if xt.elem.is_unsigned_int() || xt.elem.is_pred() {
        Some(ComparisonType::Unsigned)
    } else {
        Some(ComparisonType::Signed)
    };
    let gt = b.fs.new_value(Type::Tensor(TensorType::scalar(ElementType::Pred)));
    let cmp = Op {
        kind: OpKind::Compare { direction: ComparisonDirection::Gt, compare_type },
        operands: vec![params[0], params[1]],
        results: vec![gt],
        regions: Vec::new(),
        location: b.location.clone(),
    };
    let comparator = Region { params, ops: vec![cmp], results: vec![gt] };
    let sorted_vals = b.fs.new_value(Type::Tensor(xt.clone()));
    let sorted_idx = b.fs.new_value(Type::Tensor(idx_ty));
    b.out.push(Op {
        kind: OpKind::Sort { dimension: dim, is_stable: true },
        operands: vec![x, iota],
        results: vec![sorted_vals, sorted_idx],
        regions: vec![comparator],
        location: b.location.clone(),
    });
    let rank = xt.rank();
    let mut limit = xt.shape.clone();
    limit[rank - 1] = k;
    let slice = OpKind::Slice { start_indices: vec![0; rank], limit_indices: limit, strides: vec![1; rank] };
    let v = b.op(slice.clone(), vec![sorted_vals], syn.result_types[0].clone());
    let i = b.op(slice, vec![sorted_idx], syn.result_types[1].clone());
    Ok(vec![v, i])
}

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
fn erf_f32(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
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
fn erf_inv_f32(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
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
