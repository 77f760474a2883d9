//! The [`Compiled`] kernel: an expression prepared for evaluation, and the evaluation of one
//! chunk of it instruction by instruction (scalar forms, prologues, epilogues, general
//! registers).

use super::*;
use super::fastmath::{self, Lanes};
use apu_compiler::ir::{BinaryOp as B, ElementType as E, UnaryOp as U};
use apu_compiler::plan::{Expr, Instr, KScalar};
use apu_compiler::{Error, Result};

/// Where an f32 instruction writes its `len` values: `out` if not null, else its register.
///
/// # Safety
/// A non-null `out` must hold `len` f32 values that nothing else uses.
#[inline(always)]
pub(super) unsafe fn f32_out<'a>(reg: &'a mut Buf, out: *mut u8, len: usize) -> Option<&'a mut [f32]> {
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
pub(super) fn inlined<F>(f: F) -> F {
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
pub(super) fn unary_with_prologue<M: fastmath::Madd>(op: U, a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) -> bool {
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
    pub(super) steps: Vec<Step>,
    /// Per instruction: its scalar form, if it has one.
    pub(super) scalar_ops: Vec<Option<ScalarBinary>>,
    /// Per instruction: whether its register is read only by scalar forms (so a chunk over which
    /// it is uniform need not fill it).
    pub(super) only_scalar_users: Vec<bool>,
    pub(super) shape: Vec<usize>,
    /// The instructions a chunk runs, in order: all but contiguous loads (read in place by their
    /// users) and constants or broadcast scalars read only in scalar form (never in a register).
    pub(super) run_list: Vec<u32>,
    /// Per instruction: the scalar ops computing its operand in its own loop (see [`Prologue`]).
    pub(super) prologue: Vec<Option<Prologue>>,
    /// Per instruction: the function and ops it stands for in one loop (see [`Epilogue`]).
    pub(super) epilogue: Vec<Option<Epilogue>>,
    /// Per instruction: whether it is part of a later instruction's prologue or epilogue (it then
    /// runs only when that cannot, over a chunk where a scalar operand is not uniform).
    pub(super) absorbed: Vec<bool>,
    /// Where chunks end besides every CHUNK elements: at the ends of rows this long (see
    /// [`MIN_ROW_CUT`]), or nowhere.
    pub(super) row_cut: Option<RowDivider>,
    /// Element type of each kernel input, as read by its loads.
    pub input_elems: Vec<E>,
    /// The expression on machine integers, when it has one element of integer ops.
    pub scalar: Option<crate::exec::scalar::ScalarExpr>,
    /// The expression evaluated on widened values, when it has one element and either a type the
    /// registers lack or only ops both compute exactly (see [`crate::exec::one_element`]).
    pub one_element: Option<std::sync::Arc<crate::exec::one_element::OneElement>>,
    /// The expression as a tiled copy, when it is one load of a transposed view.
    pub(crate) transposed: Option<crate::exec::transpose::Transposed>,
}

impl Compiled {
    pub fn new(expr: &Expr, shape: &[i64], num_inputs: usize) -> Result<Compiled> {
        Compiled::build(expr, shape, num_inputs, true)
    }

    /// `epilogues`: whether ops after a function may run in its loop (off only to test them).
    pub(super) fn build(expr: &Expr, shape: &[i64], num_inputs: usize, epilogues_on: bool) -> Result<Compiled> {
        let shape_u: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        let one = shape.iter().product::<i64>() == 1;
        if !expr.elems.iter().all(|&e| elem_supported(e)) {
            // Only the one-element evaluator has these types; the lowering makes no larger kernel of them.
            let one_element = match one {
                true => crate::exec::one_element::OneElement::new(expr, shape)?,
                false => return Err(Error::unimplemented(format!("fused kernels of {} elements on {:?}", shape_u.iter().product::<usize>(), expr.elems))),
            };
            return Ok(Compiled::one_element_only(expr, shape_u, num_inputs, std::sync::Arc::new(one_element)));
        }
        let one_element = match one && crate::exec::one_element::exact_on_vector_types(expr) {
            true => crate::exec::one_element::OneElement::new(expr, shape).ok().map(std::sync::Arc::new),
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
                    if is_narrow(elem) {
                        Step::Widen { input: *input, access, elem }
                    } else {
                        Step::Load { input: *input, access }
                    }
                }
                Instr::Convert(a) if is_narrow(elem) && convert_supported(arg(*a)?, elem) => Step::Narrowed { elem, from_float: arg(*a)?.is_float() },
                Instr::Iota { .. } if is_narrow(elem) => Step::Narrowed { elem, from_float: false },
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
        let scalar = crate::exec::scalar::ScalarExpr::new(expr, shape);
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
            [Step::Load { input: 0, access: Access::Strided { offset, strides } }] => crate::exec::transpose::Transposed::new(&shape_u, strides, *offset, expr.elems[0].byte_size()),
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
    pub(super) fn one_element_only(expr: &Expr, shape: Vec<usize>, num_inputs: usize, one_element: std::sync::Arc<crate::exec::one_element::OneElement>) -> Compiled {
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
        // A narrow result is computed in its register's lanes and narrowed into `out` after.
        let last = self.expr.elems.len() - 1;
        let narrow = is_narrow(self.expr.elems[last]).then_some(out).filter(|o| !o.is_null());
        let out = if narrow.is_some() { std::ptr::null_mut() } else { out };
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
        if let Some(to) = narrow {
            store_as(&regs[last], self.expr.elems[last], to, len);
        }
    }

    /// The value of f32 register `r` if it is the same over the chunk `start..start + len`.
    ///
    /// # Safety
    /// As [`Compiled::eval`].
    #[inline(always)]
    pub(super) unsafe fn uniform(&self, r: usize, inputs: &[*const u8], start: usize, len: usize) -> Option<f32> {
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
    pub(super) unsafe fn eval_step<M: fastmath::Madd, const WIDE: bool>(&self, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
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
            Step::Widen { input, access, elem } => load_widened(*elem, Out::of(&mut regs[i]), inputs[*input], access, &self.shape, start, len),
            Step::Narrowed { elem, from_float } => {
                self.computed::<M>(i, regs, inputs, start, len, std::ptr::null_mut());
                narrow_lanes(*elem, *from_float, Out::of(&mut regs[i]), len);
            }
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
    pub(super) unsafe fn computed<M: fastmath::Madd>(&self, i: usize, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, to: *mut u8) {
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
    pub(super) unsafe fn with_epilogue(&self, i: usize, e: Epilogue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
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
    pub(super) unsafe fn dst<'a>(&self, i: usize, reg: &'a mut Buf, out: *mut u8, len: usize) -> Out<'a> {
        if out.is_null() {
            Out::of(reg)
        } else {
            Out::raw(self.expr.elems[i], out, len)
        }
    }

    /// The length of the chunk at `start` in a range ending at `end`.
    #[inline(always)]
    pub(super) fn chunk_len(&self, start: usize, end: usize) -> usize {
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
    pub(super) unsafe fn f32_operand<'a>(&self, r: usize, lo: &'a [Buf], inputs: &[*const u8], start: usize, len: usize) -> &'a [f32] {
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
    pub(super) unsafe fn scalar_or_general<M: fastmath::Madd>(&self, i: usize, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) {
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
    pub(super) unsafe fn prologue_operand(&self, j: Option<usize>, inputs: &[*const u8], start: usize, len: usize) -> Option<Option<(ScalarBinary, f32)>> {
        let Some(j) = j else { return Some(None) };
        let sb = self.scalar_ops[j]?;
        let k = self.uniform(sb.uniform, inputs, start, len)?;
        Some(Some((sb, k)))
    }

    /// Instruction `i` with its prologue in one loop, if every prologue operand is uniform over
    /// the chunk (else false, and nothing is written).
    #[inline(always)]
    pub(super) unsafe fn with_prologue<M: fastmath::Madd>(&self, i: usize, p: Prologue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
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
    pub(super) unsafe fn compute_general<M: fastmath::Madd>(&self, i: usize, lo: &[Buf], inputs: &[*const u8], dst: Out<'_>, start: usize, len: usize) {
        let src = |r: usize| match &self.steps[r] {
            // SAFETY: the caller guarantees that the inputs cover every loaded index.
            Step::Load { input, access: Access::Contiguous(off) } => unsafe { Src::raw(self.expr.elems[r], inputs[*input], off + start, len) },
            _ => Src::of(&lo[r]),
        };
        compute::<M>(&self.expr.instrs[i], src, dst, &self.shape, start, len)
    }
}
