use super::{cpu_level, eval_store, Compiled, CpuLevel, RowDivider};
use apu_compiler::ir::{BinaryOp as B, ElementType as E, UnaryOp as U};
use apu_compiler::plan::{Expr, Instr, KScalar, View};

/// Ops after exp, tanh and logistic run in the function's loop (on AVX-512) with the bits the
/// same instructions give one loop each (NaN for NaN): scalar and vector operands on either side, a per-row
/// operand over rows that end chunks (uniform) and rows that do not (the separate loops run),
/// prologues, arguments outside exp's core range, NaN, infinities and signed zeros, and chunk
/// lengths that are not a multiple of 16.
#[test]
fn epilogues_give_the_bits_of_one_loop_per_instruction() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 60.0, -70.0, 1e-30];
    let mut used = 0;
    for (rows, cols) in [(3usize, 300usize), (5, 37), (1, 2051)] {
        let n = rows * cols;
        let mut random = |spread: f32| -> Vec<f32> {
            (0..n).map(|i| if i % 97 < specials.len() { specials[i % 97] } else { ((next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * spread }).collect()
        };
        let (x, y, r) = (random(12.0), random(4.0), random(3.0)[..rows].to_vec());
        let shape = [rows as i64, cols as i64];
        for func in [U::Exponential, U::Tanh, U::Logistic] {
            // Posts: (op, operand, the running value on the left): operands 0 = x, 1 = the
            // per-row value, 2 = the constant, 3 = y.
            let posts: [&[(B, usize, bool)]; 7] = [
                &[(B::Multiply, 0, true)],
                &[(B::Multiply, 0, true), (B::Subtract, 2, true)],
                &[(B::Subtract, 1, false)],
                &[(B::Add, 3, false), (B::Subtract, 1, true)],
                &[(B::Subtract, 2, false), (B::Multiply, 0, false)],
                &[(B::Add, 1, true), (B::Subtract, 3, false)],
                &[(B::Multiply, 2, false)],
            ];
            for (prologue, posts) in [false, true].into_iter().flat_map(|p| posts.iter().map(move |q| (p, q))) {
                let mut e = Expr::default();
                e.push(Instr::Load { input: 0, view: View::identity(&shape) }, E::F32);
                e.push(Instr::Load { input: 1, view: View { offset: 0, strides: vec![1, 0] } }, E::F32);
                e.push(Instr::Const(KScalar::F32(2.0)), E::F32);
                e.push(Instr::Load { input: 2, view: View::identity(&shape) }, E::F32);
                let arg = if prologue { e.push(Instr::Binary(B::Multiply, 0, 2), E::F32) } else { 0 };
                let mut cur = e.push(Instr::Unary(func, arg), E::F32);
                for &(op, operand, left) in posts.iter() {
                    let (a, b) = if left { (cur, operand) } else { (operand, cur) };
                    cur = e.push(Instr::Binary(op, a, b), E::F32);
                }
                let fused = Compiled::new(&e, &shape, 3).unwrap();
                let separate = Compiled::build(&e, &shape, 3, false).unwrap();
                assert!(fused.epilogue.iter().any(Option::is_some), "{func:?} {posts:?}: no epilogue");
                used += 1;
                let inputs = [x.as_ptr() as *const u8, r.as_ptr() as *const u8, y.as_ptr() as *const u8];
                let (mut got, mut want) = (vec![0.0f32; n], vec![0.0f32; n]);
                // SAFETY: every input holds the elements its view reaches; outputs hold n.
                unsafe {
                    eval_store(&fused, &inputs, got.as_mut_ptr() as *mut u8, 0..n, 4);
                    eval_store(&separate, &inputs, want.as_mut_ptr() as *mut u8, 0..n, 4);
                }
                // NaN payloads are not kept by either (LLVM may swap the operands of an add).
                for k in 0..n {
                    if got[k].is_nan() && want[k].is_nan() {
                        continue;
                    }
                    assert_eq!(got[k].to_bits(), want[k].to_bits(), "{func:?} prologue {prologue} {posts:?} [{rows}x{cols}] at {k}: x = {}", x[k]);
                }
            }
        }
    }
    println!("{used} expressions with epilogues; kernels at AVX-512: {}", cpu_level() == CpuLevel::Avx512);
}

#[test]
fn row_divider_matches_integer_division() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for inner in (1..300).chain([1000, 1024, 4095, 65_537, 1 << 20, (1 << 31) + 11, 1 << 32, (1 << 33) + 5]) {
        let d = RowDivider::new(inner);
        let edges = [0, 1, inner - 1, inner, inner + 1, 7 * inner - 1, (1 << 32) - 1, 1 << 32, (1 << 40) + 3];
        let random: Vec<usize> = (0..400).map(|k| (next() >> if k % 2 == 0 { 30 } else { 33 }) as usize).collect();
        for i in edges.into_iter().chain(random) {
            assert_eq!(d.row(i), i / inner, "{i} / {inner}");
        }
    }
}
