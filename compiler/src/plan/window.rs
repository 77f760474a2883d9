//! Window kernels: `reduce_window` with a known combiner, `select_and_scatter` with a GE/GT/LE/LT
//! select and an add scatter (max/min pooling and its gradient), and `pad`. Their geometry is
//! fixed at compile time; the runtime's `exec/kernels/window.rs` runs them in the interpreter's order.

use super::{Operand, SlotId};
use crate::ir::{BinaryOp, ComparisonDirection, ElementType, Function, OpKind, Region, Type};

/// One axis of a window over a padded, base-dilated operand: output position `o` and window
/// position `w` read operand position `p = o * stride + w * window_dilation - pad_low`, which is
/// an element when `p >= 0`, `p % base_dilation == 0` and `p / base_dilation < size`, and the
/// init value (padding or a dilation hole) otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowAxis {
    /// The operand's size along this axis.
    pub size: usize,
    /// The operand's stride along this axis, in elements (the operand may be a strided view).
    pub in_stride: isize,
    /// The output's size along this axis.
    pub out: usize,
    pub window: usize,
    pub stride: usize,
    pub base_dilation: usize,
    pub window_dilation: usize,
    pub pad_low: isize,
}

impl WindowAxis {
    /// The operand index read by output `o` at window position `w`, or `None` for padding and holes.
    #[inline]
    pub fn source(&self, o: usize, w: usize) -> Option<usize> {
        let p = (o * self.stride + w * self.window_dilation) as isize - self.pad_low;
        let bd = self.base_dilation as isize;
        if p < 0 || p % bd != 0 || p / bd >= self.size as isize {
            None
        } else {
            Some((p / bd) as usize)
        }
    }
}

impl WindowAxis {
    /// Whether the axis only passes its elements through: window 1, stride 1, no padding or
    /// dilation, contiguous (NHWC's channels under a spatial pooling window).
    fn passes_through(&self) -> bool {
        self.window == 1
            && self.stride == 1
            && self.base_dilation == 1
            && self.window_dilation == 1
            && self.pad_low == 0
            && self.out == self.size
            && self.in_stride == 1
    }
}

/// The window axes with a pass-through last axis merged into the axis before it when that one
/// moves by whole rows of it (stride 1, no base dilation, contiguous): output `i = o * c + j` at
/// window position `w` reads `i + (w * window_dilation - pad_low) * c`, an element exactly when the
/// outer axis's position is one. The runtime's rows (the last axis) then hold `out * c` elements
/// instead of `c`: a 2x2 pooling gradient over 6 channels folded 6-element rows with the per-row
/// cost of 48-element ones. The window positions keep their row-major order, so the result is
/// bit for bit the same.
pub fn merge_pass_through_tail(mut axes: Vec<WindowAxis>) -> Vec<WindowAxis> {
    while axes.len() >= 2 {
        let (last, before) = (&axes[axes.len() - 1], &axes[axes.len() - 2]);
        if !(last.passes_through() && before.stride == 1 && before.base_dilation == 1 && before.in_stride == last.size as isize) {
            break;
        }
        let c = last.size;
        let merged = WindowAxis {
            size: before.size * c,
            in_stride: 1,
            out: before.out * c,
            window: before.window,
            stride: 1,
            base_dilation: 1,
            window_dilation: before.window_dilation * c,
            pad_low: before.pad_low * c as isize,
        };
        axes.pop();
        *axes.last_mut().expect("two axes") = merged;
    }
    axes
}

/// `reduce_window` of one operand whose body is one binary op (add, multiply, maximum, minimum,
/// and, or): every output element folds its window in row-major order starting from the init
/// value, padding and dilation holes contributing the init value, exactly as the interpreter does.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowKernel {
    pub out: SlotId,
    pub input: SlotId,
    /// Offset of the operand's first element in the input slot (a strided view).
    pub in_offset: usize,
    pub init: Operand,
    pub combiner: BinaryOp,
    pub elem: ElementType,
    pub axes: Vec<WindowAxis>,
}

/// `select_and_scatter` whose select is `compare dir, a, b` (GE/GT: the maximum, LE/LT: the
/// minimum) and whose scatter adds: the result starts as the init value everywhere and each
/// source element is added at the position its window selects (the first element no later one
/// beats, in row-major window order). No base or window dilation (the op has none).
#[derive(Clone, Debug, PartialEq)]
pub struct SelectScatterKernel {
    pub out: SlotId,
    pub operand: SlotId,
    pub source: SlotId,
    pub init: Operand,
    pub select: ComparisonDirection,
    pub elem: ElementType,
    /// `in_stride` is the operand's (and result's) row-major stride.
    pub axes: Vec<WindowAxis>,
}

/// `pad`: `out` is the padding value everywhere except at `low + i * (interior + 1)` for each
/// operand index `i` (negative `low`/`high` crop).
#[derive(Clone, Debug, PartialEq)]
pub struct PadKernel {
    pub out: SlotId,
    pub input: SlotId,
    pub value: Operand,
    pub elem_bytes: usize,
    pub in_shape: Vec<usize>,
    pub out_shape: Vec<usize>,
    pub low: Vec<isize>,
    pub interior: Vec<usize>,
}

/// The binary op of a region `(a, b) -> op(a, b)` over scalars of `elem`, if it is one of `ok`.
pub fn binary_body(f: &Function, region: &Region, elem: ElementType) -> Option<BinaryOp> {
    let [body] = region.ops.as_slice() else { return None };
    let OpKind::Binary(b) = body.kind else { return None };
    let scalar = |v: &crate::ir::ValueId| matches!(f.values.get(v.index()), Some(Type::Tensor(t)) if t.rank() == 0 && t.elem == elem);
    let ok = region.params.len() == 2 && body.operands == region.params && region.results == body.results && region.params.iter().all(scalar);
    ok.then_some(b)
}

/// The direction of a select region `(a, b) -> compare dir, a, b` over floats or integers of `elem`,
/// when it picks a maximum (GE, GT) or a minimum (LE, LT).
pub fn select_body(f: &Function, region: &Region, elem: ElementType) -> Option<ComparisonDirection> {
    let [body] = region.ops.as_slice() else { return None };
    let OpKind::Compare { direction, compare_type } = &body.kind else { return None };
    let scalar = |v: &crate::ir::ValueId| matches!(f.values.get(v.index()), Some(Type::Tensor(t)) if t.rank() == 0 && t.elem == elem);
    let ok = region.params.len() == 2 && body.operands == region.params && region.results == body.results && region.params.iter().all(scalar);
    // TOTALORDER compares differ from the IEEE ones on NaN and signed zeros: left to the interpreter.
    let ieee = !matches!(compare_type, Some(crate::ir::ComparisonType::TotalOrder));
    use ComparisonDirection as D;
    (ok && ieee && matches!(direction, D::Ge | D::Gt | D::Le | D::Lt)).then_some(*direction)
}
