//! Lowering of window ops (`reduce_window`, `select_and_scatter`), `pad` and `reverse` to their
//! kernels (see [`crate::plan::window`]); what does not fit stays a fallback step.

use super::super::window::{binary_body, merge_pass_through_tail, select_body, PadKernel, SelectScatterKernel, WindowAxis, WindowKernel};
use super::*;

/// Element types the window kernels run on (the reduce kernels' types).
fn window_elem(e: ElementType) -> bool {
    matches!(e, ElementType::F32 | ElementType::F64 | ElementType::S32 | ElementType::S64 | ElementType::U32 | ElementType::U64)
}

fn to_usizes(v: &[i64], rank: usize) -> Option<Vec<usize>> {
    if v.len() != rank {
        return None;
    }
    v.iter().map(|&x| usize::try_from(x).ok().filter(|&x| x >= 1)).collect()
}

impl<'a> Lowering<'a> {
    /// An init value operand: a constant when it is one, else a scalar slot.
    fn scalar_operand(&mut self, v: ValueId) -> Result<Operand> {
        Ok(match self.node(v)? {
            Node::Const(k) => Operand::Const(k),
            _ => Operand::Slot(self.materialize(v)?),
        })
    }

    /// `reduce_window` of one operand with a one-op body the window kernel folds.
    pub(super) fn lower_reduce_window(&mut self, op: &Op) -> Result<bool> {
        let OpKind::ReduceWindow { window_dimensions, window_strides, base_dilations, window_dilations, padding } = &op.kind else {
            return Ok(false);
        };
        let ([x, init], [r], [region]) = (op.operands.as_slice(), op.results.as_slice(), op.regions.as_slice()) else { return Ok(false) };
        let (xty, rty) = (self.ty(*x)?, self.ty(*r)?);
        let rank = xty.rank();
        if !window_elem(xty.elem) || rty.elem != xty.elem || rty.rank() != rank || self.ty(*init)?.rank() != 0 {
            return Ok(false);
        }
        let Some(combiner) = binary_body(self.f, region, xty.elem) else { return Ok(false) };
        if !matches!(combiner, BinaryOp::Add | BinaryOp::Multiply | BinaryOp::Maximum | BinaryOp::Minimum)
            && !(xty.elem.is_int() && matches!(combiner, BinaryOp::And | BinaryOp::Or))
        {
            return Ok(false);
        }
        let (Some(wd), Some(ws), Some(bd), Some(wdil)) =
            (to_usizes(window_dimensions, rank), to_usizes(window_strides, rank), to_usizes(base_dilations, rank), to_usizes(window_dilations, rank))
        else {
            return Ok(false);
        };
        if padding.len() != rank {
            return Ok(false);
        }
        let (slot, view) = self.strided(*x)?;
        let init = self.scalar_operand(*init)?;
        let axes = (0..rank)
            .map(|d| WindowAxis {
                size: xty.shape[d].max(0) as usize,
                in_stride: view.strides[d],
                out: rty.shape[d].max(0) as usize,
                window: wd[d],
                stride: ws[d],
                base_dilation: bd[d],
                window_dilation: wdil[d],
                pad_low: padding[d].0 as isize,
            })
            .collect();
        let axes = merge_pass_through_tail(axes);
        let out = self.new_slot(*r)?;
        self.push(StepKind::Window(WindowKernel { out, input: slot, in_offset: view.offset, init, combiner, elem: xty.elem, axes }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// `select_and_scatter` with a max/min select and an add scatter on floats.
    pub(super) fn lower_select_scatter(&mut self, op: &Op) -> Result<bool> {
        let OpKind::SelectAndScatter { window_dimensions, window_strides, padding } = &op.kind else { return Ok(false) };
        let ([operand, source, init], [r], [select, scatter]) = (op.operands.as_slice(), op.results.as_slice(), op.regions.as_slice()) else {
            return Ok(false);
        };
        let (oty, sty, rty) = (self.ty(*operand)?, self.ty(*source)?, self.ty(*r)?);
        let rank = oty.rank();
        if !oty.elem.is_float() || !window_elem(oty.elem) || sty.elem != oty.elem || rty != oty || sty.rank() != rank || padding.len() != rank {
            return Ok(false);
        }
        let (Some(dir), Some(BinaryOp::Add)) = (select_body(self.f, select, oty.elem), binary_body(self.f, scatter, oty.elem)) else {
            return Ok(false);
        };
        let (Some(wd), Some(ws)) = (to_usizes(window_dimensions, rank), to_usizes(window_strides, rank)) else { return Ok(false) };
        let in_strides = super::super::view::row_major(&oty.shape);
        let axes = (0..rank)
            .map(|d| WindowAxis {
                size: oty.shape[d].max(0) as usize,
                in_stride: in_strides[d],
                out: sty.shape[d].max(0) as usize,
                window: wd[d],
                stride: ws[d],
                base_dilation: 1,
                window_dilation: 1,
                pad_low: padding[d].0 as isize,
            })
            .collect();
        let operand = self.materialize(*operand)?;
        let source = self.materialize(*source)?;
        let init = self.scalar_operand(*init)?;
        let out = self.new_slot(*r)?;
        self.push(StepKind::SelectScatter(SelectScatterKernel { out, operand, source, init, select: dir, elem: oty.elem, axes }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// `pad` of any element type with edge (negative too) and interior padding, as byte copies.
    pub(super) fn lower_pad(&mut self, op: &Op) -> Result<bool> {
        let OpKind::Pad { edge_padding_low, edge_padding_high, interior_padding } = &op.kind else { return Ok(false) };
        let ([x, value], [r]) = (op.operands.as_slice(), op.results.as_slice()) else { return Ok(false) };
        let (xty, rty) = (self.ty(*x)?, self.ty(*r)?);
        let rank = xty.rank();
        let esize = xty.elem.byte_size();
        let full_width = xty.elem.bit_width() == esize as u32 * 8;
        if rty.elem != xty.elem || rty.rank() != rank || edge_padding_low.len() != rank || edge_padding_high.len() != rank || interior_padding.len() != rank || !full_width || esize == 0 {
            return Ok(false);
        }
        let in_shape: Vec<usize> = xty.shape.iter().map(|&d| d.max(0) as usize).collect();
        let out_shape: Vec<usize> = rty.shape.iter().map(|&d| d.max(0) as usize).collect();
        let mut interior = Vec::with_capacity(rank);
        for d in 0..rank {
            let Ok(i) = usize::try_from(interior_padding[d]) else { return Ok(false) };
            let dilated = if in_shape[d] == 0 { 0 } else { (in_shape[d] as i64 - 1) * (i as i64 + 1) + 1 };
            if dilated + edge_padding_low[d] + edge_padding_high[d] != out_shape[d] as i64 {
                return Ok(false);
            }
            interior.push(i);
        }
        let value = if self.caps.fused_elem(xty.elem) { self.scalar_operand(*value)? } else { Operand::Slot(self.materialize(*value)?) };
        let input = self.materialize(*x)?;
        let out = self.new_slot(*r)?;
        let low = edge_padding_low.iter().map(|&l| l as isize).collect();
        self.push(StepKind::Pad(PadKernel { out, input, value, elem_bytes: esize, in_shape, out_shape, low, interior }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }
}
