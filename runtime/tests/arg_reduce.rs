//! argmax / argmin (a two-input `reduce` over values and an iota whose body compares and selects):
//! the plan's arg-reduce kernel must give the interpreter's results bit for bit, NaN, signed
//! zeros, ties and the init value included, at 1 and 3 threads; and only bodies that compute
//! exactly JAX's argmax / argmin may reach it.

mod common;

use apu_compiler::ir::{BinaryOp, ComparisonDirection as D, ComparisonType as CT, ElementType as E, OpKind, Region, TensorType, Type, ValueId};
use apu_compiler::valid::ValidModule;
use apu_runtime::exec::{Options, Program, DEFAULT_ROW_BLOCK_BYTES};
use apu_runtime::{interp, Tensor};
use common::{module, FnBuilder};
use proptest::prelude::*;

fn ty(shape: &[i64], elem: E) -> Type {
    Type::tensor(shape.to_vec(), elem)
}

/// Values drawn from a small pool so that ties, NaN, infinities and both zeros are common.
fn pool_tensor(t: &TensorType, seed: &mut u64) -> Tensor {
    const FLOATS: [f64; 9] = [f64::NAN, f64::NEG_INFINITY, f64::INFINITY, -0.0, 0.0, 1.0, -1.0, 2.0, 2.0];
    let mut bytes = Vec::new();
    for _ in 0..t.num_elements() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as usize;
        // NaN in one draw of 40, so most rows have none.
        let f = if r % 40 == 0 { f64::NAN } else { FLOATS[1 + (r / 40) % (FLOATS.len() - 1)] };
        let i = (r % 7) as i64 - 3;
        match t.elem {
            E::F32 => bytes.extend((f as f32).to_le_bytes()),
            E::F64 => bytes.extend(f.to_le_bytes()),
            e => bytes.extend(&i.to_le_bytes()[..e.byte_size()]),
        }
    }
    Tensor::from_bytes(t.clone(), &bytes).unwrap()
}

fn scalar(elem: E, v: f64) -> Tensor {
    let bytes = match elem {
        E::F32 => (v as f32).to_le_bytes().to_vec(),
        E::F64 => v.to_le_bytes().to_vec(),
        e => (v as i64).to_le_bytes()[..e.byte_size()].to_vec(),
    };
    Tensor::from_bytes(TensorType::scalar(elem), &bytes).unwrap()
}

/// How the generated body departs from JAX's.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Body {
    /// JAX's ops in JAX's order.
    Jax,
    /// The same function with `or` / `and` operands and compared operands swapped.
    Commuted,
    /// Ties keep the accumulator's index when it is smaller or equal: not an arg reduce.
    TieLe,
    /// The value comparison is `>=` / `<=`: not an arg reduce.
    ValueGe,
    /// No NaN clause: not an arg reduce.
    NoNan,
}

/// The reduce body over (accumulator value, index, element value, index).
fn body(b: &mut FnBuilder, elem: E, index: E, max: bool, shape: Body, explicit: bool) -> Region {
    let (v, i, p) = (ty(&[], elem), ty(&[], index), ty(&[], E::Pred));
    let vct = if elem.is_float() { CT::Float } else if elem.is_signed_int() { CT::Signed } else { CT::Unsigned };
    let ict = if index.is_signed_int() { CT::Signed } else { CT::Unsigned };
    b.region(&[v.clone(), i.clone(), v, i], |b, a| {
        let mut cmp = |d: D, x: ValueId, y: ValueId, ct: CT| {
            b.op(OpKind::Compare { direction: d, compare_type: explicit.then_some(ct) }, &[x, y], p.clone())
        };
        let c = shape == Body::Commuted;
        let dir = match (max, shape == Body::ValueGe) {
            (true, false) => D::Gt,
            (true, true) => D::Ge,
            (false, false) => D::Lt,
            (false, true) => D::Le,
        };
        let flip = |d: D| match d {
            D::Gt => D::Lt,
            D::Lt => D::Gt,
            D::Ge => D::Le,
            D::Le => D::Ge,
            d => d,
        };
        let wins = if c { cmp(flip(dir), a[2], a[0], vct) } else { cmp(dir, a[0], a[2], vct) };
        let nan = cmp(D::Ne, a[0], a[0], vct);
        let eq = if c { cmp(D::Eq, a[2], a[0], vct) } else { cmp(D::Eq, a[0], a[2], vct) };
        let tie_dir = if shape == Body::TieLe { D::Le } else { D::Lt };
        let smaller = if c { cmp(flip(tie_dir), a[3], a[1], ict) } else { cmp(tie_dir, a[1], a[3], ict) };
        let or = |b: &mut FnBuilder, x, y| b.op(OpKind::Binary(BinaryOp::Or), &[x, y], p.clone());
        let keep_value = match shape {
            Body::NoNan => wins,
            _ if c => or(b, nan, wins),
            _ => or(b, wins, nan),
        };
        let tie = if c {
            b.op(OpKind::Binary(BinaryOp::And), &[smaller, eq], p.clone())
        } else {
            b.op(OpKind::Binary(BinaryOp::And), &[eq, smaller], p.clone())
        };
        let keep_index = if c { or(b, tie, keep_value) } else { or(b, keep_value, tie) };
        let value = b.op(OpKind::Select, &[keep_value, a[0], a[2]], ty(&[], elem));
        let idx = b.op(OpKind::Select, &[keep_index, a[1], a[3]], ty(&[], index));
        vec![value, idx]
    })
}

/// Runs `m` on the interpreter and on the plan (1 thread, and 3 threads splitting everything):
/// every result must be the same bytes. Returns the 1-thread plan's summary.
fn bit_exact(m: &ValidModule, inputs: &[Tensor]) -> Result<String, TestCaseError> {
    let want = interp::run(m, inputs).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    let mut summary = String::new();
    for (threads, min_parallel_work) in [(1, usize::MAX), (3, 1)] {
        let p = Program::compile_with(m, &Options { threads, min_parallel_work, interpret: false, row_block_bytes: DEFAULT_ROW_BLOCK_BYTES })
            .map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        let plan = p.plan().ok_or_else(|| TestCaseError::fail("no plan"))?.summary();
        let got = p.run(inputs).map_err(|e| TestCaseError::fail(format!("plan: {e}")))?;
        prop_assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(&g.ty, &w.ty);
            prop_assert!(g.bytes() == w.bytes(), "result {}: plan {:?} vs interpreter {:?} ({} threads; {})", k, g.bytes(), w.bytes(), threads, plan);
        }
        if threads == 1 {
            summary = plan;
        }
    }
    Ok(summary)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn arg_reductions_match_the_interpreter_bit_for_bit(
        shape in prop::collection::vec(prop_oneof![0i64..5, 1i64..40, 1020i64..1030], 1..4),
        axis in 0usize..3,
        max in any::<bool>(),
        elem in prop_oneof![Just(E::F32), Just(E::F64), Just(E::S32), Just(E::U32), Just(E::S64)],
        index in prop_oneof![Just(E::S32), Just(E::S64), Just(E::U32)],
        shape_of_body in prop_oneof![3 => Just(Body::Jax), 2 => Just(Body::Commuted), 1 => Just(Body::TieLe), 1 => Just(Body::ValueGe), 1 => Just(Body::NoNan)],
        explicit in any::<bool>(),
        source in 0u8..3,
        jax_init in any::<bool>(),
        iota_elsewhere in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Keep the interpreter's work small: long axes only in small shapes.
        let total: i64 = shape.iter().product();
        prop_assume!(total <= 40_000);
        let rank = shape.len();
        let axis = axis % rank;
        let mut b = FnBuilder::new("main");
        // The values: a parameter as it is, a fused expression of it (x + x: doubles, keeps NaN,
        // zeros' signs and infinities), or a transposed view of a parameter stored reversed.
        let values = match source {
            0 => b.param(ty(&shape, elem)),
            1 => {
                let x = b.param(ty(&shape, elem));
                b.op(OpKind::Binary(BinaryOp::Add), &[x, x], ty(&shape, elem))
            }
            _ => {
                let reversed: Vec<i64> = shape.iter().rev().copied().collect();
                let x = b.param(ty(&reversed, elem));
                let permutation: Vec<i64> = (0..rank as i64).rev().collect();
                b.op(OpKind::Transpose { permutation }, &[x], ty(&shape, elem))
            }
        };
        let iota_dim = if iota_elsewhere && rank > 1 { (axis + 1) % rank } else { axis };
        let iota = b.op(OpKind::Iota { dimension: iota_dim as i64 }, &[], ty(&shape, index));
        let (init_value, init_index) = if jax_init {
            let extreme = match (elem.is_float(), max) {
                (true, true) => f64::NEG_INFINITY,
                (true, false) => f64::INFINITY,
                (false, true) => if elem == E::U32 { 0.0 } else { -1e9 },
                (false, false) => 1e9,
            };
            (scalar(elem, extreme), scalar(index, 0.0))
        } else {
            // Inits from the pool, the index one inside the axis: they take part in ties.
            let mut s = seed ^ 0x5eed;
            (pool_tensor(&TensorType::scalar(elem), &mut s), scalar(index, (seed % 3) as f64))
        };
        let (iv, ii) = (b.constant(&init_value), b.constant(&init_index));
        let region = body(&mut b, elem, index, max, shape_of_body, explicit);
        let mut out_shape = shape.clone();
        out_shape.remove(axis);
        let r = b.ops(OpKind::Reduce { dimensions: vec![axis as i64] }, &[values, iota, iv, ii], &[ty(&out_shape, elem), ty(&out_shape, index)], vec![region]);
        let f = b.finish(&r);
        let m = module(vec![f]);
        let mut s = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| pool_tensor(t.as_tensor().unwrap(), &mut s)).collect();
        let summary = bit_exact(&m, &inputs)?;
        let native = matches!(shape_of_body, Body::Jax | Body::Commuted) && iota_dim == axis;
        prop_assert_eq!(summary.contains(" 0 fallback"), native, "{}", summary);
    }
}

/// The argmax / argmin of one long f32 row, run on 1 and 3 threads against the interpreter; returns
/// the index the interpreter found.
fn long_row(v: &[f32], max: bool) -> usize {
    let n = v.len() as i64;
    let mut b = FnBuilder::new("main");
    let x = b.param(ty(&[n], E::F32));
    let iota = b.op(OpKind::Iota { dimension: 0 }, &[], ty(&[n], E::S32));
    let init = if max { f32::NEG_INFINITY } else { f32::INFINITY };
    let (iv, ii) = (b.constant(&scalar(E::F32, init as f64)), b.constant(&scalar(E::S32, 0.0)));
    let region = body(&mut b, E::F32, E::S32, max, Body::Jax, true);
    let r = b.ops(OpKind::Reduce { dimensions: vec![0] }, &[x, iota, iv, ii], &[ty(&[], E::F32), ty(&[], E::S32)], vec![region]);
    let m = module(vec![b.finish(&r)]);
    let input = common::f32s(&[n], v);
    let summary = bit_exact(&m, std::slice::from_ref(&input)).unwrap();
    assert!(summary.contains(" 0 fallback"), "{summary}");
    let got = interp::run(&m, &[input]).unwrap();
    common::to_i32(&got[1])[0] as usize
}

/// Long enough that one row is split across threads (its parts folded in order).
const LONG: usize = 1 << 18;

/// NaN, ties and zeros of both signs placed so that the first NaN, the smallest tied index and the
/// last tied value all land in a part other than the first.
#[test]
fn a_long_row_split_across_threads_keeps_the_first_nan_and_the_first_tie() {
    for (nans, max) in [(vec![], true), (vec![], false), (vec![150_000usize, 200_000, 9], true), (vec![180_000, 250_000], false)] {
        let mut v: Vec<f32> = (0..LONG).map(|i| (((i * 7919) % 1000) as f32 + 0.5) / 1000.0 - 0.5).collect();
        let extreme = if max { 0.0 } else { -0.0 };
        // Every value is in (-0.5, 0.5) and none is zero apart from these, so the extreme is a
        // zero: tied at positions in different parts, with both signs.
        for (k, &i) in [100_001usize, 70_000, 230_000].iter().enumerate() {
            v[i] = if k % 2 == 0 { extreme } else { -extreme };
        }
        if !max {
            for x in v.iter_mut().filter(|x| **x < 0.0 && **x != 0.0) {
                *x = -*x;
            }
        } else {
            for x in v.iter_mut().filter(|x| **x > 0.0) {
                *x = -*x;
            }
        }
        for &i in &nans {
            v[i] = f32::NAN;
        }
        let want = if nans.is_empty() { 70_000 } else { *nans.iter().min().unwrap() };
        assert_eq!(long_row(&v, max), want, "max {max}, NaN at {nans:?}");
    }
}

/// The extreme at every chunk start but the row's first element: every part of a split row but
/// the first wins at its own first element, whose index the part must report (not 0).
#[test]
fn parts_of_a_split_row_report_the_index_of_their_first_element() {
    let chunk = apu_runtime::exec::fused::CHUNK;
    for max in [true, false] {
        let v: Vec<f32> = (0..LONG).map(|i| if i % chunk == 0 && i > 0 { if max { 1.0 } else { -1.0 } } else { 0.5 - (i % 7) as f32 * 0.1 }).collect();
        assert_eq!(long_row(&v, max), chunk, "max {max}");
    }
}
