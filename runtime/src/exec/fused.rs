//! Evaluation of fused elementwise expressions ([`apu_compiler::plan::Expr`]) over ranges of a
//! kernel's flat index space, CHUNK elements at a time, so that every intermediate stays in L1 and
//! each instruction is a tight loop over a small array the compiler can vectorise.

use super::fastmath::{self, Lanes};
use apu_compiler::ir::{BinaryOp as B, ComparisonDirection as D, ComparisonType, ElementType as E, UnaryOp as U};
use apu_compiler::plan::{Expr, Instr, KScalar};
use apu_compiler::{Error, Result};

pub const CHUNK: usize = 1024;

/// Rows at least this long end chunks where they end, when a per-row operand has a scalar form:
/// a chunk within one row then takes the scalar form, where one straddling rows looks the value up
/// per element. Shorter rows straddle (more, smaller chunks would cost more than the lookups).
const MIN_ROW_CUT: usize = 256;

/// Vector extensions the kernels are compiled for, picked at run time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CpuLevel {
    Avx512,
    Avx2,
    Baseline,
}

/// The vector extensions this process uses (detected once; `APU_CPU_LEVEL` may force a lower one).
pub(crate) fn cpu_level() -> CpuLevel {
    *CPU_LEVEL
}

static CPU_LEVEL: once_cell::sync::Lazy<CpuLevel> = once_cell::sync::Lazy::new(|| {
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &str| match f {
            "avx512" => std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("bmi2"),
            _ => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
        };
        let forced = std::env::var("APU_CPU_LEVEL").ok();
        match forced.as_deref() {
            Some("baseline") => return CpuLevel::Baseline,
            Some("avx2") if has("avx2") => return CpuLevel::Avx2,
            _ => {}
        }
        if has("avx512") {
            return CpuLevel::Avx512;
        }
        if has("avx2") {
            return CpuLevel::Avx2;
        }
    }
    CpuLevel::Baseline
});

/// One register: CHUNK values of one element type (Pred as 0/1 bytes).
pub enum Buf {
    F32(Vec<f32>),
    F64(Vec<f64>),
    S32(Vec<i32>),
    S64(Vec<i64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    Pred(Vec<u8>),
}

/// An operand of an instruction: a register, or the input itself when a load would only have
/// copied a contiguous run of it (reading in place saves that copy).
#[derive(Clone, Copy)]
enum Src<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
    S32(&'a [i32]),
    S64(&'a [i64]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    Pred(&'a [u8]),
}

impl<'a> Src<'a> {
    fn of(b: &'a Buf) -> Src<'a> {
        match b {
            Buf::F32(v) => Src::F32(v),
            Buf::F64(v) => Src::F64(v),
            Buf::S32(v) => Src::S32(v),
            Buf::S64(v) => Src::S64(v),
            Buf::U32(v) => Src::U32(v),
            Buf::U64(v) => Src::U64(v),
            Buf::Pred(v) => Src::Pred(v),
        }
    }

    /// `len` elements of type `elem` from element `index` of `p`.
    ///
    /// # Safety
    /// `p` must hold that many elements of `elem`, alive and unchanged for `'a`.
    unsafe fn raw(elem: E, p: *const u8, index: usize, len: usize) -> Src<'a> {
        use std::slice::from_raw_parts as s;
        match elem {
            E::F32 => Src::F32(s((p as *const f32).wrapping_add(index), len)),
            E::F64 => Src::F64(s((p as *const f64).wrapping_add(index), len)),
            E::S32 => Src::S32(s((p as *const i32).wrapping_add(index), len)),
            E::S64 => Src::S64(s((p as *const i64).wrapping_add(index), len)),
            E::U32 => Src::U32(s((p as *const u32).wrapping_add(index), len)),
            E::U64 => Src::U64(s((p as *const u64).wrapping_add(index), len)),
            _ => Src::Pred(s(p.wrapping_add(index), len)),
        }
    }
}

/// Where an instruction writes its `len` values: a register, or, for the last instruction of a
/// stored kernel, the output buffer itself (saving a copy of every chunk).
enum Out<'a> {
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
    S32(&'a mut [i32]),
    S64(&'a mut [i64]),
    U32(&'a mut [u32]),
    U64(&'a mut [u64]),
    Pred(&'a mut [u8]),
}

impl<'a> Out<'a> {
    fn of(b: &'a mut Buf) -> Out<'a> {
        match b {
            Buf::F32(v) => Out::F32(v),
            Buf::F64(v) => Out::F64(v),
            Buf::S32(v) => Out::S32(v),
            Buf::S64(v) => Out::S64(v),
            Buf::U32(v) => Out::U32(v),
            Buf::U64(v) => Out::U64(v),
            Buf::Pred(v) => Out::Pred(v),
        }
    }

    /// `len` elements of type `elem` at `p`.
    ///
    /// # Safety
    /// `p` must hold that many elements of `elem`, written by nobody else and read through no
    /// other reference while the view lives.
    unsafe fn raw(elem: E, p: *mut u8, len: usize) -> Out<'a> {
        use std::slice::from_raw_parts_mut as s;
        match elem {
            E::F32 => Out::F32(s(p as *mut f32, len)),
            E::F64 => Out::F64(s(p as *mut f64, len)),
            E::S32 => Out::S32(s(p as *mut i32, len)),
            E::S64 => Out::S64(s(p as *mut i64, len)),
            E::U32 => Out::U32(s(p as *mut u32, len)),
            E::U64 => Out::U64(s(p as *mut u64, len)),
            _ => Out::Pred(s(p, len)),
        }
    }
}

thread_local! {
    /// Registers of finished kernels, one free list per element type (see [`Compiled::with_registers`]).
    static SPARE_REGISTERS: std::cell::RefCell<SpareRegisters> = const { std::cell::RefCell::new(SpareRegisters::new()) };
}

/// Registers kept per thread and element type (each is one chunk: 1 to 8 KiB).
const MAX_SPARE_PER_TYPE: usize = 128;

/// Free registers by element type, and emptied register lists (so a kernel's call allocates
/// nothing once its thread has run a kernel with as many registers of each type).
struct SpareRegisters {
    by_type: [Vec<Buf>; 7],
    lists: Vec<Vec<Buf>>,
}

impl SpareRegisters {
    const fn new() -> Self {
        SpareRegisters { by_type: [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()], lists: Vec::new() }
    }

    fn slot(elem: E) -> usize {
        match elem {
            E::F32 => 0,
            E::F64 => 1,
            E::S32 => 2,
            E::S64 => 3,
            E::U32 => 4,
            E::U64 => 5,
            _ => 6,
        }
    }

    fn take(&mut self, elems: &[E]) -> Vec<Buf> {
        let mut regs = self.lists.pop().unwrap_or_default();
        regs.extend(elems.iter().map(|&e| match self.by_type[Self::slot(e)].pop() {
            Some(b) => b,
            None => Buf::new(e).expect("fused element types are checked at compile time"),
        }));
        regs
    }

    fn give_back(&mut self, mut regs: Vec<Buf>) {
        for b in regs.drain(..) {
            let free = &mut self.by_type[Self::slot(b.elem())];
            if free.len() < MAX_SPARE_PER_TYPE {
                free.push(b);
            }
        }
        if self.lists.len() < 8 {
            self.lists.push(regs);
        }
    }
}

impl Buf {
    fn elem(&self) -> E {
        match self {
            Buf::F32(_) => E::F32,
            Buf::F64(_) => E::F64,
            Buf::S32(_) => E::S32,
            Buf::S64(_) => E::S64,
            Buf::U32(_) => E::U32,
            Buf::U64(_) => E::U64,
            Buf::Pred(_) => E::Pred,
        }
    }

    fn new(elem: E) -> Result<Buf> {
        Ok(match elem {
            E::F32 => Buf::F32(vec![0.0; CHUNK]),
            E::F64 => Buf::F64(vec![0.0; CHUNK]),
            E::S32 => Buf::S32(vec![0; CHUNK]),
            E::S64 => Buf::S64(vec![0; CHUNK]),
            E::U32 => Buf::U32(vec![0; CHUNK]),
            E::U64 => Buf::U64(vec![0; CHUNK]),
            E::Pred => Buf::Pred(vec![0; CHUNK]),
            other => return Err(Error::unimplemented(format!("fused kernels on {other}"))),
        })
    }
}

/// Element types fused kernels handle.
pub fn elem_supported(elem: E) -> bool {
    matches!(elem, E::F32 | E::F64 | E::S32 | E::S64 | E::U32 | E::U64 | E::Pred)
}

pub fn unary_supported(op: U, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => !matches!(op, U::Not | U::PopulationCount | U::CountLeadingZeros | U::Imag | U::Real),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(op, U::Negate | U::Abs | U::Sign | U::Not | U::PopulationCount | U::CountLeadingZeros),
        E::Pred => op == U::Not,
        _ => false,
    }
}

pub fn binary_supported(op: B, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide | B::Maximum | B::Minimum | B::Power | B::Remainder | B::Atan2),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(
            op,
            B::Add
                | B::Subtract
                | B::Multiply
                | B::Divide
                | B::Remainder
                | B::Maximum
                | B::Minimum
                | B::And
                | B::Or
                | B::Xor
                | B::ShiftLeft
                | B::ShiftRightLogical
                | B::ShiftRightArithmetic
        ),
        E::Pred => matches!(op, B::And | B::Or | B::Xor),
        _ => false,
    }
}

pub fn compare_supported(ty: Option<ComparisonType>, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(ty, None | Some(ComparisonType::Float)),
        E::S32 | E::S64 => matches!(ty, None | Some(ComparisonType::Signed)),
        E::U32 | E::U64 => matches!(ty, None | Some(ComparisonType::Unsigned)),
        // 0/1 bytes, false < true (JAX compares i1 as UNSIGNED, e.g. in `floor_divide`).
        E::Pred => matches!(ty, None | Some(ComparisonType::Unsigned)),
        _ => false,
    }
}

pub fn convert_supported(from: E, to: E) -> bool {
    elem_supported(from) && elem_supported(to) && to != E::Pred
}

/// How a load instruction addresses its input, decided once at compile time.
#[derive(Clone, Debug)]
enum Access {
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
fn scalar_forms(expr: &Expr, steps: &[Step]) -> (Vec<Option<ScalarBinary>>, Vec<bool>) {
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
fn operands(ins: &Instr) -> Vec<usize> {
    match *ins {
        Instr::Load { .. } | Instr::Const(_) | Instr::Iota { .. } => vec![],
        Instr::Unary(_, a) | Instr::Convert(a) => vec![a],
        Instr::Binary(_, a, b) | Instr::Compare(_, _, a, b) => vec![a, b],
        Instr::Select(a, b, c) | Instr::Clamp(a, b, c) => vec![a, b, c],
    }
}

/// The trailing axes of `shape` from which every stride is 0 (size-1 axes ignored), as their index.
fn broadcast_tail(shape: &[i64], strides: &[isize]) -> usize {
    let mut k = shape.len();
    while k > 0 && (shape[k - 1] == 1 || strides[k - 1] == 0) {
        k -= 1;
    }
    k
}

/// `(size, stride)` of axes `dims` of `shape` taken as one axis, if they are laid out as one.
fn merged(shape: &[i64], strides: &[isize], dims: std::ops::Range<usize>) -> Option<(usize, isize)> {
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
fn special_access(view: &apu_compiler::plan::View, shape: &[i64]) -> Option<Access> {
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
struct RowDivider {
    inner: usize,
    /// ceil(2^64 / inner): for i < 2^32, floor(i * magic / 2^64) = floor(i / inner).
    magic: u64,
}

impl RowDivider {
    fn new(inner: usize) -> RowDivider {
        let inner = inner.max(1);
        let magic = if inner == 1 { 0 } else { (u64::MAX / inner as u64) + 1 };
        RowDivider { inner, magic }
    }

    /// `i / inner`.
    #[inline(always)]
    fn row(self, i: usize) -> usize {
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
enum Step {
    Load { input: usize, access: Access },
    /// A constant: its register is filled once per run of chunks, not per chunk.
    Const(KScalar),
    Other,
}

/// An f32 binary instruction with one operand that is the same for a whole chunk (a constant, a
/// broadcast scalar, or a per-row value within one row): evaluated against that scalar, without
/// filling a register with copies of it.
#[derive(Clone, Copy, Debug)]
struct ScalarBinary {
    op: B,
    /// The register varying along the chunk.
    vector: usize,
    /// The register that is uniform over a chunk (when it is: see `Compiled::uniform`).
    uniform: usize,
    /// Whether the uniform operand is the left one.
    uniform_left: bool,
}

/// Binary ops with a scalar form.
fn scalar_binary_op(op: B) -> bool {
    matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide | B::Maximum | B::Minimum)
}

/// `o = a op k` (or `k op a`) for f32, with the same rules as the register form.
#[inline(always)]
fn binary_scalar_f32(op: B, a: &[f32], k: f32, o: &mut [f32], k_left: bool) {
    match (op, k_left) {
        (B::Add, _) => map1(a, o, |x| x + k),
        (B::Multiply, _) => map1(a, o, |x| x * k),
        (B::Subtract, false) => map1(a, o, |x| x - k),
        (B::Subtract, true) => map1(a, o, |x| k - x),
        // Division by a broadcast value is a multiplication by its reciprocal, as XLA:CPU
        // rewrites it (docs/decisions.md 24); the general path below does the same per element.
        (B::Divide, false) => {
            let r = 1.0 / k;
            map1(a, o, |x| x * r)
        }
        (B::Divide, true) => map1(a, o, |x| k / x),
        (B::Maximum, false) => map1(a, o, |x| max_f32(x, k)),
        (B::Maximum, true) => map1(a, o, |x| max_f32(k, x)),
        (B::Minimum, false) => map1(a, o, |x| min_f32(x, k)),
        (B::Minimum, true) => map1(a, o, |x| min_f32(k, x)),
        _ => {}
    }
}

/// One or two scalar ops (`+ k`, `- k`, `k -`, `* k`) whose only user is an f32 exp, tanh or
/// logistic: the function's loop applies them to `src` itself (`tanh(x * 0.5 + 0.1)`,
/// `exp(x - row_max)`), saving a pass over the chunk, with the same roundings as separate ops.
#[derive(Clone, Copy, Debug)]
struct Prologue {
    /// The register (or contiguous load) the first op reads.
    src: usize,
    /// The ops' instructions, in the order they apply (their `scalar_ops` give op and operand).
    ops: [Option<usize>; 2],
}

/// Ops a prologue may hold.
fn prologue_op(sb: &ScalarBinary) -> bool {
    matches!(sb.op, B::Add | B::Multiply | B::Subtract)
}

/// Functions whose loops take a prologue.
fn prologue_function(op: U) -> bool {
    matches!(op, U::Exponential | U::Tanh | U::Logistic)
}

/// The prologue of each instruction, and which instructions are absorbed into one.
fn prologues(expr: &Expr, scalar_ops: &[Option<ScalarBinary>]) -> (Vec<Option<Prologue>>, Vec<bool>) {
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
struct Epilogue {
    /// The function instruction.
    func: usize,
    /// The op between the function and the instruction carrying the epilogue, if there are two.
    between: Option<usize>,
}

/// The epilogue each instruction carries; marks the instructions absorbed into one.
fn epilogues(expr: &Expr, steps: &[Step], scalar_ops: &[Option<ScalarBinary>], absorbed: &mut [bool]) -> Vec<Option<Epilogue>> {
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

/// Where an f32 instruction writes its `len` values: `out` if not null, else its register.
///
/// # Safety
/// A non-null `out` must hold `len` f32 values that nothing else uses.
#[inline(always)]
unsafe fn f32_out<'a>(reg: &'a mut Buf, out: *mut u8, len: usize) -> Option<&'a mut [f32]> {
    if !out.is_null() {
        return Some(std::slice::from_raw_parts_mut(out as *mut f32, len));
    }
    match reg {
        Buf::F32(v) => Some(&mut v[..len]),
        _ => None,
    }
}

/// Its argument: a place where a closure may carry `#[inline(always)]`, which kernels compiled for
/// a vector extension need (a closure not inlined into them runs without it).
#[inline(always)]
fn inlined<F>(f: F) -> F {
    f
}

/// Runs `$body` with `$p` bound to the closure of scalar op `$op` against `$k` (`$left`: `k op x`)
/// on values of type `$t` (`f32`, or a register of lanes).
macro_rules! with_scalar_op {
    ($t:ty, $op:expr, $k:expr, $left:expr, |$p:ident| $body:expr) => {
        match ($op, $left) {
            (B::Add, _) => {
                let $p = inlined(#[inline(always)] move |x: $t| x.add(<$t as Lanes>::splat($k)));
                $body
            }
            (B::Multiply, _) => {
                let $p = inlined(#[inline(always)] move |x: $t| x.mul(<$t as Lanes>::splat($k)));
                $body
            }
            (B::Subtract, false) => {
                let $p = inlined(#[inline(always)] move |x: $t| x.sub(<$t as Lanes>::splat($k)));
                $body
            }
            (B::Subtract, true) => {
                let $p = inlined(#[inline(always)] move |x: $t| <$t as Lanes>::splat($k).sub(x));
                $body
            }
            _ => false,
        }
    };
}

/// `o = f(pre(a))` for a prologue function `f`.
#[inline(always)]
fn unary_with_prologue<M: fastmath::Madd>(op: U, a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) -> bool {
    match op {
        U::Tanh => map1(a, o, #[inline(always)] |x| fastmath::tanh_f32::<M>(pre(x))),
        U::Exponential => fastmath::exp_map_slice_f32::<M>(a, o, pre),
        U::Logistic => fastmath::logistic_map_slice_f32::<M>(a, o, pre),
        _ => return false,
    }
    true
}

/// An expression prepared for evaluation: the plan's instructions with load addressing resolved.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub expr: Expr,
    steps: Vec<Step>,
    /// Per instruction: its scalar form, if it has one.
    scalar_ops: Vec<Option<ScalarBinary>>,
    /// Per instruction: whether its register is read only by scalar forms (so a chunk over which
    /// it is uniform need not fill it).
    only_scalar_users: Vec<bool>,
    shape: Vec<usize>,
    /// The instructions a chunk runs, in order: all but contiguous loads (read in place by their
    /// users) and constants or broadcast scalars read only in scalar form (never in a register).
    run_list: Vec<u32>,
    /// Per instruction: the scalar ops computing its operand in its own loop (see [`Prologue`]).
    prologue: Vec<Option<Prologue>>,
    /// Per instruction: the function and ops it stands for in one loop (see [`Epilogue`]).
    epilogue: Vec<Option<Epilogue>>,
    /// Per instruction: whether it is part of a later instruction's prologue or epilogue (it then
    /// runs only when that cannot, over a chunk where a scalar operand is not uniform).
    absorbed: Vec<bool>,
    /// Where chunks end besides every CHUNK elements: at the ends of rows this long (see
    /// [`MIN_ROW_CUT`]), or nowhere.
    row_cut: Option<RowDivider>,
    /// Element type of each kernel input, as read by its loads.
    pub input_elems: Vec<E>,
    /// The expression on machine integers, when it has one element of integer ops.
    pub scalar: Option<super::scalar::ScalarExpr>,
    /// The expression evaluated with the interpreter's scalar functions, when it has one element
    /// and either a type the registers lack or only ops both compute exactly (see
    /// [`super::one_element`]).
    pub one_element: Option<std::sync::Arc<super::one_element::OneElement>>,
    /// The expression as a tiled copy, when it is one load of a transposed view.
    pub(crate) transposed: Option<super::transpose::Transposed>,
}

impl Compiled {
    pub fn new(expr: &Expr, shape: &[i64], num_inputs: usize) -> Result<Compiled> {
        Compiled::build(expr, shape, num_inputs, true)
    }

    /// `epilogues`: whether ops after a function may run in its loop (off only to test them).
    fn build(expr: &Expr, shape: &[i64], num_inputs: usize, epilogues_on: bool) -> Result<Compiled> {
        let shape_u: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        let one = shape.iter().product::<i64>() == 1;
        if !expr.elems.iter().all(|&e| elem_supported(e)) {
            // Only the one-element evaluator has these types; the lowering makes no larger kernel of them.
            let one_element = match one {
                true => super::one_element::OneElement::new(expr, shape)?,
                false => return Err(Error::unimplemented(format!("fused kernels of {} elements on {:?}", shape_u.iter().product::<usize>(), expr.elems))),
            };
            return Ok(Compiled::one_element_only(expr, shape_u, num_inputs, std::sync::Arc::new(one_element)));
        }
        let one_element = match one && super::one_element::exact_on_vector_types(expr) {
            true => super::one_element::OneElement::new(expr, shape).ok().map(std::sync::Arc::new),
            false => None,
        };
        let mut input_elems = vec![E::Pred; num_inputs];
        let mut steps = Vec::with_capacity(expr.instrs.len());
        for (i, ins) in expr.instrs.iter().enumerate() {
            let elem = expr.elems[i];
            if !elem_supported(elem) {
                return Err(Error::unimplemented(format!("fused kernels on {elem}")));
            }
            let arg = |r: usize| expr.elems.get(r).copied().filter(|_| r < i).ok_or_else(|| Error::internal("fused register out of order"));
            let step = match ins {
                Instr::Load { input, view } => {
                    *input_elems.get_mut(*input).ok_or_else(|| Error::internal("fused load of a missing input"))? = elem;
                    let access = if view.is_contiguous(shape) {
                        Access::Contiguous(view.offset)
                    } else if view.is_scalar(shape) {
                        Access::Scalar(view.offset)
                    } else if let Some(a) = special_access(view, shape) {
                        a
                    } else {
                        Access::Strided { offset: view.offset as isize, strides: view.strides.clone() }
                    };
                    Step::Load { input: *input, access }
                }
                Instr::Const(k) => Step::Const(*k),
                Instr::Unary(u, a) if !unary_supported(*u, arg(*a)?) => return Err(Error::unimplemented(format!("fused {u:?} on {elem}"))),
                Instr::Binary(b, a, _) if !binary_supported(*b, arg(*a)?) => {
                    return Err(Error::unimplemented(format!("fused {b:?} on {elem}")))
                }
                Instr::Compare(_, t, a, _) if !compare_supported(*t, arg(*a)?) => return Err(Error::unimplemented("fused compare")),
                Instr::Convert(a) if !convert_supported(arg(*a)?, elem) => return Err(Error::unimplemented("fused convert")),
                _ => Step::Other,
            };
            steps.push(step);
        }
        if expr.instrs.is_empty() {
            return Err(Error::internal("empty fused expression"));
        }
        let (scalar_ops, only_scalar_users) = scalar_forms(expr, &steps);
        let scalar = super::scalar::ScalarExpr::new(expr, shape);
        let last = steps.len() - 1;
        let run_list = (0..steps.len())
            .filter(|&i| {
                let in_place = matches!(steps[i], Step::Load { access: Access::Contiguous(_), .. }) && i != last;
                let always_uniform = only_scalar_users[i] && matches!(steps[i], Step::Const(KScalar::F32(_)) | Step::Load { access: Access::Scalar(_), .. });
                !in_place && !always_uniform
            })
            .map(|i| i as u32)
            .collect();
        let (prologue, mut absorbed) = prologues(expr, &scalar_ops);
        let epilogue = if epilogues_on { epilogues(expr, &steps, &scalar_ops, &mut absorbed) } else { vec![None; steps.len()] };
        let row_cut = (0..steps.len())
            .filter_map(|r| match steps[r] {
                Step::Load { access: Access::PerRow { inner, .. }, .. } if scalar_ops.iter().flatten().any(|sb| sb.uniform == r) => Some(inner),
                _ => None,
            })
            .min()
            .filter(|&inner| inner >= MIN_ROW_CUT)
            .map(RowDivider::new);
        let transposed = match steps.as_slice() {
            [Step::Load { input: 0, access: Access::Strided { offset, strides } }] => super::transpose::Transposed::new(&shape_u, strides, *offset, expr.elems[0].byte_size()),
            _ => None,
        };
        Ok(Compiled { expr: expr.clone(), steps, scalar_ops, only_scalar_users, shape: shape_u, run_list, prologue, epilogue, absorbed, row_cut, input_elems, scalar, one_element, transposed })
    }

    /// Whether the vector evaluator runs this kernel (reduce kernels need it): false for a kernel
    /// only the one-element evaluator has.
    pub fn on_vector_kernels(&self) -> bool {
        !self.steps.is_empty()
    }

    /// A kernel that only the one-element evaluator runs (the executor never asks it for
    /// registers or chunks: it has one element).
    fn one_element_only(expr: &Expr, shape: Vec<usize>, num_inputs: usize, one_element: std::sync::Arc<super::one_element::OneElement>) -> Compiled {
        let mut input_elems = vec![E::Pred; num_inputs];
        for (ins, &e) in expr.instrs.iter().zip(&expr.elems) {
            if let Instr::Load { input, .. } = ins {
                if let Some(slot) = input_elems.get_mut(*input) {
                    *slot = e;
                }
            }
        }
        Compiled {
            expr: expr.clone(),
            steps: Vec::new(),
            scalar_ops: Vec::new(),
            only_scalar_users: Vec::new(),
            shape,
            run_list: Vec::new(),
            prologue: Vec::new(),
            epilogue: Vec::new(),
            absorbed: Vec::new(),
            row_cut: None,
            input_elems,
            scalar: None,
            one_element: Some(one_element),
            transposed: None,
        }
    }

    /// `(input, offset)` when the whole expression is one contiguous load (`x[offset + i]`): a
    /// reduce of it can then fold the input in place instead of copying it into a register first.
    pub fn as_contiguous_load(&self) -> Option<(usize, usize)> {
        match self.steps.as_slice() {
            [Step::Load { input, access: Access::Contiguous(offset) }] => Some((*input, *offset)),
            _ => None,
        }
    }

    /// Fresh registers for one thread.
    pub fn registers(&self) -> Result<Vec<Buf>> {
        self.expr.elems.iter().map(|&e| Buf::new(e)).collect()
    }

    /// Runs `f` with registers for this expression, taken from this thread's spare registers of
    /// each element type (small kernels in loops would otherwise spend most of their time
    /// allocating registers: a loop body runs its kernels thousands of times, a reduce over short
    /// rows evaluates its input once per row). Spare registers are kept by type, not as sets per
    /// kernel: a plan has more distinct kernels than a thread can keep sets for, and a set cache
    /// that is full made every kernel not in it allocate and zero its registers on every call.
    pub fn with_registers<R>(&self, f: impl FnOnce(&mut [Buf]) -> R) -> R {
        let mut regs = SPARE_REGISTERS.with(|spare| spare.borrow_mut().take(&self.expr.elems));
        let out = f(&mut regs);
        SPARE_REGISTERS.with(|spare| spare.borrow_mut().give_back(regs));
        out
    }

    /// Evaluates flat indices `start..start + len` (len <= CHUNK) into the registers; the result is
    /// in the last register. `consts_ready`: these registers were used by this expression's
    /// previous call, with at least `len` elements, so its constant registers still hold their
    /// values (only step `i` writes register `i`, and constants fill the lanes of their call).
    ///
    /// # Safety
    /// `inputs[i]` must point to a buffer of `input_elems[i]` covering every index the loads reach.
    /// Only the elements reached need to be in bounds: a row group hands in a block's scratch
    /// buffer as the address element 0 would have (out of bounds), so loads and stores offset
    /// pointers with wrapping arithmetic.
    pub unsafe fn eval(&self, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool) {
        self.eval_to(inputs, start, len, regs, consts_ready, std::ptr::null_mut())
    }

    /// As [`Compiled::eval`], but the last instruction writes its values straight to `out` (element
    /// `start` of the output) instead of the last register, when `out` is not null.
    ///
    /// # Safety
    /// As [`Compiled::eval`]; a non-null `out` must hold `len` elements of the result type, and no
    /// input may share memory with them (an in-place kernel must pass null and store the register).
    pub unsafe fn eval_to(&self, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
        // Each instruction runs in a function compiled for the best vector extension the CPU has
        // (chosen once). One function per instruction rather than one for the whole chunk: a
        // function holding every op's loop and a loop over the instructions had LLVM hoist set-up
        // for all of those loops to its entry, about 25 ns per call, which a one-chunk kernel in a
        // `lax.scan` body paid on every iteration.
        let step: StepFn = match *CPU_LEVEL {
            CpuLevel::Avx512 => step_avx512,
            CpuLevel::Avx2 => step_avx2,
            CpuLevel::Baseline => step_baseline,
        };
        for &i in &self.run_list {
            let i = i as usize;
            if !self.absorbed[i] {
                step(self, i, inputs, start, len, regs, consts_ready, out);
            }
        }
    }

    /// The value of f32 register `r` if it is the same over the chunk `start..start + len`.
    ///
    /// # Safety
    /// As [`Compiled::eval`].
    #[inline(always)]
    unsafe fn uniform(&self, r: usize, inputs: &[*const u8], start: usize, len: usize) -> Option<f32> {
        match &self.steps[r] {
            Step::Const(KScalar::F32(x)) => Some(*x),
            Step::Load { input, access: Access::Scalar(off) } => Some(*(inputs[*input] as *const f32).wrapping_add(*off)),
            Step::Load { input, access: Access::PerRow { offset, stride, rows, .. } } => {
                if len == 0 {
                    return None;
                }
                let row = rows.row(start);
                (rows.row(start + len - 1) == row).then(|| *(inputs[*input] as *const f32).wrapping_add(offset + row * stride))
            }
            _ => None,
        }
    }

    /// Instruction `i` of a chunk (see [`Compiled::eval_to`]); `WIDE`: compiled for AVX-512.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn eval_step<M: fastmath::Madd, const WIDE: bool>(&self, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
        let last = self.steps.len() - 1;
        let to = if i == last { out } else { std::ptr::null_mut() };
        if let Some(e) = self.epilogue[i] {
            #[cfg(target_arch = "x86_64")]
            if WIDE && epilogue_avx512(self, i, e, regs, inputs, start, len, to) {
                return;
            }
            // The absorbed instructions first, each in its own loop.
            self.computed::<M>(e.func, regs, inputs, start, len, std::ptr::null_mut());
            if let Some(j) = e.between {
                self.scalar_or_general::<M>(j, regs, inputs, start, len, std::ptr::null_mut());
            }
        }
        match &self.steps[i] {
            // Registers read only in scalar form are not filled when uniform over the chunk
            // (per-row values: when the chunk lies within one row).
            _ if self.only_scalar_users[i] && self.uniform(i, inputs, start, len).is_some() => {}
            Step::Load { input, access } => load(self.dst(i, &mut regs[i], to, len), inputs[*input], access, &self.shape, start, len),
            Step::Const(_) if consts_ready && i != last => {}
            // Only `len` lanes: a scalar kernel in a loop would otherwise fill a whole chunk
            // per constant per call.
            Step::Const(k) => fill_const(*k, self.dst(i, &mut regs[i], to, len), len),
            Step::Other => self.computed::<M>(i, regs, inputs, start, len, to),
        }
    }

    /// Computed instruction `i` into its register, or into `to` if not null: with its prologue in
    /// one loop when it has one that this chunk allows.
    #[inline(always)]
    unsafe fn computed<M: fastmath::Madd>(&self, i: usize, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, to: *mut u8) {
        if let Some(p) = self.prologue[i] {
            if self.with_prologue::<M>(i, p, regs, inputs, start, len, to) {
                return;
            }
            // An operand not uniform over this chunk: the absorbed ops run first, as usual.
            for j in p.ops.into_iter().flatten() {
                self.scalar_or_general::<M>(j, regs, inputs, start, len, std::ptr::null_mut());
            }
        }
        self.scalar_or_general::<M>(i, regs, inputs, start, len, to)
    }

    /// Instruction `i` with the epilogue it carries (and the function's prologue) in one loop over
    /// AVX-512 registers, if every scalar operand is uniform over the chunk (else false, and
    /// nothing is written).
    ///
    /// # Safety
    /// As [`Compiled::eval_to`], on a CPU with AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn with_epilogue(&self, i: usize, e: Epilogue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
        use fastmath::x16::{function_with_posts, F32x16, Post, PostOp, PostOperand};
        let Instr::Unary(op, operand) = self.expr.instrs[e.func] else { return false };
        let (src, first, second) = match self.prologue[e.func] {
            Some(p) => match (self.prologue_operand(p.ops[0], inputs, start, len), self.prologue_operand(p.ops[1], inputs, start, len)) {
                (Some(first), Some(second)) => (p.src, first, second),
                _ => return false,
            },
            None => (operand, None, None),
        };
        let (lo, hi) = regs.split_at_mut(i);
        let mut posts = [Post { op: PostOp::Add, result_left: true, operand: PostOperand::Scalar(0.0) }; 2];
        let mut count = 0;
        let mut flowing = e.func;
        for j in [e.between, Some(i)].into_iter().flatten() {
            let Instr::Binary(bop, a, b) = self.expr.instrs[j] else { return false };
            let op = match bop {
                B::Add => PostOp::Add,
                B::Multiply => PostOp::Multiply,
                B::Subtract => PostOp::Subtract,
                _ => return false,
            };
            posts[count] = match self.scalar_ops[j] {
                Some(sb) => {
                    let Some(k) = self.uniform(sb.uniform, inputs, start, len) else { return false };
                    // As `binary_scalar_f32`: the scalar on the right but for `k - x`.
                    Post { op, result_left: op != PostOp::Subtract || !sb.uniform_left, operand: PostOperand::Scalar(k) }
                }
                None => {
                    let other = if a == flowing { b } else { a };
                    let v = self.f32_operand(other, lo, inputs, start, len);
                    if v.len() != len {
                        return false;
                    }
                    Post { op, result_left: a == flowing, operand: PostOperand::Vector(v) }
                }
            };
            count += 1;
            flowing = j;
        }
        let posts = &posts[..count];
        let a = self.f32_operand(src, lo, inputs, start, len);
        let Some(o) = f32_out(&mut hi[0], out, len) else { return false };
        if a.len() != len {
            return false;
        }
        // The prologue as a closure on registers, monomorphised into the loop like the f32 one.
        macro_rules! run {
            ($pre:expr) => {{
                function_with_posts(op, a, o, $pre, posts);
                true
            }};
        }
        match (first, second) {
            (None, _) => run!(#[inline(always)] |x: F32x16| x),
            (Some((s0, k0)), None) => with_scalar_op!(F32x16, s0.op, k0, s0.uniform_left, |p0| run!(p0)),
            (Some((s0, k0)), Some((s1, k1))) => {
                with_scalar_op!(F32x16, s0.op, k0, s0.uniform_left, |p0| with_scalar_op!(F32x16, s1.op, k1, s1.uniform_left, |p1| run!(#[inline(always)] move |x| p1(p0(x)))))
            }
        }
    }

    /// Where instruction `i` writes: `out` (`len` elements) if not null, else its register.
    ///
    /// # Safety
    /// A non-null `out` must hold `len` elements of the instruction's type, used by nothing else.
    #[inline(always)]
    unsafe fn dst<'a>(&self, i: usize, reg: &'a mut Buf, out: *mut u8, len: usize) -> Out<'a> {
        if out.is_null() {
            Out::of(reg)
        } else {
            Out::raw(self.expr.elems[i], out, len)
        }
    }

    /// The length of the chunk at `start` in a range ending at `end`.
    #[inline(always)]
    fn chunk_len(&self, start: usize, end: usize) -> usize {
        let len = CHUNK.min(end - start);
        match self.row_cut {
            Some(rows) => len.min(rows.inner - (start - rows.row(start) * rows.inner)),
            None => len,
        }
    }

    /// An f32 register (or contiguous load read in place) as a slice of the chunk.
    ///
    /// # Safety
    /// As [`Compiled::eval`].
    #[inline(always)]
    unsafe fn f32_operand<'a>(&self, r: usize, lo: &'a [Buf], inputs: &[*const u8], start: usize, len: usize) -> &'a [f32] {
        match &self.steps[r] {
            Step::Load { input, access: Access::Contiguous(off) } => std::slice::from_raw_parts((inputs[*input] as *const f32).wrapping_add(off + start), len),
            _ => match &lo[r] {
                Buf::F32(v) => &v[..len],
                _ => &[],
            },
        }
    }

    /// Computed instruction `i` (not a load or constant) into its register, or into `out` if not
    /// null: in scalar form when its uniform operand is uniform over the chunk.
    #[inline(always)]
    unsafe fn scalar_or_general<M: fastmath::Madd>(&self, i: usize, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) {
        let (lo, hi) = regs.split_at_mut(i);
        let dst = self.dst(i, &mut hi[0], out, len);
        if let Some(sb) = self.scalar_ops[i] {
            if let (Some(k), Out::F32(o)) = (self.uniform(sb.uniform, inputs, start, len), dst) {
                let a = self.f32_operand(sb.vector, lo, inputs, start, len);
                binary_scalar_f32(sb.op, a, k, &mut o[..len], sb.uniform_left);
                return;
            }
            // Not uniform over this chunk after all: the general form below.
            let dst = self.dst(i, &mut hi[0], out, len);
            if let (B::Divide, false, Out::F32(o)) = (sb.op, sb.uniform_left, dst) {
                // The same values as the scalar form: the reciprocal of each row's divisor.
                let (a, d) = (self.f32_operand(sb.vector, lo, inputs, start, len), self.f32_operand(sb.uniform, lo, inputs, start, len));
                map2(a, d, &mut o[..len], |x, y| x * (1.0 / y));
                return;
            }
            let dst = self.dst(i, &mut hi[0], out, len);
            self.compute_general::<M>(i, lo, inputs, dst, start, len);
            return;
        }
        self.compute_general::<M>(i, lo, inputs, dst, start, len);
    }

    /// A prologue op and the value of its uniform operand over the chunk: `Some(None)` for no op,
    /// `None` when the operand is not uniform over this chunk.
    ///
    /// # Safety
    /// As [`Compiled::eval`].
    #[inline(always)]
    unsafe fn prologue_operand(&self, j: Option<usize>, inputs: &[*const u8], start: usize, len: usize) -> Option<Option<(ScalarBinary, f32)>> {
        let Some(j) = j else { return Some(None) };
        let sb = self.scalar_ops[j]?;
        let k = self.uniform(sb.uniform, inputs, start, len)?;
        Some(Some((sb, k)))
    }

    /// Instruction `i` with its prologue in one loop, if every prologue operand is uniform over
    /// the chunk (else false, and nothing is written).
    #[inline(always)]
    unsafe fn with_prologue<M: fastmath::Madd>(&self, i: usize, p: Prologue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
        let Instr::Unary(op, _) = self.expr.instrs[i] else { return false };
        let (Some(Some((s0, k0))), Some(second)) = (self.prologue_operand(p.ops[0], inputs, start, len), self.prologue_operand(p.ops[1], inputs, start, len)) else {
            return false;
        };
        let (lo, hi) = regs.split_at_mut(i);
        let a = self.f32_operand(p.src, lo, inputs, start, len);
        let Some(o) = f32_out(&mut hi[0], out, len) else { return false };
        if a.len() != len {
            return false;
        }
        with_scalar_op!(f32, s0.op, k0, s0.uniform_left, |p0| match second {
            None => unary_with_prologue::<M>(op, a, o, p0),
            Some((s1, k1)) => with_scalar_op!(f32, s1.op, k1, s1.uniform_left, |p1| unary_with_prologue::<M>(op, a, o, #[inline(always)] move |x| p1(p0(x)))),
        })
    }

    /// Instruction `i` on full registers (operands from `lo`, the registers before it, or read in
    /// place from contiguous inputs).
    #[inline(always)]
    unsafe fn compute_general<M: fastmath::Madd>(&self, i: usize, lo: &[Buf], inputs: &[*const u8], dst: Out<'_>, start: usize, len: usize) {
        let src = |r: usize| match &self.steps[r] {
            // SAFETY: the caller guarantees that the inputs cover every loaded index.
            Step::Load { input, access: Access::Contiguous(off) } => unsafe { Src::raw(self.expr.elems[r], inputs[*input], off + start, len) },
            _ => Src::of(&lo[r]),
        };
        compute::<M>(&self.expr.instrs[i], src, dst, &self.shape, start, len)
    }
}

/// One instruction of a chunk, compiled for one vector extension (see [`Compiled::eval_to`]).
type StepFn = unsafe fn(&Compiled, usize, &[*const u8], usize, usize, &mut [Buf], bool, *mut u8);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn step_avx512(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Fused, true>(i, inputs, start, len, regs, consts_ready, out)
}

/// [`Compiled::with_epilogue`] in a function of its own: inlined into the instruction functions, its
/// many register temporaries made their stack frames (every instruction's) megabytes large in
/// unoptimised builds, which overflowed a worker thread's stack.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn epilogue_avx512(ex: &Compiled, i: usize, e: Epilogue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
    ex.with_epilogue(i, e, regs, inputs, start, len, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn step_avx2(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Fused, false>(i, inputs, start, len, regs, consts_ready, out)
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn step_avx512(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    step_baseline(ex, i, inputs, start, len, regs, consts_ready, out)
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn step_avx2(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    step_baseline(ex, i, inputs, start, len, regs, consts_ready, out)
}

#[inline(never)]
unsafe fn step_baseline(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Separate, false>(i, inputs, start, len, regs, consts_ready, out)
}

/// Evaluates flat indices `range` of the expression and stores them to `out` (`esize` bytes per
/// element) on this thread, CHUNK elements at a time.
///
/// # Safety
/// As [`Compiled::eval`]; `out` must hold the range's elements, and no other thread may write them.
pub unsafe fn eval_store(ex: &Compiled, inputs: &[*const u8], out: *mut u8, range: std::ops::Range<usize>, esize: usize) {
    // An in-place kernel's output is one of its inputs: its chunks are computed whole in the
    // registers before they overwrite that input. Otherwise the last instruction writes straight
    // to the output.
    if inputs.contains(&(out as *const u8)) {
        eval_chunks(ex, inputs, range, |result, start, len| store(result, out.wrapping_add(start * esize), len));
    } else {
        chunk_loop(ex, inputs, range, |start| out.wrapping_add(start * esize), |_, _, _| {});
    }
}

/// Evaluates flat indices `range` of the expression CHUNK elements at a time on this thread and
/// hands each chunk's result register, first index and length to `each`.
///
/// # Safety
/// As [`Compiled::eval`].
pub unsafe fn eval_chunks(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, each: impl FnMut(&Buf, usize, usize)) {
    chunk_loop(ex, inputs, range, |_| std::ptr::null_mut(), each);
}

/// The one chunk loop that stores and reductions share: chunk by chunk, the expression is
/// evaluated with its last instruction writing to `out_at(start)` (its register when null), then
/// `each` gets the last register, the chunk's first index and its length.
///
/// # Safety
/// As [`Compiled::eval_to`] for every chunk's output pointer.
unsafe fn chunk_loop(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, out_at: impl Fn(usize) -> *mut u8, mut each: impl FnMut(&Buf, usize, usize)) {
    ex.with_registers(|regs| {
        let last = regs.len() - 1;
        let mut start = range.start;
        // Lanes of the constant registers filled by the last call that filled them (chunks cut at
        // row ends may be followed by longer ones).
        let mut filled = 0;
        while start < range.end {
            let len = ex.chunk_len(start, range.end);
            let consts_ready = len <= filled;
            ex.eval_to(inputs, start, len, regs, consts_ready, out_at(start));
            if !consts_ready {
                filled = len;
            }
            each(&regs[last], start, len);
            start += len;
        }
    });
}

/// Coordinates of flat index `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        out[d] = i % n;
        i /= n;
    }
}

/// Visits flat indices `start..start+len` of `shape` as runs along the last dimension, giving
/// `(position, element index of the run's first element, run length)` where the element index is
/// `offset + sum(coords * strides)`; within a run it advances by the last stride.
#[inline(always)]
fn for_runs(shape: &[usize], strides: &[isize], offset: isize, start: usize, len: usize, mut f: impl FnMut(usize, isize, usize)) {
    let rank = shape.len();
    if rank == 0 {
        if len > 0 {
            f(0, offset, len);
        }
        return;
    }
    let mut coords = [0usize; 16];
    let mut big;
    let coords: &mut [usize] = if rank <= 16 {
        &mut coords[..rank]
    } else {
        big = vec![0usize; rank];
        &mut big[..]
    };
    unravel(start, shape, coords);
    let last = rank - 1;
    let n_last = shape[last];
    let mut j = 0;
    while j < len {
        let base = offset + coords.iter().zip(strides).map(|(&c, &s)| c as isize * s).sum::<isize>();
        let run = (n_last - coords[last]).min(len - j);
        f(j, base, run);
        j += run;
        // Next row: carry into the outer dimensions.
        coords[last] = 0;
        let mut d = last;
        while d > 0 {
            d -= 1;
            coords[d] += 1;
            if coords[d] < shape[d] {
                break;
            }
            coords[d] = 0;
        }
    }
}

/// Visits flat indices `start..start+len` of `shape`, giving `(position, element index)`.
fn for_strided(shape: &[usize], strides: &[isize], offset: isize, start: usize, len: usize, mut f: impl FnMut(usize, isize)) {
    let s_last = strides.last().copied().unwrap_or(0);
    for_runs(shape, strides, offset, start, len, #[inline(always)] |j, base, run| {
        for k in 0..run {
            f(j + k, base + k as isize * s_last);
        }
    });
}

macro_rules! load_typed {
    ($v:expr, $t:ty, $src:expr, $access:expr, $shape:expr, $start:expr, $len:expr) => {{
        let p = $src as *const $t;
        match $access {
            Access::Contiguous(off) => {
                std::ptr::copy_nonoverlapping(p.wrapping_add(off + $start), $v.as_mut_ptr(), $len);
            }
            Access::Scalar(off) => {
                let x = *p.wrapping_add(*off);
                $v[..$len].fill(x);
            }
            Access::PerRow { offset, inner, stride, rows } => {
                let (mut j, mut i) = (0, $start);
                while j < $len {
                    let row = rows.row(i);
                    let run = ((row + 1) * inner - i).min($len - j);
                    $v[j..j + run].fill(*p.wrapping_add(offset + row * stride));
                    j += run;
                    i += run;
                }
            }
            Access::Cyclic { offset, period } => {
                let (mut j, mut pos) = (0, $start % period);
                while j < $len {
                    let run = (period - pos).min($len - j);
                    std::ptr::copy_nonoverlapping(p.wrapping_add(offset + pos), $v[j..j + run].as_mut_ptr(), run);
                    j += run;
                    pos = 0;
                }
            }
            Access::Strided { offset, strides } => {
                let v = &mut $v[..];
                // Broadcast rows (last stride 0) fill, contiguous rows copy, others gather.
                match strides.last().copied().unwrap_or(0) {
                    0 => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| v[j..j + run].fill(*p.wrapping_offset(base))),
                    1 => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| {
                        std::ptr::copy_nonoverlapping(p.wrapping_offset(base), v[j..j + run].as_mut_ptr(), run)
                    }),
                    s_last => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| {
                        for k in 0..run {
                            v[j + k] = *p.wrapping_offset(base + k as isize * s_last);
                        }
                    }),
                }
            }
        }
    }};
}

#[inline(always)]
unsafe fn load(dst: Out<'_>, src: *const u8, access: &Access, shape: &[usize], start: usize, len: usize) {
    match dst {
        Out::F32(v) => load_typed!(v, f32, src, access, shape, start, len),
        Out::F64(v) => load_typed!(v, f64, src, access, shape, start, len),
        Out::S32(v) => load_typed!(v, i32, src, access, shape, start, len),
        Out::S64(v) => load_typed!(v, i64, src, access, shape, start, len),
        Out::U32(v) => load_typed!(v, u32, src, access, shape, start, len),
        Out::U64(v) => load_typed!(v, u64, src, access, shape, start, len),
        Out::Pred(v) => load_typed!(v, u8, src, access, shape, start, len),
    }
}

/// IEEE maximum/minimum as the interpreter does them: NaN wins, +0 > -0.
macro_rules! float_minmax {
    ($name_max:ident, $name_min:ident, $t:ty) => {
        #[inline(always)]
        fn $name_max(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                if x.is_sign_negative() { y } else { x }
            } else if x > y {
                x
            } else {
                y
            }
        }
        #[inline(always)]
        fn $name_min(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                if x.is_sign_negative() { x } else { y }
            } else if x < y {
                x
            } else {
                y
            }
        }
    };
}
float_minmax!(max_f32, min_f32, f32);
float_minmax!(max_f64, min_f64, f64);

#[inline(always)]
pub fn fmax32(x: f32, y: f32) -> f32 {
    max_f32(x, y)
}
#[inline(always)]
pub fn fmin32(x: f32, y: f32) -> f32 {
    min_f32(x, y)
}
#[inline(always)]
pub fn fmax64(x: f64, y: f64) -> f64 {
    max_f64(x, y)
}
#[inline(always)]
pub fn fmin64(x: f64, y: f64) -> f64 {
    min_f64(x, y)
}

/// The f64 function of a float unary op, as the interpreter computes it.
// f64 kernels use the interpreter's own functions, so the fast path and the oracle share one definition of
// each op's semantics. The planner only sends float ops these tables cover; the fallbacks are never reached.
fn unary_f64(op: U) -> fn(f64) -> f64 {
    crate::interp::elementwise::float_unary(op).unwrap_or(|x| x)
}

fn binary_f64(op: B) -> fn(f64, f64) -> f64 {
    crate::interp::elementwise::float_binary(op).unwrap_or(|x, _| x)
}

#[inline(always)]
fn map1<T: Copy, R>(a: &[T], out: &mut [R], f: impl Fn(T) -> R) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}
#[inline(always)]
fn map2<T: Copy, R>(a: &[T], b: &[T], out: &mut [R], f: impl Fn(T, T) -> R) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// `out = a <d> b` as 0/1; the direction is matched once, outside the loop, so each loop is a
/// plain vector compare.
#[inline(always)]
fn compare_into<T: PartialOrd + Copy>(d: D, a: &[T], b: &[T], out: &mut [u8]) {
    match d {
        D::Eq => map2(a, b, out, |x, y| (x == y) as u8),
        D::Ne => map2(a, b, out, |x, y| (x != y) as u8),
        D::Ge => map2(a, b, out, |x, y| (x >= y) as u8),
        D::Gt => map2(a, b, out, |x, y| (x > y) as u8),
        D::Le => map2(a, b, out, |x, y| (x <= y) as u8),
        D::Lt => map2(a, b, out, |x, y| (x < y) as u8),
    }
}

/// Integer unary ops with the interpreter's rules: negation and absolute value wrap (`abs(MIN)`
/// is MIN; an unsigned value is its own absolute value), sign is -1/0/1 (0/1 unsigned), and the
/// bit counts look at the two's complement pattern.
macro_rules! int_unary {
    ($op:expr, $a:expr, $o:expr, $t:ty) => {
        match $op {
            U::Negate => map1($a, $o, <$t>::wrapping_neg),
            #[allow(unused_comparisons)]
            U::Abs => map1($a, $o, |x: $t| if x < 0 as $t { x.wrapping_neg() } else { x }),
            #[allow(unused_comparisons)]
            U::Sign => map1($a, $o, |x: $t| if x > 0 as $t { 1 as $t } else if x < 0 as $t { (0 as $t).wrapping_sub(1) } else { 0 as $t }),
            U::Not => map1($a, $o, |x: $t| !x),
            U::PopulationCount => map1($a, $o, |x: $t| x.count_ones() as $t),
            U::CountLeadingZeros => map1($a, $o, |x: $t| x.leading_zeros() as $t),
            _ => {}
        }
    };
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $o:expr, $t:ty) => {
        int_binary!($op, $a, $b, $o, $t, <$t as IntBits>::U, <$t as IntBits>::S)
    };
    ($op:expr, $a:expr, $b:expr, $o:expr, $t:ty, $u:ty, $s:ty) => {
        match $op {
            // Shift amounts are read as unsigned; amounts >= the width shift everything out
            // (arithmetic right shifts then fill with the sign), the interpreter's rules.
            B::ShiftLeft => map2($a, $b, $o, |x: $t, y: $t| {
                let n = y as $u;
                if n >= <$u>::BITS as $u { 0 as $t } else { ((x as $u) << n) as $t }
            }),
            B::ShiftRightLogical => map2($a, $b, $o, |x: $t, y: $t| {
                let n = y as $u;
                if n >= <$u>::BITS as $u { 0 as $t } else { ((x as $u) >> n) as $t }
            }),
            B::ShiftRightArithmetic => map2($a, $b, $o, |x: $t, y: $t| {
                let n = (y as $u).min(<$u>::BITS as $u - 1);
                ((x as $s) >> n) as $t
            }),
            B::Add => map2($a, $b, $o, <$t>::wrapping_add),
            B::Subtract => map2($a, $b, $o, <$t>::wrapping_sub),
            B::Multiply => map2($a, $b, $o, <$t>::wrapping_mul),
            // x / 0 is all ones; MIN / -1 is MIN; x % 0 is x; MIN % -1 is 0 (the interpreter's rules).
            B::Divide => map2($a, $b, $o, |x: $t, y: $t| if y == 0 { (0 as $t).wrapping_sub(1) } else { x.wrapping_div(y) }),
            B::Remainder => map2($a, $b, $o, |x: $t, y: $t| if y == 0 { x } else { x.wrapping_rem(y) }),
            B::Maximum => map2($a, $b, $o, |x: $t, y: $t| x.max(y)),
            B::Minimum => map2($a, $b, $o, |x: $t, y: $t| x.min(y)),
            B::And => map2($a, $b, $o, |x: $t, y: $t| x & y),
            B::Or => map2($a, $b, $o, |x: $t, y: $t| x | y),
            B::Xor => map2($a, $b, $o, |x: $t, y: $t| x ^ y),
            _ => {}
        }
    };
}

/// The unsigned and signed types of the same width, for shifts.
trait IntBits {
    type U;
    type S;
}
impl IntBits for i32 {
    type U = u32;
    type S = i32;
}
impl IntBits for u32 {
    type U = u32;
    type S = i32;
}
impl IntBits for i64 {
    type U = u64;
    type S = i64;
}
impl IntBits for u64 {
    type U = u64;
    type S = i64;
}

/// Converts register `src` into `dst` (a different or the same type), with the interpreter's rules:
/// float → int truncates and saturates (NaN → 0), int → int wraps, int → float rounds once.
#[inline(always)]
fn convert(src: Src, dst: Out<'_>, n: usize) {
    macro_rules! from {
        ($a:expr, $conv_f32:expr, $conv_f64:expr, $conv_s32:expr, $conv_s64:expr, $conv_u32:expr, $conv_u64:expr) => {
            match dst {
                Out::F32(o) => map1(&$a[..n], &mut o[..n], $conv_f32),
                Out::F64(o) => map1(&$a[..n], &mut o[..n], $conv_f64),
                Out::S32(o) => map1(&$a[..n], &mut o[..n], $conv_s32),
                Out::S64(o) => map1(&$a[..n], &mut o[..n], $conv_s64),
                Out::U32(o) => map1(&$a[..n], &mut o[..n], $conv_u32),
                Out::U64(o) => map1(&$a[..n], &mut o[..n], $conv_u64),
                Out::Pred(_) => {}
            }
        };
    }
    match src {
        Src::F32(a) => from!(a, |x| x, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::F64(a) => from!(a, |x| x as f32, |x| x, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::S32(a) => from!(a, |x| x as f32, |x| x as f64, |x| x, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::S64(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x, |x| x as u32, |x| x as u64),
        Src::U32(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x, |x| x as u64),
        Src::U64(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x),
        Src::Pred(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
    }
}

#[inline(always)]
fn select(p: &[u8], t: Src, f: Src, dst: Out<'_>, n: usize) {
    macro_rules! sel {
        ($a:expr, $b:expr, $o:expr) => {
            // Zipped slices of one length: no bounds checks, so this becomes a vector blend
            // (a branch per element mispredicts on masks like a relu's).
            for (((o, &c), &x), &y) in $o[..n].iter_mut().zip(&p[..n]).zip(&$a[..n]).zip(&$b[..n]) {
                *o = if c != 0 { x } else { y };
            }
        };
    }
    match (t, f, dst) {
        (Src::F32(a), Src::F32(b), Out::F32(o)) => sel!(a, b, o),
        (Src::F64(a), Src::F64(b), Out::F64(o)) => sel!(a, b, o),
        (Src::S32(a), Src::S32(b), Out::S32(o)) => sel!(a, b, o),
        (Src::S64(a), Src::S64(b), Out::S64(o)) => sel!(a, b, o),
        (Src::U32(a), Src::U32(b), Out::U32(o)) => sel!(a, b, o),
        (Src::U64(a), Src::U64(b), Out::U64(o)) => sel!(a, b, o),
        (Src::Pred(a), Src::Pred(b), Out::Pred(o)) => sel!(a, b, o),
        _ => {}
    }
}

#[inline(always)]
fn fill_const(k: KScalar, dst: Out<'_>, n: usize) {
    match (k, dst) {
        (KScalar::F32(x), Out::F32(o)) => o[..n].fill(x),
        (KScalar::F64(x), Out::F64(o)) => o[..n].fill(x),
        (KScalar::S32(x), Out::S32(o)) => o[..n].fill(x),
        (KScalar::S64(x), Out::S64(o)) => o[..n].fill(x),
        (KScalar::U32(x), Out::U32(o)) => o[..n].fill(x),
        (KScalar::U64(x), Out::U64(o)) => o[..n].fill(x),
        (KScalar::Pred(x), Out::Pred(o)) => o[..n].fill(x as u8),
        _ => {}
    }
}

fn iota(dim: usize, shape: &[usize], start: usize, n: usize, dst: Out<'_>) {
    let mut strides = vec![0isize; shape.len()];
    if dim < shape.len() {
        strides[dim] = 1;
    }
    macro_rules! io {
        ($o:expr, $t:ty) => {
            for_strided(shape, &strides, 0, start, n, |j, c| $o[j] = c as $t)
        };
    }
    match dst {
        Out::F32(o) => io!(o, f32),
        Out::F64(o) => io!(o, f64),
        Out::S32(o) => io!(o, i32),
        Out::S64(o) => io!(o, i64),
        Out::U32(o) => io!(o, u32),
        Out::U64(o) => io!(o, u64),
        Out::Pred(o) => io!(o, u8),
    }
}

#[inline(always)]
fn compute<'r, M: fastmath::Madd>(ins: &Instr, src: impl Fn(usize) -> Src<'r>, dst: Out<'_>, shape: &[usize], start: usize, n: usize) {
    match *ins {
        Instr::Load { .. } => {}
        Instr::Const(k) => fill_const(k, dst, n),
        Instr::Iota { dim } => iota(dim, shape, start, n, dst),
        Instr::Unary(op, a) => match (src(a), dst) {
            (Src::F32(a), Out::F32(o)) => {
                let (a, o) = (&a[..n], &mut o[..n]);
                match op {
                    U::Negate => map1(a, o, |x| -x),
                    U::Abs => map1(a, o, f32::abs),
                    U::Sqrt => map1(a, o, f32::sqrt),
                    U::Exponential => fastmath::exp_slice_f32::<M>(a, o),
                    U::Tanh => map1(a, o, fastmath::tanh_f32::<M>),
                    U::Logistic => fastmath::logistic_slice_f32::<M>(a, o),
                    U::Rsqrt => map1(a, o, |x| (1.0 / (x as f64).sqrt()) as f32),
                    _ => {
                        let g = unary_f64(op);
                        map1(a, o, |x| g(x as f64) as f32)
                    }
                }
            }
            (Src::F32(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x.is_finite() as u8),
            (Src::F64(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x.is_finite() as u8),
            (Src::F64(a), Out::F64(o)) => map1(&a[..n], &mut o[..n], unary_f64(op)),
            (Src::S32(a), Out::S32(o)) => int_unary!(op, &a[..n], &mut o[..n], i32),
            (Src::S64(a), Out::S64(o)) => int_unary!(op, &a[..n], &mut o[..n], i64),
            (Src::U32(a), Out::U32(o)) => int_unary!(op, &a[..n], &mut o[..n], u32),
            (Src::U64(a), Out::U64(o)) => int_unary!(op, &a[..n], &mut o[..n], u64),
            (Src::Pred(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x ^ 1),
            _ => {}
        },
        Instr::Binary(op, a, b) => match (src(a), src(b), dst) {
            (Src::F32(a), Src::F32(b), Out::F32(o)) => {
                let (a, b, o) = (&a[..n], &b[..n], &mut o[..n]);
                match op {
                    B::Add => map2(a, b, o, |x, y| x + y),
                    B::Subtract => map2(a, b, o, |x, y| x - y),
                    B::Multiply => map2(a, b, o, |x, y| x * y),
                    B::Divide => map2(a, b, o, |x, y| x / y),
                    B::Maximum => map2(a, b, o, max_f32),
                    B::Minimum => map2(a, b, o, min_f32),
                    _ => {
                        let g = binary_f64(op);
                        map2(a, b, o, |x, y| g(x as f64, y as f64) as f32)
                    }
                }
            }
            (Src::F64(a), Src::F64(b), Out::F64(o)) => map2(&a[..n], &b[..n], &mut o[..n], binary_f64(op)),
            (Src::S32(a), Src::S32(b), Out::S32(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], i32),
            (Src::S64(a), Src::S64(b), Out::S64(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], i64),
            (Src::U32(a), Src::U32(b), Out::U32(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], u32),
            (Src::U64(a), Src::U64(b), Out::U64(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], u64),
            (Src::Pred(a), Src::Pred(b), Out::Pred(o)) => match op {
                B::And => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x & y),
                B::Or => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x | y),
                _ => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x ^ y),
            },
            _ => {}
        },
        Instr::Compare(d, _, a, b) => {
            let Out::Pred(o) = dst else { return };
            let o = &mut o[..n];
            match (src(a), src(b)) {
                (Src::F32(a), Src::F32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::F64(a), Src::F64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::S32(a), Src::S32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::S64(a), Src::S64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::U32(a), Src::U32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::U64(a), Src::U64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::Pred(a), Src::Pred(b)) => compare_into(d, &a[..n], &b[..n], o),
                _ => {}
            }
        }
        Instr::Select(p, t, f) => {
            if let Src::Pred(p) = src(p) {
                select(p, src(t), src(f), dst, n)
            }
        }
        Instr::Clamp(lo, x, hi) => {
            macro_rules! clamp {
                ($l:expr, $x:expr, $h:expr, $o:expr, $max:expr, $min:expr) => {
                    for j in 0..n {
                        $o[j] = $min($max($x[j], $l[j]), $h[j]);
                    }
                };
            }
            match (src(lo), src(x), src(hi), dst) {
                (Src::F32(l), Src::F32(x), Src::F32(h), Out::F32(o)) => clamp!(l, x, h, o, max_f32, min_f32),
                (Src::F64(l), Src::F64(x), Src::F64(h), Out::F64(o)) => clamp!(l, x, h, o, max_f64, min_f64),
                (Src::S32(l), Src::S32(x), Src::S32(h), Out::S32(o)) => clamp!(l, x, h, o, i32::max, i32::min),
                (Src::S64(l), Src::S64(x), Src::S64(h), Out::S64(o)) => clamp!(l, x, h, o, i64::max, i64::min),
                (Src::U32(l), Src::U32(x), Src::U32(h), Out::U32(o)) => clamp!(l, x, h, o, u32::max, u32::min),
                (Src::U64(l), Src::U64(x), Src::U64(h), Out::U64(o)) => clamp!(l, x, h, o, u64::max, u64::min),
                // Pred as 0/1 bytes: false < true, as the interpreter orders it.
                (Src::Pred(l), Src::Pred(x), Src::Pred(h), Out::Pred(o)) => clamp!(l, x, h, o, u8::max, u8::min),
                _ => {}
            }
        }
        Instr::Convert(a) => convert(src(a), dst, n),
    }
}

/// Copies the first `len` values of a register to `dst` (typed as the register).
///
/// # Safety
/// `dst` must have room for `len` elements of the register's type.
pub unsafe fn store(reg: &Buf, dst: *mut u8, len: usize) {
    match reg {
        Buf::F32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut f32, len),
        Buf::F64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut f64, len),
        Buf::S32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut i32, len),
        Buf::S64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut i64, len),
        Buf::U32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut u32, len),
        Buf::U64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut u64, len),
        Buf::Pred(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst, len),
    }
}

#[cfg(test)]
mod tests {
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
}
