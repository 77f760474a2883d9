//! Which ops of a compiled program run on the reference interpreter: the check tests (and the
//! model benchmarks' fixtures) run to make sure real programs stay on plan kernels.

use super::{Kind, Options, Program, DEFAULT_ROW_BLOCK_BYTES};
use apu_compiler::plan::FallbackStep;
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_compiler::Result;

impl Program {
    /// The steps of this program that run an op on the interpreter (op name and location). A
    /// program that runs wholly on the interpreter (no plan) is one entry, `whole program`.
    pub fn fallbacks(&self) -> Vec<FallbackStep> {
        match &self.kind {
            Kind::Plan(e) => e.plan.fallbacks(),
            Kind::Interp(m) => vec![FallbackStep {
                op: "whole program".into(),
                location: format!("@{}", m.entry_function().name),
                nesting: Vec::new(),
                types: String::new(),
            }],
        }
    }
}

/// Reads a program (`format`: MLIR text or bytecode, or an HloModuleProto), plans it on one thread
/// and returns its fallback steps.
pub fn fallbacks_of(format: ProgramFormat, code: &[u8]) -> Result<Vec<FallbackStep>> {
    let module = validate(read_program(format, code)?)?;
    let options = Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: DEFAULT_ROW_BLOCK_BYTES };
    Ok(Program::compile_with(&module, &options)?.fallbacks())
}

/// Plans every `.mlir` file (text or bytecode) under `dir` (recursively) and returns, per file with
/// fallback steps, the file and its steps; files that do not read or plan are reported as errors
/// in the list too. The check of `runtime/tests/no_fallback.rs`, reusable for other program sets.
pub fn fallbacks_in_dir(dir: &std::path::Path) -> std::io::Result<Vec<(std::path::PathBuf, std::result::Result<Vec<FallbackStep>, String>)>> {
    let mut files = Vec::new();
    collect_mlir(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let code = std::fs::read(&f)?;
        match fallbacks_of(ProgramFormat::Mlir, &code) {
            Ok(steps) if steps.is_empty() => {}
            Ok(steps) => out.push((f, Ok(steps))),
            Err(e) => out.push((f, Err(e.to_string()))),
        }
    }
    Ok(out)
}

fn collect_mlir(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_mlir(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
    Ok(())
}
