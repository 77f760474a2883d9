//! Row-blocked groups (a reduce along the trailing axes with the elementwise steps that feed it and
//! consume its result, run block of rows by block of rows): softmax, log-softmax and layer-norm
//! shaped programs on random shapes (rows longer than a fused register, shapes that are not
//! multiples of the vector width or of the row block) give the interpreter's results, with IEEE
//! special values in the input, at one and several threads and block sizes.

mod common;

use apu_compiler::ir::{BinaryOp, ElementType as E, Literal, OpKind, TensorType, Type, UnaryOp, ValueId};
use apu_compiler::valid::ValidModule;
use apu_runtime::exec::{Options, Program, DEFAULT_ROW_BLOCK_BYTES};
use apu_runtime::{interp, Tensor};
use common::{module, FnBuilder};
use proptest::prelude::*;

/// Elements per fused register chunk: shapes around it and its multiples reach both the within-row
/// and the row-straddling paths.
const CH: i64 = apu_runtime::exec::fused::CHUNK as i64;

fn ty(shape: &[i64], elem: E) -> Type {
    Type::tensor(shape.to_vec(), elem)
}

fn scalar(b: &mut FnBuilder, elem: E, x: f64) -> ValueId {
    let bytes = if elem == E::F32 { (x as f32).to_le_bytes().to_vec() } else { x.to_le_bytes().to_vec() };
    let lit = Literal::splat(TensorType::scalar(elem), bytes).unwrap();
    b.op(OpKind::Constant(lit), &[], ty(&[], elem))
}

/// What the generated program computes over the trailing axes of `x`.
#[derive(Clone, Copy, Debug)]
enum Pattern {
    /// jax.nn.softmax (with its `max(-inf, max)` step).
    Softmax,
    LogSoftmax,
    /// (x - mean) * rsqrt(var + eps) * gamma + beta, also returning the mean.
    LayerNorm,
    /// softmax that also returns `exp(x - max)`, which then outlives the group.
    SoftmaxWithExp,
}

struct Builder {
    b: FnBuilder,
    lead: Vec<i64>,
    shape: Vec<i64>,
    elem: E,
    /// Broadcast per-row values as JAX does (reshape to keepdims, then broadcast) or directly.
    keepdims: bool,
}

impl Builder {
    fn full(&self) -> Type {
        ty(&self.shape, self.elem)
    }
    fn per_row(&self) -> Type {
        ty(&self.lead, self.elem)
    }
    fn reduce(&mut self, x: ValueId, op: BinaryOp, init: f64) -> ValueId {
        let i = scalar(&mut self.b, self.elem, init);
        let region = self.b.binary_region(op, self.elem);
        let dims: Vec<i64> = (self.lead.len() as i64..self.shape.len() as i64).collect();
        let t = self.per_row();
        self.b.ops(OpKind::Reduce { dimensions: dims }, &[x, i], &[t], vec![region])[0]
    }
    fn broadcast_rows(&mut self, v: ValueId) -> ValueId {
        let nl = self.lead.len();
        let t = self.full();
        if self.keepdims {
            let kept: Vec<i64> = self.lead.iter().copied().chain(std::iter::repeat(1).take(self.shape.len() - nl)).collect();
            let k = self.b.op(OpKind::Reshape, &[v], ty(&kept, self.elem));
            self.b.op(OpKind::BroadcastInDim { broadcast_dimensions: (0..self.shape.len() as i64).collect() }, &[k], t)
        } else {
            self.b.op(OpKind::BroadcastInDim { broadcast_dimensions: (0..nl as i64).collect() }, &[v], t)
        }
    }
    fn splat(&mut self, x: f64, shape_ty: Type) -> ValueId {
        let s = scalar(&mut self.b, self.elem, x);
        self.b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[s], shape_ty)
    }
    fn bin(&mut self, op: BinaryOp, a: ValueId, b: ValueId, t: Type) -> ValueId {
        self.b.op(OpKind::Binary(op), &[a, b], t)
    }
    fn un(&mut self, op: UnaryOp, a: ValueId, t: Type) -> ValueId {
        self.b.op(OpKind::Unary(op), &[a], t)
    }
}

fn program(pattern: Pattern, lead: &[i64], trail: &[i64], elem: E, keepdims: bool) -> ValidModule {
    let shape: Vec<i64> = lead.iter().chain(trail).copied().collect();
    let mut m = Builder { b: FnBuilder::new("main"), lead: lead.to_vec(), shape, elem, keepdims };
    let (full, row) = (m.full(), m.per_row());
    let x = m.b.param(full.clone());
    let results = match pattern {
        Pattern::Softmax | Pattern::SoftmaxWithExp | Pattern::LogSoftmax => {
            let mx = m.reduce(x, BinaryOp::Maximum, f64::NEG_INFINITY);
            let ninf = m.splat(f64::NEG_INFINITY, row.clone());
            let mx = m.bin(BinaryOp::Maximum, ninf, mx, row.clone());
            let bm = m.broadcast_rows(mx);
            let d = m.bin(BinaryOp::Subtract, x, bm, full.clone());
            let e = m.un(UnaryOp::Exponential, d, full.clone());
            let s = m.reduce(e, BinaryOp::Add, 0.0);
            match pattern {
                Pattern::LogSoftmax => {
                    let l = m.un(UnaryOp::Log, s, row.clone());
                    let bl = m.broadcast_rows(l);
                    vec![m.bin(BinaryOp::Subtract, d, bl, full.clone())]
                }
                _ => {
                    let bs = m.broadcast_rows(s);
                    let y = m.bin(BinaryOp::Divide, e, bs, full.clone());
                    if matches!(pattern, Pattern::SoftmaxWithExp) {
                        vec![y, e]
                    } else {
                        vec![y]
                    }
                }
            }
        }
        Pattern::LayerNorm => {
            let trail: Vec<i64> = m.shape[m.lead.len()..].to_vec();
            let gamma = m.b.param(ty(&trail, elem));
            let beta = m.b.param(ty(&trail, elem));
            let n = trail.iter().product::<i64>() as f64;
            let s = m.reduce(x, BinaryOp::Add, 0.0);
            let nn = m.splat(n, row.clone());
            let mean = m.bin(BinaryOp::Divide, s, nn, row.clone());
            let bmean = m.broadcast_rows(mean);
            let d = m.bin(BinaryOp::Subtract, x, bmean, full.clone());
            let d2 = m.bin(BinaryOp::Multiply, d, d, full.clone());
            let ss = m.reduce(d2, BinaryOp::Add, 0.0);
            let var = m.bin(BinaryOp::Divide, ss, nn, row.clone());
            let eps = m.splat(1e-5, row.clone());
            let ve = m.bin(BinaryOp::Add, var, eps, row.clone());
            let r = m.un(UnaryOp::Rsqrt, ve, row.clone());
            let br = m.broadcast_rows(r);
            let cols: Vec<i64> = (m.lead.len() as i64..m.shape.len() as i64).collect();
            let bg = m.b.op(OpKind::BroadcastInDim { broadcast_dimensions: cols.clone() }, &[gamma], full.clone());
            let bb = m.b.op(OpKind::BroadcastInDim { broadcast_dimensions: cols }, &[beta], full.clone());
            let y = m.bin(BinaryOp::Multiply, d, br, full.clone());
            let y = m.bin(BinaryOp::Multiply, y, bg, full.clone());
            vec![m.bin(BinaryOp::Add, y, bb, full.clone()), mean]
        }
    };
    let f = m.b.finish(&results);
    module(vec![f])
}

fn tensor(tt: &TensorType, values: &[f64]) -> Tensor {
    let bytes: Vec<u8> = match tt.elem {
        E::F32 => values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    };
    Tensor::from_bytes(tt.clone(), &bytes).unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    let b = t.bytes();
    match t.ty.elem {
        E::F32 => b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        _ => b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
    }
}

/// Random values in [-3, 3), with -inf, +inf and NaN sprinkled in and one row all -inf when
/// `specials` is set.
fn inputs(m: &ValidModule, row_len: usize, specials: bool, seed: u64) -> Vec<Tensor> {
    let mut seed = seed;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as u32
    };
    m.entry_function()
        .param_types()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let tt = t.as_tensor().unwrap();
            let mut v: Vec<f64> = (0..tt.num_elements()).map(|_| next() as f64 / u32::MAX as f64 * 6.0 - 3.0).collect();
            if specials && i == 0 && !v.is_empty() {
                for special in [f64::NEG_INFINITY, f64::INFINITY, f64::NAN, f64::NEG_INFINITY] {
                    let k = next() as usize % v.len();
                    v[k] = special;
                }
                let row = next() as usize % (v.len() / row_len.max(1)).max(1);
                for x in v.iter_mut().skip(row * row_len).take(row_len) {
                    *x = f64::NEG_INFINITY;
                }
            }
            tensor(tt, &v)
        })
        .collect()
}

fn check(m: &ValidModule, args: &[Tensor], expect_group: bool) -> Result<(), TestCaseError> {
    let want = interp::run(m, args).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    for (threads, min_parallel_work, row_block_bytes) in [(1, usize::MAX, DEFAULT_ROW_BLOCK_BYTES), (3, 1, 1), (2, 1, 100), (1, usize::MAX, 1)] {
        let p = Program::compile_with(m, &Options { threads, min_parallel_work, interpret: false, row_block_bytes })
            .map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        let summary = p.plan().map(|p| p.summary()).unwrap_or_default();
        prop_assert!(!expect_group || summary.contains("row-blocked"), "no row group: {}", summary);
        let got = p.run(args).map_err(|e| TestCaseError::fail(format!("plan: {e}")))?;
        prop_assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(&g.ty, &w.ty);
            let (gv, wv) = (floats(g), floats(w));
            let scale = wv.iter().fold(1.0f64, |a, &b| if b.is_finite() { a.max(b.abs()) } else { a });
            for (k, (x, y)) in gv.iter().zip(&wv).enumerate() {
                let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 2e-5 * scale;
                prop_assert!(ok, "out{} [{}]: plan {} vs interpreter {} ({} threads, blocks of {} bytes)\n{}", i, k, x, y, threads, row_block_bytes, summary);
            }
        }
    }
    Ok(())
}

fn pattern_strategy() -> impl Strategy<Value = Pattern> {
    prop_oneof![Just(Pattern::Softmax), Just(Pattern::LogSoftmax), Just(Pattern::LayerNorm), Just(Pattern::SoftmaxWithExp)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn row_patterns_match_the_interpreter(
        pattern in pattern_strategy(),
        lead in prop::collection::vec(1i64..7, 1..=2),
        trail in prop::collection::vec(prop_oneof![1i64..20, 250i64..300, CH - 6..CH + 44], 1..=2),
        f64s in any::<bool>(),
        keepdims in any::<bool>(),
        specials in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let row_len = trail.iter().product::<i64>() as usize;
        prop_assume!(row_len <= 4 * CH as usize);
        let elem = if f64s { E::F64 } else { E::F32 };
        let m = program(pattern, &lead, &trail, elem, keepdims);
        let args = inputs(&m, row_len, specials, seed);
        check(&m, &args, row_len >= 2)?;
    }
}

#[test]
fn softmax_rows_of_special_values() {
    // Rows: all -inf, one +inf, one NaN, all equal, a huge spread, -inf mixed with finite values.
    let rows: [[f64; 5]; 6] = [
        [f64::NEG_INFINITY; 5],
        [1.0, f64::INFINITY, 0.0, -2.0, 3.0],
        [1.0, 2.0, f64::NAN, 0.0, 0.5],
        [7.0; 5],
        [-1e30, 1e30, 0.0, 88.0, -88.0],
        [f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY, 1.0, 2.0],
    ];
    for elem in [E::F32, E::F64] {
        for pattern in [Pattern::Softmax, Pattern::LogSoftmax] {
            let m = program(pattern, &[6], &[5], elem, true);
            let values: Vec<f64> = rows.iter().flatten().copied().collect();
            let args = [tensor(&TensorType::new(vec![6, 5], elem), &values)];
            check(&m, &args, true).unwrap();
        }
    }
}

/// `r = reduce(op)(x * 2, init)` over the trailing axes and `y = x * broadcast(r) + 1`: one row
/// reduce of a computed value (rows longer than a register fold chunk by chunk), with an init
/// that need not be the identity, returning both.
fn scaled_reduce(op: BinaryOp, init: f64, lead: &[i64], trail: &[i64], elem: E) -> ValidModule {
    let shape: Vec<i64> = lead.iter().chain(trail).copied().collect();
    let mut m = Builder { b: FnBuilder::new("main"), lead: lead.to_vec(), shape, elem, keepdims: false };
    let full = m.full();
    let x = m.b.param(full.clone());
    let two = m.splat(2.0, full.clone());
    let x2 = m.bin(BinaryOp::Multiply, x, two, full.clone());
    let r = m.reduce(x2, op, init);
    let br = m.broadcast_rows(r);
    let y = m.bin(BinaryOp::Multiply, x, br, full.clone());
    let one = m.splat(1.0, full.clone());
    let y = m.bin(BinaryOp::Add, y, one, full);
    let f = m.b.finish(&[y, r]);
    module(vec![f])
}

/// Values drawn from zeros of both signs, small integers, infinities and (if `with_nan`) NaN,
/// so that maximum and minimum folds meet ties between -0 and +0 and NaN in any chunk.
fn tricky_values(n: usize, seed: u64, with_nan: bool) -> Vec<f64> {
    let mut seed = seed;
    (0..n)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (seed >> 33) % 23 {
                0..=4 => 0.0,
                5..=9 => -0.0,
                10 => f64::INFINITY,
                11 => f64::NEG_INFINITY,
                12 if with_nan => f64::NAN,
                k => k as f64 - 17.0,
            }
        })
        .collect()
}

/// Like `check`, and for maximum/minimum also the sign of zeros (-0 < +0 for those ops).
fn check_signed_zeros(m: &ValidModule, args: &[Tensor]) -> Result<(), TestCaseError> {
    check(m, args, false)?;
    let want = interp::run(m, args).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    for threads in [1, 3] {
        let p = Program::compile_with(m, &Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: 1 })
            .map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        let got = p.run(args).map_err(|e| TestCaseError::fail(format!("plan: {e}")))?;
        for (g, w) in got.iter().zip(&want) {
            for (k, (x, y)) in floats(g).iter().zip(floats(w)).enumerate() {
                prop_assert!(x.is_nan() == y.is_nan() && (x.is_nan() || x.to_bits() == y.to_bits()), "[{}]: plan {:?} vs interpreter {:?} ({} threads)", k, x, y, threads);
            }
        }
    }
    Ok(())
}

fn fold_op_strategy() -> impl Strategy<Value = BinaryOp> {
    prop_oneof![Just(BinaryOp::Maximum), Just(BinaryOp::Minimum), Just(BinaryOp::Add)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Empty and one-element rows, no rows, rows spanning several register chunks, f32 and f64,
    /// maximum / minimum / sum with identity and non-identity inits, NaN and signed zeros.
    #[test]
    fn row_reduce_chains_match_the_interpreter(
        op in fold_op_strategy(),
        init_kind in 0usize..4,
        lead in prop::collection::vec(prop_oneof![Just(0i64), Just(1i64), 1i64..9], 1..=2),
        trail in prop::collection::vec(prop_oneof![Just(0i64), Just(1i64), 2i64..20, 2 * CH - 24..3 * CH - 200], 1..=2),
        f64s in any::<bool>(),
        with_nan in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let n: i64 = lead.iter().chain(&trail).product();
        prop_assume!(n <= 20 * CH);
        let elem = if f64s { E::F64 } else { E::F32 };
        let identity = match op {
            BinaryOp::Maximum => f64::NEG_INFINITY,
            BinaryOp::Minimum => f64::INFINITY,
            _ => 0.0,
        };
        let init = [identity, 0.5, -0.0, 0.0][init_kind];
        let m = scaled_reduce(op, init, &lead, &trail, elem);
        let tt = m.entry_function().param_types()[0].as_tensor().unwrap().clone();
        let args = [tensor(&tt, &tricky_values(n as usize, seed, with_nan))];
        if op == BinaryOp::Add {
            check(&m, &args, false)?;
        } else {
            check_signed_zeros(&m, &args)?;
        }
    }
}

/// Values a group writes and only it reads (softmax's max, exponential and sum) are its scratch
/// values, kept per block; a result of the program (the softmax, or the exponential when it is
/// returned too) is not.
#[test]
fn only_values_dead_after_the_group_are_scratch() {
    use apu_compiler::plan::StepKind;
    // (pattern, values returned from the group, whether a full-size value is scratch)
    for (pattern, returned, full) in [(Pattern::Softmax, 1, true), (Pattern::SoftmaxWithExp, 2, false), (Pattern::LayerNorm, 2, true)] {
        let m = program(pattern, &[8], &[300], E::F32, true);
        let p = Program::compile_with(&m, &Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: DEFAULT_ROW_BLOCK_BYTES }).unwrap();
        let plan = p.plan().unwrap();
        let groups: Vec<_> = plan.steps.iter().filter_map(|s| if let StepKind::Rows(g) = &s.kind { Some(g) } else { None }).collect();
        assert_eq!(groups.len(), 1, "{pattern:?}: {}", plan.summary());
        let g = groups[0];
        let written: Vec<usize> = g.steps.iter().flat_map(|s| s.kind.writes()).collect();
        let mut want: Vec<usize> = written.iter().copied().filter(|s| !plan.results.contains(s)).collect();
        let mut got = g.scratch.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{pattern:?}: written {written:?}, results {:?}", plan.results);
        assert_eq!(written.len() - got.len(), returned, "{pattern:?}");
        // Softmax's exponential, layer norm's centred input (returned, the exponential is not).
        assert_eq!(got.iter().any(|&s| plan.slots[s].num_elements() == 8 * 300), full, "{pattern:?}: {got:?}");
    }
}
