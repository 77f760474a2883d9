//! The bodies [`super::control`] runs on buffers the loop owns: elementwise kernels, and the
//! one-element reads and writes JAX's `fori_loop`s do through `dynamic_slice`,
//! `dynamic_update_slice`, gather and scatter (`y.at[i].set(0.5 * y[i - 1] + x[i])`).
//!
//! Run as plan steps, each of those costs a slot lookup, an `Arc` and a pooled buffer per
//! iteration (about 50 ns a step, ten steps an iteration for that recurrence). Here every kernel
//! keeps one output buffer for the whole loop, reads its inputs where they are (a state element, an
//! earlier kernel's buffer, a slot outside the loop), and an update of a state element that
//! nothing reads afterwards writes that element's buffer in place.

use super::body_program::BodyProgram;
use crate::exec::kernels::dynamic_slice::{self, read_index};
use crate::exec::kernels::indexed_copy;
use crate::exec::scalar::ScalarExpr;
use crate::exec::{Executable, Slots};
use crate::AlignedBytes;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::plan::{Block, DynamicSliceKernel, IndexedCopyKernel, SlotId, StepKind};
use apu_compiler::{Error, Result};
use std::collections::HashMap;

/// Where a kernel input comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::exec) enum Source {
    /// Element `i` of the loop state.
    State(usize),
    /// A slot outside the loop (a captured value or a constant), live for the whole loop.
    Slot(SlotId),
    /// The output of kernel `i` of a [`FastBody`], earlier in the same iteration.
    Kernel(usize),
}

/// What a body kernel computes.
#[derive(Debug)]
pub(in crate::exec) enum Work {
    /// An elementwise kernel; its prepared expression is that of plan step `step`. Inputs: the
    /// kernel's.
    Expr { step: usize },
    /// dynamic_slice, or dynamic_update_slice when the kernel has an update. Inputs: the operand,
    /// the start indices, then the update.
    Slice { kernel: DynamicSliceKernel, operand: TensorType, index_elems: Vec<ElementType> },
    /// gather, or scatter when the kernel has updates. Inputs: the big operand, the indices, then
    /// the updates.
    Indexed(IndexedCopyKernel),
}

#[derive(Debug)]
pub(in crate::exec) struct BodyKernel {
    pub(in crate::exec) work: Work,
    pub(in crate::exec) inputs: Vec<Source>,
    pub(in crate::exec) elements: usize,
    pub(in crate::exec) bytes: usize,
    /// Bytes per element of the output.
    pub(in crate::exec) esize: usize,
    /// The output's element type.
    pub(in crate::exec) elem: ElementType,
    /// An elementwise kernel of one element in scalar form.
    pub(in crate::exec) scalar: Option<ScalarExpr>,
    /// `(input, type, k)` when the kernel is `x + k` for a constant `k`.
    pub(in crate::exec) increment: Option<(usize, ElementType, i64)>,
    /// Where an update writes instead of a buffer of its own: the buffer of its operand, which
    /// it then changes in place. A state element (whose next value the update, or a chain of
    /// updates starting with it, is) or an earlier kernel's buffer (an update of an update), when
    /// nothing reads the operand's old value after the update.
    pub(in crate::exec) home: Option<Source>,
}

impl BodyKernel {
    pub(in crate::exec) fn is_update(&self) -> bool {
        match &self.work {
            Work::Slice { kernel, .. } => kernel.update.is_some(),
            Work::Indexed(k) => k.updates.is_some(),
            Work::Expr { .. } => false,
        }
    }
}

/// A body whose steps are all elementwise kernels, slices, updates, gathers, scatters or aliases,
/// each result either a kernel's output or the state element passed through unchanged.
#[derive(Debug)]
pub(in crate::exec) struct FastBody {
    pub(in crate::exec) kernels: Vec<BodyKernel>,
    /// Per state element: the kernel whose output becomes its next value (None: unchanged, or
    /// updated in place).
    pub(in crate::exec) next: Vec<Option<usize>>,
    /// The loop's counter, when it has one the condition bounds.
    pub(in crate::exec) counter: Option<super::control::Counter>,
    /// Runs of one-element kernels compiled to register programs, in kernel order; built by
    /// [`FastBody::compile_programs`] once the counter is known.
    pub(in crate::exec) programs: Vec<BodyProgram>,
    /// The whole loop as machine code, when it has that form (`super::native_loop`); the
    /// programs then go uncompiled.
    pub(in crate::exec) native_loop: Option<super::native_loop::NativeLoop>,
}

impl FastBody {
    /// Compiles the body's runs of one-element kernels into register programs. Called after
    /// `counter` is set: a counted loop stores its counter's next value directly, so that kernel
    /// stays out of the programs (inside one it would cost a load, an add and a store each
    /// iteration, and the direct store would never run). `cond`, the condition in scalar form
    /// and its inputs, lets the whole loop become machine code.
    pub(in crate::exec) fn compile_programs(&mut self, cond: Option<(&ScalarExpr, &[Source])>) {
        self.programs = BodyProgram::all(self);
        self.native_loop = cond.and_then(|(c, inputs)| super::native_loop::NativeLoop::of(self, c, inputs));
        if self.native_loop.is_none() {
            self.programs.iter_mut().for_each(BodyProgram::compile_native);
        }
    }

    pub(in crate::exec) fn of(body: &Block, types: &[TensorType]) -> Option<FastBody> {
        let mut origin: HashMap<SlotId, Source> = body.params.iter().enumerate().map(|(i, &p)| (p, Source::State(i))).collect();
        let source = |origin: &HashMap<SlotId, Source>, s: &SlotId| origin.get(s).copied().unwrap_or(Source::Slot(*s));
        let mut kernels = Vec::new();
        for step in &body.steps {
            let (work, inputs, out) = match &step.kind {
                StepKind::Elementwise(k) => {
                    let inputs = k.inputs.iter().map(|s| source(&origin, s)).collect();
                    (Work::Expr { step: step.id }, inputs, k.out)
                }
                StepKind::DynamicSlice(k) => {
                    let reads = std::iter::once(&k.operand).chain(&k.indices).chain(&k.update);
                    let inputs = reads.map(|s| source(&origin, s)).collect();
                    let index_elems = k.indices.iter().map(|&i| types.get(i).map(|t| t.elem)).collect::<Option<_>>()?;
                    (Work::Slice { kernel: k.clone(), operand: types.get(k.operand)?.clone(), index_elems }, inputs, k.out)
                }
                StepKind::IndexedCopy(k) => {
                    let reads = [&k.big, &k.indices].into_iter().chain(&k.updates);
                    (Work::Indexed(k.clone()), reads.map(|s| source(&origin, s)).collect(), k.out)
                }
                StepKind::Alias { src, dst } => {
                    origin.insert(*dst, source(&origin, src));
                    continue;
                }
                _ => return None,
            };
            let ty = types.get(out)?;
            let scalar = match &step.kind {
                StepKind::Elementwise(k) => ScalarExpr::new(&k.expr, &k.shape),
                _ => None,
            };
            let increment = scalar.as_ref().and_then(|s| s.as_increment());
            let (elements, bytes, esize, elem) = (ty.num_elements(), ty.byte_size(), ty.elem.byte_size(), ty.elem);
            kernels.push(BodyKernel { work, inputs, elements, bytes, esize, elem, scalar, increment, home: None });
            origin.insert(out, Source::Kernel(kernels.len() - 1));
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
        let mut fb = FastBody { kernels, next, counter: None, programs: Vec::new(), native_loop: None };
        fb.update_in_place();
        Some(fb)
    }

    /// Gives updates the buffers of their operands where nothing reads the operand's old value
    /// afterwards: first an update of an earlier kernel's result (its own buffer, which no state
    /// element takes), then an update of a state element whose next value it is. A chain
    /// `g.at[j].set(a).at[k].add(b)` of a state element `g` then writes `g`'s buffer twice and
    /// copies nothing.
    fn update_in_place(&mut self) {
        for j in 0..self.kernels.len() {
            let k = &self.kernels[j];
            let Some(&Source::Kernel(m)) = k.inputs.first() else { continue };
            let free = self.kernels[m].home.is_none() && self.kernels[m].bytes == k.bytes && !self.next.contains(&Some(m));
            if k.is_update() && free && !self.read_after(j, Source::Kernel(m)) {
                self.rehome(j, Source::Kernel(m));
            }
        }
        for j in 0..self.kernels.len() {
            let k = &self.kernels[j];
            let Some(&Source::State(i)) = k.inputs.first() else { continue };
            if k.is_update() && k.home.is_none() && self.next[i] == Some(j) && !self.read_after(j, Source::State(i)) {
                self.rehome(j, Source::State(i));
            }
        }
    }

    /// Whether kernel `j`'s inputs other than its operand, or any later kernel, read `src`.
    fn read_after(&self, j: usize, src: Source) -> bool {
        self.kernels[j].inputs[1..].contains(&src) || self.kernels[j + 1..].iter().any(|l| l.inputs.contains(&src))
    }

    /// Makes kernel `j` write `home`: later reads of its result, and the state element it becomes,
    /// then refer to that buffer.
    fn rehome(&mut self, j: usize, home: Source) {
        self.kernels[j].home = Some(home);
        let with = |s: &mut Source| {
            if *s == Source::Kernel(j) {
                *s = home;
            }
        };
        for l in &mut self.kernels[j + 1..] {
            l.inputs.iter_mut().for_each(with);
            l.home.iter_mut().for_each(with);
        }
        for n in &mut self.next {
            if *n == Some(j) {
                *n = match home {
                    Source::Kernel(m) => Some(m),
                    _ => None,
                };
            }
        }
    }
}

/// The bytes of `src` in the current iteration.
fn bytes<'a>(src: Source, state: &'a [AlignedBytes], outs: &'a [AlignedBytes], slots: &'a Slots) -> Result<&'a [u8]> {
    match src {
        Source::State(i) => state.get(i).map(|b| b.as_slice()).ok_or_else(|| Error::internal("while state missing")),
        Source::Kernel(k) => outs.get(k).map(|b| b.as_slice()).ok_or_else(|| Error::internal("while body kernel missing")),
        Source::Slot(s) => Executable::slot_bytes(slots, s),
    }
}

impl Executable {
    /// Runs body kernel `j`, a slice, update, gather or scatter, into its own buffer `outs[j]` or
    /// (an update in place) its home.
    pub(in crate::exec) fn run_copy_kernel(k: &BodyKernel, j: usize, state: &mut [AlignedBytes], outs: &mut [AlignedBytes], slots: &Slots) -> Result<()> {
        // The output buffer is moved out while the inputs are read: it is none of them (an update
        // in place reads its operand only as the target it writes).
        let home = match k.home {
            Some(Source::State(i)) => state.get_mut(i),
            Some(Source::Kernel(m)) => outs.get_mut(m),
            Some(Source::Slot(_)) => None,
            None => outs.get_mut(j),
        };
        let home = home.ok_or_else(|| Error::internal("while body kernel without its buffer"))?;
        let mut target = std::mem::replace(home, AlignedBytes::zeroed(0));
        let done = Self::copy_kernel_into(k, &mut target, state, outs, slots);
        match k.home {
            Some(Source::State(i)) => state[i] = target,
            Some(Source::Kernel(m)) => outs[m] = target,
            _ => outs[j] = target,
        }
        done
    }

    fn copy_kernel_into(k: &BodyKernel, target: &mut AlignedBytes, state: &[AlignedBytes], outs: &[AlignedBytes], slots: &Slots) -> Result<()> {
        let input = |n: usize| -> Result<&[u8]> { bytes(*k.inputs.get(n).ok_or_else(|| Error::internal("while body kernel input missing"))?, state, outs, slots) };
        // An update not in place starts from a copy of its operand.
        if k.is_update() && k.home.is_none() {
            let operand = input(0)?;
            if operand.len() != target.len() {
                return Err(Error::internal("while body update of another size"));
            }
            target.as_mut_slice().copy_from_slice(operand);
        }
        match &k.work {
            Work::Slice { kernel, operand, index_elems } => dynamic_slice::with_scratch(index_elems.len(), |idx: &mut [i64]| -> Result<()> {
                for (n, (d, &e)) in idx.iter_mut().zip(index_elems).enumerate() {
                    *d = read_index(e, input(1 + n)?)?;
                }
                match kernel.update {
                    None => dynamic_slice::slice(kernel, operand, input(0)?, idx, target.as_mut_slice()),
                    Some(_) => dynamic_slice::update(kernel, operand, target, input(1 + idx.len())?, idx),
                }
                Ok(())
            }),
            Work::Indexed(g) => match g.updates {
                None => indexed_copy::gather(&g.geometry, input(0)?, input(1)?, target.as_mut_slice()),
                Some(_) => indexed_copy::scatter(&g.geometry, g.combine, target.as_mut_slice(), input(1)?, input(2)?),
            },
            Work::Expr { .. } => Err(Error::internal("elementwise kernel run as a copy")),
        }
    }
}
