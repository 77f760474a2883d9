//! Row-blocked groups: a pass over a lowered list of steps that gathers a reduction along the
//! trailing axes together with the elementwise steps around it that feed it or consume its result
//! (broadcast back along the rows) into one [`RowGroup`].
//!
//! Softmax lowers to four passes over the whole input (row max, `exp(x - max)`, row sum, divide);
//! run one after the other, each pass streams the whole matrix through memory. Every value those
//! steps pass to each other is read only within its own row, so the executor can instead run all
//! of them on a few rows at a time: what one step writes, the next reads from L1.
//!
//! A step joins a group when
//! - it is elementwise over `rows * row_len` elements ("full") or `rows` elements ("per row"), or
//!   a reduce with layout `Rows { outer: rows, inner: row_len }`;
//! - every value it reads that an earlier step of the group writes is read in the same row: a full
//!   value at the same flat index, a per-row value at its row (a broadcast along the trailing axes),
//!   or, for per-row steps, a per-row value at the same index.
//!
//! Values written outside the group are complete before it runs, so they may be read in any way.

use super::view::row_major;
use super::*;

/// How a step of a group covers the row space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fit {
    /// One value per element of the row space (`rows * row_len` elements).
    Full,
    /// One value per row.
    PerRow,
}

fn elements(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// `(rows, row_len)` of a reduce along trailing axes worth grouping.
fn reduce_rows(step: &Step) -> Option<(usize, usize)> {
    match &step.kind {
        StepKind::Reduce(k) => match k.layout {
            ReduceLayout::Rows { outer, inner } if outer >= 1 && inner >= 2 => Some((outer, inner)),
            _ => None,
        },
        _ => None,
    }
}

/// How `step` covers the row space `rows x row_len`, if it can be part of such a group.
fn fit(step: &Step, rows: usize, row_len: usize) -> Option<Fit> {
    match &step.kind {
        StepKind::Elementwise(k) => {
            let n = elements(&k.shape);
            if n == rows * row_len {
                Some(Fit::Full)
            } else if n == rows {
                Some(Fit::PerRow)
            } else {
                None
            }
        }
        StepKind::Reduce(k) => match k.layout {
            ReduceLayout::Rows { outer, inner } if outer == rows && inner == row_len => Some(Fit::Full),
            _ => None,
        },
        _ => None,
    }
}

/// The kernel shape, expression and inputs of a group candidate.
fn kernel(step: &Step) -> Option<(&[i64], &Expr, &[SlotId])> {
    match &step.kind {
        StepKind::Elementwise(k) => Some((&k.shape, &k.expr, &k.inputs)),
        StepKind::Reduce(k) => Some((&k.input_shape, &k.expr, &k.inputs)),
        _ => None,
    }
}

/// Whether `view`, read by a kernel of `shape`, gives every element of row r (the leading axes
/// whose sizes multiply to `rows`) element r of a buffer of `rows` elements.
fn broadcasts_rows(view: &View, shape: &[i64], rows: usize) -> bool {
    if view.offset != 0 {
        return false;
    }
    let mut leading = 1usize;
    for k in 0..=shape.len() {
        if leading == rows {
            let lead_strides = row_major(&shape[..k]);
            let lead_ok = (0..k).all(|d| shape[d] == 1 || view.strides[d] == lead_strides[d]);
            let trail_ok = (k..shape.len()).all(|d| shape[d] == 1 || view.strides[d] == 0);
            if lead_ok && trail_ok {
                return true;
            }
        }
        if k < shape.len() {
            leading = leading.saturating_mul(shape[k].max(0) as usize);
        }
    }
    false
}

/// Whether a kernel covering the row space as `fit` reads slot `slot` through `view` only within
/// the row it computes.
fn reads_in_row(view: &View, shape: &[i64], fit: Fit, slot_elems: usize, rows: usize) -> bool {
    let n = elements(shape);
    match fit {
        Fit::Full if slot_elems == n && view.is_contiguous(shape) => true,
        Fit::Full => slot_elems == rows && broadcasts_rows(view, shape, rows),
        Fit::PerRow => slot_elems == rows && view.is_contiguous(shape),
    }
}

/// Whether every read of `slot` by `step` (of fit `fit`) stays within the row being computed.
fn step_reads_slot_in_row(step: &Step, slot: SlotId, fit: Fit, slots: &[TensorType], rows: usize) -> bool {
    if let StepKind::Reduce(k) = &step.kind {
        if k.init == Operand::Slot(slot) {
            return false;
        }
    }
    let Some((shape, expr, inputs)) = kernel(step) else { return false };
    expr.instrs.iter().all(|ins| match ins {
        Instr::Load { input, view } if inputs.get(*input) == Some(&slot) => reads_in_row(view, shape, fit, slots[slot].num_elements(), rows),
        _ => true,
    })
}

/// Whether every step of group `g` reads `slot` (if at all) only within the row it computes: then
/// a step may overwrite the slot's buffer row by row (in place) without changing what the
/// group's other steps read.
pub fn group_reads_in_row(g: &RowGroup, slot: SlotId, slots: &[TensorType]) -> bool {
    g.steps.iter().all(|s| match fit(s, g.rows, g.row_len) {
        Some(f) => step_reads_slot_in_row(s, slot, f, slots, g.rows),
        None => false,
    })
}

/// The first step of `window` (as an index into it) that reads a value written by an earlier
/// step of the window outside its own row.
fn first_out_of_row(window: &[Step], rows: usize, row_len: usize, slots: &[TensorType]) -> Option<usize> {
    let mut written: Vec<SlotId> = Vec::new();
    for (i, step) in window.iter().enumerate() {
        let f = fit(step, rows, row_len)?;
        for r in step.kind.reads() {
            if written.contains(&r) && !step_reads_slot_in_row(step, r, f, slots, rows) {
                return Some(i);
            }
        }
        written.extend(step.kind.writes());
    }
    None
}

/// Whether some step of `window` reads a value an earlier step of it writes.
fn passes_values(window: &[Step]) -> bool {
    let mut written: Vec<SlotId> = Vec::new();
    for step in window {
        if step.kind.reads().iter().any(|r| written.contains(r)) {
            return true;
        }
        written.extend(step.kind.writes());
    }
    false
}

/// Replaces runs of steps that qualify (see the module comment) by [`StepKind::Rows`] groups.
/// Groups hold at least one row reduce and at least one value passed between their steps.
///
/// `vector` tells the element types the vector kernels have: groups run their steps in blocks of
/// rows on them, so a kernel with another type (a one-element complex kernel) stays out.
pub fn group_rows(steps: Vec<Step>, slots: &[TensorType], vector: &dyn Fn(ElementType) -> bool) -> Vec<Step> {
    let n = steps.len();
    let blockable: Vec<bool> = steps.iter().map(|s| kernel(s).is_some_and(|(_, e, _)| e.elems.iter().all(|&t| vector(t)))).collect();
    // The runs [start, end) to group, in order.
    let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut floor = 0;
    let mut i = 0;
    while i < n {
        let Some((rows, row_len)) = reduce_rows(&steps[i]) else {
            i += 1;
            continue;
        };
        let fits = |j: usize| blockable[j] && fit(&steps[j], rows, row_len).is_some();
        let mut start = i;
        while start > floor && fits(start - 1) && matches!(steps[start - 1].kind, StepKind::Elementwise(_)) {
            start -= 1;
        }
        let mut end = i + 1;
        while end < n && fits(end) {
            end += 1;
        }
        // Shrink the window until no step reads an earlier one's value outside its row: a failing
        // step before the reduce starts the window anew (what it read becomes outside input), one
        // after it ends the window.
        while let Some(f) = first_out_of_row(&steps[start..end], rows, row_len, slots) {
            let f = start + f;
            if f <= i {
                start = f;
            } else {
                end = f;
                break;
            }
        }
        if end - start >= 2 && passes_values(&steps[start..end]) {
            runs.push((start, end, rows, row_len));
            floor = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if runs.is_empty() {
        return steps;
    }
    let mut out = Vec::with_capacity(n);
    let mut it = steps.into_iter().enumerate().peekable();
    for (start, end, rows, row_len) in runs {
        while it.peek().is_some_and(|(j, _)| *j < start) {
            out.extend(it.next().map(|(_, s)| s));
        }
        let mut group = Vec::with_capacity(end - start);
        while it.peek().is_some_and(|(j, _)| *j < end) {
            group.extend(it.next().map(|(_, s)| s));
        }
        out.push(Step { id: 0, kind: StepKind::Rows(RowGroup { rows, row_len, steps: group, scratch: Vec::new() }), free_after: Vec::new() });
    }
    out.extend(it.map(|(_, s)| s));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_broadcast_is_recognised_through_unit_axes() {
        // [4] -> [4, 1] -> [4, 6]: strides [1, 0] (and [1, 1, 0] with a unit axis in between).
        assert!(broadcasts_rows(&View { offset: 0, strides: vec![1, 0] }, &[4, 6], 4));
        assert!(broadcasts_rows(&View { offset: 0, strides: vec![1, 1, 0] }, &[4, 1, 6], 4));
        // Leading axes [2, 3] as 6 rows of 5.
        assert!(broadcasts_rows(&View { offset: 0, strides: vec![3, 1, 0] }, &[2, 3, 5], 6));
        // A broadcast along the rows (one value per column) is not per-row.
        assert!(!broadcasts_rows(&View { offset: 0, strides: vec![0, 1] }, &[4, 6], 6));
        assert!(!broadcasts_rows(&View { offset: 0, strides: vec![0, 1] }, &[4, 6], 4));
        // Transposed leading axes read other rows.
        assert!(!broadcasts_rows(&View { offset: 0, strides: vec![1, 2, 0] }, &[2, 3, 5], 6));
        assert!(!broadcasts_rows(&View { offset: 1, strides: vec![1, 0] }, &[4, 6], 4));
    }
}
