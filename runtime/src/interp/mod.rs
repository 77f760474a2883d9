//! The reference interpreter: simple, obviously correct execution of the IR following the
//! StableHLO specification. It is the semantic oracle for the planner and executor, and for now
//! the engine that runs programs.
//!
//! Layout: [`array`] typed element storage, [`value`] runtime values, [`elementwise`],
//! [`convert`], [`shape_ops`], [`gather`] (gather/scatter), [`reduce`], [`sort`], [`dot`],
//! [`conv`], [`rng`], [`eval`] (the op dispatcher and control flow), [`support`] (compile-time
//! check for unimplemented op/type pairs).

pub mod array;
pub mod complex;
pub mod conv;
pub mod convert;
pub mod dot;
pub mod elementwise;
pub mod eval;
pub mod gather;
pub mod index;
pub mod numeric;
pub mod reduce;
pub mod rng;
pub mod shape_ops;
pub mod sort;
pub mod support;
pub mod value;

use crate::Tensor;
use apu_compiler::valid::ValidModule;
use apu_compiler::{Error, Result};
use value::{Dense, Value};

pub use support::check_supported;

/// Runs the entry function of `module` on `args` and returns its results (tuples flattened).
pub fn run(module: &ValidModule, args: &[Tensor]) -> Result<Vec<Tensor>> {
    let entry = module.entry_function();
    let params = entry.param_types();
    if args.len() != params.len() {
        return Err(Error::invalid(format!(
            "@{} takes {} arguments, got {}",
            entry.name,
            params.len(),
            args.len()
        )));
    }
    let mut values = Vec::with_capacity(args.len());
    for (i, (arg, ty)) in args.iter().zip(&params).enumerate() {
        match ty.as_tensor() {
            Some(t) if *t == arg.ty => values.push(Value::tensor(Dense::from_tensor(arg)?)),
            _ => {
                return Err(Error::invalid(format!("argument {i} of @{}: expected {ty}, got {}", entry.name, arg.ty)))
            }
        }
    }
    let results = eval::Interpreter::new(module.module()).call(entry, values, 0)?;
    let mut out = Vec::new();
    for r in &results {
        flatten(r, &mut out)?;
    }
    Ok(out)
}

/// Evaluates the single op `op` of function `func` of `module` on tensors (see
/// [`eval::Interpreter::eval_single`]); every result must be a tensor.
pub fn eval_one_op(
    module: &apu_compiler::ir::Module,
    func: &apu_compiler::ir::Function,
    op: &apu_compiler::ir::Op,
    operands: &[Tensor],
    captured: &[(apu_compiler::ir::ValueId, Tensor)],
) -> Result<Vec<Tensor>> {
    let to_value = |t: &Tensor| -> Result<Value> { Ok(Value::tensor(Dense::from_tensor(t)?)) };
    let operands = operands.iter().map(to_value).collect::<Result<Vec<_>>>()?;
    let captured = captured.iter().map(|(v, t)| Ok((*v, to_value(t)?))).collect::<Result<Vec<_>>>()?;
    let results = eval::Interpreter::new(module).eval_single(func, op, operands, captured)?;
    results
        .iter()
        .map(|r| match r {
            Value::Tensor(d) => d.to_tensor(),
            _ => Err(Error::unimplemented(format!("{} returning a tuple or token outside the interpreter", op.kind.name()))),
        })
        .collect()
}

fn flatten(v: &Value, out: &mut Vec<Tensor>) -> Result<()> {
    match v {
        Value::Tensor(d) => out.push(d.to_tensor()?),
        Value::Tuple(vs) => {
            for v in vs {
                flatten(v, out)?;
            }
        }
        Value::Token => return Err(Error::unimplemented("token results of the entry function")),
    }
    Ok(())
}
