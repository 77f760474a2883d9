//! `while` and `case` steps: nested blocks run over the plan's slots.
//!
//! A loop such as `lax.scan` runs its condition and body thousands of times on small tensors, so
//! the per-iteration bookkeeping matters as much as the kernels: the loop state lives in one
//! vector for the whole loop (moved into the body's params and back, no per-iteration vectors),
//! and a condition that is a single scalar elementwise kernel (JAX's `i < n`) is evaluated
//! straight into a byte on the stack instead of through slots, a pooled buffer and an `Arc`.

use super::{Executable, Prepared, Ptr, Slots};
use crate::AlignedBytes;
use apu_compiler::ir::ElementType;
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
}

/// A condition that is one elementwise kernel producing the scalar `pred` the block returns.
#[derive(Debug)]
struct FastCond {
    /// The kernel's step id (its prepared expression).
    step: usize,
    inputs: Vec<Source>,
}

/// What a `while` step prepares once, at compile time.
#[derive(Debug)]
pub struct LoopPlan {
    fast_cond: Option<FastCond>,
}

impl LoopPlan {
    pub fn new(cond: &Block) -> LoopPlan {
        LoopPlan { fast_cond: FastCond::of(cond) }
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
        let mut state: Vec<Option<Arc<AlignedBytes>>> = inputs.iter().map(|&s| Self::slot_arc(slots, s).map(Some)).collect::<Result<_>>()?;
        loop {
            let go = match &lp.fast_cond {
                Some(fc) => self.fast_cond(fc, &state, slots)?,
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

    fn fast_cond(&self, fc: &FastCond, state: &[Option<Arc<AlignedBytes>>], slots: &Slots) -> Result<bool> {
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
                Source::State(i) => Ptr(state.get(i).and_then(|b| b.as_ref()).ok_or_else(|| Error::internal("while state missing"))?.as_ptr()),
                Source::Slot(s) => Self::slot_ptr(slots, s)?,
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
