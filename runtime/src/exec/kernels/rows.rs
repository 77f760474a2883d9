//! Execution of row-blocked groups ([`RowGroup`], formed by `apu_compiler::plan::rows`): every
//! step of the group runs on one block of rows before any step runs on the next block, so values
//! passed between the steps are written and read while still in L1. Blocks are independent
//! (steps read each other's values only within a row) and are split across the workers.

use crate::exec::fused::{self, Compiled};
use super::reduce;
use crate::exec::{Executable, Pool, Prepared, Ptr, Slots};
use crate::rng::RunRng;
use crate::AlignedBytes;
use apu_compiler::plan::{FusedKernel, KScalar, Operand, RowGroup, SlotId, StepKind};
use apu_compiler::{Error, Result};
use std::sync::Arc;

/// Where a step's operand lives in a blocked run.
#[derive(Clone, Copy)]
enum Place {
    /// A buffer holding the whole value.
    Whole(Ptr),
    /// Entry `k` of the running thread's per-block scratch buffers (a value of the group's
    /// [`RowGroup::scratch`]).
    Scratch(usize),
}

/// One step of the group with its buffers resolved.
struct Bound<'a> {
    ex: &'a Compiled,
    inputs: Vec<Place>,
    out: Place,
    /// Elements of the step per row of the group: `row_len` (full) or 1 (per row).
    per_row: usize,
    esize: usize,
    /// For reduces: (element type, combiner, init).
    reduce: Option<(apu_compiler::ir::ElementType, apu_compiler::ir::BinaryOp, KScalar)>,
}

/// Rows longer than this run the group's steps one after the other: a block of one row would not
/// stay in the L2 cache anyway.
const MAX_BLOCKED_ROW_BYTES: usize = 256 << 10;

/// Rows per block: enough that one full-size value of a block is about `block_bytes`.
fn block_rows(row_len: usize, esize: usize, block_bytes: usize) -> usize {
    (block_bytes / (row_len.max(1) * esize.max(1))).max(1)
}

fn pointer(ptrs: &[(SlotId, Ptr)], s: SlotId) -> Result<Ptr> {
    ptrs.iter().find(|p| p.0 == s).map(|p| p.1).ok_or_else(|| Error::internal(format!("row group: slot {s} has no buffer")))
}

/// The buffer of an input `k` may write in place over (its `in_place` candidates, in order): one an
/// earlier step of the group wrote (taken out of `outs`), or a slot nobody else holds. Earlier
/// steps keep reading that input through the same pointer. Scratch values are never candidates:
/// they are in neither place.
fn in_place_buffer(k: &FusedKernel, outs: &mut Vec<(SlotId, AlignedBytes)>, slots: &mut Slots) -> Option<AlignedBytes> {
    for &j in &k.in_place {
        let s = k.inputs[j];
        if let Some(i) = outs.iter().position(|o| o.0 == s) {
            return Some(outs.swap_remove(i).1);
        }
        if slots[s].as_ref().is_some_and(|b| Arc::strong_count(b) == 1 && Arc::weak_count(b) == 0) {
            if let Some(buf) = slots[s].take().and_then(|b| Arc::try_unwrap(b).ok()) {
                return Some(buf);
            }
        }
    }
    None
}

impl Executable {
    pub(in crate::exec) fn run_rows(&self, g: &RowGroup, slots: &mut Slots, pool: &mut Pool, rng: &RunRng) -> Result<()> {
        let plan = &self.plan;
        let threads = self.workers.threads();
        let row_bytes = g.row_len.saturating_mul(8);
        if (threads > 1 && g.rows < 2 * threads) || row_bytes > MAX_BLOCKED_ROW_BYTES {
            // Too few rows to split the group across the threads (its steps split each row
            // instead), or rows too long to stay in cache: the steps one after the other.
            for step in &g.steps {
                self.run_step(&step.kind, &self.prepared[step.id], slots, pool, rng)?;
            }
            return Ok(());
        }
        // Buffers of the values the group reads from outside.
        let mut ptrs: Vec<(SlotId, Ptr)> = Vec::new();
        for s in g.reads() {
            ptrs.push((s, Self::slot_ptr(slots, s)?));
        }
        // Buffers the group writes, chosen before any block runs (a step writing in place takes its
        // input's buffer; earlier steps keep reading that input through the same pointer).
        let mut outs: Vec<(SlotId, AlignedBytes)> = Vec::new();
        // Values kept in scratch with their bytes per row, in the order of `Place::Scratch` indices.
        let mut scratch: Vec<(SlotId, usize)> = Vec::new();
        let place = |ptrs: &[(SlotId, Ptr)], scratch: &[(SlotId, usize)], s: SlotId| match scratch.iter().position(|e| e.0 == s) {
            Some(k) => Ok(Place::Scratch(k)),
            None => pointer(ptrs, s).map(Place::Whole),
        };
        let mut bound: Vec<Bound> = Vec::with_capacity(g.steps.len());
        let mut widest = 1;
        for step in &g.steps {
            let Prepared::Expr(ex) = &self.prepared[step.id] else {
                return Err(Error::internal("row group step without its prepared kernel"));
            };
            let (out, inputs, reduce) = match &step.kind {
                StepKind::Elementwise(k) => (k.out, &k.inputs, None),
                StepKind::Reduce(k) => {
                    let init = match &k.init {
                        Operand::Const(c) => *c,
                        Operand::Slot(s) => crate::exec::read_scalar(k.elem, pointer(&ptrs, *s)?),
                    };
                    (k.out, &k.inputs, Some((k.elem, k.combiner, init)))
                }
                _ => return Err(Error::internal("row group with a step that is neither elementwise nor a reduce")),
            };
            let ty = &plan.slots[out];
            let per_row = if ty.num_elements() == g.rows { 1 } else { g.row_len };
            let esize = ty.elem.byte_size();
            if per_row > 1 {
                widest = widest.max(esize);
            }
            let inputs = inputs.iter().map(|&s| place(&ptrs, &scratch, s)).collect::<Result<Vec<_>>>()?;
            let out_place = if g.scratch.contains(&out) {
                scratch.push((out, per_row * esize));
                Place::Scratch(scratch.len() - 1)
            } else {
                let in_place = match &step.kind {
                    StepKind::Elementwise(k) => in_place_buffer(k, &mut outs, slots),
                    _ => None,
                };
                let mut buf = in_place.unwrap_or_else(|| pool.take_out(out, ty.byte_size()));
                let out_ptr = Ptr(buf.as_mut_ptr());
                ptrs.push((out, out_ptr));
                outs.push((out, buf));
                Place::Whole(out_ptr)
            };
            bound.push(Bound { ex, inputs, out: out_place, per_row, esize, reduce });
        }
        let block = block_rows(g.row_len, widest, self.row_block_bytes);
        let cost = g.row_len.saturating_mul(bound.iter().map(|b| b.ex.expr.instrs.len()).sum::<usize>().max(1));
        let (bound, scratch) = (&bound, &scratch);
        self.workers.for_ranges(g.rows, block, cost, &|r| {
            // This thread's scratch: one block of each scratch value.
            let rows = block.min(r.len());
            let mut bufs: Vec<AlignedBytes> = scratch.iter().map(|&(_, row_bytes)| AlignedBytes::zeroed(rows * row_bytes)).collect();
            let bases: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
            let mut ins: Vec<Ptr> = Vec::new();
            let mut b0 = r.start;
            while b0 < r.end {
                let b1 = (b0 + block).min(r.end);
                // Kernels index values by the group's flat indices: a scratch buffer is handed to
                // them as the address its block's first element would have in a whole buffer
                // (kernels offset input and output pointers with wrapping arithmetic, and reach
                // only this block's elements).
                let at = |p: Place| match p {
                    Place::Whole(p) => p,
                    Place::Scratch(k) => Ptr(bases[k].wrapping_sub(b0 * scratch[k].1)),
                };
                for b in bound {
                    ins.clear();
                    ins.extend(b.inputs.iter().map(|&p| at(p)));
                    let out = at(b.out).get() as *mut u8;
                    // SAFETY: the lowering sized every input and output for the group's row space
                    // (a scratch buffer for one block's rows); each step reads other steps' values
                    // only within the rows of this block, which earlier steps have already
                    // written, and writes only this block's rows.
                    unsafe {
                        match b.reduce {
                            Some((elem, op, init)) => {
                                let job = reduce::Job::Rows { rows: b0..b1, inner: g.row_len };
                                reduce::run(b.ex, elem, op, &ins, init, out, job)
                            }
                            None => fused::eval_store(b.ex, Ptr::raw(&ins), out, b0 * b.per_row..b1 * b.per_row, b.esize),
                        }
                    }
                }
                b0 = b1;
            }
            // The buffers `bases` points into live until every block is done.
            drop(bufs);
        });
        for (s, buf) in outs {
            slots[s] = Some(Arc::new(buf));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::block_rows;

    #[test]
    fn blocks_hold_at_least_one_row() {
        assert_eq!(block_rows(1024, 4, 16 << 10), 4);
        assert_eq!(block_rows(1 << 20, 4, 16 << 10), 1);
        assert_eq!(block_rows(10, 4, 16 << 10), 409);
        assert_eq!(block_rows(0, 4, 1), 1);
    }
}
