//! Times apu's own compile of each program given on the command line (VHLO bytecode or StableHLO
//! text), phase by phase: read, validate, and building the executable form (plan). Prints the
//! median of `APU_BENCH_RUNS` (default 200) compiles per phase, in microseconds. For profiles:
//! `perf record target/release/examples/compile_bench PROGRAM`.

use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6
}

fn main() {
    let runs = std::env::var("APU_BENCH_RUNS").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(200).max(1);
    let options = Options::from_env();
    for path in std::env::args().skip(1) {
        let code = std::fs::read(&path).expect("readable program");
        let (mut read, mut valid, mut plan) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let t0 = Instant::now();
            let module = read_program(ProgramFormat::Mlir, &code).expect("program reads");
            let t1 = Instant::now();
            let module = validate(module).expect("program validates");
            let t2 = Instant::now();
            let program = Program::compile_with(&module, &options).expect("program compiles");
            let t3 = Instant::now();
            drop(program);
            read.push(t1 - t0);
            valid.push(t2 - t1);
            plan.push(t3 - t2);
        }
        println!(
            "{path}: {} bytes; median of {runs}: read {:.1} us, validate {:.1} us, plan {:.1} us",
            code.len(),
            median(read),
            median(valid),
            median(plan)
        );
    }
}
