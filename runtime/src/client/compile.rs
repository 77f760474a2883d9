//! The compile pipeline, the one path from program bytes to something that runs:
//!
//! ```text
//! read → validate → simplify → validate → lower → prepare
//! ```
//!
//! Reading (`apu_compiler::program`) turns bytes into the IR; validation makes it a
//! [`ValidModule`]; the interpreter's check refuses at compile time what no engine can run; the
//! passes simplify the module and validation runs again on their output, so that a pass cannot
//! hand the planner a broken module; lowering builds the plan and preparation compiles its
//! kernels ([`Program::planned`]). The plug-in, the command-line tool and the TensorFlow glue all
//! compile through here.

use crate::exec::{Options, Program};
use crate::profile;
use crate::{interp, Error, Result};
use apu_compiler::ir::Module;
use apu_compiler::passes::simplify_valid;
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::{validate, ValidModule};
use std::time::Instant;

/// A compiled program with the validated module it came from (for printing and introspection).
pub struct Compiled {
    pub module: ValidModule,
    pub program: Program,
}

/// The program format named by a PJRT format string.
pub fn format(name: &str) -> Result<ProgramFormat> {
    ProgramFormat::parse(name).map_err(|_| {
        // Worded like the reference implementation so that callers matching on it still work.
        Error::invalid(format!(
            "Unknown program format '{name}'. apu reads \"mlir\" (bytecode or text), \"hlo\" and \"hlo_with_config\""
        ))
    })
}

/// The first two steps, read → validate, on program bytes in the format named `format_name`
/// ("mlir", "hlo", "hlo_with_config").
pub fn read_valid(format_name: &str, code: &[u8]) -> Result<ValidModule> {
    let format = format(format_name)?;
    let start = Instant::now();
    let module = profile::compile_phase("read", || format!("{} bytes of {format_name}", code.len()), || read_program(format, code))?;
    let read = start.elapsed();
    let name = module.name.clone();
    let module = profile::compile_phase("validate", move || name, || validate(module))?;
    tracing::debug!("read {} bytes of {format_name:?} in {read:?}, validated in {:?}", code.len(), start.elapsed() - read);
    Ok(module)
}

/// The whole pipeline on program bytes in the format named `format_name`.
pub fn compile(format_name: &str, code: &[u8]) -> Result<Compiled> {
    let module = read_valid(format_name, code)?;
    let start = Instant::now();
    let name = || module.entry_function().name.clone();
    let program = profile::compile_phase("simplify, plan and prepare", name, || program(&module, &Options::from_env()))?;
    tracing::debug!("simplified, planned and prepared @{} in {:?}", module.entry_function().name, start.elapsed());
    Ok(Compiled { module, program })
}

/// The pipeline from a module in memory (e.g. one built by the TensorFlow glue).
pub fn compile_module(module: Module) -> Result<Program> {
    let module = validate(module)?;
    Ok(program(&module, &Options::from_env())?)
}

/// The steps after the first validation: check → simplify → validate → lower → prepare.
///
/// A program the interpreter accepts always compiles: where no plan can be built (or the passes
/// fail), it runs on the interpreter, with a warning. `options.interpret` makes it run there
/// unsimplified, as the oracle that the plan is checked against.
pub fn program(module: &ValidModule, options: &Options) -> apu_compiler::Result<Program> {
    interp::check_supported(module)?;
    if options.interpret {
        return Ok(Program::interpreted(module.clone()));
    }
    match simplify_valid(module) {
        Ok(simplified) => Program::planned(&simplified, options),
        Err(e) => {
            tracing::warn!("simplifying @{} failed, running it on the interpreter: {e}", module.entry_function().name);
            Ok(Program::interpreted(module.clone()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD: &str = "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";

    #[test]
    fn text_compiles_to_a_plan() {
        let c = compile("mlir", ADD.as_bytes()).unwrap();
        assert!(c.program.plan().is_some(), "an elementwise add plans");
        assert_eq!(c.module.entry_function().name, "main");
    }

    #[test]
    fn unknown_formats_and_bad_bytes_are_invalid_arguments() {
        let e = compile("invalid", ADD.as_bytes()).err().unwrap();
        assert_eq!(e.code, crate::Code::InvalidArgument);
        assert!(e.message.starts_with("Unknown program format 'invalid'."), "{e}");
        let e = compile("mlir", b"ML\xefR not really bytecode").err().unwrap();
        assert_eq!(e.code, crate::Code::InvalidArgument);
    }

    #[test]
    fn calls_are_inlined_before_lowering() {
        // The plan sees through the call only if the pipeline simplified the module: lowering
        // itself no longer runs passes.
        let text = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = func.call @twice(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\nfunc.func private @twice(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %x, %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
        let c = compile("mlir", text.as_bytes()).unwrap();
        let plan = c.program.plan().expect("plans");
        let calls = plan.module.entry_function().body.ops.iter().filter(|op| matches!(op.kind, apu_compiler::ir::OpKind::Call { .. }));
        assert_eq!(calls.count(), 0, "the call was inlined before planning");
    }
}
