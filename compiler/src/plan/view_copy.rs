//! Broadcasts, transposes, slices and reverses of values whose element type the fused kernels do
//! not compute on (bf16, f16, 8- and 16-bit integers, complex, f8, ...). For the fused types these
//! are views read by the consuming kernel; for the others the plan copies the view's elements into
//! a buffer of their own, element by element as bytes, so that data movement of any type runs as a
//! plan kernel and never on the interpreter.

use super::view::View;
use super::SlotId;

#[derive(Clone, Debug, PartialEq)]
pub struct ViewCopyKernel {
    pub src: SlotId,
    pub out: SlotId,
    /// The shape of `out`; `view` maps each of its elements to one of `src`'s (strides in elements).
    pub shape: Vec<i64>,
    pub view: View,
    pub elem_bytes: usize,
}
