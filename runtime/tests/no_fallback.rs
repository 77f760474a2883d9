//! Real training programs (JAX 0.10.2's lowerings of pooling, its gradients, cumulative ops and
//! convolution gradients, `tests/no_fallback/*.mlir`, made by `tests/no_fallback/generate.py`)
//! plan no interpreter step, except the ones listed in `KNOWN` (which must then still be there:
//! the list shrinks as kernels land). Each program also runs on the plan with 1 and 3 threads
//! against the interpreter.
//!
//! `APU_NO_FALLBACK_DIRS=dir1:dir2` checks more program sets (e.g. the model zoo's fixtures) with
//! the same function, `apu_runtime::exec::fallbacks_in_dir`, allowing no fallback at all there.

mod common;

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{fallbacks_in_dir, Options, Program};
use apu_runtime::{interp, Tensor};
use std::path::Path;

/// Fallback steps still planned, as (file, op name, count). Empty; kept so a step that has to come
/// back is listed here deliberately.
const KNOWN: &[(&str, &str, usize)] = &[];

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/no_fallback"))
}

#[test]
fn real_training_programs_plan_no_interpreter_step() {
    let found = fallbacks_in_dir(dir()).unwrap();
    let mut got: Vec<(String, String, usize)> = Vec::new();
    for (path, steps) in &found {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let steps = steps.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
        for s in steps {
            match got.iter_mut().find(|g| g.0 == name && g.1 == s.op) {
                Some(g) => g.2 += 1,
                None => got.push((name.clone(), s.op.clone(), 1)),
            }
        }
    }
    let want: Vec<(String, String, usize)> = KNOWN.iter().map(|&(f, o, n)| (f.to_string(), o.to_string(), n)).collect();
    let listing: Vec<String> = found.iter().flat_map(|(p, s)| s.iter().flatten().map(move |s| format!("{}: {s}", p.display()))).collect();
    assert_eq!(got, want, "fallback steps:\n{}", listing.join("\n"));
}

#[test]
fn more_program_sets_plan_no_interpreter_step() {
    let Ok(dirs) = std::env::var("APU_NO_FALLBACK_DIRS") else { return };
    let mut failures = Vec::new();
    for d in dirs.split(':').filter(|d| !d.is_empty()) {
        for (path, steps) in fallbacks_in_dir(Path::new(d)).unwrap_or_else(|e| panic!("{d}: {e}")) {
            match steps {
                Ok(steps) => failures.extend(steps.iter().map(|s| format!("{}: {s}", path.display()))),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{} fallback steps:\n{}", failures.len(), failures.join("\n"));
}

/// Floats in [-2, 2), integers in [-50, 50). `ties`: floats are multiples of 1/16, so that
/// pooling windows hold equal elements (which max pooling's select must break as the interpreter
/// does); otherwise they are spread, so that no two sums which are equal in exact arithmetic
/// (and rounded differently by a GEMM's order) meet in a max or at a relu's kink.
fn make_input(ty: &TensorType, seed: &mut u64, ties: bool) -> Tensor {
    let mut bytes = Vec::with_capacity(ty.byte_size());
    for _ in 0..ty.num_elements() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        let f = if ties { (r % 64) as f64 / 16.0 - 2.0 } else { r as f64 / u32::MAX as f64 * 4.0 - 2.0 };
        match ty.elem {
            ElementType::F32 => bytes.extend((f as f32).to_le_bytes()),
            ElementType::F64 => bytes.extend(f.to_le_bytes()),
            ElementType::S32 => bytes.extend(((r % 100) as i32 - 50).to_le_bytes()),
            ElementType::S8 => bytes.extend(((r % 100) as i8 - 50).to_le_bytes()),
            ElementType::BF16 => bytes.extend(half::bf16::from_f64(f).to_le_bytes()),
            ElementType::F16 => bytes.extend(half::f16::from_f64(f).to_le_bytes()),
            other => panic!("inputs of {other} are not generated"),
        }
    }
    Tensor::from_bytes(ty.clone(), &bytes).unwrap()
}

/// Floats through the tests' shared decoder (f32, f64, f16, bf16); integers and predicates as their values.
fn floats(t: &Tensor) -> Vec<f64> {
    common::jax_compare::as_f64(t).unwrap_or_else(|| {
        let b = t.bytes();
        match t.ty.elem {
            ElementType::S16 => b.chunks_exact(2).map(|c| i16::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
            ElementType::U16 => b.chunks_exact(2).map(|c| u16::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
            ElementType::S8 => b.iter().map(|&x| x as i8 as f64).collect(),
            _ => b.iter().map(|&x| x as f64).collect(),
        }
    })
}

/// The error allowed relative to an output's largest element: sums run in another order than the
/// interpreter's, and on narrow floats in f32 where the interpreter rounds every step to the
/// narrow type (decision 99), so a program computing in bf16 or f16 is allowed a few units of
/// that type's last place.
fn tolerance(path: &Path) -> f64 {
    let name = path.to_string_lossy();
    if name.contains("bf16") {
        1.0 / 64.0
    } else if name.contains("f16") {
        1.0 / 512.0
    } else {
        1e-5
    }
}

#[test]
fn real_training_programs_match_the_interpreter() {
    let mut names: Vec<_> = std::fs::read_dir(dir()).unwrap().filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|e| e == "mlir")).collect();
    names.sort();
    assert!(names.len() >= 9, "programs in {}", dir().display());
    let mut failures = Vec::new();
    for path in names {
        let module = validate(read_program(ProgramFormat::Mlir, &std::fs::read(&path).unwrap()).unwrap()).unwrap();
        let mut seed = 7;
        let ties = path.to_string_lossy().contains("pool") || path.to_string_lossy().contains("cumulative");
        let inputs: Vec<Tensor> = module.entry_function().param_types().iter().map(|t| make_input(t.as_tensor().unwrap(), &mut seed, ties)).collect();
        let want = interp::run(&module, &inputs).unwrap();
        for threads in [1, 3] {
            let options = Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: 1 };
            let got = Program::compile_with(&module, &options).unwrap().run(&inputs).unwrap();
            assert_eq!(got.len(), want.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.ty, w.ty);
                // Dots and convolutions sum in another order than the interpreter, and the
                // training step's gradients cancel large terms: errors are measured against the
                // output's largest element.
                let w = floats(w);
                let scale = 1.0 + w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                let tol = tolerance(&path);
                if let Some((k, (a, b))) = floats(g).iter().zip(w).enumerate().find(|(_, (a, b))| (*a - b).abs() > tol * scale) {
                    failures.push(format!("{} out{i}[{k}] at {threads} threads: {a} vs {b}", path.display()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
