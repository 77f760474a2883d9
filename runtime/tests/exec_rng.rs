//! The stateful `rng` op through the interpreter and the plan executor: statistics, bounds, a new
//! stream per call and per run, and identical values on both engines for the same run seed.

mod common;

use apu_compiler::ir::{BinaryOp, ElementType::*, OpKind, RngDistribution};
use apu_compiler::valid::ValidModule;
use apu_runtime::exec::{Options, Program};
use apu_runtime::interp;
use common::*;

/// main(a, b) = (x, y, x + y) with x and y two `rng(a, b) : f32[n]` calls: two streams in one run,
/// and a fused elementwise step after the fallback steps in the plan.
fn program(dist: RngDistribution, n: i64) -> ValidModule {
    let mut b = FnBuilder::new("main");
    let lo = b.param(tt(&[], F32));
    let hi = b.param(tt(&[], F32));
    let x = b.op(OpKind::Rng { distribution: dist }, &[lo, hi], tt(&[n], F32));
    let y = b.op(OpKind::Rng { distribution: dist }, &[lo, hi], tt(&[n], F32));
    let s = b.op(OpKind::Binary(BinaryOp::Add), &[x, y], tt(&[n], F32));
    module(vec![b.finish(&[x, y, s])])
}

fn mean_std(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    (m, (v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / n).sqrt())
}

fn engines(m: &ValidModule) -> (Program, Program) {
    let interp = Program::compile_with(m, &Options { interpret: true, ..Options::from_env() }).unwrap();
    let plan = Program::compile_with(m, &Options { interpret: false, threads: 2, ..Options::from_env() }).unwrap();
    assert!(plan.plan().is_some(), "the rng program must get a plan (rng runs as a fallback step)");
    (interp, plan)
}

#[test]
fn plan_and_interpreter_agree_for_the_same_run_seed() {
    let m = program(RngDistribution::Normal, 1000);
    let (interp, plan) = engines(&m);
    let args = [f32s(&[], &[0.0]), f32s(&[], &[1.0])];
    for seed in [0u64, 1, 0xDEAD_BEEF] {
        let a = interp.run_seeded(&args, seed).unwrap();
        let b = plan.run_seeded(&args, seed).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(to_f32(x), to_f32(y), "seed {seed}");
        }
        assert_ne!(to_f32(&a[0]), to_f32(&a[1]), "two rng ops in one run must draw different numbers");
    }
}

#[test]
fn runs_draw_new_numbers_and_the_statistics_hold() {
    let m = program(RngDistribution::Normal, 20000);
    let (_, plan) = engines(&m);
    let args = [f32s(&[], &[-1.0]), f32s(&[], &[2.0])];
    let first = plan.run(&args).unwrap();
    let second = plan.run(&args).unwrap();
    assert_ne!(to_f32(&first[0]), to_f32(&second[0]), "each run must get a new seed");
    for out in [&first[0], &first[1], &second[0]] {
        let (m, s) = mean_std(&to_f32(out));
        // N(-1, 2) with 20000 samples: standard error 0.014 for the mean, 0.01 for the stddev.
        assert!((m + 1.0).abs() < 0.07, "mean {m}");
        assert!((s - 2.0).abs() < 0.05, "stddev {s}");
    }
    // The sum of two independent draws: N(-2, 2·sqrt(2)).
    let (m, s) = mean_std(&to_f32(&first[2]));
    assert!((m + 2.0).abs() < 0.1 && (s - 2.0 * 2f64.sqrt()).abs() < 0.07, "sum: mean {m}, stddev {s}");
}

#[test]
fn uniform_stays_in_its_half_open_interval_on_both_engines() {
    let m = program(RngDistribution::Uniform, 20000);
    let (interp, plan) = engines(&m);
    let args = [f32s(&[], &[2.0]), f32s(&[], &[2.5])];
    for p in [&interp, &plan] {
        let out = p.run(&args).unwrap();
        let v = to_f32(&out[0]);
        assert!(v.iter().all(|&x| (2.0..2.5).contains(&x)), "outside [2, 2.5)");
        let (m, s) = mean_std(&v);
        assert!((m - 2.25).abs() < 0.01 && (s - 0.5 / 12f64.sqrt()).abs() < 0.005, "mean {m}, stddev {s}");
    }
}

#[test]
fn integer_uniform_and_unsupported_types() {
    let mut b = FnBuilder::new("main");
    let lo = b.param(tt(&[], S64));
    let hi = b.param(tt(&[], S64));
    let x = b.op(OpKind::Rng { distribution: RngDistribution::Uniform }, &[lo, hi], tt(&[5000], S64));
    let m = module(vec![b.finish(&[x])]);
    let out = interp::run_seeded(&m, &[i64s(&[], &[-5]), i64s(&[], &[5])], 9).unwrap();
    let v: Vec<i64> = out[0].bytes().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    assert!(v.iter().all(|x| (-5..5).contains(x)));
    assert!((-5..5).all(|k| v.contains(&k)), "every value of [-5, 5) should appear in 5000 draws");

    let mut b = FnBuilder::new("main");
    let lo = b.param(tt(&[], S32));
    let hi = b.param(tt(&[], S32));
    let x = b.op(OpKind::Rng { distribution: RngDistribution::Normal }, &[lo, hi], tt(&[4], S32));
    let e = try_module(vec![b.finish(&[x])]).unwrap_err();
    assert!(e.to_string().contains("rng Normal cannot produce"), "{e}");
}

fn i64s(shape: &[i64], v: &[i64]) -> apu_runtime::Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    apu_runtime::Tensor::from_bytes(apu_compiler::ir::TensorType::new(shape.to_vec(), S64), &bytes).unwrap()
}
