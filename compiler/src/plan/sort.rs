//! `sort` whose comparator orders by one operand with one comparison: `compare LT` (ascending) or
//! `GT` (descending) of that operand's two scalars, in total order for floats (what `top_k`,
//! `approx_max_k` and apu's own expansions write). The kernel sorts each lane along the dimension by
//! that key, stably, and moves every operand's elements by the same permutation. Other comparators
//! (JAX's `jnp.sort` canonicalizes -0 and NaN first; lexicographic keys) stay interpreter steps.

use super::SlotId;
use crate::ir::{ComparisonDirection, ComparisonType, ElementType, OpKind, Region, Type};

#[derive(Clone, Debug, PartialEq)]
pub struct SortKernel {
    pub inputs: Vec<SlotId>,
    pub outputs: Vec<SlotId>,
    /// The shape every operand has.
    pub shape: Vec<i64>,
    pub dimension: usize,
    /// The operand whose elements are compared.
    pub key: usize,
    pub key_elem: ElementType,
    pub descending: bool,
    /// Bytes per element of each operand.
    pub elem_bytes: Vec<usize>,
}

/// `(key operand, descending)` when `comparator` (over `2 * operands` scalar parameters of the
/// operands' types `elems`) is one strict comparison of operand `key`'s two scalars that the kernel
/// can order: total order on floats, signed or unsigned order on integers matching their type.
pub fn simple_comparator(comparator: &Region, elems: &[ElementType], types: &dyn Fn(crate::ir::ValueId) -> Option<Type>) -> Option<(usize, bool)> {
    let [op] = comparator.ops.as_slice() else { return None };
    let OpKind::Compare { direction, compare_type } = op.kind else { return None };
    if comparator.params.len() != 2 * elems.len() || comparator.results != op.results {
        return None;
    }
    let [a, b] = op.operands.as_slice() else { return None };
    let pa = comparator.params.iter().position(|p| p == a)?;
    let pb = comparator.params.iter().position(|p| p == b)?;
    // (lhs, rhs) of operand k are parameters 2k and 2k + 1; swapped, the order reverses.
    let (key, swapped) = match (pa % 2, pb) {
        (0, _) if pb == pa + 1 => (pa / 2, false),
        (1, _) if pb + 1 == pa => (pb / 2, true),
        _ => return None,
    };
    let elem = elems[key];
    if types(*a).and_then(|t| t.as_tensor().map(|t| t.elem)) != Some(elem) {
        return None;
    }
    let orderable = if elem.is_float() {
        matches!(compare_type, Some(ComparisonType::TotalOrder)) && matches!(elem.byte_size(), 2 | 4 | 8)
    } else if elem.is_unsigned_int() || elem.is_pred() {
        matches!(compare_type, None | Some(ComparisonType::Unsigned)) && elem.byte_size() <= 8
    } else if elem.is_int() {
        matches!(compare_type, None | Some(ComparisonType::Signed)) && elem.byte_size() <= 8
    } else {
        false
    };
    if !orderable || elem.bit_width() as usize != elem.byte_size() * 8 {
        return None;
    }
    let descending = match direction {
        ComparisonDirection::Lt => swapped,
        ComparisonDirection::Gt => !swapped,
        _ => return None,
    };
    Some((key, descending))
}
