//! The plan steps that run one kernel on whole buffers: each reads its operands from the slots,
//! takes its output buffer from the pool (or writes in place at an input's last use) and calls its
//! kernel. `exec::Executable::run_step` dispatches to them.

use super::{arg_reduce, conv, depthwise, dynamic_slice, gemm, indexed_copy, reduce, window};
use crate::exec::fused::{self, Compiled, CHUNK};
use crate::exec::{kscalar_bytes, read_scalar, Args, Executable, Pool, Ptr, Slots};
use crate::AlignedBytes;
use apu_compiler::plan::view_copy::ViewCopyKernel;
use apu_compiler::plan::{ArgReduceKernel, ConcatKernel, ConvKernel, DepthwiseConvKernel, DotKernel, DynamicSliceKernel, FusedKernel, IndexedCopyKernel, KScalar, Operand, PadKernel, ReduceKernel, SelectScatterKernel, WindowKernel};
use apu_compiler::{Error, Result};
use std::sync::Arc;

impl Executable {
    pub(in crate::exec) fn run_elementwise(&self, k: &FusedKernel, ex: &Compiled, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let n: usize = plan.slots[k.out].num_elements();
        let esize = plan.slots[k.out].elem.byte_size();
        let len = plan.slots[k.out].byte_size();
        // Write in place into an input at its last use when nobody else holds it: the
        // input's `Arc` moves to the output slot as it is (no allocation per step, which
        // shows in loops running small kernels thousands of times).
        let mut inputs = Args::of(slots, &k.inputs)?;
        let mut done = None;
        for &j in &k.in_place {
            let s = k.inputs[j];
            let Some(mut arc) = slots[s].take() else { continue };
            match Arc::get_mut(&mut arc) {
                Some(buf) => {
                    let p = Ptr(buf.as_mut_ptr());
                    for (d, &i) in inputs.as_mut_slice().iter_mut().zip(&k.inputs) {
                        if i == s {
                            *d = p;
                        }
                    }
                    self.elementwise(ex, inputs.as_slice(), p, n, esize)?;
                    done = Some(arc);
                    break;
                }
                None => slots[s] = Some(arc),
            }
        }
        let out = match done {
            Some(arc) => arc,
            None => {
                let mut arc = pool.take_for(k.out, len);
                let p = Ptr(Arc::get_mut(&mut arc).ok_or_else(|| Error::internal("pooled buffer is shared"))?.as_mut_ptr());
                self.elementwise(ex, inputs.as_slice(), p, n, esize)?;
                arc
            }
        };
        slots[k.out] = Some(out);
        Ok(())
    }

    pub(in crate::exec) fn run_reduce(&self, k: &ReduceKernel, ex: &Compiled, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let inputs = Args::of(slots, &k.inputs)?;
        let inputs = inputs.as_slice();
        let init = match &k.init {
            Operand::Const(c) => *c,
            Operand::Slot(s) => read_scalar(k.elem, Self::slot_ptr(slots, *s)?),
        };
        let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
        // SAFETY: the lowering sized every input and the output for this kernel.
        unsafe { reduce::run(ex, k.elem, k.combiner, inputs, init, buf.as_mut_ptr(), reduce::Job::Whole { layout: k.layout, workers: &self.workers }) };
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_arg_reduce(&self, k: &ArgReduceKernel, ex: &Compiled, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let inputs = Args::of(slots, &k.inputs)?;
        let init = |o: &Operand, elem| -> Result<KScalar> {
            Ok(match o {
                Operand::Const(c) => *c,
                Operand::Slot(s) => read_scalar(elem, Self::slot_ptr(slots, *s)?),
            })
        };
        let (init_value, init_index) = (init(&k.init_value, k.elem)?, init(&k.init_index, k.index_elem)?);
        let mut values = pool.take_out(k.value_out, plan.slots[k.value_out].byte_size());
        let mut indices = pool.take_out(k.index_out, plan.slots[k.index_out].byte_size());
        // SAFETY: the lowering sized every input and both outputs for this kernel.
        unsafe { arg_reduce::run(k, ex, inputs.as_slice(), init_value, init_index, values.as_mut_ptr(), indices.as_mut_ptr(), &self.workers)? };
        slots[k.value_out] = Some(Arc::new(values));
        slots[k.index_out] = Some(Arc::new(indices));
        Ok(())
    }

    pub(in crate::exec) fn run_dot(&self, d: &DotKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let (a, b) = (Self::slot_ptr(slots, d.lhs)?, Self::slot_ptr(slots, d.rhs)?);
        let mut buf = pool.take_out(d.out, plan.slots[d.out].byte_size());
        // SAFETY: strides and sizes come from the operands' shapes.
        unsafe { gemm::run(d, a, b, Ptr(buf.as_mut_ptr()), &self.workers) };
        slots[d.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_concat(&self, k: &ConcatKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
        let out_row: usize = k.row_bytes.iter().sum();
        let out = buf.as_mut_slice();
        let mut col = 0;
        for (&s, &n) in k.inputs.iter().zip(&k.row_bytes) {
            let src = Self::slot_arc(slots, s)?;
            let src = src.as_slice();
            for o in 0..k.outer {
                out[o * out_row + col..o * out_row + col + n].copy_from_slice(&src[o * n..(o + 1) * n]);
            }
            col += n;
        }
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_dynamic_slice(&self, k: &DynamicSliceKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let oty = &plan.slots[k.operand];
        let buf = dynamic_slice::with_scratch(k.indices.len(), |idx: &mut [i64]| -> Result<Arc<AlignedBytes>> {
            for (d, &i) in idx.iter_mut().zip(&k.indices) {
                *d = dynamic_slice::read_index(plan.slots[i].elem, Self::slot_bytes(slots, i)?)?;
            }
            Ok(match k.update {
                None => {
                    let mut arc = pool.take_for(k.out, plan.slots[k.out].byte_size());
                    let buf = Arc::get_mut(&mut arc).ok_or_else(|| Error::internal("pooled buffer is shared"))?;
                    dynamic_slice::slice(k, oty, Self::slot_bytes(slots, k.operand)?, idx, buf.as_mut_slice());
                    arc
                }
                Some(u) => {
                    let update = Self::slot_arc(slots, u)?;
                    let mut target = Self::writable_copy(slots, pool, k.operand, k.in_place)?;
                    dynamic_slice::update(k, oty, &mut target, update.as_slice(), idx);
                    Arc::new(target)
                }
            })
        })?;
        slots[k.out] = Some(buf);
        Ok(())
    }

    pub(in crate::exec) fn run_indexed_copy(&self, k: &IndexedCopyKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let indices = Self::slot_arc(slots, k.indices)?;
        let buf = match k.updates {
            None => {
                let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
                indexed_copy::gather(&k.geometry, Self::slot_arc(slots, k.big)?.as_slice(), indices.as_slice(), buf.as_mut_slice())?;
                buf
            }
            Some(u) => {
                let updates = Self::slot_arc(slots, u)?;
                let mut target = Self::writable_copy(slots, pool, k.big, k.in_place)?;
                indexed_copy::scatter(&k.geometry, k.combine, target.as_mut_slice(), indices.as_slice(), updates.as_slice())?;
                target
            }
        };
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_conv(&self, c: &ConvKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let (a, b) = (Self::slot_ptr(slots, c.lhs)?, Self::slot_ptr(slots, c.rhs)?);
        let mut buf = pool.take_out(c.out, plan.slots[c.out].byte_size());
        // SAFETY: strides and sizes come from the operands' shapes; gathers are bounds-checked.
        unsafe { conv::run(c, a, b, Ptr(buf.as_mut_ptr()), &self.workers) };
        slots[c.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_depthwise(&self, c: &DepthwiseConvKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let (a, b) = (Self::slot_ptr(slots, c.lhs)?, Self::slot_ptr(slots, c.rhs)?);
        let mut buf = pool.take_out(c.out, plan.slots[c.out].byte_size());
        // SAFETY: strides and sizes come from the operands' shapes; window positions are bounds-checked.
        unsafe { depthwise::run(c, a, b, Ptr(buf.as_mut_ptr()), &self.workers) };
        slots[c.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_window(&self, k: &WindowKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let input = Self::slot_ptr(slots, k.input)?;
        let init = match &k.init {
            Operand::Const(c) => *c,
            Operand::Slot(s) => read_scalar(k.elem, Self::slot_ptr(slots, *s)?),
        };
        let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
        // SAFETY: the lowering built the axes from the operand's view and the result's shape.
        unsafe { window::reduce_window(k, input, init, buf.as_mut_ptr(), &self.workers) };
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_select_scatter(&self, k: &SelectScatterKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let (operand, source) = (Self::slot_ptr(slots, k.operand)?, Self::slot_ptr(slots, k.source)?);
        let init = match &k.init {
            Operand::Const(c) => *c,
            Operand::Slot(s) => read_scalar(k.elem, Self::slot_ptr(slots, *s)?),
        };
        let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
        // SAFETY: the lowering built the axes from the operand's and the source's shapes.
        unsafe { window::select_and_scatter(k, operand, source, init, buf.as_mut_ptr(), &self.workers) };
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_pad(&self, k: &PadKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let plan = &self.plan;
        let value: Vec<u8> = match &k.value {
            Operand::Const(c) => kscalar_bytes(*c),
            Operand::Slot(s) => Self::slot_bytes(slots, *s)?[..k.elem_bytes].to_vec(),
        };
        let input = Self::slot_ptr(slots, k.input)?;
        let mut buf = pool.take_out(k.out, plan.slots[k.out].byte_size());
        // SAFETY: the lowering checked that the shapes and paddings agree.
        unsafe { window::pad(k, input.get(), &value, buf.as_mut_ptr()) };
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn run_sort(&self, k: &apu_compiler::plan::sort::SortKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let mut bufs: Vec<crate::AlignedBytes> = k.outputs.iter().map(|&o| pool.take_out(o, self.plan.slots[o].byte_size())).collect();
        {
            let inputs = k.inputs.iter().map(|&s| Self::slot_bytes(slots, s)).collect::<Result<Vec<_>>>()?;
            let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
            super::sort::sort(k, &inputs, &mut outs)?;
        }
        for (&o, b) in k.outputs.iter().zip(bufs) {
            slots[o] = Some(Arc::new(b));
        }
        Ok(())
    }

    pub(in crate::exec) fn run_view_copy(&self, k: &ViewCopyKernel, slots: &mut Slots, pool: &mut Pool) -> Result<()> {
        let mut buf = pool.take_out(k.out, self.plan.slots[k.out].byte_size());
        super::view_copy::copy_view(Self::slot_bytes(slots, k.src)?, buf.as_mut_slice(), &k.shape, &k.view, k.elem_bytes)?;
        slots[k.out] = Some(Arc::new(buf));
        Ok(())
    }

    pub(in crate::exec) fn elementwise(&self, ex: &Compiled, inputs: &[Ptr], out: Ptr, n: usize, esize: usize) -> Result<()> {
        if n == 1 {
            // SAFETY: as for the vector evaluator below: inputs cover the loads, out one element.
            if let Some(s) = &ex.scalar {
                unsafe { s.eval(Ptr::raw(inputs), out.get() as *mut u8) };
                return Ok(());
            }
            if let Some(o) = &ex.one_element {
                return unsafe { o.eval(Ptr::raw(inputs), out.get() as *mut u8) };
            }
        }
        if let (Some(t), [input]) = (&ex.transposed, inputs) {
            if input.get() != out.get() {
                // SAFETY: the load's view stays inside the input (checked by the lowering's
                // shapes); the output holds n elements and is another buffer.
                unsafe { t.run(*input, out, &self.workers) };
                return Ok(());
            }
        }
        let cost = ex.expr.instrs.len().max(1);
        self.workers.for_ranges(n, CHUNK, cost, &|r| {
            // SAFETY: inputs cover the loads (checked by the lowering's shapes) and the output
            // holds n elements; ranges of different threads are disjoint.
            unsafe { fused::eval_store(ex, Ptr::raw(inputs), out.get() as *mut u8, r, esize) }
        });
        Ok(())
    }

}
