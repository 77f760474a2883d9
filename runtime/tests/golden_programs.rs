//! Golden programs: every `tests/golden/*.mlir` (StableHLO text) runs on the interpreter and on the
//! plan executor with 1 and 3 threads, on inputs generated from the parameter types with a fixed
//! seed; all must match the expected outputs in `<name>.expected` (floats within a few ulps,
//! everything else bit-exact). `BLESS=1` rewrites the expected outputs from the interpreter.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};
use std::path::Path;

/// Deterministic inputs: floats in [-2, 2), integers in [-50, 50), predicates 0/1.
fn make_input(ty: &TensorType, seed: &mut u64) -> Tensor {
    let mut next = || {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    };
    let mut bytes = Vec::with_capacity(ty.byte_size());
    for _ in 0..ty.num_elements() {
        let r = next();
        match ty.elem {
            ElementType::F32 => bytes.extend((r as f32 / u32::MAX as f32 * 8.0 - 2.0).to_le_bytes()),
            ElementType::F64 => bytes.extend((r as f64 / u32::MAX as f64 * 8.0 - 2.0).to_le_bytes()),
            ElementType::S32 => bytes.extend(((r % 100) as i32 - 50).to_le_bytes()),
            ElementType::S64 => bytes.extend(((r % 100) as i64 - 50).to_le_bytes()),
            ElementType::Pred => bytes.push((r & 1) as u8),
            other => panic!("golden inputs of {other} are not generated"),
        }
    }
    Tensor::from_bytes(ty.clone(), &bytes).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn values_f64(t: &Tensor) -> Option<Vec<f64>> {
    let b = t.bytes();
    match t.ty.elem {
        ElementType::F32 => Some(b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect()),
        ElementType::F64 => Some(b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()),
        _ => None,
    }
}

fn check(what: &str, got: &Tensor, want_ty: &str, want_bytes: &[u8]) -> Result<(), String> {
    if got.ty.to_string() != want_ty {
        return Err(format!("{what}: type {} but expected {want_ty}", got.ty));
    }
    let want = Tensor::from_bytes(got.ty.clone(), want_bytes).map_err(|e| e.to_string())?;
    match (values_f64(got), values_f64(&want)) {
        (Some(g), Some(w)) => {
            let rtol = if got.ty.elem == ElementType::F64 { 1e-12 } else { 1e-5 };
            for (i, (g, w)) in g.iter().zip(&w).enumerate() {
                let ok = if w.is_nan() { g.is_nan() } else { g == w || (g - w).abs() <= rtol * (1.0 + w.abs()) };
                if !ok {
                    return Err(format!("{what}[{i}]: got {g}, expected {w}"));
                }
            }
            Ok(())
        }
        _ if got.bytes() == want_bytes => Ok(()),
        _ => Err(format!("{what}: bytes differ")),
    }
}

#[test]
fn golden_programs_match_on_the_interpreter_and_the_plan() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mlir").map(str::to_string))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no golden programs in {}", dir.display());
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for name in &names {
        let text = std::fs::read(dir.join(format!("{name}.mlir"))).unwrap();
        let module = validate(read_program(ProgramFormat::Mlir, &text).unwrap_or_else(|e| panic!("{name}: {e}"))).unwrap();
        let mut seed = 0x5eed_u64 ^ name.len() as u64;
        let inputs: Vec<Tensor> =
            module.entry_function().param_types().iter().map(|t| make_input(t.as_tensor().unwrap(), &mut seed)).collect();
        let reference = interp::run(&module, &inputs).unwrap_or_else(|e| panic!("{name} on the interpreter: {e}"));
        let expected_path = dir.join(format!("{name}.expected"));
        if bless {
            let text: String = reference.iter().map(|t| format!("{} {}\n", t.ty, hex(t.bytes()))).collect();
            std::fs::write(&expected_path, text).unwrap();
        }
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} is missing: run with BLESS=1", expected_path.display()));
        let expected: Vec<(&str, Vec<u8>)> = expected
            .lines()
            .map(|l| {
                let (ty, h) = l.rsplit_once(' ').unwrap();
                (ty, unhex(h))
            })
            .collect();
        let mut runs = vec![("interpreter".to_string(), reference)];
        for threads in [1, 3] {
            // One-row blocks for row-blocked groups, so that they are split across the threads too.
            let options = Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: 1 };
            let program = Program::compile_with(&module, &options).unwrap_or_else(|e| panic!("{name}: compile: {e}"));
            assert!(program.plan().is_some(), "{name}: no plan was built");
            let out = program.run(&inputs).unwrap_or_else(|e| panic!("{name} on the plan: {e}"));
            runs.push((format!("plan with {threads} threads ({})", program.plan().map_or("interpreted".into(), |p| p.summary())), out));
        }
        for (engine, outs) in &runs {
            if outs.len() != expected.len() {
                failures.push(format!("{name} on {engine}: {} outputs, expected {}", outs.len(), expected.len()));
                continue;
            }
            for (i, (got, (ty, bytes))) in outs.iter().zip(&expected).enumerate() {
                if let Err(e) = check(&format!("{name} out{i} on {engine}"), got, ty, bytes) {
                    failures.push(e);
                }
            }
            println!("{name}: {engine} ok");
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The names of the ops of `steps` (and of the loop and branch bodies in them) left to the
/// interpreter.
fn fallbacks(steps: &[apu_compiler::plan::Step], out: &mut Vec<String>) {
    for s in steps {
        if let apu_compiler::plan::StepKind::Fallback { op, .. } = &s.kind {
            out.push(op.kind.name().to_string());
        }
        for inner in s.kind.nested_steps() {
            fallbacks(inner, out);
        }
    }
}

/// In `complex_scalars.mlir` every one-element op on complex, f16 or integer types, in the loops
/// and outside them, runs as a kernel; the one interpreter step left is the 4x4 `complex`, a type
/// the vector kernels lack at more than one element.
#[test]
fn one_element_ops_on_other_types_are_kernels_not_fallbacks() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/complex_scalars.mlir"));
    let module = validate(read_program(ProgramFormat::Mlir, &std::fs::read(path).unwrap()).unwrap()).unwrap();
    let program = Program::compile_with(&module, &Options { threads: 1, min_parallel_work: 1, interpret: false, row_block_bytes: 1 }).unwrap();
    let mut names = Vec::new();
    fallbacks(&program.plan().expect("a plan").steps, &mut names);
    assert_eq!(names, ["complex"]);
}

/// In `integer_loops.mlir` the loop's integer helpers (sign, pred comparisons, bit counts,
/// division and remainder) are kernels, and the index computed twice is sliced once: the repeated
/// normalization, and then the repeated dynamic_slice, are removed as common subexpressions.
#[test]
fn integer_loop_helpers_are_kernels_and_repeats_are_removed() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/integer_loops.mlir"));
    let module = validate(read_program(ProgramFormat::Mlir, &std::fs::read(path).unwrap()).unwrap()).unwrap();
    let program = Program::compile_with(&module, &Options { threads: 1, min_parallel_work: 1, interpret: false, row_block_bytes: 1 }).unwrap();
    let plan = program.plan().expect("a plan");
    let mut names = Vec::new();
    fallbacks(&plan.steps, &mut names);
    assert!(names.is_empty(), "fallbacks: {names:?}");
    let body = plan.steps.iter().find_map(|s| match &s.kind {
        apu_compiler::plan::StepKind::While { body, .. } => Some(body),
        _ => None,
    });
    let slices = body.expect("a loop").steps.iter().filter(|s| matches!(&s.kind, apu_compiler::plan::StepKind::DynamicSlice(k) if k.update.is_none())).count();
    assert_eq!(slices, 1);
}
