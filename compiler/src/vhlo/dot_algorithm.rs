//! `dot_general_v2`'s algorithm attributes (lhs/rhs precision type, accumulation type, component
//! counts, number of primitive operations). They are accepted and checked for shape, and apu
//! multiplies at the operands' own precision with at least the requested accumulation width. That
//! is what XLA:CPU does (jaxlib 0.10.2: `lax.dot(a, b, precision="BF16_BF16_F32")` on f32 operands
//! returns the f32-accurate product, its compiled HLO keeps `algorithm=dot_bf16_bf16_f32` on a plain
//! f32 dot), and CPU is the reference apu's users compare with; see docs/decisions.md.

use super::op_ctx::OpCtx;
use crate::bytecode::model::{Attr, Ty};
use crate::{Error, Result};

/// Checks a dot algorithm if the op carries one.
pub fn check(c: &OpCtx<'_>) -> Result<()> {
    if c.version < 2 || ["lhs_precision_type", "rhs_precision_type", "accumulation_type"].iter().all(|a| c.is_none(a)) {
        return Ok(());
    }
    for name in ["lhs_precision_type", "rhs_precision_type", "accumulation_type"] {
        c.with(name, |a| match a {
            Attr::Type(t) if matches!(**t, Ty::Float(_)) => Ok(()),
            Attr::Type(t) => Err(Error::unimplemented(format!("dot algorithm with the non-float type {t:?}"))),
            _ => Err(Error::invalid("expected a type")),
        })?;
    }
    for name in ["lhs_component_count", "rhs_component_count", "num_primitive_operations"] {
        if !c.is_none(name) && c.int(name)? < 1 {
            return Err(Error::invalid(format!("dot algorithm: {name} must be positive")));
        }
    }
    Ok(())
}
