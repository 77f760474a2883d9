//! The second fusion analysis, made once per kernel by [`super::Compiled::new`]: how each load
//! addresses its input, which f32 instructions have a scalar form (one operand uniform over a
//! chunk), and which scalar ops are absorbed into an exp / tanh / logistic loop as its prologue or
//! epilogue.

use apu_compiler::ir::{BinaryOp as B, ElementType as E, UnaryOp as U};
use apu_compiler::plan::{Expr, Instr, KScalar};

/// How a load instruction addresses its input, decided once at compile time.
#[derive(Clone, Debug)]
pub(super) enum Access {
    /// Elements `offset + i`.
    Contiguous(usize),
    /// Element `offset` everywhere.
    Scalar(usize),
    /// Element `offset + (i / inner) * stride`: one value per row of `inner` elements (a per-row
    /// value broadcast along the trailing axes, as softmax reads its row maximum).
    PerRow { offset: usize, inner: usize, stride: usize, rows: RowDivider },
    /// Element `offset + i % period`: a contiguous block repeated along the leading axes (a bias
    /// or scale broadcast over rows).
    Cyclic { offset: usize, period: usize },
    /// General strides over the kernel shape.
    Strided { offset: isize, strides: Vec<isize> },
}

/// The scalar forms of an expression's instructions, and which registers only they read.
pub(super) fn scalar_forms(expr: &Expr, steps: &[Step]) -> (Vec<Option<ScalarBinary>>, Vec<bool>) {
    let n = steps.len();
    let may_be_uniform = |r: usize| {
        expr.elems[r] == E::F32
            && matches!(
                steps[r],
                Step::Const(KScalar::F32(_)) | Step::Load { access: Access::Scalar(_) | Access::PerRow { .. }, .. }
            )
    };
    let mut ops = vec![None; n];
    for (i, ins) in expr.instrs.iter().enumerate() {
        if let Instr::Binary(op, a, b) = *ins {
            if expr.elems[i] != E::F32 || !scalar_binary_op(op) || a == b {
                continue;
            }
            ops[i] = match (may_be_uniform(a), may_be_uniform(b)) {
                (false, true) => Some(ScalarBinary { op, vector: a, uniform: b, uniform_left: false }),
                (true, false) => Some(ScalarBinary { op, vector: b, uniform: a, uniform_left: true }),
                _ => None,
            };
        }
    }
    let mut only = vec![true; n];
    only[n - 1] = false;
    for (i, ins) in expr.instrs.iter().enumerate() {
        for r in operands(ins) {
            if ops[i].is_none_or(|o| o.uniform != r) {
                only[r] = false;
            }
        }
    }
    for (r, o) in only.iter_mut().enumerate() {
        *o &= may_be_uniform(r);
    }
    (ops, only)
}

/// The registers an instruction reads.
pub(super) fn operands(ins: &Instr) -> Vec<usize> {
    match *ins {
        Instr::Load { .. } | Instr::Const(_) | Instr::Iota { .. } => vec![],
        Instr::Unary(_, a) | Instr::Convert(a) => vec![a],
        Instr::Binary(_, a, b) | Instr::Compare(_, _, a, b) => vec![a, b],
        Instr::Select(a, b, c) | Instr::Clamp(a, b, c) => vec![a, b, c],
    }
}

/// The trailing axes of `shape` from which every stride is 0 (size-1 axes ignored), as their index.
pub(super) fn broadcast_tail(shape: &[i64], strides: &[isize]) -> usize {
    let mut k = shape.len();
    while k > 0 && (shape[k - 1] == 1 || strides[k - 1] == 0) {
        k -= 1;
    }
    k
}

/// `(size, stride)` of axes `dims` of `shape` taken as one axis, if they are laid out as one.
pub(super) fn merged(shape: &[i64], strides: &[isize], dims: std::ops::Range<usize>) -> Option<(usize, isize)> {
    let live: Vec<usize> = dims.clone().filter(|&d| shape[d] != 1).collect();
    let size = dims.map(|d| shape[d].max(0) as usize).product();
    for w in live.windows(2) {
        if strides[w[0]] != strides[w[1]] * shape[w[1]] as isize {
            return None;
        }
    }
    Some((size, live.last().map_or(0, |&d| strides[d])))
}

/// A cheaper access than general strides for a view that repeats one value per row or one
/// contiguous row per row.
pub(super) fn special_access(view: &apu_compiler::plan::View, shape: &[i64]) -> Option<Access> {
    let rank = shape.len();
    let strides = &view.strides;
    // Per row: leading axes merge into one with a positive stride, trailing axes are broadcast.
    let k = broadcast_tail(shape, strides);
    if k < rank {
        let (_, stride) = merged(shape, strides, 0..k)?;
        let inner = shape[k..].iter().map(|&d| d.max(0) as usize).product();
        return usize::try_from(stride)
            .ok()
            .filter(|&s| s > 0 && inner > 0)
            .map(|stride| Access::PerRow { offset: view.offset, inner, stride, rows: RowDivider::new(inner) });
    }
    // Cyclic: some leading axes broadcast, the axes after them contiguous.
    let mut j = 0;
    while j < rank && (shape[j] == 1 || strides[j] == 0) {
        j += 1;
    }
    if j == 0 {
        return None;
    }
    let (period, stride) = merged(shape, strides, j..rank)?;
    (period > 0 && (stride == 1 || period == 1)).then_some(Access::Cyclic { offset: view.offset, period })
}

/// Division of flat indices by a row length fixed at compile time, by a multiplication: per-row
/// operands are looked up several times per chunk, and a hardware division costs tens of cycles.
#[derive(Clone, Copy, Debug)]
pub(super) struct RowDivider {
    pub(super) inner: usize,
    /// ceil(2^64 / inner): for i < 2^32, floor(i * magic / 2^64) = floor(i / inner).
    pub(super) magic: u64,
}

impl RowDivider {
    pub(super) fn new(inner: usize) -> RowDivider {
        let inner = inner.max(1);
        let magic = if inner == 1 { 0 } else { (u64::MAX / inner as u64) + 1 };
        RowDivider { inner, magic }
    }

    /// `i / inner`.
    #[inline(always)]
    pub(super) fn row(self, i: usize) -> usize {
        if self.inner == 1 {
            i
        } else if (i as u64) < (1 << 32) {
            ((i as u128 * self.magic as u128) >> 64) as usize
        } else {
            i / self.inner
        }
    }
}

#[derive(Clone, Debug)]
pub(super) enum Step {
    Load { input: usize, access: Access },
    /// A load of a narrow type, widened into its register's lanes (never read in place).
    Widen { input: usize, access: Access, elem: E },
    /// A conversion or iota to a narrow type: computed on the lanes, then brought back into the
    /// type (`from_float`: a conversion from a float, which saturates).
    Narrowed { elem: E, from_float: bool },
    /// A constant: its register is filled once per run of chunks, not per chunk.
    Const(KScalar),
    Other,
}

/// An f32 binary instruction with one operand that is the same for a whole chunk (a constant, a
/// broadcast scalar, or a per-row value within one row): evaluated against that scalar, without
/// filling a register with copies of it.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScalarBinary {
    pub(super) op: B,
    /// The register varying along the chunk.
    pub(super) vector: usize,
    /// The register that is uniform over a chunk (when it is: see `Compiled::uniform`).
    pub(super) uniform: usize,
    /// Whether the uniform operand is the left one.
    pub(super) uniform_left: bool,
}

/// Binary ops with a scalar form.
pub(super) fn scalar_binary_op(op: B) -> bool {
    matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide | B::Maximum | B::Minimum)
}

/// One or two scalar ops (`+ k`, `- k`, `k -`, `* k`) whose only user is an f32 exp, tanh or
/// logistic: the function's loop applies them to `src` itself (`tanh(x * 0.5 + 0.1)`,
/// `exp(x - row_max)`), saving a pass over the chunk, with the same roundings as separate ops.
#[derive(Clone, Copy, Debug)]
pub(super) struct Prologue {
    /// The register (or contiguous load) the first op reads.
    pub(super) src: usize,
    /// The ops' instructions, in the order they apply (their `scalar_ops` give op and operand).
    pub(super) ops: [Option<usize>; 2],
}

/// Ops a prologue may hold.
pub(super) fn prologue_op(sb: &ScalarBinary) -> bool {
    matches!(sb.op, B::Add | B::Multiply | B::Subtract)
}

/// Functions whose loops take a prologue.
pub(super) fn prologue_function(op: U) -> bool {
    matches!(op, U::Exponential | U::Tanh | U::Logistic)
}

/// The prologue of each instruction, and which instructions are absorbed into one.
pub(super) fn prologues(expr: &Expr, scalar_ops: &[Option<ScalarBinary>]) -> (Vec<Option<Prologue>>, Vec<bool>) {
    let n = expr.instrs.len();
    let mut users = vec![0usize; n];
    users[n - 1] += 1;
    for ins in &expr.instrs {
        for r in operands(ins) {
            users[r] += 1;
        }
    }
    let mut prologue = vec![None; n];
    let mut absorbed = vec![false; n];
    // A scalar op this instruction could absorb: single use, not the result.
    let absorbable = |r: usize, absorbed: &[bool]| scalar_ops[r].filter(|sb| prologue_op(sb) && users[r] == 1 && r != n - 1 && !absorbed[r]);
    for (i, ins) in expr.instrs.iter().enumerate() {
        let Instr::Unary(op, a) = *ins else { continue };
        if expr.elems[i] != E::F32 || !prologue_function(op) {
            continue;
        }
        let Some(sa) = absorbable(a, &absorbed) else { continue };
        let p = match absorbable(sa.vector, &absorbed) {
            Some(sv) => Prologue { src: sv.vector, ops: [Some(sa.vector), Some(a)] },
            None => Prologue { src: sa.vector, ops: [Some(a), None] },
        };
        for j in p.ops.into_iter().flatten() {
            absorbed[j] = true;
        }
        prologue[i] = Some(p);
    }
    (prologue, absorbed)
}

/// Adds, subtractions and multiplications after an f32 exp, tanh or logistic, applied to the
/// function's result in the function's own loop before it is stored (`tanh(x * 2 + 1) * x - 3`,
/// `x * logistic(x)`): one or two ops, each against a scalar uniform over the chunk or a value read
/// at the same index (a contiguous load or a register computed before). The last op carries the
/// epilogue; the function and the op between are absorbed (they run on their own only over a chunk
/// where the epilogue cannot: a per-row scalar not uniform over it, or a CPU without AVX-512).
#[derive(Clone, Copy, Debug)]
pub(super) struct Epilogue {
    /// The function instruction.
    pub(super) func: usize,
    /// The op between the function and the instruction carrying the epilogue, if there are two.
    pub(super) between: Option<usize>,
}

/// The epilogue each instruction carries; marks the instructions absorbed into one.
pub(super) fn epilogues(expr: &Expr, steps: &[Step], scalar_ops: &[Option<ScalarBinary>], absorbed: &mut [bool]) -> Vec<Option<Epilogue>> {
    let n = expr.instrs.len();
    let mut users = vec![Vec::new(); n];
    for (i, ins) in expr.instrs.iter().enumerate() {
        for r in operands(ins) {
            users[r].push(i);
        }
    }
    // The only user of `r`, if it can be a post of a value flowing from `r`.
    let post_of = |r: usize, absorbed: &[bool]| -> Option<usize> {
        let &[j] = users[r].as_slice() else { return None };
        let Instr::Binary(op, a, b) = expr.instrs[j] else { return None };
        if r == n - 1 || absorbed[j] || expr.elems[j] != E::F32 || !matches!(op, B::Add | B::Subtract | B::Multiply) || a == b {
            return None;
        }
        let other = if a == r { b } else { a };
        let ok = match scalar_ops[j] {
            Some(sb) => sb.vector == r,
            None => !absorbed[other] && matches!(steps[other], Step::Load { .. } | Step::Other),
        };
        ok.then_some(j)
    };
    let mut epilogue = vec![None; n];
    for f in 0..n {
        let Instr::Unary(op, _) = expr.instrs[f] else { continue };
        if expr.elems[f] != E::F32 || !prologue_function(op) {
            continue;
        }
        let Some(j) = post_of(f, absorbed) else { continue };
        absorbed[f] = true;
        match post_of(j, absorbed) {
            Some(k) => {
                absorbed[j] = true;
                epilogue[k] = Some(Epilogue { func: f, between: Some(j) });
            }
            None => epilogue[j] = Some(Epilogue { func: f, between: None }),
        }
    }
    epilogue
}
