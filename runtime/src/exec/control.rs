//! `while` and `case` steps: nested blocks run over the plan's slots.
//!
//! A loop such as `lax.scan` runs its condition and body thousands of times on small tensors, so
//! the per-iteration bookkeeping matters as much as the kernels: the loop state lives in one
//! vector for the whole loop (moved into the body's params and back, no per-iteration vectors),
//! and a condition that is a single scalar elementwise kernel (JAX's `i < n`) is evaluated
//! straight into a byte on the stack instead of through slots, a pooled buffer and an `Arc`.
//! A body made only of elementwise kernels (a scan step such as `tanh(c * 0.5 + 0.1)`, the counter
//! increment) runs on buffers and registers set up once per loop: each kernel writes its own
//! buffer, and a state element produced by a kernel swaps buffers with it after each iteration.

use super::fused::{Buf, CHUNK};
use super::{take_buffer, Executable, Prepared, Ptr, Slots};
use crate::AlignedBytes;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::plan::{Block, SlotId, StepKind};
use apu_compiler::{Error, Result};
use crate::interp::random::RunRng;
use std::sync::Arc;

/// Where a fast condition's kernel input comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Element `i` of the loop state.
    State(usize),
    /// A slot outside the loop (a captured value or a constant), live for the whole loop.
    Slot(SlotId),
    /// The output of kernel `i` of a [`FastBody`], earlier in the same iteration.
    Kernel(usize),
}

/// A condition that is one elementwise kernel producing the scalar `pred` the block returns.
#[derive(Debug)]
struct FastCond {
    /// The kernel's step id (its prepared expression).
    step: usize,
    inputs: Vec<Source>,
}

/// A body whose steps are all elementwise kernels (or aliases), each result either a kernel's
/// output or the state element passed through unchanged.
#[derive(Debug)]
struct FastBody {
    kernels: Vec<BodyKernel>,
    /// Per state element: the kernel whose output becomes its next value (None: unchanged).
    next: Vec<Option<usize>>,
}

#[derive(Debug)]
struct BodyKernel {
    /// The kernel's step id (its prepared expression).
    step: usize,
    inputs: Vec<Source>,
    elements: usize,
    bytes: usize,
    /// Bytes per element of the output.
    esize: usize,
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
        let fast_body = fast_cond.as_ref().and_then(|_| FastBody::of(body, types));
        LoopPlan { fast_cond, fast_body }
    }
}

impl FastBody {
    fn of(body: &Block, types: &[TensorType]) -> Option<FastBody> {
        let mut origin: std::collections::HashMap<SlotId, Source> = body.params.iter().enumerate().map(|(i, &p)| (p, Source::State(i))).collect();
        let mut kernels = Vec::new();
        for step in &body.steps {
            match &step.kind {
                StepKind::Elementwise(k) => {
                    let inputs = k.inputs.iter().map(|s| origin.get(s).copied().unwrap_or(Source::Slot(*s))).collect();
                    let ty = types.get(k.out)?;
                    kernels.push(BodyKernel { step: step.id, inputs, elements: ty.num_elements(), bytes: ty.byte_size(), esize: ty.elem.byte_size() });
                    origin.insert(k.out, Source::Kernel(kernels.len() - 1));
                }
                StepKind::Alias { src, dst } => {
                    let o = origin.get(src).copied().unwrap_or(Source::Slot(*src));
                    origin.insert(*dst, o);
                }
                _ => return None,
            }
        }
        if body.results.len() != body.params.len() {
            return None;
        }
        let mut next = Vec::with_capacity(body.results.len());
        for (i, r) in body.results.iter().enumerate() {
            next.push(match origin.get(r)? {
                Source::State(j) if *j == i => None,
                // Each kernel output becomes at most one state element (buffers are swapped).
                Source::Kernel(k) if !next.contains(&Some(*k)) => Some(*k),
                _ => return None,
            });
        }
        Some(FastBody { kernels, next })
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
        Some(FastCond { step: step.id, inputs })
    }
}

impl Executable {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_while(
        &self,
        lp: &LoopPlan,
        inputs: &[SlotId],
        cond: &Block,
        body: &Block,
        outputs: &[SlotId],
        slots: &mut Slots,
        pool: &mut Vec<AlignedBytes>,
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
    fn run_fast_loop(&self, fc: &FastCond, fb: &FastBody, inputs: &[SlotId], outputs: &[SlotId], slots: &mut Slots, pool: &mut Vec<AlignedBytes>) -> Result<()> {
        let mut state: Vec<AlignedBytes> = Vec::with_capacity(inputs.len());
        for &s in inputs {
            let src = Self::slot_arc(slots, s)?;
            let mut b = take_buffer(pool, src.len());
            b.as_mut_slice().copy_from_slice(src.as_slice());
            state.push(b);
        }
        let mut outs: Vec<AlignedBytes> = fb.kernels.iter().map(|k| take_buffer(pool, k.bytes)).collect();
        let mut exprs = Vec::with_capacity(fb.kernels.len());
        let mut ptrs: Vec<Vec<Ptr>> = Vec::with_capacity(fb.kernels.len());
        for k in &fb.kernels {
            let Prepared::Expr(ex) = &self.prepared[k.step] else {
                return Err(Error::internal("while body kernel without its prepared expression"));
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
            one_chunk.then(|| ex.registers()).transpose()
        }).collect::<Result<_>>()?;
        let mut first = true;
        loop {
            if !self.fast_cond(fc, |i| state.get(i).map(|b| Ptr(b.as_ptr())).ok_or_else(|| Error::internal("while state missing")), slots)? {
                break;
            }
            for (j, k) in fb.kernels.iter().enumerate() {
                let list = &mut ptrs[j];
                for (d, src) in list.iter_mut().zip(&k.inputs) {
                    match *src {
                        Source::State(i) => *d = Ptr(state[i].as_ptr()),
                        Source::Kernel(m) => *d = Ptr(outs[m].as_ptr()),
                        Source::Slot(_) => {}
                    }
                }
                let ex = exprs[j];
                let out = outs[j].as_mut_ptr();
                match &mut regs[j] {
                    // SAFETY: the kernel's inputs are live buffers of the sizes its loads reach, and
                    // its output buffer is its own (no input shares it).
                    Some(r) => unsafe { ex.eval_to(Ptr::raw(list), 0, k.elements, r, !first, out) },
                    None => self.elementwise(ex, list, Ptr(out), k.elements, k.esize),
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
        pool.extend(outs);
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
        self.elementwise(ex, list, Ptr(&mut out as *mut u8), 1, 1);
        Ok(out != 0)
    }

    fn general_cond(&self, cond: &Block, state: &[Option<Arc<AlignedBytes>>], slots: &mut Slots, pool: &mut Vec<AlignedBytes>, rng: &RunRng) -> Result<bool> {
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

    pub(super) fn run_case(&self, index: SlotId, branches: &[Block], outputs: &[SlotId], slots: &mut Slots, pool: &mut Vec<AlignedBytes>, rng: &RunRng) -> Result<()> {
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
