//! The model zoo's programs (`tests/fixtures/models/*.mlir`: the jitted training and inference steps of
//! real flax models, dumped by `benches/model_zoo.py --dump`) read by apu's text reader and compiled:
//! each plan's interpreter fallbacks must be exactly the ones listed in [`EXPECTED_FALLBACKS`], so a new
//! fallback fails the test, and so does a listed one that is gone (the list only shrinks, deliberately).
//! Then each program runs once on small random inputs on the plan and on the reference interpreter, and
//! the two must agree.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::plan::{Step, StepKind};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::{validate, ValidModule};
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/models");

/// A program that gets no plan at all (it runs wholly on the interpreter) is listed with this name.
const NO_PLAN: &str = "(no plan: the whole program on the interpreter)";

/// Per program (file name without `.mlir`): the names of the ops its plan hands to the interpreter.
/// A program not listed must have none. reduce_window, select_and_scatter, pad, reverse and the
/// transposed and depthwise convolutions are plan kernels (decision 59); so are boolean reduces and
/// gathers and scatters with batching dimensions (optax's integer-label cross-entropy, decision 66).
/// Batch-grouped convolutions (the depthwise filter gradients) too, since decision 72: no model of
/// the zoo (jax 0.12.0.1, flax 0.12.12, optax 0.2.8) plans a fallback step.
const EXPECTED_FALLBACKS: &[(&str, &[&str])] = &[];

fn fallbacks(steps: &[Step], out: &mut BTreeSet<String>) {
    for s in steps {
        if let StepKind::Fallback { op, .. } = &s.kind {
            out.insert(op.kind.name().to_string());
        }
        for inner in s.kind.nested_steps() {
            fallbacks(inner, out);
        }
    }
}

fn programs() -> Vec<(String, ValidModule)> {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .unwrap_or_else(|e| panic!("{DIR}: {e}"))
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mlir").map(str::to_string))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no programs in {DIR}");
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read(Path::new(DIR).join(format!("{name}.mlir"))).unwrap();
            let module = read_program(ProgramFormat::Mlir, &text).unwrap_or_else(|e| panic!("{name}: read: {e}"));
            let module = validate(module).unwrap_or_else(|e| panic!("{name}: validate: {e}"));
            (name, module)
        })
        .collect()
}

fn options(interpret: bool) -> Options {
    Options { threads: 2, min_parallel_work: 1 << 16, interpret, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES }
}

#[test]
fn model_programs_have_exactly_the_expected_fallbacks() {
    let mut failures = Vec::new();
    let all = programs();
    for (name, module) in &all {
        let program = Program::compile_with(module, &options(false)).unwrap_or_else(|e| panic!("{name}: compile: {e}"));
        let mut found = BTreeSet::new();
        match program.plan() {
            Some(plan) => {
                fallbacks(&plan.steps, &mut found);
                println!("{name}: {}; fallbacks {found:?}", plan.summary());
            }
            None => {
                found.insert(NO_PLAN.to_string());
                println!("{name}: no plan");
            }
        }
        let expected: BTreeSet<String> = EXPECTED_FALLBACKS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ops)| ops.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        let new: Vec<_> = found.difference(&expected).collect();
        let gone: Vec<_> = expected.difference(&found).collect();
        if !new.is_empty() {
            failures.push(format!("{name}: fallbacks not in EXPECTED_FALLBACKS: {new:?}"));
        }
        if !gone.is_empty() {
            failures.push(format!("{name}: listed fallbacks that are gone (remove them from EXPECTED_FALLBACKS): {gone:?}"));
        }
    }
    for (listed, _) in EXPECTED_FALLBACKS {
        if !all.iter().any(|(n, _)| n == listed) {
            failures.push(format!("EXPECTED_FALLBACKS names {listed}, which is not in {DIR}"));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Deterministic inputs: floats in [0, 0.25), integers in [0, 4) (valid labels, token ids and node
/// indices for every model), predicates 0/1. The floats are not negative because the training steps
/// take Adam's second moments among their arguments: a negative one (nothing real) makes the update
/// divide by the square root of a cancellation, which turns last-bit differences into large ones.
fn make_input(ty: &TensorType, seed: &mut u64) -> Tensor {
    let mut next = || {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    };
    let mut bytes = Vec::with_capacity(ty.byte_size());
    for _ in 0..ty.num_elements() {
        let r = next();
        match ty.elem {
            ElementType::F32 => bytes.extend((r as f32 / (1u64 << 33) as f32).to_le_bytes()),
            ElementType::S32 => bytes.extend(((r % 4) as i32).to_le_bytes()),
            ElementType::U32 => bytes.extend((r % 4).to_le_bytes()),
            ElementType::Pred => bytes.push((r & 1) as u8),
            other => panic!("inputs of {other} are not generated"),
        }
    }
    Tensor::from_bytes(ty.clone(), &bytes).unwrap()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Plan and interpreter results of one output: floats within `TOLERANCE` of the output's largest
/// magnitude (NaN where the other has NaN), everything else bit-exact.
fn compare(what: &str, plan: &Tensor, interp: &Tensor) -> Result<f64, String> {
    if plan.ty != interp.ty {
        return Err(format!("{what}: type {} on the plan, {} on the interpreter", plan.ty, interp.ty));
    }
    if plan.ty.elem != ElementType::F32 {
        return if plan.bytes() == interp.bytes() { Ok(0.0) } else { Err(format!("{what}: bytes differ")) };
    }
    let (p, i) = (f32s(plan), f32s(interp));
    let scale = i.iter().filter(|v| v.is_finite()).fold(0f64, |m, v| m.max(v.abs() as f64)) + 1e-6;
    let mut worst = 0f64;
    for (k, (a, b)) in p.iter().zip(&i).enumerate() {
        if a.is_nan() != b.is_nan() {
            return Err(format!("{what}[{k}]: {a} on the plan, {b} on the interpreter"));
        }
        if a.is_finite() && b.is_finite() {
            worst = worst.max((*a as f64 - *b as f64).abs() / scale);
        } else if a != b && !a.is_nan() {
            return Err(format!("{what}[{k}]: {a} on the plan, {b} on the interpreter"));
        }
    }
    let tolerance = if what.contains("bf16") { TOLERANCE_BF16 } else { TOLERANCE };
    if worst > tolerance {
        return Err(format!("{what}: plan and interpreter differ by {worst:.2e} of the largest magnitude"));
    }
    Ok(worst)
}

const TOLERANCE: f64 = 1e-3;

/// For programs computing in bf16: every op rounds to 8 bits, and the plan sums products and
/// reductions in f32 where the interpreter rounds each step to bf16 (decision 99); one-ulp
/// differences grow through the layers (4.8e-2 of the logits after two attention layers, op by op
/// within an ulp or two: `examples/first_divergence.rs`). Elementwise bf16 ops are held to the
/// interpreter's bits by `tests/narrow_types.rs`.
const TOLERANCE_BF16: f64 = 1e-1;

/// Programs whose interpreter run takes more than ~5 s in the test profile on a loaded 2-core
/// machine (15-75 s for the largest): run only with `APU_MODEL_PROGRAMS_ALL=1`.
const SLOW: &[&str] = &[
    "audio1d_infer",
    "audio1d_train",
    "gru_train",
    "lstm_train",
    "resnet_infer",
    "resnet_train",
    "transformer_infer",
    "transformer_train",
    "transformer_bf16_infer",
    "transformer_bf16_train",
    "unet_train",
];

#[test]
fn model_programs_agree_on_the_plan_and_the_interpreter() {
    let mut failures = Vec::new();
    let all = std::env::var("APU_MODEL_PROGRAMS_ALL").is_ok_and(|v| v == "1");
    let only = std::env::var("APU_MODEL_PROGRAMS").unwrap_or_default();
    for (name, module) in programs() {
        if !name.contains(&only) {
            continue;
        }
        if SLOW.contains(&name.as_str()) && !all {
            println!("{name}: not run (slow on the interpreter; APU_MODEL_PROGRAMS_ALL=1 runs it)");
            continue;
        }
        let mut seed = 0x200_u64 ^ name.len() as u64;
        let inputs: Vec<Tensor> =
            module.entry_function().param_types().iter().map(|t| make_input(t.as_tensor().unwrap(), &mut seed)).collect();
        let t0 = Instant::now();
        let plan = Program::compile_with(&module, &options(false)).unwrap().run(&inputs);
        let t1 = Instant::now();
        let reference = interp::run(&module, &inputs);
        let t2 = Instant::now();
        let (plan, reference) = match (plan, reference) {
            (Ok(p), Ok(r)) => (p, r),
            (p, r) => {
                failures.push(format!("{name}: plan {:?}, interpreter {:?}", p.err(), r.err()));
                continue;
            }
        };
        if plan.len() != reference.len() {
            failures.push(format!("{name}: {} outputs on the plan, {} on the interpreter", plan.len(), reference.len()));
            continue;
        }
        let mut worst = 0f64;
        for (k, (p, r)) in plan.iter().zip(&reference).enumerate() {
            match compare(&format!("{name} out{k}"), p, r) {
                Ok(w) => worst = worst.max(w),
                Err(e) => failures.push(e),
            }
        }
        println!(
            "{name}: plan {:.0} ms, interpreter {:.0} ms, max difference {worst:.1e}",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3
        );
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
