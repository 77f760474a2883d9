//! Property tests: random programs (shapes, element types, op chains) give the same results on the
//! plan executor, with 1 thread and with 3 threads splitting every kernel, as on the interpreter.
//! Row-blocked groups (softmax and the like) have their own tests in `row_groups.rs`.

mod common;

use apu_compiler::ir::{BinaryOp, ComparisonDirection, ConvDims, DotDims, ElementType as E, GatherDims, Literal, ScatterDims, OpKind, TensorType, Type, UnaryOp, ValueId};
use apu_compiler::valid::ValidModule;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};
use common::{module, FnBuilder};
use proptest::prelude::*;

/// Elements per fused register chunk: shapes around it and its multiples reach both the within-row
/// and the row-straddling paths.
const CH: i64 = apu_runtime::exec::fused::CHUNK as i64;

fn random_tensor(ty: &TensorType, seed: &mut u64) -> Tensor {
    let mut bytes = Vec::new();
    for _ in 0..ty.num_elements() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        match ty.elem {
            E::F32 => bytes.extend((r as f32 / u32::MAX as f32 * 6.0 - 3.0).to_le_bytes()),
            E::F64 => bytes.extend((r as f64 / u32::MAX as f64 * 6.0 - 3.0).to_le_bytes()),
            E::S32 => bytes.extend(((r % 40) as i32 - 20).to_le_bytes()),
            _ => bytes.push((r & 1) as u8),
        }
    }
    Tensor::from_bytes(ty.clone(), &bytes).unwrap()
}

fn floats(t: &Tensor) -> Option<Vec<f64>> {
    let b = t.bytes();
    match t.ty.elem {
        E::F32 => Some(b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect()),
        E::F64 => Some(b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()),
        _ => None,
    }
}

/// Runs `m` on the interpreter and on the plan (1 and 3 threads) and compares: floats within a
/// relative 1e-5 (summation order differs between kernels), everything else bit-exact.
/// Whether the plan of `m` has a depthwise convolution step (top level).
fn plans_depthwise(p: &Program) -> bool {
    p.plan().is_some_and(|plan| plan.steps.iter().any(|s| matches!(s.kind, apu_compiler::plan::StepKind::DepthwiseConv(_))))
}

/// The window of a test convolution, one entry per spatial dimension.
struct ConvWindow {
    strides: Vec<i64>,
    padding: Vec<(i64, i64)>,
    lhs_dilation: Vec<i64>,
    rhs_dilation: Vec<i64>,
}

/// A module of one convolution of `x` and `k` into the output, shapes `[x, k, output]`, with
/// (feature, batch) group counts.
fn conv_module(elem: E, shapes: [&[i64]; 3], dims: ConvDims, w: ConvWindow, (feature_group_count, batch_group_count): (i64, i64)) -> ValidModule {
    let mut b = FnBuilder::new("main");
    let x = b.param(ty(shapes[0], elem));
    let k = b.param(ty(shapes[1], elem));
    let window_reversal = vec![false; w.strides.len()];
    let kind = OpKind::Convolution {
        window_strides: w.strides,
        padding: w.padding,
        lhs_dilation: w.lhs_dilation,
        rhs_dilation: w.rhs_dilation,
        window_reversal,
        dims,
        feature_group_count,
        batch_group_count,
        precision: vec![],
    };
    let y = b.op(kind, &[x, k], ty(shapes[2], elem));
    module(vec![b.finish(&[y])])
}

/// The dimension numbers of a 2-D image convolution: NCHW input / OIHW kernel / NCHW output, or
/// NHWC / HWIO / NHWC.
fn image_dims(nchw: bool) -> ConvDims {
    if nchw {
        ConvDims {
            input_batch: 0, input_feature: 1, input_spatial: vec![2, 3],
            kernel_input_feature: 1, kernel_output_feature: 0, kernel_spatial: vec![2, 3],
            output_batch: 0, output_feature: 1, output_spatial: vec![2, 3],
        }
    } else {
        ConvDims {
            input_batch: 0, input_feature: 3, input_spatial: vec![1, 2],
            kernel_input_feature: 2, kernel_output_feature: 3, kernel_spatial: vec![0, 1],
            output_batch: 0, output_feature: 3, output_spatial: vec![1, 2],
        }
    }
}

/// The dimension numbers of a 1-D convolution: NCW input / OIW kernel / NCW output, or NWC / WIO / NWC.
fn line_dims(ncw: bool) -> ConvDims {
    if ncw {
        ConvDims {
            input_batch: 0, input_feature: 1, input_spatial: vec![2],
            kernel_input_feature: 1, kernel_output_feature: 0, kernel_spatial: vec![2],
            output_batch: 0, output_feature: 1, output_spatial: vec![2],
        }
    } else {
        ConvDims {
            input_batch: 0, input_feature: 2, input_spatial: vec![1],
            kernel_input_feature: 1, kernel_output_feature: 2, kernel_spatial: vec![0],
            output_batch: 0, output_feature: 2, output_spatial: vec![1],
        }
    }
}

/// `m` compiled for one thread, whatever the work (so the plan is the one tests inspect).
fn single_thread(m: &ValidModule) -> Program {
    Program::compile_with(m, &Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: 1 }).unwrap()
}

fn same_everywhere(m: &ValidModule, seed: u64) -> Result<(), TestCaseError> {
    let mut seed = seed;
    let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| random_tensor(t.as_tensor().unwrap(), &mut seed)).collect();
    same_on(m, &inputs)
}

/// As `same_everywhere`, on the given inputs.
fn same_on(m: &ValidModule, inputs: &[Tensor]) -> Result<(), TestCaseError> {
    let want = interp::run(m, inputs).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    // Row-blocked groups run with their default blocks, and with one-row blocks split over threads.
    for (threads, min_parallel_work, row_block_bytes) in [(1, usize::MAX, apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES), (3, 1, 1)] {
        let p = Program::compile_with(m, &Options { threads, min_parallel_work, interpret: false, row_block_bytes })
            .map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        // Every generated program moves only tensors: it must get a plan, not the interpreter.
        prop_assert!(p.plan().is_some(), "no plan was built");
        let got = p.run(inputs).map_err(|e| TestCaseError::fail(format!("plan: {e}")))?;
        prop_assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(&g.ty, &w.ty);
            match (floats(g), floats(w)) {
                (Some(gv), Some(wv)) => {
                    let scale = wv.iter().fold(1.0f64, |a, &b| if b.is_finite() { a.max(b.abs()) } else { a });
                    for (k, (x, y)) in gv.iter().zip(&wv).enumerate() {
                        let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-5 * scale;
                        prop_assert!(ok, "out{} [{}]: plan {} vs interpreter {} ({} threads)\n{}", i, k, x, y, threads, p.plan().map_or(String::new(), |p| p.summary()));
                    }
                }
                _ => prop_assert!(g.bytes() == w.bytes(), "out{}: bytes differ ({} threads)", i, threads),
            }
        }
    }
    Ok(())
}

fn ty(shape: &[i64], elem: E) -> Type {
    Type::tensor(shape.to_vec(), elem)
}

fn scalar_const(b: &mut FnBuilder, elem: E, bytes: Vec<u8>) -> ValueId {
    let lit = Literal::splat(TensorType::scalar(elem), bytes).unwrap();
    b.op(OpKind::Constant(lit), &[], ty(&[], elem))
}

fn elem_strategy() -> impl Strategy<Value = E> {
    prop_oneof![Just(E::F32), Just(E::F64), Just(E::S32)]
}

/// A permutation of `0..n` drawn from `seed` (Fisher-Yates).
fn shuffled(n: usize, seed: &mut u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        p.swap(i, ((*seed >> 33) as usize) % (i + 1));
    }
    p
}

/// A dimension size, sometimes 0 or 1 (empty and degenerate axes take other paths).
fn dim_size() -> impl Strategy<Value = i64> {
    prop_oneof![1 => Just(0i64), 2 => Just(1i64), 6 => 2i64..5]
}

/// A parameter of logical `shape`; when `stored_shuffled`, it is stored with its dims in a
/// shuffled order and a transpose op restores the logical order (a strided view in the plan).
fn operand_maybe_transposed(b: &mut FnBuilder, shape: &[i64], elem: E, stored_shuffled: bool, seed: &mut u64) -> ValueId {
    if !stored_shuffled {
        return b.param(ty(shape, elem));
    }
    // Stored dim i holds logical dim p[i]; the transpose reads logical dim j from stored dim inv[j].
    let p = shuffled(shape.len(), seed);
    let stored: Vec<i64> = p.iter().map(|&d| shape[d]).collect();
    let mut inv = vec![0i64; p.len()];
    for (i, &d) in p.iter().enumerate() {
        inv[d] = i as i64;
    }
    let x = b.param(ty(&stored, elem));
    b.op(OpKind::Transpose { permutation: inv }, &[x], ty(shape, elem))
}

/// Role of an operand dimension in a dot: batch, lhs free, rhs free or contracting, with its index
/// in that group.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Batch(usize),
    LhsFree(usize),
    RhsFree(usize),
    Contracting(usize),
}

/// One operand's dims: its groups' roles in a shuffled order.
fn operand_roles(groups: &[(fn(usize) -> Role, usize)], seed: &mut u64) -> Vec<Role> {
    let roles: Vec<Role> = groups.iter().flat_map(|&(f, n)| (0..n).map(f)).collect();
    shuffled(roles.len(), seed).into_iter().map(|i| roles[i]).collect()
}

fn positions(roles: &[Role], of: impl Fn(usize) -> Role, n: usize) -> Vec<i64> {
    (0..n).map(|i| roles.iter().position(|&r| r == of(i)).unwrap() as i64).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn elementwise_chains(shape in prop::collection::vec(0i64..5, 0..=3), elem in elem_strategy(), ops in prop::collection::vec(0u8..8, 1..7), seed in any::<u64>()) {
        let mut b = FnBuilder::new("main");
        let t = ty(&shape, elem);
        let (x, y, s) = (b.param(t.clone()), b.param(t.clone()), b.param(ty(&[], elem)));
        let dims: Vec<i64> = Vec::new();
        let sb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: dims }, &[s], t.clone());
        let mut cur = x;
        let mut first = None;
        for op in ops {
            cur = match op {
                0 => b.op(OpKind::Binary(BinaryOp::Add), &[cur, y], t.clone()),
                1 => b.op(OpKind::Binary(BinaryOp::Multiply), &[cur, sb], t.clone()),
                2 => b.op(OpKind::Binary(BinaryOp::Subtract), &[y, cur], t.clone()),
                3 => b.op(OpKind::Binary(BinaryOp::Maximum), &[cur, y], t.clone()),
                4 => b.op(OpKind::Unary(UnaryOp::Negate), &[cur], t.clone()),
                5 if elem == E::S32 => b.op(OpKind::Unary(UnaryOp::Abs), &[cur], t.clone()),
                5 => {
                    let th = b.op(OpKind::Unary(UnaryOp::Tanh), &[cur], t.clone());
                    b.op(OpKind::Unary(UnaryOp::Exponential), &[th], t.clone())
                }
                6 => {
                    let p = b.op(OpKind::Compare { direction: ComparisonDirection::Lt, compare_type: None }, &[cur, y], ty(&shape, E::Pred));
                    b.op(OpKind::Select, &[p, cur, y], t.clone())
                }
                _ => {
                    let other = if elem == E::F64 { E::F32 } else { E::F64 };
                    let c = b.op(OpKind::Convert, &[cur], ty(&shape, other));
                    b.op(OpKind::Convert, &[c], t.clone())
                }
            };
            first.get_or_insert(cur);
        }
        let f = b.finish(&[cur, first.unwrap()]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn reductions(shape in prop::collection::vec(1i64..7, 1..=3), mask in 1u8..8, combiner in 0u8..3, elem in elem_strategy(), squared in any::<bool>(), seed in any::<u64>()) {
        let rank = shape.len();
        let dims: Vec<i64> = (0..rank as i64).filter(|d| mask & (1 << d) != 0).collect();
        prop_assume!(!dims.is_empty());
        let out_shape: Vec<i64> = (0..rank).filter(|d| !dims.contains(&(*d as i64))).map(|d| shape[d]).collect();
        let op = [BinaryOp::Add, BinaryOp::Maximum, BinaryOp::Minimum][combiner as usize];
        let init: Vec<u8> = match (elem, op) {
            (E::F32, BinaryOp::Add) => 0f32.to_le_bytes().to_vec(),
            (E::F32, BinaryOp::Maximum) => f32::NEG_INFINITY.to_le_bytes().to_vec(),
            (E::F32, _) => f32::INFINITY.to_le_bytes().to_vec(),
            (E::F64, BinaryOp::Add) => 0f64.to_le_bytes().to_vec(),
            (E::F64, BinaryOp::Maximum) => f64::NEG_INFINITY.to_le_bytes().to_vec(),
            (E::F64, _) => f64::INFINITY.to_le_bytes().to_vec(),
            (_, BinaryOp::Add) => 0i32.to_le_bytes().to_vec(),
            (_, BinaryOp::Maximum) => i32::MIN.to_le_bytes().to_vec(),
            _ => i32::MAX.to_le_bytes().to_vec(),
        };
        let mut b = FnBuilder::new("main");
        let t = ty(&shape, elem);
        let x = b.param(t.clone());
        let input = if squared { b.op(OpKind::Binary(BinaryOp::Multiply), &[x, x], t.clone()) } else { x };
        let i = scalar_const(&mut b, elem, init);
        let region = b.binary_region(op, elem);
        let r = b.ops(OpKind::Reduce { dimensions: dims }, &[input, i], &[ty(&out_shape, elem)], vec![region]);
        let f = b.finish(&r);
        same_everywhere(&module(vec![f]), seed)?;
    }

    /// A reduce over extent-1 dimensions only is `body(init, x)` elementwise (the passes rewrite
    /// it; JAX's gather bounds checks are such reduces): an init that is not the combiner's
    /// identity, and a body taking its parameters in either order, must still give the
    /// interpreter's values, and the plan must hold no reduce step.
    #[test]
    fn reduces_over_extent_one_dimensions(shape in prop::collection::vec(1i64..5, 1..=3), unit_at in 0usize..3, combiner in 0u8..4, elem in elem_strategy(), swapped in any::<bool>(), init in -3i64..4, seed in any::<u64>()) {
        let mut shape = shape;
        let axis = unit_at.min(shape.len());
        shape.insert(axis, 1);
        let out_shape: Vec<i64> = shape.iter().enumerate().filter(|&(d, _)| d != axis).map(|(_, &n)| n).collect();
        let op = [BinaryOp::Add, BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Subtract][combiner as usize];
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let i = match elem {
            E::F32 => scalar_const(&mut b, elem, (init as f32 * 0.75).to_le_bytes().to_vec()),
            E::F64 => scalar_const(&mut b, elem, (init as f64 * 0.75).to_le_bytes().to_vec()),
            _ => int_const(&mut b, elem, init),
        };
        let s = ty(&[], elem);
        let region = b.region(&[s.clone(), s.clone()], |b, p| {
            let (l, r) = if swapped { (p[1], p[0]) } else { (p[0], p[1]) };
            vec![b.op(OpKind::Binary(op), &[l, r], s.clone())]
        });
        let r = b.ops(OpKind::Reduce { dimensions: vec![axis as i64] }, &[x, i], &[ty(&out_shape, elem)], vec![region]);
        let f = b.finish(&r);
        let m = module(vec![f]);
        let p = single_thread(&m);
        let reduces = p.plan().map_or(0, |plan| plan.steps.iter().filter(|s| matches!(s.kind, apu_compiler::plan::StepKind::Reduce(_))).count());
        prop_assert_eq!(reduces, 0, "{}", p.plan().map_or(String::new(), |p| p.summary()));
        same_everywhere(&m, seed)?;
    }

    #[test]
    fn dots(batch in 0i64..3, m in 1i64..7, n in 1i64..7, k in 0i64..7, lt in any::<bool>(), rt in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let bd: Vec<i64> = if batch > 0 { vec![batch] } else { vec![] };
        let cat = |a: &[i64], b: &[i64]| -> Vec<i64> { a.iter().chain(b).copied().collect() };
        let mut b = FnBuilder::new("main");
        // Operands are passed transposed (last two axes swapped) and transposed back by an op.
        let operand = |b: &mut FnBuilder, rows: i64, cols: i64, transposed: bool| {
            let nb = bd.len() as i64;
            if transposed {
                let p = b.param(ty(&cat(&bd, &[cols, rows]), elem));
                let perm: Vec<i64> = (0..nb).chain([nb + 1, nb]).collect();
                b.op(OpKind::Transpose { permutation: perm }, &[p], ty(&cat(&bd, &[rows, cols]), elem))
            } else {
                b.param(ty(&cat(&bd, &[rows, cols]), elem))
            }
        };
        let l = operand(&mut b, m, k, lt);
        let r = operand(&mut b, k, n, rt);
        let nb = bd.len() as i64;
        let dims = DotDims {
            lhs_batch: (0..nb).collect(),
            rhs_batch: (0..nb).collect(),
            lhs_contracting: vec![nb + 1],
            rhs_contracting: vec![nb],
        };
        let d = b.op(OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None }, &[l, r], ty(&cat(&bd, &[m, n]), elem));
        let f = b.finish(&[d]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    /// dot_general with any number of batch, free and contracting dims in any order, sizes 0 and
    /// 1 included, operands possibly strided views, and the product possibly transposed (alone:
    /// the plan computes the transposed product; or also returned: it must not).
    #[test]
    fn dots_general(batch in prop::collection::vec(dim_size(), 0..=2), lfree in prop::collection::vec(dim_size(), 0..=2), rfree in prop::collection::vec(dim_size(), 0..=2), contract in prop::collection::vec(dim_size(), 0..=2), views in 0u8..4, after in 0u8..4, f64s in any::<bool>(), order_seed in any::<u64>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let (nb, nl, nr, nc) = (batch.len(), lfree.len(), rfree.len(), contract.len());
        let mut order = order_seed;
        let lroles = operand_roles(&[(Role::Batch, nb), (Role::LhsFree, nl), (Role::Contracting, nc)], &mut order);
        let rroles = operand_roles(&[(Role::Batch, nb), (Role::RhsFree, nr), (Role::Contracting, nc)], &mut order);
        let size = |r: &Role| match *r {
            Role::Batch(i) => batch[i],
            Role::LhsFree(i) => lfree[i],
            Role::RhsFree(i) => rfree[i],
            Role::Contracting(i) => contract[i],
        };
        let lshape: Vec<i64> = lroles.iter().map(size).collect();
        let rshape: Vec<i64> = rroles.iter().map(size).collect();
        let dims = DotDims {
            lhs_batch: positions(&lroles, Role::Batch, nb),
            rhs_batch: positions(&rroles, Role::Batch, nb),
            lhs_contracting: positions(&lroles, Role::Contracting, nc),
            rhs_contracting: positions(&rroles, Role::Contracting, nc),
        };
        // Result: batch dims, then the free dims of lhs and of rhs, each in operand order.
        let out_shape: Vec<i64> = batch.iter().copied()
            .chain(lroles.iter().filter(|r| matches!(r, Role::LhsFree(_))).map(size))
            .chain(rroles.iter().filter(|r| matches!(r, Role::RhsFree(_))).map(size))
            .collect();
        let mut b = FnBuilder::new("main");
        let l = operand_maybe_transposed(&mut b, &lshape, elem, views & 1 != 0, &mut order);
        let r = operand_maybe_transposed(&mut b, &rshape, elem, views & 2 != 0, &mut order);
        let d = b.op(OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None }, &[l, r], ty(&out_shape, elem));
        // (batch, rhs free, lhs free): the layout the plan may compute directly.
        let swapped: Vec<usize> = (0..nb).chain(nb + nl..nb + nl + nr).chain(nb..nb + nl).collect();
        let reversed: Vec<usize> = (0..out_shape.len()).rev().collect();
        let transpose = |b: &mut FnBuilder, perm: &[usize]| {
            let shape: Vec<i64> = perm.iter().map(|&p| out_shape[p]).collect();
            b.op(OpKind::Transpose { permutation: perm.iter().map(|&p| p as i64).collect() }, &[d], ty(&shape, elem))
        };
        let results = match after {
            0 => vec![d],
            1 => vec![transpose(&mut b, &swapped)],
            2 => vec![transpose(&mut b, &swapped), d],
            _ => vec![transpose(&mut b, &reversed)],
        };
        let f = b.finish(&results);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn data_movement(shape in prop::collection::vec(1i64..5, 3), perm_seed in 0usize..6, start in prop::collection::vec(0i64..2, 3), stride in prop::collection::vec(1i64..3, 3), pad in prop::collection::vec(0i64..2, 3), elem in elem_strategy(), seed in any::<u64>()) {
        let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        let perm: Vec<i64> = perms[perm_seed].to_vec();
        let t = ty(&shape, elem);
        let mut b = FnBuilder::new("main");
        let x = b.param(t.clone());
        let v = b.param(ty(&[shape[1]], elem));
        // transpose, then add 1-d values broadcast along the middle axis of the original.
        let tshape: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
        let tx = b.op(OpKind::Transpose { permutation: perm.clone() }, &[x], ty(&tshape, elem));
        let pos = perm.iter().position(|&p| p == 1).unwrap() as i64;
        let bv = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![pos] }, &[v], ty(&tshape, elem));
        let sum = b.op(OpKind::Binary(BinaryOp::Add), &[tx, bv], ty(&tshape, elem));
        // slice with steps
        let start: Vec<i64> = start.iter().zip(&tshape).map(|(&s, &d)| s.min(d - 1)).collect();
        let sshape: Vec<i64> = (0..3).map(|i| (tshape[i] - start[i] + stride[i] - 1) / stride[i]).collect();
        let sl = b.op(OpKind::Slice { start_indices: start.clone(), limit_indices: tshape.clone(), strides: stride.clone() }, &[sum], ty(&sshape, elem));
        let neg = b.op(OpKind::Unary(UnaryOp::Negate), &[sl], ty(&sshape, elem));
        // concatenate and pad (interpreter fallbacks), reshape of the result.
        let cshape = vec![sshape[0] * 2, sshape[1], sshape[2]];
        let cat = b.op(OpKind::Concatenate { dimension: 0 }, &[neg, sl], ty(&cshape, elem));
        let zero = scalar_const(&mut b, elem, vec![0; elem.byte_size()]);
        let pshape: Vec<i64> = cshape.iter().zip(&pad).map(|(&d, &p)| d + 2 * p).collect();
        let padded = b.op(OpKind::Pad { edge_padding_low: pad.clone(), edge_padding_high: pad.clone(), interior_padding: vec![0; 3] }, &[cat, zero], ty(&pshape, elem));
        let flat = b.op(OpKind::Reshape, &[padded], ty(&[pshape.iter().product()], elem));
        let rev = b.op(OpKind::Reverse { dimensions: vec![0] }, &[flat], ty(&[pshape.iter().product()], elem));
        let f = b.finish(&[sum, sl, flat, rev]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn convolutions(n in 1i64..3, h in 1i64..7, w in 1i64..7, c in 1i64..4, o in 1i64..4, kh in 1i64..4, kw in 1i64..4, stride in 1i64..3, pad in prop::collection::vec(0i64..3, 4), dil in 1i64..3, nchw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let out = |size: i64, k: i64, lo: i64, hi: i64| (size + lo + hi - ((k - 1) * dil + 1)).div_euclid(stride) + 1;
        let (oh, ow) = (out(h, kh, pad[0], pad[1]), out(w, kw, pad[2], pad[3]));
        prop_assume!(oh >= 1 && ow >= 1);
        // NHWC input / HWIO kernel / NHWC output, or NCHW / OIHW / NCHW.
        let (ishape, kshape, oshape, dims) = if nchw {
            (vec![n, c, h, w], vec![o, c, kh, kw], vec![n, o, oh, ow], image_dims(true))
        } else {
            (vec![n, h, w, c], vec![kh, kw, c, o], vec![n, oh, ow, o], image_dims(false))
        };
        let window = ConvWindow { strides: vec![stride, stride], padding: vec![(pad[0], pad[1]), (pad[2], pad[3])], lhs_dilation: vec![1, 1], rhs_dilation: vec![dil, dil] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (1, 1));
        same_everywhere(&m, seed)?;
    }

    #[test]
    fn dynamic_slices(shape in prop::collection::vec(1i64..6, 1..=3), size_seed in prop::collection::vec(0i64..6, 3), elem in elem_strategy(), seed in any::<u64>()) {
        let rank = shape.len();
        let sizes: Vec<i64> = (0..rank).map(|d| size_seed[d] % (shape[d] + 1)).collect();
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let idx: Vec<ValueId> = (0..rank).map(|_| b.param(ty(&[], E::S32))).collect();
        let u = b.param(ty(&sizes, elem));
        let operands: Vec<ValueId> = std::iter::once(x).chain(idx.iter().copied()).collect();
        let sl = b.op(OpKind::DynamicSlice { slice_sizes: sizes.clone() }, &operands, ty(&sizes, elem));
        // Update a fresh value (its last use: in place) and the parameter (shared: copied).
        let doubled = b.op(OpKind::Binary(BinaryOp::Add), &[x, x], ty(&shape, elem));
        let ops1: Vec<ValueId> = [doubled, u].into_iter().chain(idx.iter().copied()).collect();
        let up1 = b.op(OpKind::DynamicUpdateSlice, &ops1, ty(&shape, elem));
        let ops2: Vec<ValueId> = [x, sl].into_iter().chain(idx.iter().rev().copied()).collect();
        let up2 = b.op(OpKind::DynamicUpdateSlice, &ops2, ty(&shape, elem));
        let f = b.finish(&[sl, up1, up2]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn integer_bit_ops(n in 0i64..40, elem in prop_oneof![Just(E::U32), Just(E::U64), Just(E::S32), Just(E::S64)], ops in prop::collection::vec(0u8..6, 1..6), seed in any::<u64>()) {
        let t = ty(&[n], elem);
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&[n], E::S32));
        let y = b.param(ty(&[n], E::S32));
        // Convert the small random integers (including negatives) to the type under test.
        let mut cur = b.op(OpKind::Convert, &[x], t.clone());
        let other = b.op(OpKind::Convert, &[y], t.clone());
        let iota = b.op(OpKind::Iota { dimension: 0 }, &[], t.clone());
        for op in ops {
            let k = [BinaryOp::ShiftLeft, BinaryOp::ShiftRightLogical, BinaryOp::ShiftRightArithmetic, BinaryOp::Xor, BinaryOp::Multiply, BinaryOp::Divide][op as usize];
            let rhs = if op < 3 { other } else { iota };
            cur = b.op(OpKind::Binary(k), &[cur, rhs], t.clone());
        }
        let back = b.op(OpKind::Convert, &[cur], ty(&[n], E::F32));
        let f = b.finish(&[cur, back]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn gathers(n in 1i64..7, d in 1i64..5, m in 0i64..7, two_d in any::<bool>(), in_range in any::<bool>(), elem in elem_strategy(), seed in any::<u64>()) {
        // Row gathers (`x[idx]`) and point gathers (`x[i, j]`) with indices either in range or raw
        // (-20..20: start indices are clamped), followed by an elementwise op so that the gather
        // feeds a fused kernel.
        let mut b = FnBuilder::new("main");
        let iv = if two_d { 2 } else { 1 };
        let raw = b.param(ty(&[m, iv], E::S32));
        let idx = if in_range {
            let a = b.op(OpKind::Unary(UnaryOp::Abs), &[raw], ty(&[m, iv], E::S32));
            let nn = scalar_const(&mut b, E::S32, (n as i32).to_le_bytes().to_vec());
            let nb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[nn], ty(&[m, iv], E::S32));
            b.op(OpKind::Binary(BinaryOp::Remainder), &[a, nb], ty(&[m, iv], E::S32))
        } else {
            raw
        };
        let (x, dims, sizes, out) = if two_d {
            let x = b.param(ty(&[n, n, d], elem));
            let dims = GatherDims { offset_dims: vec![1], collapsed_slice_dims: vec![0, 1], start_index_map: vec![0, 1], index_vector_dim: 1, ..Default::default() };
            (x, dims, vec![1, 1, d], ty(&[m, d], elem))
        } else {
            let x = b.param(ty(&[n, d], elem));
            let dims = GatherDims { offset_dims: vec![1], collapsed_slice_dims: vec![0], start_index_map: vec![0], index_vector_dim: 1, ..Default::default() };
            (x, dims, vec![1, d], ty(&[m, d], elem))
        };
        let g = b.op(OpKind::Gather { dims, slice_sizes: sizes, indices_are_sorted: false }, &[x, idx], out.clone());
        let twice = b.op(OpKind::Binary(BinaryOp::Add), &[g, g], out);
        let f = b.finish(&[g, twice]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn indexed_copies_of_any_geometry(
        shape in prop::collection::vec(1i64..5, 1..4),
        per_dim in prop::collection::vec((any::<bool>(), any::<bool>(), 0i64..5), 3),
        batch_at in 0usize..4,
        m in 0i64..4,
        index_vector_first in any::<bool>(),
        reverse_map in any::<bool>(),
        in_range in any::<bool>(),
        is_scatter in any::<bool>(),
        adding in any::<bool>(),
        claim_unique in any::<bool>(),
        elem in elem_strategy(),
        seed in any::<u64>(),
    ) {
        // Gathers and scatters (replacing or adding) with any mapping of index components to dimensions,
        // collapsed (inserted) dimensions, window sizes, the batch dimension anywhere among the
        // window ones, the index vector first or last, and starts raw (-20..20: gather clamps,
        // scatter skips windows that do not fit) or in range. The plan must copy boxes natively
        // (no interpreter fallback) whenever its order of writes is the interpreter's.
        let rank = shape.len();
        let mapped: Vec<usize> = (0..rank).filter(|&d| per_dim[d].0).collect();
        let start_map: Vec<usize> = if reverse_map { mapped.iter().rev().copied().collect() } else { mapped.clone() };
        let collapsed: Vec<usize> = mapped.iter().copied().filter(|&d| per_dim[d].1).collect();
        let sizes: Vec<i64> = (0..rank).map(|d| if collapsed.contains(&d) { 1 } else { 1 + per_dim[d].2 % shape[d] }).collect();
        let window: Vec<usize> = (0..rank).filter(|d| !collapsed.contains(d)).collect();
        let batch_pos = batch_at % (window.len() + 1);
        let offset: Vec<usize> = (0..=window.len()).filter(|&p| p != batch_pos).collect();
        let mut small = vec![0i64; window.len() + 1];
        small[batch_pos] = m;
        for (&w, &o) in window.iter().zip(&offset) {
            small[o] = sizes[w];
        }
        // A claim of unique indices must be true: with one update there is nothing to collide.
        let unique = claim_unique && m <= 1;
        let k = start_map.len() as i64;
        let (idx_shape, ivd) = if index_vector_first { (vec![k, m], 0) } else { (vec![m, k], 1) };
        let to_i64 = |v: &[usize]| v.iter().map(|&d| d as i64).collect::<Vec<_>>();

        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let raw = b.param(ty(&idx_shape, E::S32));
        let idx = if in_range {
            let a = b.op(OpKind::Unary(UnaryOp::Abs), &[raw], ty(&idx_shape, E::S32));
            let five = scalar_const(&mut b, E::S32, 5i32.to_le_bytes().to_vec());
            let fives = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[five], ty(&idx_shape, E::S32));
            b.op(OpKind::Binary(BinaryOp::Remainder), &[a, fives], ty(&idx_shape, E::S32))
        } else {
            raw
        };
        let result = if is_scatter {
            let u = b.param(ty(&small, elem));
            let s = ty(&[], elem);
            let region = if adding { b.binary_region(BinaryOp::Add, elem) } else { b.region(&[s.clone(), s], |_, p| vec![p[1]]) };
            let dims = ScatterDims {
                update_window_dims: to_i64(&offset),
                inserted_window_dims: to_i64(&collapsed),
                scatter_dims_to_operand_dims: to_i64(&start_map),
                index_vector_dim: ivd,
                ..Default::default()
            };
            let fresh = b.op(OpKind::Unary(UnaryOp::Negate), &[x], ty(&shape, elem));
            b.ops(OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: unique }, &[fresh, idx, u], &[ty(&shape, elem)], vec![region])[0]
        } else {
            let dims = GatherDims {
                offset_dims: to_i64(&offset),
                collapsed_slice_dims: to_i64(&collapsed),
                start_index_map: to_i64(&start_map),
                index_vector_dim: ivd,
                ..Default::default()
            };
            b.op(OpKind::Gather { dims, slice_sizes: sizes.clone(), indices_are_sorted: false }, &[x, idx], ty(&small, elem))
        };
        let f = b.finish(&[result, x]);
        let m = module(vec![f]);
        same_everywhere(&m, seed)?;
        // Scatter order is the interpreter's when the batch dimension leads the updates, when indices
        // are unique, or when the box is one element wide wherever an index moves it.
        let native = !is_scatter || batch_pos == 0 || unique || start_map.iter().all(|&d| sizes[d] == 1);
        let p = Program::compile_with(&m, &Options { threads: 1, min_parallel_work: usize::MAX, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES }).unwrap();
        let summary = p.plan().unwrap().summary();
        prop_assert_eq!(summary.contains(" 0 fallback"), native, "{}", summary);
    }

    #[test]
    fn scatters(n in 1i64..7, d in 1i64..5, m in 0i64..9, combiner in 0u8..3, in_range in any::<bool>(), elem in elem_strategy(), seed in any::<u64>()) {
        // `x.at[idx].add/max/set(u)` on rows, duplicates and (when raw) out-of-range indices
        // included: out-of-range updates are skipped. `set` with duplicate indices is
        // order-dependent, so it only runs on in-range, distinct indices (an iota).
        let set = combiner == 2;
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&[n, d], elem));
        let raw = b.param(ty(&[m, 1], E::S32));
        let u = b.param(ty(&[m, d], elem));
        let m = if set { m.min(n) } else { m };
        let u = if set { b.op(OpKind::Slice { start_indices: vec![0, 0], limit_indices: vec![m, d], strides: vec![1, 1] }, &[u], ty(&[m, d], elem)) } else { u };
        let idx = if set {
            let i = b.op(OpKind::Iota { dimension: 0 }, &[], ty(&[m, 1], E::S32));
            b.op(OpKind::Reverse { dimensions: vec![0] }, &[i], ty(&[m, 1], E::S32))
        } else if in_range {
            let a = b.op(OpKind::Unary(UnaryOp::Abs), &[raw], ty(&[m, 1], E::S32));
            let nn = scalar_const(&mut b, E::S32, (n as i32).to_le_bytes().to_vec());
            let nb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[nn], ty(&[m, 1], E::S32));
            b.op(OpKind::Binary(BinaryOp::Remainder), &[a, nb], ty(&[m, 1], E::S32))
        } else {
            raw
        };
        let s = ty(&[], elem);
        let region = match combiner {
            0 => b.binary_region(BinaryOp::Add, elem),
            1 => b.binary_region(BinaryOp::Maximum, elem),
            _ => b.region(&[s.clone(), s], |_, p| vec![p[1]]),
        };
        let dims = ScatterDims { update_window_dims: vec![1], inserted_window_dims: vec![0], scatter_dims_to_operand_dims: vec![0], index_vector_dim: 1, ..Default::default() };
        // The scattered operand is a fresh value (last use: may be updated in place) and the
        // parameter itself (still live: must be copied).
        let fresh = b.op(OpKind::Unary(UnaryOp::Negate), &[x], ty(&[n, d], elem));
        let s1 = b.ops(OpKind::Scatter { dims: dims.clone(), indices_are_sorted: false, unique_indices: false }, &[fresh, idx, u], &[ty(&[n, d], elem)], vec![region.clone()]);
        let s2 = b.ops(OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: false }, &[x, idx, u], &[ty(&[n, d], elem)], vec![region]);
        let f = b.finish(&[s1[0], s2[0], x]);
        same_everywhere(&module(vec![f]), seed)?;
    }

    #[test]
    fn scatters_along_a_middle_dimension(a in 1i64..4, n in 1i64..6, c in 1i64..4, m in 0i64..9, set in any::<bool>(), elem in elem_strategy(), seed in any::<u64>()) {
        // A resize's gradient: updates [a, m, c] land on rows of [a, n, c] chosen by in-range,
        // repeating indices, the scattered dimension between two window dimensions. Each element
        // must take its updates in the interpreter's order (row-major over the updates), which
        // `set` with repeated indices makes visible.
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&[a, n, c], elem));
        let raw = b.param(ty(&[m, 1], E::S32));
        let u = b.param(ty(&[a, m, c], elem));
        let abs = b.op(OpKind::Unary(UnaryOp::Abs), &[raw], ty(&[m, 1], E::S32));
        let nn = scalar_const(&mut b, E::S32, (n as i32).to_le_bytes().to_vec());
        let nb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[nn], ty(&[m, 1], E::S32));
        let idx = b.op(OpKind::Binary(BinaryOp::Remainder), &[abs, nb], ty(&[m, 1], E::S32));
        let s = ty(&[], elem);
        let region = if set { b.region(&[s.clone(), s], |_, p| vec![p[1]]) } else { b.binary_region(BinaryOp::Add, elem) };
        let dims = ScatterDims { update_window_dims: vec![0, 2], inserted_window_dims: vec![1], scatter_dims_to_operand_dims: vec![1], index_vector_dim: 1, ..Default::default() };
        let r = b.ops(OpKind::Scatter { dims, indices_are_sorted: false, unique_indices: false }, &[x, idx, u], &[ty(&[a, n, c], elem)], vec![region]);
        let f = b.finish(&[r[0]]);
        let m = module(vec![f]);
        let p = Program::compile(&m).map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        prop_assert!(p.fallbacks().is_empty(), "the scatter must be a plan kernel: {:?}", p.fallbacks());
        same_everywhere(&m, seed)?;
    }

    #[test]
    fn sorts(rows in 0i64..6, cols in 0i64..9, dimension in 0i64..2, with_payload in any::<bool>(), descending in any::<bool>(), elem in elem_strategy(), seed in any::<u64>()) {
        // Stable sorts along either axis, by key alone or carrying an s32 payload (argsort):
        // keys repeat often (small random values), so stability decides the payload's order.
        let shape = [rows, cols];
        let mut b = FnBuilder::new("main");
        let key = b.param(ty(&shape, elem));
        let mut operands = vec![key];
        let mut results = vec![ty(&shape, elem)];
        let mut params = vec![ty(&[], elem), ty(&[], elem)];
        if with_payload {
            operands.push(b.op(OpKind::Iota { dimension }, &[], ty(&shape, E::S32)));
            results.push(ty(&shape, E::S32));
            params.extend([ty(&[], E::S32), ty(&[], E::S32)]);
        }
        let direction = if descending { ComparisonDirection::Gt } else { ComparisonDirection::Lt };
        let cmp = b.region(&params, |b, p| vec![b.op(OpKind::Compare { direction, compare_type: None }, &[p[0], p[1]], ty(&[], E::Pred))]);
        let sorted = b.ops(OpKind::Sort { dimension, is_stable: true }, &operands, &results, vec![cmp]);
        let f = b.finish(&sorted);
        same_everywhere(&module(vec![f]), seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// exp, tanh and logistic after one or two scalar ops in the same kernel (the ops run inside
    /// the function's loop when their operands are uniform over a chunk): constants, broadcast
    /// scalars and per-row values (uniform only within a row, so chunks that straddle rows take the
    /// separate ops), rows shorter and longer than a chunk, and the intermediate value also
    /// returned (then the ops are not folded into the function).
    #[test]
    fn functions_with_scalar_prologues(
        rows in 1i64..4,
        cols in prop_oneof![1i64..5, 250i64..262, CH - 6..CH + 6, 2 * CH - 12..2 * CH + 8],
        func in 0u8..3,
        first in 0u8..6,
        second in prop::option::of(0u8..6),
        shared in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let t = ty(&[rows, cols], E::F32);
        let mut b = FnBuilder::new("main");
        let x = b.param(t.clone());
        let s = b.param(ty(&[], E::F32));
        let r = b.param(ty(&[rows], E::F32));
        let sb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[s], t.clone());
        let rb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![0] }, &[r], t.clone());
        let k = scalar_const(&mut b, E::F32, 0.75f32.to_le_bytes().to_vec());
        let kb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[k], t.clone());
        let apply = |b: &mut FnBuilder, cur: ValueId, code: u8| {
            let (op, lhs, rhs) = match code {
                0 => (BinaryOp::Add, cur, kb),
                1 => (BinaryOp::Multiply, cur, sb),
                2 => (BinaryOp::Subtract, cur, rb),
                3 => (BinaryOp::Subtract, rb, cur),
                4 => (BinaryOp::Multiply, kb, cur),
                _ => (BinaryOp::Subtract, sb, cur),
            };
            b.op(OpKind::Binary(op), &[lhs, rhs], t.clone())
        };
        let mut a = apply(&mut b, x, first);
        if let Some(code) = second {
            a = apply(&mut b, a, code);
        }
        let f = [UnaryOp::Exponential, UnaryOp::Tanh, UnaryOp::Logistic][func as usize];
        let y = b.op(OpKind::Unary(f), &[a], t.clone());
        let results = if shared { vec![y, a] } else { vec![y] };
        let func = b.finish(&results);
        same_everywhere(&module(vec![func]), seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// exp, tanh and logistic followed by one or two adds, subtractions or multiplications in the
    /// same kernel (run in the function's loop on AVX-512): against constants, broadcast scalars,
    /// per-row values (uniform only within a row), the function's own argument and another input,
    /// on either side; with or without a prologue, and with an intermediate also returned (then
    /// the ops are not folded into the function).
    #[test]
    fn functions_with_epilogues(
        rows in 1i64..4,
        cols in prop_oneof![1i64..5, 250i64..262, CH - 6..CH + 6],
        func in 0u8..3,
        prologue in any::<bool>(),
        first in 0u8..8,
        second in prop::option::of(0u8..8),
        shared in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let t = ty(&[rows, cols], E::F32);
        let mut b = FnBuilder::new("main");
        let x = b.param(t.clone());
        let z = b.param(t.clone());
        let s = b.param(ty(&[], E::F32));
        let r = b.param(ty(&[rows], E::F32));
        let sb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[s], t.clone());
        let rb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![0] }, &[r], t.clone());
        let k = scalar_const(&mut b, E::F32, 1.5f32.to_le_bytes().to_vec());
        let kb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[k], t.clone());
        let arg = if prologue { b.op(OpKind::Binary(BinaryOp::Multiply), &[x, kb], t.clone()) } else { x };
        let f = [UnaryOp::Exponential, UnaryOp::Tanh, UnaryOp::Logistic][func as usize];
        let y = b.op(OpKind::Unary(f), &[arg], t.clone());
        let apply = |b: &mut FnBuilder, cur: ValueId, code: u8| {
            let (op, lhs, rhs) = match code {
                0 => (BinaryOp::Multiply, cur, x),
                1 => (BinaryOp::Add, z, cur),
                2 => (BinaryOp::Subtract, cur, kb),
                3 => (BinaryOp::Subtract, rb, cur),
                4 => (BinaryOp::Multiply, sb, cur),
                5 => (BinaryOp::Subtract, cur, z),
                6 => (BinaryOp::Add, cur, rb),
                _ => (BinaryOp::Subtract, sb, cur),
            };
            b.op(OpKind::Binary(op), &[lhs, rhs], t.clone())
        };
        let mut a = apply(&mut b, y, first);
        let middle = a;
        if let Some(code) = second {
            a = apply(&mut b, a, code);
        }
        let results = if shared { vec![a, middle] } else { vec![a] };
        let func = b.finish(&results);
        same_everywhere(&module(vec![func]), seed)?;
    }
}

/// A scalar constant of integer type `elem` holding `v` wrapped to the type's width.
fn int_const(b: &mut FnBuilder, elem: E, v: i64) -> ValueId {
    scalar_const(b, elem, v.to_le_bytes()[..elem.byte_size()].to_vec())
}

/// How a generated `while` loop decides to go on.
#[derive(Clone, Copy, Debug)]
enum LoopCond {
    /// `i < limit` with the limit a constant inside the condition.
    InnerConst,
    /// `i <= limit - 1`, a constant.
    InnerLe,
    /// `i != limit`, a constant (the limit is then a whole number of steps away).
    InnerNe,
    /// `limit > i`, a constant on the left.
    InnerFlipped,
    /// `i < limit` with the limit a loop-carried value passed through the body unchanged.
    Carried,
    /// `limit > i` with the limit computed outside the loop and captured.
    Captured,
    /// `i < limit && max(acc) < 1e30`: more than one step, so the general condition path.
    TwoSteps,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// `while` loops with an integer counter and a wrapping integer hash of every integer type,
    /// a float accumulator that starts as the same buffer as a passed-through input (in-place
    /// updates must not write into the shared buffer), and each kind of condition.
    #[test]
    fn while_loops(
        elem in prop_oneof![Just(E::S32), Just(E::S64), Just(E::U32), Just(E::U64), Just(E::S8), Just(E::U8), Just(E::S16), Just(E::U16)],
        start in 0i64..4,
        trips in 0i64..7,
        step in 1i64..4,
        short in 0i64..3,
        n in 0i64..5,
        cond_kind in prop_oneof![
            Just(LoopCond::InnerConst), Just(LoopCond::InnerLe), Just(LoopCond::InnerNe), Just(LoopCond::InnerFlipped),
            Just(LoopCond::Carried), Just(LoopCond::Captured), Just(LoopCond::TwoSteps)
        ],
        seed in any::<u64>(),
    ) {
        let bits = 8 * elem.byte_size() as u32;
        // Near the signed maximum of the type, so that `h * 37 + 11` wraps on the first trip.
        let h0 = (1i64 << (bits - 1)).wrapping_sub(3);
        // A limit `short` before the last value the counter takes (not a whole number of steps
        // from the start), except for `!=`, which would then never be met, and for no trips (an
        // unsigned limit below the start would wrap).
        let short = if matches!(cond_kind, LoopCond::InnerNe) || trips == 0 { 0 } else { short.min(step - 1) };
        let limit_value = start + trips * step - short;
        let final_value = if trips == 0 { start } else { start + trips * step };
        let it = ty(&[], elem);
        let vt = ty(&[n], E::F32);
        let pred = ty(&[], E::Pred);
        let lt = |b: &mut FnBuilder, x: ValueId, y: ValueId| b.op(OpKind::Compare { direction: ComparisonDirection::Lt, compare_type: None }, &[x, y], ty(&[], E::Pred));

        let mut b = FnBuilder::new("main");
        let x = b.param(vt.clone());
        let i0 = int_const(&mut b, elem, start);
        let hinit = int_const(&mut b, elem, h0);
        let l1 = int_const(&mut b, elem, limit_value - 1);
        let one = int_const(&mut b, elem, 1);
        // A limit computed outside the loop (captured by `Captured`, carried by `Carried`).
        let limit = b.op(OpKind::Binary(BinaryOp::Add), &[l1, one], it.clone());
        // State: (i, h, acc, x, limit); acc and x start as the same value.
        let state = [it.clone(), it.clone(), vt.clone(), vt.clone(), it.clone()];
        let cond = b.region(&state, |b, p| {
            let go = match cond_kind {
                LoopCond::InnerConst => {
                    let c = int_const(b, elem, limit_value);
                    lt(b, p[0], c)
                }
                LoopCond::InnerLe | LoopCond::InnerNe | LoopCond::InnerFlipped => {
                    let (direction, k, counter_left) = match cond_kind {
                        // `i <= -1` would be `i <= MAX` on unsigned types.
                        LoopCond::InnerLe if limit_value == 0 => (ComparisonDirection::Lt, 0, true),
                        LoopCond::InnerLe => (ComparisonDirection::Le, limit_value - 1, true),
                        LoopCond::InnerNe => (ComparisonDirection::Ne, limit_value, true),
                        _ => (ComparisonDirection::Gt, limit_value, false),
                    };
                    let c = int_const(b, elem, k);
                    let operands = if counter_left { [p[0], c] } else { [c, p[0]] };
                    b.op(OpKind::Compare { direction, compare_type: None }, &operands, pred.clone())
                }
                LoopCond::Carried => lt(b, p[0], p[4]),
                LoopCond::Captured => b.op(OpKind::Compare { direction: ComparisonDirection::Gt, compare_type: None }, &[limit, p[0]], pred.clone()),
                LoopCond::TwoSteps => {
                    let c = lt(b, p[0], p[4]);
                    let init = scalar_const(b, E::F32, f32::NEG_INFINITY.to_le_bytes().to_vec());
                    let region = b.binary_region(BinaryOp::Maximum, E::F32);
                    let m = b.ops(OpKind::Reduce { dimensions: vec![0] }, &[p[2], init], &[ty(&[], E::F32)], vec![region])[0];
                    let big = scalar_const(b, E::F32, 1e30f32.to_le_bytes().to_vec());
                    let small = lt(b, m, big);
                    b.op(OpKind::Binary(BinaryOp::And), &[c, small], pred.clone())
                }
            };
            vec![go]
        });
        let body = b.region(&state, |b, p| {
            let s = int_const(b, elem, step);
            let i = b.op(OpKind::Binary(BinaryOp::Add), &[p[0], s], it.clone());
            let k37 = int_const(b, elem, 37);
            let k11 = int_const(b, elem, 11);
            let hm = b.op(OpKind::Binary(BinaryOp::Multiply), &[p[1], k37], it.clone());
            let ha = b.op(OpKind::Binary(BinaryOp::Add), &[hm, k11], it.clone());
            let hx = b.op(OpKind::Binary(BinaryOp::Xor), &[ha, p[0]], it.clone());
            let hs = b.op(OpKind::Binary(BinaryOp::Subtract), &[hx, i], it.clone());
            let h = b.op(OpKind::Binary(BinaryOp::Maximum), &[hs, hm], it.clone());
            let half = scalar_const(b, E::F32, 0.5f32.to_le_bytes().to_vec());
            let hb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[half], vt.clone());
            let scaled = b.op(OpKind::Binary(BinaryOp::Multiply), &[p[2], hb], vt.clone());
            let acc = b.op(OpKind::Binary(BinaryOp::Add), &[scaled, p[3]], vt.clone());
            vec![i, h, acc, p[3], p[4]]
        });
        let r = b.ops(OpKind::While, &[i0, hinit, x, x, limit], &state, vec![cond, body]);
        // The parameter itself comes back too: the loop must not have written into it.
        let f = b.finish(&[r[0], r[1], r[2], r[3], r[4], x]);
        let m = module(vec![f]);
        // The loop really runs its trips: the counter ends at its first value past the limit.
        let zeros = Tensor::from_bytes(TensorType::new(vec![n], E::F32), &vec![0u8; 4 * n as usize]).unwrap();
        let out = interp::run(&m, &[zeros]).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
        let mut counter = [0u8; 8];
        counter[..elem.byte_size()].copy_from_slice(out[0].bytes());
        prop_assert_eq!(i64::from_le_bytes(counter), final_value, "final counter");
        same_everywhere(&m, seed)?;
    }
}

/// lhs (batch, m, k) stored as (batch, k, m) and transposed back, times rhs (batch, k, n).
fn batched_dot_module(batch: &[i64], m: i64, k: i64, n: i64, elem: E) -> ValidModule {
    let cat = |a: &[i64], b: &[i64]| -> Vec<i64> { a.iter().chain(b).copied().collect() };
    let nb = batch.len() as i64;
    let mut b = FnBuilder::new("main");
    let lt = b.param(ty(&cat(batch, &[k, m]), elem));
    let perm: Vec<i64> = (0..nb).chain([nb + 1, nb]).collect();
    let l = b.op(OpKind::Transpose { permutation: perm }, &[lt], ty(&cat(batch, &[m, k]), elem));
    let r = b.param(ty(&cat(batch, &[k, n]), elem));
    let dims = DotDims { lhs_batch: (0..nb).collect(), rhs_batch: (0..nb).collect(), lhs_contracting: vec![nb + 1], rhs_contracting: vec![nb] };
    let d = b.op(OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None }, &[l, r], ty(&cat(batch, &[m, n]), elem));
    module(vec![b.finish(&[d])])
}

/// Division by a broadcast value (a constant, a scalar, one value per row) is a multiplication by
/// its f32 reciprocal on the plan, as XLA:CPU computes it: bit for bit, whether a chunk lies within
/// one row (scalar form) or straddles rows (per-element form), at 1 and 3 threads.
#[test]
fn division_by_a_broadcast_value_multiplies_by_its_reciprocal() {
    // Rows much shorter than a register chunk (chunks straddle rows), rows that end chunks, rows a
    // little longer than a chunk, and rows several chunks long.
    for (rows, cols) in [(5i64, 3i64), (5, 300), (3, CH + 44), (2, 4 * CH - 24)] {
        let t = ty(&[rows, cols], E::F32);
        let mut b = FnBuilder::new("main");
        let x = b.param(t.clone());
        let r = b.param(ty(&[rows], E::F32));
        let rb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![0] }, &[r], t.clone());
        let q = b.op(OpKind::Binary(BinaryOp::Divide), &[x, rb], t.clone());
        let k = scalar_const(&mut b, E::F32, 3.0f32.to_le_bytes().to_vec());
        let kb = b.op(OpKind::BroadcastInDim { broadcast_dimensions: vec![] }, &[k], t.clone());
        let q3 = b.op(OpKind::Binary(BinaryOp::Divide), &[x, kb], t.clone());
        let m = module(vec![b.finish(&[q, q3])]);
        let xs: Vec<f32> = (0..rows * cols).map(|i| 0.1 + i as f32 * 0.37).collect();
        let rs: Vec<f32> = (0..rows).map(|i| 3.0 + i as f32 * 1.7).collect();
        let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        let inputs = [
            Tensor::from_bytes(TensorType::new(vec![rows, cols], E::F32), &bytes(&xs)).unwrap(),
            Tensor::from_bytes(TensorType::new(vec![rows], E::F32), &bytes(&rs)).unwrap(),
        ];
        let by_row: Vec<f32> = xs.iter().enumerate().map(|(i, &v)| v * (1.0 / rs[i / cols as usize])).collect();
        let by_three: Vec<f32> = xs.iter().map(|&v| v * (1.0f32 / 3.0)).collect();
        // The reciprocal form really differs from division somewhere in these inputs.
        assert!(xs.iter().zip(&by_three).any(|(&v, &w)| v / 3.0 != w), "inputs where x/3 == x*(1/3) everywhere");
        for threads in [1, 3] {
            let p = Program::compile_with(&m, &Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES }).unwrap();
            let got = p.run(&inputs).unwrap();
            assert_eq!(got[0].bytes(), bytes(&by_row).as_slice(), "x / row value, {rows}x{cols}, {threads} threads");
            assert_eq!(got[1].bytes(), bytes(&by_three).as_slice(), "x / 3, {rows}x{cols}, {threads} threads");
        }
    }
}

/// Products big enough (m * n * k over 2^21) that the plan splits them into one block of rows per
/// thread (150 rows on 3 threads: blocks of 64, 64 and 22; with a batch of two, blocks of 64 rows
/// over the 300, one of which spans both products), against the interpreter (decision 43).
#[test]
fn large_dots_split_into_one_block_of_rows_per_thread() {
    for (batch, elem) in [(vec![], E::F32), (vec![2], E::F64)] {
        let m = batched_dot_module(&batch, 150, 130, 120, elem);
        same_everywhere(&m, 7).unwrap();
    }
}

/// A GEMM right operand read across its free dim (A·Bᵀ, and A·Bᵀ computed swapped for a
/// transposed result) is copied contiguous first when the other operand brings at least 64 rows;
/// with fewer rows it is read in place. The results agree with the interpreter either way, and
/// the transposed copy also runs as a tiled copy (3 threads split its tile rows).
#[test]
fn gemm_right_operands_are_read_contiguous_along_their_free_dim() {
    for (rows, swapped, copied) in [(80i64, false, true), (80, true, true), (10, false, false), (10, true, false)] {
        for elem in [E::F32, E::F64] {
            let k = 33;
            let mut b = FnBuilder::new("main");
            let x = b.param(ty(&[rows, k], elem));
            let y = b.param(ty(&[rows, k], elem));
            let dims = DotDims { lhs_batch: vec![], rhs_batch: vec![], lhs_contracting: vec![1], rhs_contracting: vec![1] };
            let mut d = b.op(OpKind::DotGeneral { dims, precision: vec![], preferred_element_type: None }, &[x, y], ty(&[rows, rows], elem));
            if swapped {
                d = b.op(OpKind::Transpose { permutation: vec![1, 0] }, &[d], ty(&[rows, rows], elem));
            }
            let m = module(vec![b.finish(&[d])]);
            let p = Program::compile_with(&m, &Options::from_env()).unwrap();
            let plan = p.plan().expect("a plan");
            let dot = plan.steps.iter().find_map(|s| match &s.kind {
                apu_compiler::plan::StepKind::Dot(d) => Some(d),
                _ => None,
            });
            let rhs_free_stride = dot.expect("a dot step").rhs_strides[2];
            assert_eq!(rhs_free_stride == 1, copied, "{rows} rows, swapped {swapped}: {}", plan.summary());
            same_everywhere(&m, 11).unwrap();
        }
    }
}

/// NaN and infinity reach the product as in the interpreter: a NaN operand poisons its row, an
/// infinity times zero gives NaN, an infinity times a finite value stays infinite.
#[test]
fn dots_propagate_nan_and_infinity() {
    let (m, k, n) = (3usize, 4usize, 5usize);
    for elem in [E::F32, E::F64] {
        let module = batched_dot_module(&[], m as i64, k as i64, n as i64, elem);
        // lhs is passed as (k, m): row 0 of the product gets a NaN, row 1 an infinity.
        let mut lhs = vec![1.0f64; k * m];
        lhs[2 * m] = f64::NAN;
        lhs[3 * m + 1] = f64::INFINITY;
        // rhs (k, n): column 4 is zero on row 3, so infinity times it is NaN there.
        let mut rhs: Vec<f64> = (0..k * n).map(|i| (i % 3) as f64 - 0.5).collect();
        rhs[3 * n + 4] = 0.0;
        let tensor = |shape: &[i64], v: &[f64]| match elem {
            E::F32 => common::f32s(shape, &v.iter().map(|&x| x as f32).collect::<Vec<_>>()),
            _ => common::f64s(shape, v),
        };
        let inputs = [tensor(&[k as i64, m as i64], &lhs), tensor(&[k as i64, n as i64], &rhs)];
        let want = interp::run(&module, &inputs).unwrap();
        let w = floats(&want[0]).unwrap();
        assert!(w[..n].iter().all(|x| x.is_nan()), "row 0 is all NaN: {w:?}");
        assert!(w[n + 4].is_nan() && w[n..n + 4].iter().all(|x| x.is_infinite()), "row 1: {w:?}");
        same_on(&module, &inputs).unwrap();
    }
}

/// Programs with the same thread count share one rayon pool, and a product this large is split
/// across it. Two such programs run from four threads at once (as two devices would) give, every
/// time, the bytes each gives when run alone: helpers move between the callers' hand-outs, and no
/// run's pieces may land in another's output.
#[test]
fn concurrent_runs_of_split_products_keep_their_own_results() {
    let programs: Vec<(Program, Vec<Tensor>)> = [(150i64, 130i64, 120i64, 3u64), (140, 160, 130, 4)]
        .into_iter()
        .map(|(m, k, n, seed)| {
            let module = batched_dot_module(&[], m, k, n, E::F32);
            let options = Options { threads: 2, min_parallel_work: 1, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
            let p = Program::compile_with(&module, &options).unwrap();
            let mut s = seed;
            let inputs = module.entry_function().param_types().iter().map(|t| random_tensor(t.as_tensor().unwrap(), &mut s)).collect();
            (p, inputs)
        })
        .collect();
    let alone: Vec<Vec<u8>> = programs.iter().map(|(p, x)| p.run(x).unwrap()[0].bytes().to_vec()).collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (programs, alone) = (&programs, &alone);
            s.spawn(move || {
                for run in 0..12 {
                    let which = (t + run) % 2;
                    let (p, x) = &programs[which];
                    let got = p.run(x).unwrap();
                    assert!(got[0].bytes() == alone[which].as_slice(), "program {which}, thread {t}, run {run}: result differs from its run alone");
                }
            });
        }
    });
}

/// Inputs for window ops: values from a small set (so windows hold ties), with NaN and -0.0
/// among the floats when `specials`.
fn window_input(ty: &TensorType, seed: &mut u64, specials: bool) -> Tensor {
    let mut bytes = Vec::new();
    for _ in 0..ty.num_elements() {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        let f = match r % 23 {
            0 if specials => f64::NAN,
            1 if specials => -0.0,
            2 if specials => 0.0,
            _ => (r % 13) as f64 * 0.375 - 2.0,
        };
        match ty.elem {
            E::F32 => bytes.extend((f as f32).to_le_bytes()),
            E::F64 => bytes.extend(f.to_le_bytes()),
            _ => bytes.extend(((r % 9) as i32 - 4).to_le_bytes()),
        }
    }
    Tensor::from_bytes(ty.clone(), &bytes).unwrap()
}

/// Runs `m` on the interpreter and on the plan with 1 and 3 threads (every kernel split): the
/// outputs must be the same bits (NaN payloads aside), and the plan must have no fallback step.
fn bit_exact_everywhere(m: &ValidModule, inputs: &[Tensor]) -> Result<(), TestCaseError> {
    let want = interp::run(m, inputs).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    for (threads, min_parallel_work) in [(1, usize::MAX), (3, 1)] {
        let p = Program::compile_with(m, &Options { threads, min_parallel_work, interpret: false, row_block_bytes: 1 })
            .map_err(|e| TestCaseError::fail(format!("compile: {e}")))?;
        let fallbacks = p.fallbacks();
        prop_assert!(fallbacks.is_empty(), "fallbacks: {:?}", fallbacks);
        let got = p.run(inputs).map_err(|e| TestCaseError::fail(format!("plan: {e}")))?;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(&g.ty, &w.ty);
            match (floats(g), floats(w)) {
                (Some(gv), Some(wv)) => {
                    for (k, (x, y)) in gv.iter().zip(&wv).enumerate() {
                        let ok = (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits();
                        prop_assert!(ok, "out{} [{}]: plan {} vs interpreter {} ({} threads)", i, k, x, y, threads);
                    }
                }
                _ => prop_assert!(g.bytes() == w.bytes(), "out{}: bytes differ ({} threads)", i, threads),
            }
        }
    }
    Ok(())
}

/// Output size of a window along one axis of size `n` (spec: padded, base-dilated operand).
fn window_out(n: i64, window: i64, stride: i64, base: i64, dil: i64, lo: i64, hi: i64) -> i64 {
    let dilated = if n == 0 { 0 } else { (n - 1) * base + 1 };
    let padded = dilated + lo + hi;
    let extent = (window - 1) * dil + 1;
    if padded < extent { 0 } else { (padded - extent) / stride + 1 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `reduce_window` with every combiner the kernel takes, any window, strides, base and window
    /// dilation and padding, on a stored, transposed or reversed operand, with a constant or a
    /// parameter init value: bit for bit the interpreter's results (NaN and signed zeros included).
    #[test]
    fn reduce_windows(
        shape in prop::collection::vec(1i64..6, 1..=4),
        geometry in prop::collection::vec((1i64..4, 1i64..3, 1i64..3, 1i64..3, 0i64..3, 0i64..3), 4),
        combiner in 0u8..4, elem in elem_strategy(), operand in 0u8..3, init_param in any::<bool>(), specials in any::<bool>(), seed in any::<u64>(),
    ) {
        let rank = shape.len();
        let g = &geometry[..rank];
        let op = [BinaryOp::Add, BinaryOp::Multiply, BinaryOp::Maximum, BinaryOp::Minimum][combiner as usize];
        let out: Vec<i64> = (0..rank).map(|d| window_out(shape[d], g[d].0, g[d].1, g[d].2, g[d].3, g[d].4, g[d].5)).collect();
        let mut b = FnBuilder::new("main");
        // The operand: a parameter, or a transpose / reverse of one (a strided view).
        let x = match operand {
            0 => b.param(ty(&shape, elem)),
            1 => {
                let perm: Vec<i64> = (0..rank as i64).rev().collect();
                let stored: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
                let p = b.param(ty(&stored, elem));
                b.op(OpKind::Transpose { permutation: perm }, &[p], ty(&shape, elem))
            }
            _ => {
                let p = b.param(ty(&shape, elem));
                b.op(OpKind::Reverse { dimensions: vec![0] }, &[p], ty(&shape, elem))
            }
        };
        let init = if init_param {
            b.param(ty(&[], elem))
        } else {
            let bytes = match (elem, op) {
                (E::F32, BinaryOp::Add) => 0f32.to_le_bytes().to_vec(),
                (E::F32, BinaryOp::Multiply) => 1f32.to_le_bytes().to_vec(),
                (E::F32, BinaryOp::Maximum) => f32::NEG_INFINITY.to_le_bytes().to_vec(),
                (E::F32, _) => f32::INFINITY.to_le_bytes().to_vec(),
                (E::F64, BinaryOp::Add) => 0f64.to_le_bytes().to_vec(),
                (E::F64, BinaryOp::Multiply) => 1f64.to_le_bytes().to_vec(),
                (E::F64, BinaryOp::Maximum) => f64::NEG_INFINITY.to_le_bytes().to_vec(),
                (E::F64, _) => f64::INFINITY.to_le_bytes().to_vec(),
                (_, BinaryOp::Add) => 0i32.to_le_bytes().to_vec(),
                (_, BinaryOp::Multiply) => 1i32.to_le_bytes().to_vec(),
                (_, BinaryOp::Maximum) => i32::MIN.to_le_bytes().to_vec(),
                _ => i32::MAX.to_le_bytes().to_vec(),
            };
            scalar_const(&mut b, elem, bytes)
        };
        let region = b.binary_region(op, elem);
        let kind = OpKind::ReduceWindow {
            window_dimensions: g.iter().map(|t| t.0).collect(),
            window_strides: g.iter().map(|t| t.1).collect(),
            base_dilations: g.iter().map(|t| t.2).collect(),
            window_dilations: g.iter().map(|t| t.3).collect(),
            padding: g.iter().map(|t| (t.4, t.5)).collect(),
        };
        let r = b.ops(kind, &[x, init], &[ty(&out, elem)], vec![region]);
        let f = b.finish(&r);
        let m = module(vec![f]);
        let mut seed = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| window_input(t.as_tensor().unwrap(), &mut seed, specials)).collect();
        bit_exact_everywhere(&m, &inputs)?;
    }

    /// NHWC pooling and its sum gradient: a window over H and W with the channels passed through,
    /// which the lowering merges into W (rows of W * C elements; 1 to 3 channels, so also rows
    /// under and over the runtime's short-row threshold), with padding, window dilation and
    /// strides on W (a stride keeps the axes apart): bit for bit the interpreter's results.
    #[test]
    fn pooling_with_channels_passed_through(
        n in 1i64..3, h in 1i64..7, w in 1i64..7, c in prop_oneof![1i64..4, 8i64..11],
        geometry in prop::collection::vec((1i64..4, 1i64..3, 1i64..3, 1i64..3, 0i64..3, 0i64..3), 2),
        combiner in 0u8..4, elem in elem_strategy(), reversed in any::<bool>(), specials in any::<bool>(), seed in any::<u64>(),
    ) {
        let shape = vec![n, h, w, c];
        let g: Vec<(i64, i64, i64, i64, i64, i64)> = vec![(1, 1, 1, 1, 0, 0), geometry[0], geometry[1], (1, 1, 1, 1, 0, 0)];
        let out: Vec<i64> = (0..4).map(|d| window_out(shape[d], g[d].0, g[d].1, g[d].2, g[d].3, g[d].4, g[d].5)).collect();
        prop_assume!(out.iter().all(|&o| o >= 1));
        let op = [BinaryOp::Add, BinaryOp::Multiply, BinaryOp::Maximum, BinaryOp::Minimum][combiner as usize];
        let mut b = FnBuilder::new("main");
        let p = b.param(ty(&shape, elem));
        let x = if reversed { b.op(OpKind::Reverse { dimensions: vec![0, 1] }, &[p], ty(&shape, elem)) } else { p };
        let init = b.param(ty(&[], elem));
        let region = b.binary_region(op, elem);
        let kind = OpKind::ReduceWindow {
            window_dimensions: g.iter().map(|t| t.0).collect(),
            window_strides: g.iter().map(|t| t.1).collect(),
            base_dilations: g.iter().map(|t| t.2).collect(),
            window_dilations: g.iter().map(|t| t.3).collect(),
            padding: g.iter().map(|t| (t.4, t.5)).collect(),
        };
        let r = b.ops(kind, &[x, init], &[ty(&out, elem)], vec![region]);
        let m = module(vec![b.finish(&r)]);
        // W (stride 1, no base dilation) and C are one axis in the kernel.
        let program = single_thread(&m);
        let axes = program.plan().and_then(|plan| plan.steps.iter().find_map(|s| match &s.kind {
            apu_compiler::plan::StepKind::Window(k) => Some(k.axes.len()),
            _ => None,
        }));
        // C merges into W when W moves by whole rows (stride 1, no base dilation); the merged axis
        // merges on into H, and that into N, while it only passes elements through itself (window,
        // stride and dilations 1, no padding: a one-channel tensor under a unit window).
        let whole_rows = |d: usize| g[d].1 == 1 && g[d].2 == 1;
        let passes = |d: usize| g[d] == (1, 1, 1, 1, 0, 0);
        let merges = if !whole_rows(2) { 0 } else if !(c == 1 && passes(2) && whole_rows(1)) { 1 } else if !passes(1) { 2 } else { 3 };
        prop_assert_eq!(axes, Some(4 - merges));
        let mut seed = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| window_input(t.as_tensor().unwrap(), &mut seed, specials)).collect();
        bit_exact_everywhere(&m, &inputs)?;
    }

    /// Cumulative sums, products, maxima and minima as JAX lowers them on CPU: a window as long as
    /// the axis, padded in front.
    #[test]
    fn cumulative_windows(shape in prop::collection::vec(1i64..9, 1..=3), axis in 0usize..3, combiner in 0u8..4, elem in elem_strategy(), specials in any::<bool>(), seed in any::<u64>()) {
        let rank = shape.len();
        let axis = axis % rank;
        let op = [BinaryOp::Add, BinaryOp::Multiply, BinaryOp::Maximum, BinaryOp::Minimum][combiner as usize];
        let n = shape[axis];
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let init = b.param(ty(&[], elem));
        let region = b.binary_region(op, elem);
        let kind = OpKind::ReduceWindow {
            window_dimensions: (0..rank).map(|d| if d == axis { n } else { 1 }).collect(),
            window_strides: vec![1; rank],
            base_dilations: vec![1; rank],
            window_dilations: vec![1; rank],
            padding: (0..rank).map(|d| if d == axis { (n - 1, 0) } else { (0, 0) }).collect(),
        };
        let r = b.ops(kind, &[x, init], &[ty(&shape, elem)], vec![region]);
        let m = module(vec![b.finish(&r)]);
        let mut seed = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| window_input(t.as_tensor().unwrap(), &mut seed, specials)).collect();
        bit_exact_everywhere(&m, &inputs)?;
    }

    /// `select_and_scatter` as max/min pooling's gradient: GE/GT/LE/LT selects over windows with
    /// ties, NaN and signed zeros, strides and padding, an add scatter from a constant or
    /// parameter init value.
    #[test]
    fn select_and_scatters(
        shape in prop::collection::vec(1i64..7, 1..=4),
        geometry in prop::collection::vec((1i64..4, 1i64..3, 0i64..2, 0i64..2), 4),
        dir in 0u8..4, f64s in any::<bool>(), init_param in any::<bool>(), specials in any::<bool>(), seed in any::<u64>(),
    ) {
        let rank = shape.len();
        let g = &geometry[..rank];
        let elem = if f64s { E::F64 } else { E::F32 };
        let source: Vec<i64> = (0..rank).map(|d| window_out(shape[d], g[d].0, g[d].1, 1, 1, g[d].2, g[d].3)).collect();
        let direction = [ComparisonDirection::Ge, ComparisonDirection::Gt, ComparisonDirection::Le, ComparisonDirection::Lt][dir as usize];
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let s = b.param(ty(&source, elem));
        let init = if init_param { b.param(ty(&[], elem)) } else { scalar_const(&mut b, elem, vec![0; elem.byte_size()]) };
        let st = ty(&[], elem);
        let select = b.region(&[st.clone(), st.clone()], |b, p| vec![b.op(OpKind::Compare { direction, compare_type: None }, &[p[0], p[1]], ty(&[], E::Pred))]);
        let scatter = b.binary_region(BinaryOp::Add, elem);
        let kind = OpKind::SelectAndScatter {
            window_dimensions: g.iter().map(|t| t.0).collect(),
            window_strides: g.iter().map(|t| t.1).collect(),
            padding: g.iter().map(|t| (t.2, t.3)).collect(),
        };
        let r = b.ops(kind, &[x, s, init], &[ty(&shape, elem)], vec![select, scatter]);
        let m = module(vec![b.finish(&r)]);
        let mut seed = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| window_input(t.as_tensor().unwrap(), &mut seed, specials)).collect();
        bit_exact_everywhere(&m, &inputs)?;
    }

    /// `pad` with negative (cropping), zero and positive edges and interior padding, of floats and
    /// integers, then a reverse of the result (a view read by a kernel). (A pad of predicates is
    /// still a fallback: the lowering takes only types whose bits fill their bytes.)
    #[test]
    fn pads(shape in prop::collection::vec(0i64..5, 1..=3), edges in prop::collection::vec((-2i64..3, -2i64..3, 0i64..3), 3), elem in prop_oneof![Just(E::F32), Just(E::F64), Just(E::S32)], value_param in any::<bool>(), seed in any::<u64>()) {
        let rank = shape.len();
        let e = &edges[..rank];
        let out: Vec<i64> = (0..rank).map(|d| {
            let dilated = if shape[d] == 0 { 0 } else { (shape[d] - 1) * (e[d].2 + 1) + 1 };
            dilated + e[d].0 + e[d].1
        }).collect();
        prop_assume!(out.iter().all(|&o| o >= 0));
        let mut b = FnBuilder::new("main");
        let x = b.param(ty(&shape, elem));
        let value = if value_param { b.param(ty(&[], elem)) } else { scalar_const(&mut b, elem, vec![1; elem.byte_size()]) };
        let kind = OpKind::Pad { edge_padding_low: e.iter().map(|t| t.0).collect(), edge_padding_high: e.iter().map(|t| t.1).collect(), interior_padding: e.iter().map(|t| t.2).collect() };
        let p = b.op(kind, &[x, value], ty(&out, elem));
        let rev = b.op(OpKind::Reverse { dimensions: (0..rank as i64).collect() }, &[p], ty(&out, elem));
        let r = if elem == E::Pred { rev } else { b.op(OpKind::Binary(BinaryOp::Add), &[rev, rev], ty(&out, elem)) };
        let m = module(vec![b.finish(&[p, r])]);
        let mut seed = seed;
        let inputs: Vec<Tensor> = m.entry_function().param_types().iter().map(|t| random_tensor(t.as_tensor().unwrap(), &mut seed)).collect();
        bit_exact_everywhere(&m, &inputs)?;
    }
}

proptest! {
    /// Convolutions with input (lhs) dilation, as transposed convolutions and the input gradients
    /// of strided ones are: NHWC and NCHW, with strides, padding and kernel dilation, on the
    /// im2col kernel (no fallback step).
    #[test]
    fn input_dilated_convolutions(n in 1i64..3, h in 1i64..6, w in 1i64..6, c in 1i64..4, o in 1i64..4, kh in 1i64..4, kw in 1i64..4, stride in 1i64..3, pad in prop::collection::vec(0i64..3, 4), dil in 1i64..3, ldil in prop::collection::vec(1i64..4, 2), nchw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let out = |size: i64, ld: i64, k: i64, lo: i64, hi: i64| ((size - 1) * ld + 1 + lo + hi - ((k - 1) * dil + 1)).div_euclid(stride) + 1;
        let (oh, ow) = (out(h, ldil[0], kh, pad[0], pad[1]), out(w, ldil[1], kw, pad[2], pad[3]));
        prop_assume!(oh >= 1 && ow >= 1);
        let (ishape, kshape, oshape, dims) = if nchw {
            (vec![n, c, h, w], vec![o, c, kh, kw], vec![n, o, oh, ow], image_dims(true))
        } else {
            (vec![n, h, w, c], vec![kh, kw, c, o], vec![n, oh, ow, o], image_dims(false))
        };
        let window = ConvWindow { strides: vec![stride, stride], padding: vec![(pad[0], pad[1]), (pad[2], pad[3])], lhs_dilation: ldil.clone(), rhs_dilation: vec![dil, dil] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (1, 1));
        let p = single_thread(&m);
        prop_assert!(p.fallbacks().is_empty(), "fallbacks: {:?}", p.fallbacks());
        same_everywhere(&m, seed)?;
    }
}

proptest! {
    /// One-dimensional convolutions (NWC and NCW, several input and output features) with strides,
    /// window and input dilation and padding: im2col as a 2-D convolution of height 1.
    #[test]
    fn convolutions_1d(n in 1i64..3, w in 1i64..12, c in 1i64..5, o in 1i64..4, kw in 1i64..5, stride in 1i64..3, dil in 1i64..4, ldil in 1i64..3, lo in 0i64..3, hi in 0i64..3, ncw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let (padded, window) = ((w - 1) * ldil + 1 + lo + hi, (kw - 1) * dil + 1);
        prop_assume!(padded >= window);
        let ow = (padded - window) / stride + 1;
        let (ishape, kshape, oshape, dims) = if ncw {
            (vec![n, c, w], vec![o, c, kw], vec![n, o, ow], line_dims(true))
        } else {
            (vec![n, w, c], vec![kw, c, o], vec![n, ow, o], line_dims(false))
        };
        let window = ConvWindow { strides: vec![stride], padding: vec![(lo, hi)], lhs_dilation: vec![ldil], rhs_dilation: vec![dil] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (1, 1));
        let p = single_thread(&m);
        prop_assert!(p.fallbacks().is_empty(), "fallbacks: {:?}", p.fallbacks());
        same_everywhere(&m, seed)?;
    }
}

proptest! {
    /// One-dimensional depthwise convolutions (NWC and NCW) with strides, window and input dilation
    /// and padding, negative padding included: the depthwise kernel with a unit first dimension.
    #[test]
    fn depthwise_1d_convolutions(n in 1i64..3, w in 1i64..9, c in 2i64..20, kw in 1i64..4, stride in 1i64..3, dil in 1i64..3, ldil in 1i64..3, lo in -1i64..3, hi in -1i64..3, ncw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let (padded, window) = ((w - 1) * ldil + 1 + lo + hi, (kw - 1) * dil + 1);
        prop_assume!(padded >= window);
        let ow = (padded - window) / stride + 1;
        let (ishape, kshape, oshape, dims) = if ncw {
            (vec![n, c, w], vec![c, 1, kw], vec![n, c, ow], line_dims(true))
        } else {
            (vec![n, w, c], vec![kw, 1, c], vec![n, ow, c], line_dims(false))
        };
        let window = ConvWindow { strides: vec![stride], padding: vec![(lo, hi)], lhs_dilation: vec![ldil], rhs_dilation: vec![dil] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (c, 1));
        let p = single_thread(&m);
        prop_assert!(plans_depthwise(&p), "not the depthwise kernel: {:?}", p.plan().map(|p| p.summary()));
        same_everywhere(&m, seed)?;
    }
}

proptest! {
    /// Batch-grouped convolutions (`batch_group_count` > 1: the filter gradient of a grouped or
    /// depthwise convolution) as JAX writes them, input features and batch swapped, NHWC and NCHW,
    /// with window dilation (the gradient of a strided convolution) and padding, on the im2col kernel.
    #[test]
    fn batch_grouped_convolutions(n in 1i64..4, h in 1i64..7, w in 1i64..7, groups in 1i64..5, per_group in 1i64..3, mult in 1i64..3, kh in 1i64..4, kw in 1i64..4, dil in 1i64..3, pad in prop::collection::vec(0i64..2, 4), nchw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        // The input x has `groups * per_group` channels; the kernel (a cotangent) `groups * mult`.
        let (c, o) = (groups * per_group, groups * mult);
        let out = |size: i64, k: i64, lo: i64, hi: i64| size + lo + hi - (k - 1) * dil;
        let (oh, ow) = (out(h, kh, pad[0], pad[1]), out(w, kw, pad[2], pad[3]));
        prop_assume!(oh >= 1 && ow >= 1);
        // lhs: batch = channels of x, feature = batch of x. rhs: in feature = batch, out feature = o.
        let (ishape, kshape, oshape, dims) = if nchw {
            (vec![n, c, h, w], vec![n, o, kh, kw], vec![per_group, o, oh, ow], ConvDims {
                input_batch: 1, input_feature: 0, input_spatial: vec![2, 3],
                kernel_input_feature: 0, kernel_output_feature: 1, kernel_spatial: vec![2, 3],
                output_batch: 0, output_feature: 1, output_spatial: vec![2, 3],
            })
        } else {
            (vec![n, h, w, c], vec![n, kh, kw, o], vec![oh, ow, per_group, o], ConvDims {
                input_batch: 3, input_feature: 0, input_spatial: vec![1, 2],
                kernel_input_feature: 0, kernel_output_feature: 3, kernel_spatial: vec![1, 2],
                output_batch: 2, output_feature: 3, output_spatial: vec![0, 1],
            })
        };
        let window = ConvWindow { strides: vec![1, 1], padding: vec![(pad[0], pad[1]), (pad[2], pad[3])], lhs_dilation: vec![1, 1], rhs_dilation: vec![dil, dil] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (1, groups));
        let p = single_thread(&m);
        prop_assert!(p.fallbacks().is_empty(), "fallbacks: {:?}", p.fallbacks());
        // One channel per group each way: the depthwise kernel, not im2col.
        prop_assert_eq!(plans_depthwise(&p), groups > 1 && per_group == 1 && mult == 1);
        same_everywhere(&m, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Filter gradients as JAX writes them (input x [n, spatial.., c] convolved with the output
    /// gradient dy [n, out spatial.., o] over n, into the kernel's shape [window.., c, o]) in 1, 2 and
    /// 3 dimensions, where their windows are long enough for the dot form (`conv_dot`): tiles with
    /// fewer rows and columns than the kernel's, padding on both sides (negative at the high end too),
    /// the forward stride as window dilation (with a batch of >= 128, so that each window position is
    /// still a long run), several input channels.
    #[test]
    fn filter_gradients_in_dot_form(rank in 1usize..4, n in 24i64..40, wide in prop::collection::vec(1i64..9, 3), window in prop::collection::vec(1i64..5, 3), last_window in 6i64..10, c in 1i64..3, o in 1i64..14, lo in prop::collection::vec(0i64..3, 3), hi in prop::collection::vec(-1i64..2, 3), stride in 1i64..3, f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        // A strided forward convolution's filter gradient reads runs of n per window position.
        let n = if stride > 1 { n + 104 } else { n };
        let (mut x, mut dy, mut out, mut padding) = (vec![n], vec![n], vec![], vec![]);
        for d in 0..rank {
            let (k, ow) = (wide[d], if d == rank - 1 { last_window } else { window[d] });
            // Input size so that the window dy (dilated by the stride) fits k times with this padding.
            let span = (ow - 1) * stride + 1;
            let h = span + k - 1 - lo[d] - hi[d];
            prop_assume!(h >= 1);
            x.push(h);
            dy.push(ow);
            out.push(k);
            padding.push((lo[d], hi[d]));
        }
        x.push(c);
        dy.push(o);
        out.extend([c, o]);
        // The dot form takes outputs no larger than the contraction.
        prop_assume!(out.iter().product::<i64>() <= dy[..rank + 1].iter().product::<i64>());
        let r = rank as i64;
        let spatial: Vec<i64> = (1..=r).collect();
        let dims = ConvDims {
            input_batch: r + 1, input_feature: 0, input_spatial: spatial.clone(),
            kernel_input_feature: 0, kernel_output_feature: r + 1, kernel_spatial: spatial,
            output_batch: r, output_feature: r + 1, output_spatial: (0..r).collect(),
        };
        let window = ConvWindow { strides: vec![1; rank], padding, lhs_dilation: vec![1; rank], rhs_dilation: vec![stride; rank] };
        let m = conv_module(elem, [&x, &dy, &out], dims, window, (1, 1));
        let p = single_thread(&m);
        let esize = if f64s { 8 } else { 4 };
        let dot = p.plan().is_some_and(|plan| plan.steps.iter().any(|s| matches!(&s.kind, apu_compiler::plan::StepKind::Conv(k) if apu_runtime::exec::takes_dot_form(k, esize))));
        prop_assert!(dot, "not in dot form: x {:?} dy {:?} out {:?}", x, dy, out);
        same_everywhere(&m, seed)?;
    }
}

proptest! {
    /// Grouped and depthwise convolutions (`feature_group_count` > 1), NHWC and NCHW, with strides,
    /// padding and input dilation, on the im2col kernel (no fallback step).
    #[test]
    fn grouped_convolutions(n in 1i64..3, h in 1i64..6, w in 1i64..6, groups in 1i64..5, c in 1i64..3, o in 1i64..3, kh in 1i64..4, kw in 1i64..4, stride in 1i64..3, pad in prop::collection::vec(0i64..2, 4), ldil in 1i64..3, nchw in any::<bool>(), f64s in any::<bool>(), seed in any::<u64>()) {
        let elem = if f64s { E::F64 } else { E::F32 };
        let (ci, co) = (c * groups, o * groups);
        let out = |size: i64, k: i64, lo: i64, hi: i64| ((size - 1) * ldil + 1 + lo + hi - k).div_euclid(stride) + 1;
        let (oh, ow) = (out(h, kh, pad[0], pad[1]), out(w, kw, pad[2], pad[3]));
        prop_assume!(oh >= 1 && ow >= 1);
        let (ishape, kshape, oshape, dims) = if nchw {
            (vec![n, ci, h, w], vec![co, c, kh, kw], vec![n, co, oh, ow], image_dims(true))
        } else {
            (vec![n, h, w, ci], vec![kh, kw, c, co], vec![n, oh, ow, co], image_dims(false))
        };
        let window = ConvWindow { strides: vec![stride, stride], padding: vec![(pad[0], pad[1]), (pad[2], pad[3])], lhs_dilation: vec![ldil, ldil], rhs_dilation: vec![1, 1] };
        let m = conv_module(elem, [&ishape, &kshape, &oshape], dims, window, (groups, 1));
        let p = single_thread(&m);
        prop_assert!(p.fallbacks().is_empty(), "fallbacks: {:?}", p.fallbacks());
        prop_assert_eq!(plans_depthwise(&p), groups > 1 && c == 1 && o == 1);
        same_everywhere(&m, seed)?;
    }
}
