//! `dot_general_v2`'s algorithm attributes (lhs/rhs precision type, accumulation type, component
//! counts). apu multiplies in the operands' own type and accumulates at least as wide as any
//! requested accumulation type, so an algorithm changes results only when it asks for inputs narrower
//! than the operands in a single product (e.g. TF32_TF32_F32 or BF16_BF16_F32 on f32 operands):
//! those operands are rounded first, with `reduce_precision`, which is exactly what a narrower
//! multiplier would see. Algorithms with several products per term or several components per
//! operand (JAX's BF16_BF16_F32_X3/X6/X9 and TF32_TF32_F32_X3 set num_primitive_operations to 3, 6
//! or 9) exist to emulate the operand precision, which apu has natively, so they need no rounding.

use super::op_ctx::OpCtx;
use crate::bytecode::model::{Attr, FloatKind, Ty};
use crate::ir::{ElementType, Type};
use crate::{Error, Result};

/// `(exponent_bits, mantissa_bits)` of a float format.
type Format = (i32, i32);

/// Per operand, the format it must be rounded to before the product, if any. `None` overall when
/// the op carries no algorithm.
pub fn operand_rounding(c: &OpCtx<'_>) -> Result<Option<[Option<Format>; 2]>> {
    if c.version < 2 || ["lhs_precision_type", "rhs_precision_type", "accumulation_type"].iter().all(|a| c.is_none(a)) {
        return Ok(None);
    }
    let products = if c.is_none("num_primitive_operations") { 1 } else { c.int("num_primitive_operations")? };
    let mut out = [None, None];
    for (i, side) in ["lhs", "rhs"].into_iter().enumerate() {
        let precision = float_attr(c, &format!("{side}_precision_type"))?;
        let components = if c.is_none(&format!("{side}_component_count")) { 1 } else { c.int(&format!("{side}_component_count"))? };
        if components < 1 {
            return Err(Error::invalid(format!("{side}_component_count must be positive, got {components}")));
        }
        let operand = match c.operand_types.get(i) {
            Some(Type::Tensor(t)) => t.elem,
            _ => return Err(Error::invalid(format!("dot_general operand {i} is not a tensor"))),
        };
        let (Some(want), Some(have)) = (float_format(precision), element_format(operand)) else {
            continue; // integer or exotic float operands: nothing narrower to emulate
        };
        if components == 1 && products == 1 && want.0 <= have.0 && want.1 <= have.1 && want != have {
            out[i] = Some(want);
        }
    }
    float_attr(c, "accumulation_type")?;
    Ok(Some(out))
}

fn float_attr(c: &OpCtx<'_>, name: &str) -> Result<FloatKind> {
    c.with(name, |a| match a {
        Attr::Type(t) => match &**t {
            Ty::Float(k) => Ok(*k),
            other => Err(Error::unimplemented(format!("dot algorithm with a non-float type {other:?}"))),
        },
        _ => Err(Error::invalid("expected a type")),
    })
}

fn float_format(k: FloatKind) -> Option<Format> {
    use FloatKind::*;
    Some(match k {
        BF16 => (8, 7),
        F16 => (5, 10),
        F32 => (8, 23),
        TF32 => (8, 10),
        F64 => (11, 52),
        _ => return None,
    })
}

fn element_format(e: ElementType) -> Option<Format> {
    Some(match e {
        ElementType::BF16 => (8, 7),
        ElementType::F16 => (5, 10),
        ElementType::F32 => (8, 23),
        ElementType::F64 => (11, 52),
        _ => return None,
    })
}
