//! Prints the plan of each program given on the command line (StableHLO text or VHLO bytecode):
//! step counts and every op that falls back to the interpreter.

use apu_compiler::plan::StepKind;
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};

fn main() {
    for path in std::env::args().skip(1) {
        let code = std::fs::read(&path).expect("readable program");
        let module = match read_program(ProgramFormat::Mlir, &code).and_then(validate) {
            Ok(m) => m,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        match Program::compile_with(&module, &Options { threads: 1, min_parallel_work: usize::MAX, interpret: false }) {
            Ok(p) => match p.plan() {
                Some(plan) => {
                    let fallbacks: Vec<&str> = plan
                        .steps
                        .iter()
                        .filter_map(|s| match &s.kind {
                            StepKind::Fallback { op, .. } => Some(op.kind.name()),
                            _ => None,
                        })
                        .collect();
                    println!("{path}: {} fallbacks {:?}", plan.summary(), fallbacks);
                }
                None => println!("{path}: runs on the interpreter"),
            },
            Err(e) => println!("{path}: {e}"),
        }
    }
}
