//! Passes over a module before planning: inlining of calls (so that fusion sees through JAX's
//! private helper functions), removal of ops that do nothing (same-type reshapes, converts,
//! broadcasts, identity transposes, full slices), of repeated pure ops, reduces over extent-1
//! dimensions as elementwise ops, and copies of one-element constants into the
//! loop and branch regions that read them (so that they fuse there); tokens become empty tensors;
//! arithmetic on bf16, f16 and 8/16-bit integers is computed on f32 / 32-bit integers.

mod cse;
mod identity;
pub use identity::PLACEMENT_TARGETS;
mod inline;
mod remap;
mod sink_constants;
pub mod tokens;
mod unit_reduce;
pub mod widen;

use crate::ir::Module;
use crate::valid::{validate, ValidModule};
use crate::{Error, Result};

/// The simplifications the planner relies on, in order. The result has the same semantics.
pub fn simplify(module: &Module) -> Result<Module> {
    let mut m = inline::inline_calls(module)?;
    tokens::tokens_as_empty_tensors(&mut m);
    unit_reduce::rewrite_unit_reduces(&mut m);
    widen::widen_narrow_arithmetic(&mut m);
    identity::remove_identity_ops(&mut m);
    cse::eliminate_common_subexpressions(&mut m);
    sink_constants::sink_constants(&mut m);
    Ok(m)
}

/// [`simplify`], then validation of its result: a pass that breaks the IR is a bug of apu, caught
/// here (INTERNAL) rather than as a wrong plan or a crash later.
pub fn simplify_valid(module: &ValidModule) -> Result<ValidModule> {
    let simplified = simplify(module.module())?;
    validate(simplified).map_err(|e| {
        let mut bug = Error::internal(format!("the simplified module is invalid (a bug in apu's passes): {}", e.message));
        bug.context = e.context;
        bug.context(format!("simplifying @{}", module.entry_function().name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, ElementType, Function, OpKind, Op, Type};

    fn f32s(n: i64) -> Type {
        Type::tensor(vec![n], ElementType::F32)
    }

    #[test]
    fn calls_are_inlined_and_identity_ops_removed() {
        // @double(x) = x + x ; @main(a) = reshape(double(a)) with the same type.
        let mut callee = Function::new("double");
        let x = callee.new_value(f32s(4));
        let y = callee.new_value(f32s(4));
        callee.body.params = vec![x];
        callee.body.ops.push(Op::new(OpKind::Binary(BinaryOp::Add), vec![x, x], vec![y]));
        callee.body.results = vec![y];
        let mut main = Function::new("main");
        let a = main.new_value(f32s(4));
        let c = main.new_value(f32s(4));
        let r = main.new_value(f32s(4));
        main.body.params = vec![a];
        main.body.ops.push(Op::new(OpKind::Call { callee: "double".into() }, vec![a], vec![c]));
        main.body.ops.push(Op::new(OpKind::Reshape, vec![c], vec![r]));
        main.body.results = vec![r];
        let module = Module { functions: vec![main, callee], entry: 0, ..Default::default() };
        let out = simplify(&module).unwrap();
        let main = out.entry_function();
        assert_eq!(main.body.ops.len(), 1, "{:?}", main.body.ops);
        let add = &main.body.ops[0];
        assert_eq!(add.kind, OpKind::Binary(BinaryOp::Add));
        assert_eq!(add.operands, vec![a, a]);
        assert_eq!(main.body.results, add.results);
        assert_eq!(main.value_type(add.results[0]), &f32s(4));
    }
}
