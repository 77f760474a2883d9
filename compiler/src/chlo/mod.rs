//! CHLO functions that apu's IR has no op for, expanded into plain IR ops. Both program readers
//! use this one module: the StableHLO text reader for `chlo.*` ops, the HloModuleProto reader for
//! the HLO opcodes of the same functions (`erf`, `acos`, ..., `topk`). The expansion is inline (the
//! ops land where the source op was), so the executor only ever sees ordinary IR ops.
//!
//! - `erf`, `erf_inv`: the f32 polynomial expansions of StableHLO's CHLO legalization (`erf.rs`);
//!   f64 has its own, more accurate rational approximations (`erfc.rs`), as has `erfc`.
//! - `lgamma`, `digamma`: Lanczos with reflection (`gamma.rs`).
//! - inverse trigonometric/hyperbolic functions, `sinh`, `cosh`, `tan`, `is_inf`...: closed forms
//!   (`math.rs`).
//! - `top_k`: a stable descending sort of (values, iota) along the last dimension, then a slice
//!   (`top_k.rs`).
//! - `next_after`: a step of the bit pattern (`next_after.rs`).
//! - `zeta` (Hurwitz) by Euler–Maclaurin summation, and `polygamma` from it (`zeta.rs`).
//!
//! f16 and bf16 are computed in f32 and converted back (next_after works on the type's own bits);
//! complex and integer operands, and every other CHLO function (`bessel_i1e`, `ragged_dot`, ...),
//! are named UNIMPLEMENTED errors.

pub mod approx_top_k;
mod builder;
mod erf;
mod erfc;
mod gamma;
mod math;
mod next_after;
mod top_k;
mod zeta;

pub use builder::Builder;
pub use next_after::next_after;
pub use top_k::top_k;

use crate::ir::*;
use crate::{Error, Result};

/// A float function expanded in one float type (`ty` is the computation type).
type Expansion = fn(&mut Builder, ValueId, &TensorType) -> Result<ValueId>;

/// Whether apu expands the one-operand function `name` (a CHLO op name without `chlo.`).
pub fn is_elementwise(name: &str) -> bool {
    matches!(name, "erf" | "erf_inv" | "erfc") || math::formula(name).is_some()
}

/// Expands the one-operand function `name` (a CHLO op name without `chlo.`) of `x`, whose result
/// must have type `result_ty`; returns the result value.
pub fn expand_elementwise(
    b: &mut Builder,
    name: &str,
    x: ValueId,
    result_ty: &Type,
) -> Result<ValueId> {
    let ty = b.ty(x);
    let Some(tt) = ty.as_tensor().cloned() else {
        return Err(Error::invalid(format!(
            "{name} expects a tensor operand, got {ty}"
        )));
    };
    let f64_input = tt.elem == ElementType::F64;
    // The polynomial approximations have separate f32 and f64 versions; the closed formulas work
    // in either type.
    let (unary, f32_only): (Expansion, bool) = match name {
        "erf" if f64_input => (erfc::erf_f64, false),
        "erf_inv" if f64_input => (erfc::erf_inv_f64, false),
        "erf" => (erf::erf_f32, true),
        "erf_inv" => (erf::erf_inv_f32, true),
        "erfc" if f64_input => (erfc::erfc_f64, false),
        "erfc" => (erfc::erfc_f32, true),
        _ => match math::formula(name) {
            Some(f) => (f, false),
            None => {
                return Err(Error::unimplemented(format!(
                    "CHLO function {name} is not supported by apu"
                )))
            }
        },
    };
    let result_elem = if math::is_predicate(name) {
        ElementType::Pred
    } else {
        tt.elem
    };
    let want = Type::Tensor(TensorType::new(tt.shape.clone(), result_elem));
    if &want != result_ty {
        return Err(Error::invalid(format!(
            "{name}: result type {result_ty} should be {want} for operand {ty}"
        )));
    }
    let f32_ty = TensorType::new(tt.shape.clone(), ElementType::F32);
    match tt.elem {
        ElementType::F32 => unary(b, x, &f32_ty),
        ElementType::F64 if !f32_only => unary(b, x, &tt),
        ElementType::F16 | ElementType::BF16 => {
            let wide = b.op(OpKind::Convert, vec![x], Type::Tensor(f32_ty.clone()));
            let r = unary(b, wide, &f32_ty)?;
            if result_elem.is_pred() {
                Ok(r)
            } else {
                Ok(b.op(OpKind::Convert, vec![r], ty))
            }
        }
        e => Err(Error::unimplemented(format!(
            "{name} on {e} is not supported (apu expands it for {})",
            if f32_only {
                "f32, f16 and bf16"
            } else {
                "f64, f32, f16 and bf16"
            }
        ))),
    }
}

/// A two-operand float function expanded in one float type (`ty` is the computation type).
type BinaryExpansion = fn(&mut Builder, ValueId, ValueId, &TensorType) -> Result<ValueId>;

/// Whether apu expands the two-operand function `name` with [`expand_binary`].
pub fn is_binary(name: &str) -> bool {
    matches!(name, "zeta" | "polygamma")
}

/// Expands the two-operand function `name` (`zeta(s, q)`, `polygamma(n, x)`); both operands and the
/// result have one float type.
pub fn expand_binary(b: &mut Builder, name: &str, x: ValueId, y: ValueId, result_ty: &Type) -> Result<ValueId> {
    let f: BinaryExpansion = match name {
        "zeta" => zeta::zeta,
        "polygamma" => zeta::polygamma,
        _ => return Err(Error::unimplemented(format!("CHLO function {name} is not supported by apu"))),
    };
    let ty = b.ty(x);
    if b.ty(y) != ty || &ty != result_ty {
        return Err(Error::invalid(format!(
            "{name} takes two operands of one type and gives that type, got {ty}, {} -> {result_ty}",
            b.ty(y)
        )));
    }
    let Some(tt) = ty.as_tensor().cloned() else {
        return Err(Error::invalid(format!("{name} expects tensors, got {ty}")));
    };
    match tt.elem {
        ElementType::F32 | ElementType::F64 => f(b, x, y, &tt),
        ElementType::F16 | ElementType::BF16 => {
            let wide = TensorType::new(tt.shape.clone(), ElementType::F32);
            let xw = b.op(OpKind::Convert, vec![x], Type::Tensor(wide.clone()));
            let yw = b.op(OpKind::Convert, vec![y], Type::Tensor(wide.clone()));
            let r = f(b, xw, yw, &wide)?;
            Ok(b.op(OpKind::Convert, vec![r], ty))
        }
        e => Err(Error::unimplemented(format!("{name} on {e} is not supported (apu expands it for f64, f32, f16 and bf16)"))),
    }
}
