//! shard_map programs as JAX 0.10.2 and 0.12.0.1 lower them for 4 CPU devices
//! (`fixtures/manual/generate.py`), in both forms a plugin receives (StableHLO text and the VHLO
//! portable artifact jit sends apu: target 1.22.0 on jax 0.12, 1.17.0 on 0.10.2), run on the interpreter and on the plan against XLA:CPU's
//! outputs.

use apu_compiler::plan::{Step, StepKind};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, npz, Tensor};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/manual")
}

fn fallbacks(steps: &[Step]) -> usize {
    steps
        .iter()
        .map(|s| matches!(s.kind, StepKind::Fallback { .. }) as usize + s.kind.nested_steps().iter().map(|n| fallbacks(n)).sum::<usize>())
        .sum()
}

fn same(got: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.ty, w.ty, "{what}: result {i} type");
        assert_eq!(g.bytes(), w.bytes(), "{what}: result {i} differs from XLA:CPU");
    }
}

fn run_form(path: &PathBuf, inputs: &[Tensor], outputs: &[Tensor]) {
    let what = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = std::fs::read(path).unwrap();
    let module = read_program(ProgramFormat::Mlir, &bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(module.num_partitions, 4, "{what}");
    let m = validate(module).unwrap_or_else(|e| panic!("{what}: {e}"));
    same(&interp::run(&m, inputs).unwrap_or_else(|e| panic!("{what}: interpreter: {e}")), outputs, &format!("{what} (interpreter)"));
    for threads in [1, 3] {
        let options = Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
        let p = Program::compile_with(&m, &options).unwrap();
        let plan = p.plan().unwrap_or_else(|| panic!("{what}: no plan"));
        assert_eq!(fallbacks(&plan.steps), 0, "{what}: {}", plan.summary());
        same(&p.run(inputs).unwrap_or_else(|e| panic!("{what}: plan: {e}")), outputs, &format!("{what} (plan, {threads} threads)"));
    }
}

fn check(form: &str) {
    let mut seen = 0;
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".io.npz") else { continue };
        let io = npz::load_npz(&path).unwrap();
        let pick = |prefix: &str| -> Vec<Tensor> {
            let mut v: Vec<(usize, Tensor)> =
                io.iter().filter_map(|(k, t)| k.strip_prefix(prefix).and_then(|n| n.parse().ok()).map(|n| (n, t.clone()))).collect();
            v.sort_by_key(|e| e.0);
            v.into_iter().map(|e| e.1).collect()
        };
        run_form(&dir().join(format!("{stem}.{form}")), &pick("in"), &pick("out"));
        seen += 1;
    }
    assert!(seen >= 10, "fixtures missing: {seen}");
}

#[test]
fn jax_shard_map_programs_as_text() {
    check("stablehlo.mlir");
}
#[test]
fn jax_shard_map_programs_as_vhlo_bytecode() {
    check("vhlo.mlirbc");
}
