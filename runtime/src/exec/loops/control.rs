//! `while` and `case` steps: nested blocks run over the plan's slots.
//!
//! A loop such as `lax.scan` runs its condition and body thousands of times on small tensors, so
//! the per-iteration bookkeeping matters as much as the kernels: the loop state lives in one
//! vector for the whole loop (moved into the body's params and back, no per-iteration vectors),
//! and a condition that is a single scalar elementwise kernel (JAX's `i < n`) is evaluated
//! straight into a byte on the stack instead of through slots, a pooled buffer and an `Arc`.
//! A body made only of elementwise kernels (a scan step such as `tanh(c * 0.5 + 0.1)`, the counter
//! increment) and one-element slices and updates ([`super::loop_body`]) runs on buffers and
//! registers set up once per loop: each kernel writes its own buffer (or, an update, its operand's
//! in place), and a state element produced by a kernel swaps buffers with it after each iteration.
//! Runs of one-element kernels in such a body run as one register program each
//! ([`super::body_program`]) instead of kernel by kernel.

use crate::exec::fused::{Buf, CHUNK};
use super::loop_body::{FastBody, Source, Work};
use crate::exec::scalar::{self, ScalarExpr};
use crate::exec::{Executable, Pool, Prepared, Ptr, Slots};
use crate::AlignedBytes;
use apu_compiler::ir::{ComparisonDirection as D, ElementType, TensorType};
use apu_compiler::plan::{Block, SlotId, StepKind};
use apu_compiler::{Error, Result};
use crate::rng::RunRng;
use std::sync::Arc;

/// A condition that is one elementwise kernel producing the scalar `pred` the block returns.
#[derive(Debug)]
struct FastCond {
    /// The kernel's step id (its prepared expression).
    step: usize,
    inputs: Vec<Source>,
    /// `(input, d, type, k)` when the condition is `x d k` for a constant `k`.
    bound: Option<(usize, D, ElementType, i64)>,
    /// The condition in scalar form, for a loop run whole as machine code.
    scalar: Option<ScalarExpr>,
}

/// A loop counted by one state element, as JAX's `fori_loop` and `scan` are: the condition is
/// `i < n`, `i <= n` or `i != n` for a constant `n`, and the body adds a positive constant to `i`.
/// The trip count is then known when the loop starts: the condition is not evaluated, and the
/// counter's next value is stored rather than computed by its kernel (each of which cost about as
/// much per iteration as a scan step's real work on 128 elements).
#[derive(Clone, Copy, Debug)]
pub(in crate::exec) struct Counter {
    /// The state element counting.
    state: usize,
    /// The body kernel computing its next value.
    kernel: usize,
    elem: ElementType,
    /// Step and limit, held as [`ScalarExpr`] holds values.
    step: i64,
    bound: D,
    limit: i64,
}

/// A held value of type `e` as the number it stands for.
fn wide(v: i64, e: ElementType) -> i128 {
    match e {
        ElementType::U64 => v as u64 as i128,
        _ => v as i128,
    }
}

fn type_max(e: ElementType) -> i128 {
    match e {
        ElementType::S32 => i32::MAX as i128,
        ElementType::U32 => u32::MAX as i128,
        ElementType::U64 => u64::MAX as i128,
        _ => i64::MAX as i128,
    }
}

impl Counter {
    /// The body kernel computing the counter's next value.
    pub(in crate::exec) fn kernel(&self) -> usize {
        self.kernel
    }

    fn of(fc: &FastCond, fb: &FastBody) -> Option<Counter> {
        let (input, bound, elem, limit) = fc.bound?;
        let Source::State(state) = *fc.inputs.get(input)? else { return None };
        let kernel = (*fb.next.get(state)?)?;
        let (k_input, k_elem, step) = fb.kernels[kernel].increment?;
        let reads_counter = matches!(fb.kernels[kernel].inputs.get(k_input), Some(Source::State(s)) if *s == state);
        let counts_up = matches!(bound, D::Lt | D::Le | D::Ne) && wide(step, elem) > 0;
        (reads_counter && k_elem == elem && counts_up).then_some(Counter { state, kernel, elem, step, bound, limit })
    }

    /// The number of iterations from held start value `start`, or None when the counter would
    /// wrap around its type before the condition fails (or never meet a `!=` limit): such a loop
    /// runs the general way.
    fn trips(&self, start: i64) -> Option<u64> {
        let (x0, step, limit) = (wide(start, self.elem), wide(self.step, self.elem), wide(self.limit, self.elem));
        let n = match self.bound {
            D::Lt if x0 >= limit => 0,
            D::Lt => (limit - x0 + step - 1) / step,
            D::Le if x0 > limit => 0,
            D::Le => (limit - x0) / step + 1,
            D::Ne if x0 == limit => 0,
            D::Ne if x0 < limit && (limit - x0) % step == 0 => (limit - x0) / step,
            _ => return None,
        };
        // Every value the counter takes, the last included, must be in range: a wrapped value
        // would meet the condition again.
        (x0 + n * step <= type_max(self.elem)).then(|| u64::try_from(n).ok()).flatten()
    }
}

/// What a `while` step prepares once, at compile time.
#[derive(Debug)]
pub struct LoopPlan {
    fast_cond: Option<FastCond>,
    fast_body: Option<FastBody>,
}

impl LoopPlan {
    pub fn new(cond: &Block, body: &Block, types: &[TensorType]) -> LoopPlan {
        let fast_cond = FastCond::of(cond);
        // The fast body needs the fast condition (both read the state from the same buffers).
        let mut fast_body = fast_cond.as_ref().and_then(|_| FastBody::of(body, types));
        if let (Some(fc), Some(fb)) = (&fast_cond, &mut fast_body) {
            fb.counter = Counter::of(fc, fb);
            fb.compile_programs(fc.scalar.as_ref().map(|s| (s, fc.inputs.as_slice())));
        }
        LoopPlan { fast_cond, fast_body }
    }
}

impl FastCond {
    fn of(cond: &Block) -> Option<FastCond> {
        let [step] = cond.steps.as_slice() else { return None };
        let StepKind::Elementwise(k) = &step.kind else { return None };
        let scalar = k.shape.iter().product::<i64>() == 1;
        if !scalar || cond.results.as_slice() != [k.out] || k.expr.elems.last() != Some(&ElementType::Pred) {
            return None;
        }
        let inputs = k
            .inputs
            .iter()
            .map(|&s| match cond.params.iter().position(|&p| p == s) {
                Some(i) => Source::State(i),
                None => Source::Slot(s),
            })
            .collect();
        let scalar = ScalarExpr::new(&k.expr, &k.shape);
        let bound = scalar.as_ref().and_then(|s| s.as_bound());
        Some(FastCond { step: step.id, inputs, bound, scalar })
    }
}

impl Executable {
    #[allow(clippy::too_many_arguments)]
    pub(in crate::exec) fn run_while(
        &self,
        lp: &LoopPlan,
        inputs: &[SlotId],
        cond: &Block,
        body: &Block,
        outputs: &[SlotId],
        slots: &mut Slots,
        pool: &mut Pool,
        rng: &RunRng,
    ) -> Result<()> {
        if let (Some(fc), Some(fb)) = (&lp.fast_cond, &lp.fast_body) {
            return self.run_fast_loop(fc, fb, inputs, outputs, slots, pool);
        }
        let mut state: Vec<Option<Arc<AlignedBytes>>> = inputs.iter().map(|&s| Self::slot_arc(slots, s).map(Some)).collect::<Result<_>>()?;
        loop {
            let go = match &lp.fast_cond {
                Some(fc) => {
                    let state_ptr = |i: usize| state.get(i).and_then(|b| b.as_ref()).map(|b| Ptr(b.as_ptr())).ok_or_else(|| Error::internal("while state missing"));
                    self.fast_cond(fc, state_ptr, slots)?
                }
                None => self.general_cond(cond, &state, slots, pool, rng)?,
            };
            if !go {
                break;
            }
            // The body owns the state while it runs: its kernels may update it in place.
            for (&p, a) in body.params.iter().zip(state.iter_mut()) {
                slots[p] = a.take();
            }
            self.run_steps(&body.steps, slots, pool, rng)?;
            for (v, &r) in state.iter_mut().zip(&body.results) {
                *v = Some(Self::slot_arc(slots, r)?);
            }
            for &s in &body.clear_after {
                slots[s] = None;
            }
        }
        for (&o, v) in outputs.iter().zip(state) {
            slots[o] = v;
        }
        Ok(())
    }

    /// A loop whose body is a [`FastBody`]: the state is copied into buffers the loop owns, each
    /// kernel keeps its output buffer and registers for the whole loop.
    fn run_fast_loop(&self, fc: &FastCond, fb: &FastBody, inputs: &[SlotId], outputs: &[SlotId], slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let mut state: Vec<AlignedBytes> = Vec::with_capacity(inputs.len());
        for &s in inputs {
            let src = Self::slot_arc(slots, s)?;
            let mut b = pool.take(src.len());
            b.as_mut_slice().copy_from_slice(src.as_slice());
            state.push(b);
        }
        // An update in place writes its state element's buffer and needs none of its own.
        let mut outs: Vec<AlignedBytes> = fb.kernels.iter().map(|k| pool.take(if k.home.is_some() { 0 } else { k.bytes })).collect();
        if let Some(nl) = &fb.native_loop {
            let bases: Vec<*mut u8> = nl
                .bases
                .iter()
                .map(|src| match *src {
                    Source::State(i) => Ok(state[i].as_mut_ptr()),
                    Source::Kernel(m) => Ok(outs[m].as_mut_ptr()),
                    Source::Slot(s) => Self::slot_ptr(slots, s).map(|p| p.0 as *mut u8),
                })
                .collect::<Result<_>>()?;
            let mut regs = nl.program.registers();
            // SAFETY: the bases are the live buffers the loop was compiled for (the state's and
            // the kernels' owned by this call, the slots' live through it), of the plan's sizes;
            // the function writes only the loop's own buffers.
            unsafe { nl.native.call(regs.as_mut_ptr(), bases.as_ptr()) };
            for (&o, b) in outputs.iter().zip(state) {
                slots[o] = Some(Arc::new(b));
            }
            pool.extend(outs.into_iter().filter(|b| !b.is_empty()));
            return Ok(());
        }
        let mut exprs = Vec::with_capacity(fb.kernels.len());
        let mut ptrs: Vec<Vec<Ptr>> = Vec::with_capacity(fb.kernels.len());
        for k in &fb.kernels {
            let ex = match k.work {
                Work::Expr { step } => match &self.prepared[step] {
                    Prepared::Expr(ex) => Some(ex),
                    _ => return Err(Error::internal("while body kernel without its prepared expression")),
                },
                _ => None,
            };
            exprs.push(ex);
            // Slots outside the loop are live throughout: their pointers are set once.
            ptrs.push(k.inputs.iter().map(|src| match *src {
                Source::Slot(s) => Self::slot_ptr(slots, s),
                _ => Ok(Ptr(std::ptr::null())),
            }).collect::<Result<_>>()?);
        }
        // Registers of kernels that fit one chunk, kept across iterations (their constants stay filled).
        let mut regs: Vec<Option<Vec<Buf>>> = fb.kernels.iter().zip(&exprs).map(|(k, ex)| {
            let one_chunk = k.elements > 1 && k.elements <= CHUNK;
            ex.filter(|_| one_chunk).map(|ex| ex.registers()).transpose()
        }).collect::<Result<_>>()?;
        // Register files of the body's programs, and the pointers their ops address (slots
        // outside the loop set once, the loop's own buffers before each run).
        let mut files: Vec<Vec<i64>> = fb.programs.iter().map(|p| p.registers()).collect();
        let mut bases: Vec<Vec<*mut u8>> = fb
            .programs
            .iter()
            .map(|p| {
                p.bases
                    .iter()
                    .map(|src| match *src {
                        Source::Slot(s) => Self::slot_ptr(slots, s).map(|p| p.0 as *mut u8),
                        _ => Ok(std::ptr::null_mut()),
                    })
                    .collect::<Result<_>>()
            })
            .collect::<Result<_>>()?;
        let mut first = true;
        // SAFETY: the counter's state buffer holds one element of its type.
        let counted = fb.counter.and_then(|c| c.trips(unsafe { scalar::load(state[c.state].as_ptr(), 0, c.elem) }).map(|n| (c, n)));
        let mut left = counted.map(|(_, n)| n);
        let counter = counted.map(|(c, _)| c);
        loop {
            match &mut left {
                Some(0) => break,
                Some(n) => *n -= 1,
                None => {
                    if !self.fast_cond(fc, |i| state.get(i).map(|b| Ptr(b.as_ptr())).ok_or_else(|| Error::internal("while state missing")), slots)? {
                        break;
                    }
                }
            }
            let (mut program, mut skip_to) = (0, 0);
            for (j, k) in fb.kernels.iter().enumerate() {
                if j < skip_to {
                    continue;
                }
                if let Some(p) = fb.programs.get(program).filter(|p| p.start == j) {
                    let b = &mut bases[program];
                    for (d, src) in b.iter_mut().zip(&p.bases) {
                        match *src {
                            Source::State(i) => *d = state[i].as_mut_ptr(),
                            Source::Kernel(m) => *d = outs[m].as_mut_ptr(),
                            Source::Slot(_) => {}
                        }
                    }
                    // SAFETY: the bases are the live buffers the program was built for (a slot's
                    // stays live through the loop), and the program writes only the loop's own.
                    unsafe { p.execute(&mut files[program], b) };
                    (program, skip_to) = (program + 1, p.end);
                    continue;
                }
                if let Some(c) = counter.filter(|c| c.kernel == j) {
                    // SAFETY: one element of the counter's type in each buffer; `trips` checked
                    // that no value of the loop wraps.
                    unsafe {
                        let i = scalar::load(state[c.state].as_ptr(), 0, c.elem);
                        scalar::store(outs[j].as_mut_ptr(), i.wrapping_add(c.step), c.elem);
                    }
                    continue;
                }
                let Some(ex) = exprs[j] else {
                    Self::run_copy_kernel(k, j, &mut state, &mut outs, slots)?;
                    continue;
                };
                let list = &mut ptrs[j];
                for (d, src) in list.iter_mut().zip(&k.inputs) {
                    match *src {
                        Source::State(i) => *d = Ptr(state[i].as_ptr()),
                        Source::Kernel(m) => *d = Ptr(outs[m].as_ptr()),
                        Source::Slot(_) => {}
                    }
                }
                let out = outs[j].as_mut_ptr();
                match &mut regs[j] {
                    // SAFETY: the kernel's inputs are live buffers of the sizes its loads reach, and
                    // its output buffer is its own (no input shares it).
                    Some(r) => unsafe { ex.eval_to(Ptr::raw(list), 0, k.elements, r, !first, out) },
                    None => self.elementwise(ex, list, Ptr(out), k.elements, k.esize)?,
                }
            }
            for (i, n) in fb.next.iter().enumerate() {
                if let Some(j) = *n {
                    std::mem::swap(&mut state[i], &mut outs[j]);
                }
            }
            first = false;
        }
        for (&o, b) in outputs.iter().zip(state) {
            slots[o] = Some(Arc::new(b));
        }
        pool.extend(outs.into_iter().filter(|b| !b.is_empty()));
        Ok(())
    }

    fn fast_cond(&self, fc: &FastCond, state_ptr: impl Fn(usize) -> Result<Ptr>, slots: &Slots) -> Result<bool> {
        let Prepared::Expr(ex) = &self.prepared[fc.step] else {
            return Err(Error::internal("while condition without its prepared kernel"));
        };
        let mut ptrs = [Ptr(std::ptr::null()); 8];
        let mut heap = Vec::new();
        let list: &mut [Ptr] = if fc.inputs.len() <= ptrs.len() {
            &mut ptrs[..fc.inputs.len()]
        } else {
            heap.resize(fc.inputs.len(), Ptr(std::ptr::null()));
            &mut heap
        };
        for (d, src) in list.iter_mut().zip(&fc.inputs) {
            *d = match *src {
                Source::State(i) => state_ptr(i)?,
                Source::Slot(s) => Self::slot_ptr(slots, s)?,
                Source::Kernel(_) => return Err(Error::internal("while condition reading a body kernel")),
            };
        }
        let mut out = 0u8;
        self.elementwise(ex, list, Ptr(&mut out as *mut u8), 1, 1)?;
        Ok(out != 0)
    }

    fn general_cond(&self, cond: &Block, state: &[Option<Arc<AlignedBytes>>], slots: &mut Slots, pool: &mut Pool, rng: &RunRng) -> Result<bool> {
        for (&p, a) in cond.params.iter().zip(state) {
            slots[p] = a.clone();
        }
        self.run_steps(&cond.steps, slots, pool, rng)?;
        let r = cond.results.first().ok_or_else(|| Error::invalid("while: the condition returned no value"))?;
        let go = Self::slot_arc(slots, *r)?.as_slice().first().copied().ok_or_else(|| Error::invalid("while: the condition returned no value"))?;
        for &s in &cond.clear_after {
            slots[s] = None;
        }
        Ok(go != 0)
    }

    pub(in crate::exec) fn run_case(&self, index: SlotId, branches: &[Block], outputs: &[SlotId], slots: &mut Slots, pool: &mut Pool, rng: &RunRng) -> Result<()> {
        let ty = &self.plan.slots[index];
        let b = Self::slot_arc(slots, index)?;
        let bytes = b.as_slice();
        let i: i64 = match (ty.elem, bytes.len()) {
            (ElementType::S32, 4) => i32::from_le_bytes(bytes.try_into().unwrap()) as i64,
            (ElementType::U32, 4) => u32::from_le_bytes(bytes.try_into().unwrap()) as i64,
            (ElementType::S64 | ElementType::U64, 8) => i64::from_le_bytes(bytes.try_into().unwrap()),
            (ElementType::Pred | ElementType::S8 | ElementType::U8, 1) => bytes[0] as i64,
            _ => return Err(Error::unimplemented(format!("case index of type {ty}"))),
        };
        let n = branches.len();
        // An out-of-range index runs the last branch (spec).
        let branch = if i < 0 || i >= n as i64 { n - 1 } else { i as usize };
        let block = &branches[branch];
        self.run_steps(&block.steps, slots, pool, rng)?;
        let out = block.results.iter().map(|&r| Self::slot_arc(slots, r)).collect::<Result<Vec<_>>>()?;
        for &s in &block.clear_after {
            slots[s] = None;
        }
        for (&o, v) in outputs.iter().zip(out) {
            slots[o] = Some(v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Kind, Program};
    use apu_compiler::program::{read_program, ProgramFormat};
    use apu_compiler::valid::validate;

    fn counter(elem: ElementType, step: i64, bound: D, limit: i64) -> Counter {
        Counter { state: 0, kernel: 0, elem, step, bound, limit }
    }

    #[test]
    fn trip_counts_of_counted_loops() {
        let s32 = |step: i64, bound: D, limit: i64| counter(ElementType::S32, step, bound, limit);
        // i < 1000 from 0 by 1; from 1000 and past it, none.
        assert_eq!(s32(1, D::Lt, 1000).trips(0), Some(1000));
        assert_eq!(s32(1, D::Lt, 1000).trips(1000), Some(0));
        assert_eq!(s32(1, D::Lt, 1000).trips(2000), Some(0));
        // Steps that do not divide the distance: 0, 3, 6, 9 < 10.
        assert_eq!(s32(3, D::Lt, 10).trips(0), Some(4));
        assert_eq!(s32(3, D::Lt, 9).trips(0), Some(3));
        // i <= 9: 0..=9; from -5 by 5: -5, 0, 5.
        assert_eq!(s32(1, D::Le, 9).trips(0), Some(10));
        assert_eq!(s32(5, D::Le, 9).trips(-5), Some(3));
        assert_eq!(s32(1, D::Le, 9).trips(10), Some(0));
        // i != 12 by 3 from 0: four trips; a limit the steps jump over, or behind the start,
        // would only be met after wrapping: left to the general loop.
        assert_eq!(s32(3, D::Ne, 12).trips(0), Some(4));
        assert_eq!(s32(3, D::Ne, 12).trips(12), Some(0));
        assert_eq!(s32(3, D::Ne, 13).trips(0), None);
        assert_eq!(s32(3, D::Ne, 12).trips(15), None);
        // A last step past the type's maximum wraps: general loop. Just below it: counted.
        assert_eq!(s32(2, D::Lt, i32::MAX as i64).trips(i32::MAX as i64 - 3), None);
        assert_eq!(s32(2, D::Lt, i32::MAX as i64).trips(i32::MAX as i64 - 4), Some(2));
        assert_eq!(s32(1, D::Le, i32::MAX as i64).trips(0), None);
        // Unsigned: held zero-extended (u32) or as the bit pattern (u64).
        let u32c = counter(ElementType::U32, 1, D::Lt, u32::MAX as i64);
        assert_eq!(u32c.trips(u32::MAX as i64 - 2), Some(2));
        let u64c = counter(ElementType::U64, 1, D::Lt, u64::MAX as i64);
        assert_eq!(u64c.trips((u64::MAX - 2) as i64), Some(2));
        assert_eq!(u64c.trips(0), Some(u64::MAX));
        assert_eq!(counter(ElementType::U64, 2, D::Lt, u64::MAX as i64).trips((u64::MAX - 2) as i64), Some(1));
        assert_eq!(counter(ElementType::U64, 2, D::Lt, u64::MAX as i64).trips((u64::MAX - 1) as i64), None);
        // Directions a positive step never ends by are not counted.
        assert_eq!(s32(1, D::Gt, 0).trips(5), None);
    }

    /// `f` of each `while` step's prepared loop in `text` (outermost first).
    fn per_loop<T>(text: &str, f: impl Fn(&LoopPlan) -> T) -> Vec<T> {
        let module = validate(read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap()).unwrap();
        let p = Program::compile(&module).unwrap();
        let Kind::Plan(e) = &p.kind else { panic!("not planned") };
        e.prepared
            .iter()
            .filter_map(|p| match p {
                Prepared::Loop(lp) => Some(f(lp)),
                _ => None,
            })
            .collect()
    }

    /// The counters of the loops in `text`, one per `while` (outermost first).
    fn loop_counters(text: &str) -> Vec<Option<Counter>> {
        per_loop(text, |lp| lp.fast_body.as_ref().and_then(|b| b.counter))
    }

    /// Per `while` of `text`: the homes of its fast body's update kernels, in order (None: the
    /// loop runs the general way).
    fn update_homes(text: &str) -> Vec<Option<Vec<Option<Source>>>> {
        per_loop(text, |lp| {
            lp.fast_body.as_ref().map(|b| {
                b.kernels.iter().filter(|k| k.is_update()).map(|k| k.home).collect()
            })
        })
    }

    /// Per `while` of `text`: its fast body's kernels as letters (`e` elementwise, `s` slice or
    /// update, `i` gather or scatter; capitals for kernels a register program runs), None when the
    /// loop runs the general way.
    fn program_cover(text: &str) -> Vec<Option<String>> {
        per_loop(text, |lp| {
            lp.fast_body.as_ref().map(|b| {
                b.kernels
                    .iter()
                    .enumerate()
                    .map(|(j, k)| {
                        let c = match k.work {
                            Work::Expr { .. } => 'e',
                            Work::Slice { .. } => 's',
                            Work::Indexed(_) => 'i',
                        };
                        if b.programs.iter().any(|p| (p.start..p.end).contains(&j)) { c.to_ascii_uppercase() } else { c }
                    })
                    .collect()
            })
        })
    }

    /// The golden programs' loops run their one-element kernels as register programs; the runs
    /// break at kernels of more elements, transcendentals and updates into copies.
    #[test]
    fn one_element_runs_become_programs() {
        // loop_programs.mlir: outside the programs only the first loop's counter (stored by the
        // counted loop), the update of `a` (its old value is read after it: a copy), the
        // two-element start vector and the fused tanh sum.
        let cover = program_cover(include_str!("../../../tests/golden/loop_programs.mlir"));
        assert_eq!(cover, [Some("eESEEsEEESEEeIIESESEESESESEESSEESEeE".to_string()), Some("EEE".to_string())]);
        // loop_updates.mlir: the first loop's counter, row slices and updates, the row gather and
        // the row arithmetic stay kernels.
        let cover = program_cover(include_str!("../../../tests/golden/loop_updates.mlir"));
        assert_eq!(cover, [Some("eEESSEESEEsesEseESIEIiEeE".to_string()), Some("EEIE".to_string())]);
    }

    /// Per `while` of `text`: whether it runs whole as machine code (None: not on the fast path).
    fn native_loops(text: &str) -> Vec<Option<bool>> {
        per_loop(text, |lp| lp.fast_body.as_ref().map(|b| b.native_loop.is_some()))
    }

    /// Loops whose body is one program of all their kernels under a scalar condition run whole as
    /// machine code (the golden test runs them against the interpreter); bodies with a kernel of
    /// more elements, a transcendental or a condition of more than one step do not.
    #[test]
    fn whole_loops_become_machine_code() {
        assert_eq!(native_loops(include_str!("../../../tests/golden/native_loops.mlir")), [Some(true), Some(true), Some(true)]);
        assert_eq!(native_loops(include_str!("../../../tests/golden/loop_programs.mlir")), [Some(false), Some(true)]);
        assert_eq!(native_loops(include_str!("../../../tests/golden/loop_updates.mlir")), [Some(false), Some(true)]);
        // The body multiplies an 8-element vector: kernel by kernel.
        let counted = counting_loop("stablehlo.compare LT, %i, %n, SIGNED", "stablehlo.add %i, %one");
        assert_eq!(native_loops(&counted), [Some(false)]);
        assert_eq!(super::super::native::jit_failures(), 0, "no program fell back to the interpreter");
    }

    /// A counted loop stores its counter's next value itself, so the counter's one-element kernel
    /// is not run in a register program (it was, and cost the scan workload ~10 ns an
    /// iteration); the same kind of kernel in a loop with no counter is.
    #[test]
    fn a_counted_loops_counter_is_not_in_a_program() {
        let counted = counting_loop("stablehlo.compare LT, %i, %n, SIGNED", "stablehlo.add %i, %one");
        assert!(matches!(loop_counters(&counted)[..], [Some(_)]));
        assert_eq!(program_cover(&counted), [Some("ee".to_string())]);
        let uncounted = counting_loop("stablehlo.compare LT, %i, %n, SIGNED", "stablehlo.multiply %i, %n");
        assert!(matches!(loop_counters(&uncounted)[..], [None]));
        assert_eq!(program_cover(&uncounted), [Some("eE".to_string())]);
    }

    /// In `loop_updates.mlir` (run against the interpreter by the golden test) both loops run on
    /// owned buffers, and the updates write in place exactly where nothing reads the old value.
    #[test]
    fn updates_write_in_place_where_no_one_reads_the_old_value() {
        let homes = update_homes(include_str!("../../../tests/golden/loop_updates.mlir"));
        let [Some(first), Some(second)] = &homes[..] else { panic!("not both loops on the fast path: {homes:?}") };
        // y[k] = ... into y (state 1); z's row update is read after it: a copy; g's set then add,
        // a chain into g (state 4).
        let [y, z, g_set, g_add] = first[..] else { panic!("updates of the first loop: {first:?}") };
        assert_eq!((y, z, g_set, g_add), (Some(Source::State(1)), None, Some(Source::State(4)), Some(Source::State(4))));
        // The scatter-add of the float-conditioned loop, into w (state 1).
        assert_eq!(second[..], [Some(Source::State(1))]);
    }

    fn counting_loop(cond: &str, next: &str) -> String {
        format!(
            "func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %c = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<100> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<8xf32>
  cond {{
    %p = {cond} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %h = stablehlo.constant dense<5.000000e-01> : tensor<8xf32>
    %1 = stablehlo.multiply %v, %h : tensor<8xf32>
    %2 = {next} : tensor<i32>
    stablehlo.return %2, %1 : tensor<i32>, tensor<8xf32>
  }}
  return %0#1 : tensor<8xf32>
}}"
        )
    }

    #[test]
    fn counters_are_found_where_the_condition_bounds_an_increment() {
        // JAX's scan and fori_loop: the limit and the step defined outside the loop.
        let counted = counting_loop("stablehlo.compare LT, %i, %n, SIGNED", "stablehlo.add %i, %one");
        let [Some(c)] = loop_counters(&counted)[..] else { panic!("no counter") };
        assert_eq!((c.bound, c.limit, c.step, c.elem), (D::Lt, 100, 1, ElementType::S32));
        // `n > i` turned around; `one + i` either way round.
        let flipped = counting_loop("stablehlo.compare GT, %n, %i, SIGNED", "stablehlo.add %one, %i");
        let [Some(c)] = loop_counters(&flipped)[..] else { panic!("no counter") };
        assert_eq!((c.bound, c.limit, c.step), (D::Lt, 100, 1));
        // Counting down, or a counter the condition does not bound: no counter.
        assert!(matches!(loop_counters(&counting_loop("stablehlo.compare GT, %i, %n, SIGNED", "stablehlo.subtract %i, %one"))[..], [None]));
        assert!(matches!(loop_counters(&counting_loop("stablehlo.compare LT, %i, %n, SIGNED", "stablehlo.multiply %i, %n"))[..], [None]));
    }
}
