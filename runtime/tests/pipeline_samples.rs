//! Every real JAX sample, through every reader that applies, validated and executed by the reference
//! interpreter, compared with the outputs JAX's CPU backend produced. Prints the counts per reader.

mod common;

use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, npz, Tensor};
use common::jax_compare::{as_type, compare};
use std::collections::BTreeMap;
use std::path::Path;

/// (file suffix, PJRT format) of every program form a sample may have.
const FORMS: &[(&str, ProgramFormat)] = &[
    ("vhlo_v1_0_0.mlirbc", ProgramFormat::Mlir),
    ("vhlo_v1_10_0.mlirbc", ProgramFormat::Mlir),
    ("vhlo_v1_13_7.mlirbc", ProgramFormat::Mlir),
    ("vhlo_v1_17_0.mlirbc", ProgramFormat::Mlir),
    ("vhlo_v1_22_0.mlirbc", ProgramFormat::Mlir),
    ("stablehlo.mlir", ProgramFormat::Mlir),
    ("stablehlo_generic.mlir", ProgramFormat::Mlir),
    ("hlo.pb", ProgramFormat::Hlo),
];

/// Which engine runs the programs: the interpreter, or the plan executor with a thread count (and a
/// tiny parallel threshold, so that even small kernels are split across the threads).
#[derive(Clone, Copy, Debug)]
enum Executor {
    Interp,
    Plan { threads: usize },
}

fn execute(executor: Executor, module: &apu_compiler::valid::ValidModule, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    match executor {
        Executor::Interp => interp::run(module, inputs).map_err(|e| format!("run: {e}")),
        Executor::Plan { threads } => {
            let options = Options {
                threads,
                min_parallel_work: if threads > 1 { 1 } else { usize::MAX },
                interpret: false,
                // One-row blocks of row-blocked groups when split, the default otherwise.
                row_block_bytes: if threads > 1 { 1 } else { apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES },
            };
            let program = Program::compile_with(module, &options).map_err(|e| format!("compile: {e}"))?;
            let first = program.run(inputs).map_err(|e| format!("run: {e}"))?;
            // A second run reuses the buffers recycled by the first: it must give the same results.
            let second = program.run(inputs).map_err(|e| format!("second run: {e}"))?;
            for (i, (a, b)) in first.iter().zip(&second).enumerate() {
                if a.bytes() != b.bytes() {
                    return Err(format!("out{i}: the second run differs from the first"));
                }
            }
            Ok(first)
        }
    }
}

fn run_one(executor: Executor, path: &Path, format: ProgramFormat, io: &[(String, Tensor)]) -> Result<(), String> {
    let code = std::fs::read(path).map_err(|e| e.to_string())?;
    let module = read_program(format, &code).map_err(|e| format!("read: {e}"))?;
    let module = validate(module).map_err(|e| format!("validate: {e}"))?;
    interp::check_supported(&module).map_err(|e| format!("check_supported: {e}"))?;
    let inputs: Vec<Tensor> =
        (0..).map_while(|i| io.iter().find(|(n, _)| *n == format!("in{i}")).map(|(_, t)| t.clone())).collect();
    let main = module.entry_function();
    if inputs.len() != main.body.params.len() {
        return Err(format!("the fixture has {} inputs but @main takes {}", inputs.len(), main.body.params.len()));
    }
    let inputs: Vec<Tensor> = inputs.iter().zip(main.param_types()).map(|(t, ty)| as_type(t, &ty)).collect();
    let outputs = execute(executor, &module, &inputs)?;
    let wanted: Vec<Tensor> = (0..)
        .map_while(|i| io.iter().find(|(n, _)| *n == format!("out{i}")).map(|(_, t)| t))
        .zip(&main.result_types)
        .map(|(t, ty)| as_type(t, ty))
        .collect();
    if outputs.len() != wanted.len() {
        return Err(format!("{} outputs, JAX produced {}", outputs.len(), wanted.len()));
    }
    for (i, (g, w)) in outputs.iter().zip(wanted).enumerate() {
        compare(&format!("out{i}"), g, &w)?;
    }
    Ok(())
}

/// Runs every program with an `.io.npz` in `dir` through every form present; returns (per-form passes, failures).
fn run_dir(executor: Executor, dir: &Path, passed: &mut BTreeMap<&'static str, usize>, failures: &mut Vec<String>) -> usize {
    let mut programs: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".io.npz").map(str::to_string))
        .collect();
    programs.sort();
    for p in &programs {
        let io = npz::load_npz(&dir.join(format!("{p}.io.npz"))).unwrap();
        for (suffix, format) in FORMS {
            let path = dir.join(format!("{p}.{suffix}"));
            if !path.exists() {
                continue;
            }
            match run_one(executor, &path, *format, &io) {
                Ok(()) => *passed.entry(suffix).or_default() += 1,
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    programs.len()
}

fn report(what: &str, n: usize, passed: &BTreeMap<&str, usize>, failures: &[String]) {
    println!("{what}: {n} programs");
    for (suffix, n) in passed {
        println!("{suffix:>24}: {n} run and match JAX");
    }
    assert!(n > 0, "no programs found");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

fn shared_samples(executor: Executor) {
    let Some(dir) = common::samples_dir() else {
        eprintln!("skipped: samples not found");
        return;
    };
    let (mut passed, mut failures) = (BTreeMap::new(), Vec::new());
    let n = run_dir(executor, &dir.join("jax"), &mut passed, &mut failures);
    report(&format!("shared samples on {executor:?}"), n, &passed, &failures);
}

fn project_fixtures(executor: Executor) {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/programs"));
    let (mut passed, mut failures) = (BTreeMap::new(), Vec::new());
    let n = run_dir(executor, dir, &mut passed, &mut failures);
    report(&format!("project fixtures on {executor:?}"), n, &passed, &failures);
}

/// The same programs as jax 0.12.0.1 sends them (StableHLO 1.22.0, `tests/fixtures/generate_jax12.py`):
/// every one must read and run, and they must really be 1.22.0 artifacts.
fn jax12_fixtures(executor: Executor) {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/programs_jax12"));
    let (mut passed, mut failures) = (BTreeMap::new(), Vec::new());
    let n = run_dir(executor, dir, &mut passed, &mut failures);
    report(&format!("jax 0.12.0.1 fixtures on {executor:?}"), n, &passed, &failures);
    assert_eq!(passed.get("vhlo_v1_22_0.mlirbc"), Some(&n), "every program has a 1.22.0 artifact");
    let add = std::fs::read(dir.join("add.vhlo_v1_22_0.mlirbc")).unwrap();
    assert!(add.windows(17).any(|w| w == b"StableHLO_v1.22.0"), "the producer is StableHLO 1.22.0");
}

#[test]
fn every_jax12_fixture_runs_and_matches_jax() {
    jax12_fixtures(Executor::Interp);
}

#[test]
fn every_jax12_fixture_matches_jax_on_the_plan_with_three_threads() {
    jax12_fixtures(Executor::Plan { threads: 3 });
}

#[test]
fn every_shared_sample_runs_through_every_reader_and_matches_jax() {
    shared_samples(Executor::Interp);
}

#[test]
fn every_project_fixture_runs_through_every_reader_and_matches_jax() {
    project_fixtures(Executor::Interp);
}

#[test]
fn every_shared_sample_matches_jax_on_the_plan_with_one_thread() {
    shared_samples(Executor::Plan { threads: 1 });
}

#[test]
fn every_shared_sample_matches_jax_on_the_plan_with_three_threads() {
    shared_samples(Executor::Plan { threads: 3 });
}

#[test]
fn every_project_fixture_matches_jax_on_the_plan_with_one_thread() {
    project_fixtures(Executor::Plan { threads: 1 });
}

#[test]
fn every_project_fixture_matches_jax_on_the_plan_with_three_threads() {
    project_fixtures(Executor::Plan { threads: 3 });
}

/// Programs in the directory named by `APU_PIPELINE_DIR` (same naming: `<name>.io.npz` beside any of
/// the forms), e.g. a batch of JAX programs written out for a one-off check. Ignored by default:
/// `APU_PIPELINE_DIR=dir cargo test -p apu-runtime --test pipeline_samples -- --ignored --nocapture`.
#[test]
#[ignore]
fn every_program_in_apu_pipeline_dir_matches_jax() {
    let Some(dir) = std::env::var_os("APU_PIPELINE_DIR") else {
        eprintln!("skipped: set APU_PIPELINE_DIR");
        return;
    };
    let (mut passed, mut failures) = (BTreeMap::new(), Vec::new());
    let n = run_dir(Executor::Interp, Path::new(&dir), &mut passed, &mut failures);
    report("APU_PIPELINE_DIR programs", n, &passed, &failures);
}
