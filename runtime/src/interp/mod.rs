//! The reference interpreter: simple, obviously correct execution of the IR following the
//! StableHLO specification. It is the semantic oracle for the planner and executor; it also runs
//! the ops a plan leaves to it (the executor's interpreter step, each named by `plan::fallbacks`)
//! and whole programs under `APU_EXECUTOR=interp` or when no plan can be built.
//!
//! Layout: [`elementwise`], [`convert`], [`shape_ops`], [`gather`] (gather/scatter), [`reduce`],
//! [`sort`], [`dot`], [`conv`], [`norm`] (batch norm), [`rng`] (`rng_bit_generator`), [`random`]
//! (the stateful `rng` op), [`eval`] (the op dispatcher and control flow), [`support`]
//! (compile-time check for unimplemented op/type pairs). Element storage and values
//! ([`array`](mod@array), [`value`], [`f8`], [`complex`]) are `crate::values`, representations the
//! executor shares; `cholesky`, `triangular_solve`, `fft` and the linear-algebra custom calls are
//! `crate::linalg`, production kernels this interpreter calls (checked by property tests of their
//! own, not by comparison with it). Nothing here evaluates an op with the executor's code.
//!
//! Where the spec leaves behaviour to the implementation, the interpreter does what XLA:CPU does:
//!
//! | case | result |
//! |---|---|
//! | integer `x / 0`, `x % 0` | all ones (-1), `x` |
//! | `MIN / -1`, `MIN % -1` | `MIN`, 0 |
//! | shift by ≥ bit width (amount read unsigned) | 0; arithmetic right shift fills with the sign |
//! | float → int `convert` | truncate toward zero, saturate, NaN → 0 |
//! | `maximum`/`minimum` on floats | NaN if either is NaN; +0 > -0 |
//! | `scatter` window partly out of bounds | whole window skipped |
//! | `rng_bit_generator` DEFAULT | PHILOX |
//! | `rng` values | Philox-4x32 keyed by a per-run seed ([`random`]) |
//! | f8 value past the largest finite | ±inf (IEEE-like formats) or NaN (FN/FNUZ) |
//! | `cholesky` of a non-positive-definite matrix | NaN from the failing pivot on |
//! | `case` index out of range | last branch (this one is the spec's rule) |
//!
//! Floats are computed in f64 and rounded once to the result type (exact for +, -, *, /, sqrt;
//! transcendentals may differ from XLA's f32 approximations in the last ulp). Reductions keep
//! the element type's rounding at every step, in row-major order. Contractions accumulate in
//! f64 (or exactly, for integers) and round once.

pub mod conv;
pub mod convert;
pub mod dot;
pub mod elementwise;
pub mod eval;
pub mod gather;
pub mod index;
pub mod norm;
pub mod numeric;
pub mod random;
pub mod reduce;
pub mod rng;
pub mod scalar_region;
pub mod shape_ops;
pub mod sort;
pub mod support;

/// Element storage and conversions, shared with the executor as representations (see `crate::values`).
pub use crate::values::{array, complex, f8, value};

use crate::Tensor;
use apu_compiler::ir::Type;
use apu_compiler::valid::ValidModule;
use apu_compiler::{Error, Result};
use value::{Dense, Value};

pub use support::check_supported;

/// Runs the entry function of `module` on `args` and returns its results. Tuple parameters and
/// results are flattened: each tensor leaf is one argument or result, in order (tokens take none).
pub fn run(module: &ValidModule, args: &[Tensor]) -> Result<Vec<Tensor>> {
    run_seeded(module, args, 0)
}

/// [`run`] with `rng` ops drawing from run seed `seed` (see [`random`]).
pub fn run_seeded(module: &ValidModule, args: &[Tensor], seed: u64) -> Result<Vec<Tensor>> {
    let rng = random::RunRng::new(seed);
    let entry = module.entry_function();
    let params = entry.param_types();
    let expected: usize = params.iter().map(tensor_leaves).sum();
    if args.len() != expected {
        return Err(Error::invalid(format!("@{} takes {expected} arguments, got {}", entry.name, args.len())));
    }
    let mut next = args.iter().enumerate();
    let values = params
        .iter()
        .map(|ty| bind_argument(ty, &mut next, &entry.name))
        .collect::<Result<Vec<_>>>()?;
    let results = on_large_stack(|| eval::Interpreter::with_rng(module.module(), &rng).call(entry, values, 0))?;
    let mut out = Vec::new();
    for r in &results {
        flatten(r, &mut out)?;
    }
    Ok(out)
}

fn tensor_leaves(ty: &Type) -> usize {
    match ty {
        Type::Tensor(_) => 1,
        Type::Tuple(ts) => ts.iter().map(tensor_leaves).sum(),
        Type::Token => 0,
    }
}

/// Builds the value of a parameter of type `ty` from the next arguments, checking each type.
fn bind_argument<'a>(ty: &Type, args: &mut impl Iterator<Item = (usize, &'a Tensor)>, func: &str) -> Result<Value> {
    match ty {
        Type::Tensor(t) => {
            let (i, arg) = args.next().ok_or_else(|| Error::internal("ran out of arguments after counting them"))?;
            if arg.ty != *t {
                return Err(Error::invalid(format!("argument {i} of @{func}: expected {t}, got {}", arg.ty)));
            }
            Ok(Value::tensor(Dense::from_tensor(arg).map_err(|e| e.context(format!("argument {i} of @{func}")))?))
        }
        Type::Tuple(ts) => Ok(Value::Tuple(ts.iter().map(|t| bind_argument(t, args, func)).collect::<Result<_>>()?)),
        Type::Token => Ok(Value::Token),
    }
}

/// Stack for one evaluation. Nested calls and regions recurse (up to `eval::MAX_DEPTH` levels,
/// tens of KiB each in debug builds), which would overflow the 2 MiB of a default Rust thread,
/// such as a pool's worker; so evaluation runs on its own thread with room to spare.
const EVAL_STACK_BYTES: usize = 64 << 20;

fn on_large_stack<T: Send>(f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    // The thread runs the caller's collective instance, if any (decision 65).
    let builder = std::thread::Builder::new().name("apu-interp".into()).stack_size(EVAL_STACK_BYTES);
    crate::collectives::spawn_carrying(builder, f)
        .map_err(|e| Error::internal(format!("cannot start the interpreter thread: {e}")))?
        .map_err(|_| Error::internal("the interpreter thread panicked"))?
}

/// Evaluates the single op `op` of function `func` of `module` on tensors (see
/// [`eval::Interpreter::eval_single`]); every result must be a tensor. `rng` ops draw from `rng`.
pub fn eval_one_op(
    module: &apu_compiler::ir::Module,
    func: &apu_compiler::ir::Function,
    op: &apu_compiler::ir::Op,
    operands: &[Tensor],
    captured: &[(apu_compiler::ir::ValueId, Tensor)],
    rng: &random::RunRng,
) -> Result<Vec<Tensor>> {
    let to_value = |t: &Tensor| -> Result<Value> { Ok(Value::tensor(Dense::from_tensor(t)?)) };
    let operands = operands.iter().map(to_value).collect::<Result<Vec<_>>>()?;
    let captured = captured.iter().map(|(v, t)| Ok((*v, to_value(t)?))).collect::<Result<Vec<_>>>()?;
    let results = eval::Interpreter::with_rng(module, rng).eval_single(func, op, operands, captured)?;
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
        // A token carries no data; like tuples, it is not a buffer of its own.
        Value::Token => {}
    }
    Ok(())
}
