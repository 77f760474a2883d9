//! The one function that turns a lowered TensorFlow op into something runnable, through the same
//! compile pipeline as PJRT and the CLI (`runtime/src/client/compile.rs`: check, simplify,
//! validate, lower, prepare), then refused here if it would run on the interpreter.

use apu_compiler::valid::ValidModule;
use apu_compiler::{Error, Result};
use apu_runtime::client::compile::program;
use apu_runtime::exec::{Options, Program};

/// Compiles a validated one-op module into a plan-executor program. A module that would run on the
/// reference interpreter is refused (UNIMPLEMENTED, naming the op), unless the user asked for the
/// interpreter with `APU_EXECUTOR=interp`; plan steps that fall back to the interpreter are named in
/// the result's [`Compiled::fallback_steps`] so the caller can say so.
pub fn compile_op(op_name: &str, module: &ValidModule) -> Result<Compiled> {
    let program = program(module, &Options::from_env()).map_err(|e| e.context(format!("compiling TensorFlow op {op_name}")))?;
    let interpret_requested = std::env::var("APU_EXECUTOR").map(|v| v == "interp").unwrap_or(false);
    let (fallback_steps, summary) = match program.plan() {
        Some(plan) => (count_fallbacks(&plan.steps), plan.summary()),
        None if interpret_requested => (0, "interpreter (APU_EXECUTOR=interp)".to_string()),
        None => {
            return Err(Error::unimplemented(format!(
                "TensorFlow op {op_name}: the plan executor cannot run this op (no plan); apu does not interpret kernels"
            )))
        }
    };
    Ok(Compiled { program, fallback_steps, summary })
}

fn count_fallbacks(steps: &[apu_compiler::plan::Step]) -> usize {
    steps
        .iter()
        .map(|s| {
            let own = matches!(s.kind, apu_compiler::plan::StepKind::Fallback { .. }) as usize;
            own + s.kind.nested_steps().into_iter().map(|inner| count_fallbacks(inner)).sum::<usize>()
        })
        .sum()
}

/// A compiled op.
pub struct Compiled {
    pub program: Program,
    /// Plan steps that the executor hands to the reference interpreter (0 for a fully planned op).
    pub fallback_steps: usize,
    /// The plan's step summary, for logs.
    pub summary: String,
}
