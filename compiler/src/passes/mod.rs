//! Passes over a module before planning: inlining of calls (so that fusion sees through JAX's
//! private helper functions) and removal of ops that do nothing (same-type reshapes, converts,
//! broadcasts, identity transposes, full slices).

mod identity;
mod inline;
mod remap;

use crate::ir::Module;
use crate::Result;

/// The simplifications the planner relies on, in order. The result has the same semantics.
pub fn simplify(module: &Module) -> Result<Module> {
    let mut m = inline::inline_calls(module)?;
    identity::remove_identity_ops(&mut m);
    Ok(m)
}
