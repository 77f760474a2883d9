//! `sort` whose comparator orders by one operand with one comparison: `compare LT` (ascending) or
//! `GT` (descending) of that operand's two scalars, in total order for floats (what `top_k`,
//! `approx_max_k` and apu's own expansions write), possibly after JAX's canonicalization of each
//! scalar (`jnp.sort` / `argsort`: -0 becomes +0 and every NaN one NaN, so that they tie). The kernel
//! sorts each lane along the dimension by that key, stably, and moves every operand's elements by the
//! same permutation. Other comparators (lexicographic keys, anything else) stay interpreter steps.

use super::SlotId;
use crate::ir::{ComparisonDirection, ComparisonType, ElementType, Op, OpKind, Region, Type, ValueId};
use std::collections::HashMap;

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
    /// Floats: -0 orders as +0 and every NaN as one positive NaN (JAX's canonicalizing comparator).
    pub canonical: bool,
    /// Bytes per element of each operand.
    pub elem_bytes: Vec<usize>,
}

/// How a comparator orders: by operand `key`, descending or not, canonicalized or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyOrder {
    pub key: usize,
    pub descending: bool,
    pub canonical: bool,
}

fn constant(defs: &HashMap<ValueId, &Op>, v: ValueId) -> Option<f64> {
    let OpKind::Constant(lit) = &defs.get(&v)?.kind else { return None };
    let b = lit.to_dense_bytes();
    Some(match (lit.ty.num_elements(), lit.ty.elem) {
        (1, ElementType::F32) => f32::from_le_bytes(b.get(..4)?.try_into().ok()?) as f64,
        (1, ElementType::F64) => f64::from_le_bytes(b.get(..8)?.try_into().ok()?),
        (1, ElementType::F16) => half::f16::from_le_bytes(b.get(..2)?.try_into().ok()?).to_f64(),
        (1, ElementType::BF16) => half::bf16::from_le_bytes(b.get(..2)?.try_into().ok()?).to_f64(),
        _ => return None,
    })
}

fn compare_of(defs: &HashMap<ValueId, &Op>, v: ValueId, dir: ComparisonDirection) -> Option<(ValueId, ValueId)> {
    let op = defs.get(&v)?;
    match (&op.kind, op.operands.as_slice()) {
        (OpKind::Compare { direction, compare_type: None | Some(ComparisonType::Float) }, [a, b]) if *direction == dir => Some((*a, *b)),
        _ => None,
    }
}

/// The parameter `v` canonicalizes, if `v` is JAX's `select(p != p, NaN, select(p == 0, 0, p))`.
fn canonicalized(defs: &HashMap<ValueId, &Op>, v: ValueId) -> Option<ValueId> {
    let outer = defs.get(&v)?;
    let (OpKind::Select, [is_nan, nan, rest]) = (&outer.kind, outer.operands.as_slice()) else { return None };
    let (p, p2) = compare_of(defs, *is_nan, ComparisonDirection::Ne)?;
    let inner = defs.get(rest)?;
    let (OpKind::Select, [is_zero, zero, p3]) = (&inner.kind, inner.operands.as_slice()) else { return None };
    let (p4, zero2) = compare_of(defs, *is_zero, ComparisonDirection::Eq)?;
    let zero_ok = |z: ValueId| constant(defs, z).is_some_and(|c| c == 0.0 && c.is_sign_positive());
    let same = p == p2 && p == *p3 && p == p4 && !defs.contains_key(&p);
    (same && constant(defs, *nan).is_some_and(f64::is_nan) && zero_ok(*zero) && zero_ok(zero2)).then_some(p)
}

/// The order of `comparator` (over `2 * operands` scalar parameters of the operands' types
/// `elems`) when it is one strict comparison of operand `key`'s two scalars, each possibly
/// canonicalized, that the kernel can order: total order on floats, signed or unsigned order on
/// integers matching their type.
pub fn simple_comparator(comparator: &Region, elems: &[ElementType], types: &dyn Fn(ValueId) -> Option<Type>) -> Option<KeyOrder> {
    let op = comparator.ops.last()?;
    let OpKind::Compare { direction, compare_type } = op.kind else { return None };
    if comparator.params.len() != 2 * elems.len() || comparator.results != op.results {
        return None;
    }
    let defs: HashMap<ValueId, &Op> = comparator.ops.iter().flat_map(|o| o.results.iter().map(move |r| (*r, o))).collect();
    let [a, b] = op.operands.as_slice() else { return None };
    let (ca, cb) = (canonicalized(&defs, *a), canonicalized(&defs, *b));
    let canonical = match (ca, cb) {
        (Some(_), Some(_)) => true,
        (None, None) if comparator.ops.len() == 1 => false,
        _ => return None,
    };
    let (a, b) = (&ca.unwrap_or(*a), &cb.unwrap_or(*b));
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
    if canonical && !elem.is_float() {
        return None;
    }
    Some(KeyOrder { key, descending, canonical })
}
