//! Finds where the plan and the reference interpreter part ways on a program: every float tensor
//! its entry function's body computes (top level, calls inlined first) becomes a result, both run
//! on the same pseudo-random inputs (floats in [0, 0.25), integers in [0, 4), as
//! `tests/model_programs.rs` makes them), and the ops whose values differ by more than
//! `APU_DIVERGENCE` (default 1e-3) of their largest magnitude are printed in program order.
//!
//! `cargo run -p apu-runtime --example first_divergence -- PROGRAM.mlir [COUNT]`

use apu_compiler::ir::{ElementType, Type};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};

fn floats(t: &Tensor) -> Option<Vec<f64>> {
    let b = t.bytes();
    Some(match t.ty.elem {
        ElementType::F32 => b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        ElementType::F64 => b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
        ElementType::BF16 => b.chunks_exact(2).map(|c| half::bf16::from_le_bytes(c.try_into().unwrap()).to_f64()).collect(),
        ElementType::F16 => b.chunks_exact(2).map(|c| half::f16::from_le_bytes(c.try_into().unwrap()).to_f64()).collect(),
        _ => return None,
    })
}

fn input(t: &Type, seed: &mut u64) -> Tensor {
    let ty = t.as_tensor().expect("tensor parameters").clone();
    let mut bytes = Vec::with_capacity(ty.byte_size());
    for _ in 0..ty.num_elements() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        let f = r as f64 / (1u64 << 33) as f64;
        match ty.elem {
            ElementType::F32 => bytes.extend((f as f32).to_le_bytes()),
            ElementType::BF16 => bytes.extend(half::bf16::from_f64(f).to_le_bytes()),
            ElementType::F16 => bytes.extend(half::f16::from_f64(f).to_le_bytes()),
            ElementType::S32 => bytes.extend(((r % 4) as i32).to_le_bytes()),
            ElementType::U32 => bytes.extend((r % 4).to_le_bytes()),
            ElementType::Pred => bytes.push((r & 1) as u8),
            other => panic!("inputs of {other} are not generated"),
        }
    }
    Tensor::from_bytes(ty, &bytes).unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a program");
    let count: usize = args.next().map_or(20, |c| c.parse().expect("a count"));
    let threshold: f64 = std::env::var("APU_DIVERGENCE").ok().map_or(1e-3, |v| v.parse().expect("a number"));
    let mut module = read_program(ProgramFormat::Mlir, &std::fs::read(&path).unwrap()).unwrap();
    let f = &mut module.functions[module.entry];
    let watched: Vec<(usize, apu_compiler::ir::ValueId)> = f
        .body
        .ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| op.results.iter().map(move |&r| (i, r)))
        .filter(|&(_, r)| f.value_type(r).as_tensor().is_some_and(|t| t.elem.is_float()))
        .collect();
    f.body.results = watched.iter().map(|w| w.1).collect();
    f.result_types = watched.iter().map(|w| f.value_type(w.1).clone()).collect();
    f.result_shardings.clear();
    f.result_memory_kinds.clear();
    let module = validate(module).unwrap();
    let mut seed = 7;
    let inputs: Vec<Tensor> = module.entry_function().param_types().iter().map(|t| input(t, &mut seed)).collect();
    let want = interp::run(&module, &inputs).unwrap();
    let options = Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
    let got = Program::compile_with(&module, &options).unwrap().run(&inputs).unwrap();
    let ops = &module.entry_function().body.ops;
    let mut shown = 0;
    for ((i, _), (g, w)) in watched.iter().zip(got.iter().zip(&want)) {
        let (Some(g), Some(w)) = (floats(g), floats(w)) else { continue };
        let scale = w.iter().filter(|x| x.is_finite()).fold(0f64, |m, x| m.max(x.abs())) + 1e-30;
        let worst = g.iter().zip(&w).map(|(a, b)| if a.is_nan() && b.is_nan() { 0.0 } else { (a - b).abs() / scale }).fold(0f64, f64::max);
        if worst > threshold || worst.is_nan() {
            let op = &ops[*i];
            println!("op {i} {} at {}: {:.3e} of {:.3e} ({})", op.kind.name(), op.location, worst, scale, module.entry_function().value_type(op.results[0]));
            shown += 1;
            if shown == count {
                break;
            }
        }
    }
    println!("{} watched values, {shown} shown", watched.len());
}
