//! Runs of one-element loop-body kernels compiled into one register program.
//!
//! A `fori_loop` step such as `y.at[i].set(0.5 * y[i - 1] + x[i])` is eight body kernels of one
//! element each: index arithmetic, two `dynamic_slice`s, the float update, a scatter and the
//! counter. Dispatched one by one (decision 54) each costs 20–30 ns of bookkeeping for a few
//! nanoseconds of work. Here consecutive such kernels become one list of ops over one register
//! file: a kernel's result stays in a register for the kernels after it (it is stored to its buffer
//! only when something outside the run reads it), constants are registers filled once per loop,
//! ops on constants are folded when the program is built, and a slice or an update of one element
//! is a load or store at an offset computed from index registers.
//!
//! Values are held as [`crate::exec::scalar`] holds them (integers extended to i64, floats as the bits of
//! the f64 they equal) and every op calls the same functions as that evaluator, so the results are
//! its bits, which `one_element_agrees_with_the_vector_evaluator` ties to the vector evaluator's.

use super::loop_body::{BodyKernel, FastBody, Source, Work};
use crate::exec::scalar::{self, Op};
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ElementType as E, UnaryOp};
use apu_compiler::plan::Combine;
use std::collections::HashMap;


/// Index types the program reads starts of.
fn index_type(e: E) -> bool {
    matches!(e, E::S32 | E::S64 | E::U32 | E::U64)
}

pub(super) type Reg = u32;

#[derive(Clone, Copy, Debug)]
pub(super) enum POp {
    /// Element `offset` of buffer `base`.
    Load { base: u16, offset: u32, e: E, dst: Reg },
    Binary { op: BinaryOp, e: E, a: Reg, b: Reg, dst: Reg },
    Unary { op: UnaryOp, e: E, a: Reg, dst: Reg },
    /// `e` is the operands' type.
    Compare { d: ComparisonDirection, e: E, a: Reg, b: Reg, dst: Reg },
    Convert { from: E, to: E, a: Reg, dst: Reg },
    Select { p: Reg, a: Reg, b: Reg, dst: Reg },
    /// Integer division (or, `rem`, remainder) by the constant `2^k`, `k >= 1`: JAX's `i // 2`,
    /// `i % 16`. Shifts and masks instead of a hardware divide of ~10–20 cycles.
    Pow2 { a: Reg, k: u32, signed: bool, rem: bool, dst: Reg },
    /// Stores register `a` as element 0 of buffer `base` (a kernel's result read elsewhere).
    Store { base: u16, a: Reg, e: E },
    /// dynamic_slice or gather of one element: the start (the index registers of `axes`) clamped
    /// into the operand, as the spec clamps a box that does not fit.
    Read { base: u16, axes: Axes, e: E, dst: Reg },
    /// dynamic_update_slice or scatter of one element into `base` in place: the start clamped
    /// (dynamic_update_slice) or the write skipped when it is outside (scatter); the value replaces
    /// the element or, `add`, is added to it.
    Write { base: u16, axes: Axes, e: E, value: Reg, add: bool, skip_outside: bool },
}

/// The index components of a `Read` or `Write`: `Program::axes[first..first + len]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Axes {
    pub(super) first: u32,
    pub(super) len: u32,
}

/// One start component: the register holding it, its stride (in elements) in the big tensor, and
/// the largest start that fits (the dimension's size minus 1).
#[derive(Clone, Copy, Debug)]
pub(super) struct Axis {
    pub(super) reg: Reg,
    pub(super) unsigned64: bool,
    pub(super) stride: usize,
    pub(super) last: i64,
}

impl POp {
    pub(super) fn dst(&self) -> Option<Reg> {
        match *self {
            POp::Load { dst, .. } | POp::Binary { dst, .. } | POp::Unary { dst, .. } | POp::Compare { dst, .. } => Some(dst),
            POp::Convert { dst, .. } | POp::Select { dst, .. } | POp::Read { dst, .. } | POp::Pow2 { dst, .. } => Some(dst),
            POp::Store { .. } | POp::Write { .. } => None,
        }
    }

    /// The registers the op reads, `axes` being the program's.
    pub(super) fn reads(&self, axes: &[Axis]) -> Vec<Reg> {
        let of = |x: Axes| axes[x.first as usize..(x.first + x.len) as usize].iter().map(|a| a.reg);
        match *self {
            POp::Load { .. } => vec![],
            POp::Binary { a, b, .. } | POp::Compare { a, b, .. } => vec![a, b],
            POp::Unary { a, .. } | POp::Convert { a, .. } | POp::Store { a, .. } | POp::Pow2 { a, .. } => vec![a],
            POp::Select { p, a, b, .. } => vec![p, a, b],
            POp::Read { axes: x, .. } => of(x).collect(),
            POp::Write { axes: x, value, .. } => of(x).chain([value]).collect(),
        }
    }
}

/// The value of a pure op (not a load, store, read or write) on register file `r`.
#[inline(always)]
fn value(op: &POp, r: &[i64]) -> i64 {
    match *op {
        POp::Binary { op, e, a, b, .. } => scalar::binary(op, r[a as usize], r[b as usize], e),
        POp::Unary { op, e, a, .. } => scalar::unary(op, r[a as usize], e),
        POp::Compare { d, e, a, b, .. } => scalar::compare(d, r[a as usize], r[b as usize], e),
        POp::Convert { from, to, a, .. } => scalar::convert(r[a as usize], from, to),
        POp::Select { p, a, b, .. } => {
            if r[p as usize] != 0 {
                r[a as usize]
            } else {
                r[b as usize]
            }
        }
        POp::Pow2 { a, k, signed, rem, .. } => pow2(r[a as usize], k, signed, rem),
        _ => 0,
    }
}

/// `a / 2^k` (or `a % 2^k`) of a held integer, `1 <= k <= 62`, as `scalar::binary` gives it:
/// truncating toward zero for signed types (their held values are sign-extended), unsigned ones
/// held zero-extended or as u64 bits.
#[inline(always)]
pub(super) fn pow2(a: i64, k: u32, signed: bool, rem: bool) -> i64 {
    let q = if signed {
        // A negative dividend is biased by 2^k - 1 so that the shift rounds toward zero.
        let bias = ((a >> 63) as u64 >> (64 - k)) as i64;
        (a + bias) >> k
    } else {
        ((a as u64) >> k) as i64
    };
    if rem {
        a.wrapping_sub(q << k)
    } else {
        q
    }
}

/// A run `start..end` of body kernels as one program.
#[derive(Debug)]
pub(in crate::exec) struct BodyProgram {
    pub(in crate::exec) start: usize,
    pub(in crate::exec) end: usize,
    pub(super) ops: Vec<POp>,
    pub(super) axes: Vec<Axis>,
    /// The register file each loop starts with: constants in place (no op writes them).
    pub(super) init: Vec<i64>,
    /// The buffers the ops address by `base`.
    pub(in crate::exec) bases: Vec<Source>,
    /// The program as machine code (`super::native`), None where the JIT is off or failed.
    pub(in crate::exec) native: Option<super::native::Native>,
}

/// Whether body kernel `k` can be part of a program: one element (or an update of one element in
/// place) of held types.
fn fits(k: &BodyKernel) -> bool {
    match &k.work {
        Work::Expr { .. } => k.scalar.is_some(),
        Work::Slice { kernel, operand, index_elems } => {
            let one = kernel.sizes.iter().all(|&s| s == 1) && operand.num_elements() > 0;
            let written = kernel.update.is_none() || k.home.is_some();
            one && written && scalar::is_held(operand.elem) && index_elems.iter().all(|&e| index_type(e)) && index_elems.len() == operand.shape.len()
        }
        Work::Indexed(g) => {
            let geo = &g.geometry;
            let one = geo.sizes.iter().all(|&s| s == 1) && geo.batch_shape.iter().all(|&s| s == 1) && geo.big_shape.iter().all(|&s| s > 0);
            let written = g.updates.is_none() || k.home.is_some();
            let combine = match g.combine {
                Combine::Replace => true,
                Combine::Add(e) => e == k.elem && e != E::Pred,
            };
            one && written && combine && scalar::is_held(k.elem) && index_type(geo.index_elem) && geo.elem_bytes == k.elem.byte_size()
        }
    }
}

struct Builder<'a> {
    fb: &'a FastBody,
    start: usize,
    ops: Vec<POp>,
    axes: Vec<Axis>,
    init: Vec<i64>,
    /// Per register: its constant value, if it is a constant.
    konst: Vec<Option<i64>>,
    consts: HashMap<i64, Reg>,
    bases: Vec<Source>,
    /// Per kernel of the run: the register of its one-element result.
    value: Vec<Option<Reg>>,
    /// Loads already made, `(base, offset)` -> register, forgotten when the base is written.
    loaded: HashMap<(u16, u32), (Reg, E)>,
    /// Per body kernel: its result is stored to its buffer (something reads it there).
    stored: Vec<bool>,
}

impl<'a> Builder<'a> {
    fn reg(&mut self, k: Option<i64>) -> Reg {
        self.init.push(k.unwrap_or(0));
        self.konst.push(k);
        (self.init.len() - 1) as Reg
    }

    fn constant(&mut self, v: i64) -> Reg {
        if let Some(&r) = self.consts.get(&v) {
            return r;
        }
        let r = self.reg(Some(v));
        self.consts.insert(v, r);
        r
    }

    fn base(&mut self, s: Source) -> Option<u16> {
        let i = match self.bases.iter().position(|&b| b == s) {
            Some(i) => i,
            None => {
                self.bases.push(s);
                self.bases.len() - 1
            }
        };
        u16::try_from(i).ok()
    }

    /// The register holding element `offset` of `src`: a result of this run, or a load.
    fn input(&mut self, src: Source, offset: usize, e: E) -> Option<Reg> {
        if let Source::Kernel(m) = src {
            if m >= self.start {
                match self.value.get(m - self.start).copied().flatten() {
                    // A one-element result of this run: only its element 0 exists.
                    Some(r) => return (offset == 0).then_some(r),
                    // A stored result that a later write of this run changed in place: it is
                    // read from its buffer.
                    None if self.stored[m] && self.fb.kernels[m].home.is_none() => {}
                    None => return None,
                }
            }
        }
        let base = self.base(src)?;
        let offset = u32::try_from(offset).ok()?;
        if let Some(&(r, le)) = self.loaded.get(&(base, offset)) {
            if le == e {
                return Some(r);
            }
        }
        let dst = self.reg(None);
        self.ops.push(POp::Load { base, offset, e, dst });
        self.loaded.insert((base, offset), (dst, e));
        Some(dst)
    }

    /// Adds a pure op, folded to a constant when its operands are constants.
    fn pure(&mut self, op: impl Fn(Reg) -> POp) -> Reg {
        let probe = op(0);
        let reads = probe.reads(&self.axes);
        if reads.iter().all(|&r| self.konst[r as usize].is_some()) {
            let file: Vec<i64> = self.konst.iter().map(|k| k.unwrap_or(0)).collect();
            return self.constant(value(&probe, &file));
        }
        match probe {
            // A select on a constant is its chosen operand; a conversion to the same type changes
            // no held value.
            POp::Select { p, a, b, .. } => match self.konst[p as usize] {
                Some(k) => return if k != 0 { a } else { b },
                None if a == b => return a,
                None => {}
            },
            POp::Convert { from, to, a, .. } if from == to => return a,
            POp::Binary { op: op @ (BinaryOp::Divide | BinaryOp::Remainder), e, a, b, .. } if matches!(e, E::S32 | E::S64 | E::U32 | E::U64) => {
                if let Some(d) = self.konst[b as usize].filter(|&d| d > 1 && d.count_ones() == 1 && d < 1 << 62) {
                    let (k, signed, rem) = (d.trailing_zeros(), matches!(e, E::S32 | E::S64), op == BinaryOp::Remainder);
                    let dst = self.reg(None);
                    self.ops.push(POp::Pow2 { a, k, signed, rem, dst });
                    return dst;
                }
            }
            _ => {}
        }
        let dst = self.reg(None);
        self.ops.push(op(dst));
        dst
    }

    /// The start components of a one-element read or write: `(index source, offset, type)` per
    /// big dimension it sets, with that dimension's stride and size.
    fn axes(&mut self, parts: &[(Source, usize, E, usize, usize)]) -> Option<Axes> {
        let mut axes = Vec::with_capacity(parts.len());
        for &(src, offset, e, stride, dim) in parts {
            let reg = self.input(src, offset, e)?;
            axes.push(Axis { reg, unsigned64: e == E::U64, stride, last: i64::try_from(dim).ok()? - 1 });
        }
        let first = u32::try_from(self.axes.len()).ok()?;
        self.axes.extend(axes);
        Some(Axes { first, len: parts.len() as u32 })
    }

    /// Writes to `base` make its earlier loads stale, and the register of the result whose buffer
    /// it is.
    fn written(&mut self, base: u16) {
        self.loaded.retain(|&(b, _), _| b != base);
        if let Source::Kernel(m) = self.bases[base as usize] {
            if let Some(v) = m.checked_sub(self.start).and_then(|i| self.value.get_mut(i)) {
                *v = None;
            }
        }
    }

    /// A one-element read of kernel `k`'s operand at the start in `axes` (`write` None), or a write
    /// of `write`'s `(update, add, skip_outside)` into the kernel's home there. The read's register.
    fn access(&mut self, k: &BodyKernel, axes: Axes, e: E, write: Option<(Source, bool, bool)>) -> Option<Option<(Reg, E)>> {
        match write {
            None => {
                let base = self.base(*k.inputs.first()?)?;
                let dst = self.reg(None);
                self.ops.push(POp::Read { base, axes, e, dst });
                Some(Some((dst, e)))
            }
            Some((update, add, skip_outside)) => {
                let value = self.input(update, 0, e)?;
                let base = self.base(k.home?)?;
                self.ops.push(POp::Write { base, axes, e, value, add, skip_outside });
                self.written(base);
                Some(None)
            }
        }
    }

    fn kernel(&mut self, j: usize) -> Option<()> {
        let k = &self.fb.kernels[j];
        let result = match &k.work {
            Work::Expr { .. } => {
                let s = k.scalar.as_ref()?;
                let (ops, elems) = s.parts();
                let mut r: Vec<Reg> = Vec::with_capacity(ops.len());
                for (i, op) in ops.iter().enumerate() {
                    let e = elems[i];
                    let reg = match *op {
                        Op::Load { input, offset } => self.input(*k.inputs.get(input)?, offset, e)?,
                        Op::Const(v) => self.constant(v),
                        Op::Binary(op, x, y) => {
                            let (a, b) = (r[x], r[y]);
                            self.pure(|dst| POp::Binary { op, e, a, b, dst })
                        }
                        Op::Unary(op, x) => {
                            let a = r[x];
                            self.pure(|dst| POp::Unary { op, e, a, dst })
                        }
                        Op::Compare(d, x, y) => {
                            let (a, b, ce) = (r[x], r[y], elems[x]);
                            self.pure(|dst| POp::Compare { d, e: ce, a, b, dst })
                        }
                        Op::Convert(x) => {
                            let (a, from) = (r[x], elems[x]);
                            self.pure(|dst| POp::Convert { from, to: e, a, dst })
                        }
                        Op::Select(p, x, y) => {
                            let (p, a, b) = (r[p], r[x], r[y]);
                            self.pure(|dst| POp::Select { p, a, b, dst })
                        }
                    };
                    r.push(reg);
                }
                Some((*r.last()?, *elems.last()?))
            }
            Work::Slice { kernel, operand, index_elems } => {
                let rank = operand.shape.len();
                let mut strides = vec![1usize; rank];
                for d in (0..rank.saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * usize::try_from(operand.shape[d + 1]).ok()?;
                }
                let parts: Vec<_> = (0..rank)
                    .map(|d| Some((*k.inputs.get(1 + d)?, 0, index_elems[d], strides[d], usize::try_from(operand.shape[d]).ok()?)))
                    .collect::<Option<_>>()?;
                let axes = self.axes(&parts)?;
                let write = match kernel.update {
                    None => None,
                    Some(_) => Some((*k.inputs.get(1 + rank)?, false, false)),
                };
                self.access(k, axes, operand.elem, write)?
            }
            Work::Indexed(g) => {
                let geo = &g.geometry;
                // Starts taken from batch coordinates have no index-tensor read to express here.
                if !geo.batch_starts.is_empty() {
                    return None;
                }
                let indices = *k.inputs.get(1)?;
                let parts: Vec<_> = geo
                    .start_map
                    .iter()
                    .enumerate()
                    .map(|(c, &d)| Some((indices, c * geo.component_stride, geo.index_elem, *geo.big_strides.get(d)?, *geo.big_shape.get(d)?)))
                    .collect::<Option<_>>()?;
                let axes = self.axes(&parts)?;
                let write = match g.updates {
                    None => None,
                    Some(_) => Some((*k.inputs.get(2)?, matches!(g.combine, Combine::Add(_)), geo.skip_outside)),
                };
                self.access(k, axes, k.elem, write)?
            }
        };
        if let (true, Some((a, e))) = (self.stored[j], result) {
            let base = self.base(Source::Kernel(j))?;
            self.ops.push(POp::Store { base, a, e });
        }
        self.value.push(result.map(|(r, _)| r));
        Some(())
    }

    /// Drops ops whose results nothing stores or writes.
    fn prune(&mut self) {
        let mut live = vec![false; self.init.len()];
        let mut keep = vec![false; self.ops.len()];
        for (i, op) in self.ops.iter().enumerate().rev() {
            let needed = match op.dst() {
                Some(d) => live[d as usize],
                None => true,
            };
            if needed {
                keep[i] = true;
                for r in op.reads(&self.axes) {
                    live[r as usize] = true;
                }
            }
        }
        let mut i = 0;
        self.ops.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }
}

impl BodyProgram {
    /// Programs for the maximal runs of kernels of `fb` that fit one.
    pub(in crate::exec) fn all(fb: &FastBody) -> Vec<BodyProgram> {
        // Results read outside their run, or as a buffer (a slice's operand), are stored.
        let n = fb.kernels.len();
        // The counter's kernel is not run: a counted loop stores the counter's next value itself
        // (and one whose trip count is not known at entry evaluates the kernel on its own).
        let counter = fb.counter.map(|c| c.kernel());
        let fit: Vec<bool> = fb.kernels.iter().enumerate().map(|(j, k)| Some(j) != counter && fits(k)).collect();
        let mut runs = Vec::new();
        let mut j = 0;
        while j < n {
            if !fit[j] {
                j += 1;
                continue;
            }
            let start = j;
            while j < n && fit[j] {
                j += 1;
            }
            runs.push(start..j);
        }
        runs.into_iter().filter_map(|run| Self::build(fb, run)).collect()
    }

    /// One program of all of `fb`'s kernels, the counter's included, when every kernel fits one:
    /// the body of a loop run whole as machine code (`super::native_loop`).
    pub(in crate::exec) fn whole(fb: &FastBody) -> Option<BodyProgram> {
        if fb.kernels.is_empty() || !fb.kernels.iter().all(fits) {
            return None;
        }
        Self::build(fb, 0..fb.kernels.len())
    }

    /// The program of kernels `run`, None when one of them has no form in it.
    fn build(fb: &FastBody, run: std::ops::Range<usize>) -> Option<BodyProgram> {
        let n = fb.kernels.len();
        // A result is stored when it becomes a state element, when a kernel outside the run
        // reads it, or when a slice or update of the run takes it as its operand buffer.
        let stored = (0..n)
            .map(|m| {
                fb.next.contains(&Some(m))
                    || fb.kernels.iter().enumerate().any(|(l, k)| {
                        let outside = !run.contains(&l);
                        let as_buffer = !matches!(k.work, Work::Expr { .. }) && k.inputs.first() == Some(&Source::Kernel(m));
                        (outside && k.inputs.contains(&Source::Kernel(m))) || as_buffer
                    })
            })
            .collect();
        let mut b = Builder {
            fb,
            start: run.start,
            ops: Vec::new(),
            axes: Vec::new(),
            init: Vec::new(),
            konst: Vec::new(),
            consts: HashMap::new(),
            bases: Vec::new(),
            value: Vec::new(),
            loaded: HashMap::new(),
            stored,
        };
        run.clone().try_for_each(|j| b.kernel(j))?;
        b.prune();
        Some(BodyProgram { start: run.start, end: run.end, ops: b.ops, axes: b.axes, init: b.init, bases: b.bases, native: None })
    }

    /// Compiles the program to machine code unless the JIT is off; a failure keeps the
    /// interpreter (counted and logged by `native::failed`).
    pub(in crate::exec) fn compile_native(&mut self) {
        if !super::native::enabled() {
            return;
        }
        match super::native::program(self) {
            Ok(n) => self.native = Some(n),
            Err(e) => super::native::failed(&format!("register program of kernels {}..{}", self.start, self.end), &e),
        }
    }

    /// Runs the program once, natively when it was compiled.
    ///
    /// # Safety
    /// As [`Self::run`].
    #[inline(always)]
    pub(in crate::exec) unsafe fn execute(&self, r: &mut [i64], bases: &[*mut u8]) {
        match &self.native {
            Some(n) => n.call(r.as_mut_ptr(), bases.as_ptr()),
            None => self.run(r, bases),
        }
    }

    /// A register file for one loop, constants in place.
    pub(in crate::exec) fn registers(&self) -> Vec<i64> {
        self.init.clone()
    }

    #[inline(always)]
    fn offset(&self, x: Axes, r: &[i64]) -> (usize, bool) {
        let mut off = 0;
        let mut inside = true;
        for a in &self.axes[x.first as usize..(x.first + x.len) as usize] {
            let mut s = r[a.reg as usize];
            if a.unsigned64 {
                // A huge unsigned start is past the end, as `read_index` takes it.
                s = (s as u64).min(i64::MAX as u64) as i64;
            }
            inside &= s >= 0 && s <= a.last;
            off += s.clamp(0, a.last) as usize * a.stride;
        }
        (off, inside)
    }

    /// Runs the program once.
    ///
    /// # Safety
    /// `bases[i]` points at the live buffer of `self.bases[i]`, of the sizes and types the plan
    /// gives it (the offsets of loads, and the clamped offsets of reads and writes, fall inside);
    /// stores and writes go only to buffers of the loop (a kernel's own or an update's home),
    /// which no one else holds while the loop runs. `r` came from [`Self::registers`].
    pub(in crate::exec) unsafe fn run(&self, r: &mut [i64], bases: &[*mut u8]) {
        for op in &self.ops {
            match *op {
                POp::Load { base, offset, e, dst } => r[dst as usize] = scalar::load(bases[base as usize], offset as usize, e),
                POp::Store { base, a, e } => scalar::store(bases[base as usize], r[a as usize], e),
                POp::Read { base, axes, e, dst } => {
                    let (off, _) = self.offset(axes, r);
                    r[dst as usize] = scalar::load(bases[base as usize], off, e);
                }
                POp::Write { base, axes, e, value, add, skip_outside } => {
                    let (off, inside) = self.offset(axes, r);
                    if skip_outside && !inside {
                        continue;
                    }
                    let p = bases[base as usize];
                    let v = if add { scalar::binary(BinaryOp::Add, scalar::load(p, off, e), r[value as usize], e) } else { r[value as usize] };
                    scalar::store(p.add(off * e.byte_size()), v, e);
                }
                POp::Binary { dst, .. } | POp::Unary { dst, .. } | POp::Compare { dst, .. } | POp::Convert { dst, .. } | POp::Select { dst, .. } | POp::Pow2 { dst, .. } => {
                    r[dst as usize] = value(op, r);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Division and remainder by a power of two agree with the shared integer division on every
    /// held integer type, at the edges of each.
    #[test]
    fn power_of_two_division_is_the_shared_division() {
        let edges = [0i64, 1, -1, 2, -2, 3, -3, 7, -7, 8, -8, 9, -9, 1000, -1000, i32::MAX as i64, i32::MIN as i64, u32::MAX as i64, i64::MAX, i64::MIN, i64::MIN + 1];
        for e in [E::S32, E::S64, E::U32, E::U64] {
            for k in 1..=61u32 {
                let d = 1i64 << k;
                for &x in &edges {
                    // The held value of `x` in type `e`.
                    let a = match e {
                        E::S32 => x as i32 as i64,
                        E::U32 => x as u32 as i64,
                        _ => x,
                    };
                    let signed = matches!(e, E::S32 | E::S64);
                    for (op, rem) in [(BinaryOp::Divide, false), (BinaryOp::Remainder, true)] {
                        assert_eq!(pow2(a, k, signed, rem), scalar::binary(op, a, d, e), "{a} {op:?} 2^{k} in {e}");
                    }
                }
            }
        }
    }
}
