//! `argmax` / `argmin` as JAX writes them: a `reduce` of (values, iota along the one reduced axis)
//! whose body, called as `body(accumulator, element)`, keeps the accumulator's value when it
//! compares greater (argmax) or less (argmin) than the element's, or is NaN, and keeps the
//! accumulator's index when it kept the value or when the values are equal and its index is the
//! smaller one. The generic reduce runs such a body in the interpreter (a two-result body is not
//! one binary op), which converted every element on every call: a fifth of JAX's LU loop, and
//! every classifier's accuracy metric.
//!
//! The kernel computes exactly that body in the interpreter's order. Split across threads it
//! combines the parts' results with the same body, in order; that is exact because the body
//! selects, in sequence order, the first NaN if there is one, else the last of the elements equal
//! to the maximum (the value) and the smallest index among them, which does not depend on how
//! the sequence is grouped.

use super::{Expr, Operand, SlotId};
use crate::ir::{BinaryOp, ComparisonDirection as D, ComparisonType as CT, ElementType as E, OpKind, Region, ValueId};

/// Which extreme the body keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The accumulator stays when it compares greater.
    Max,
    /// The accumulator stays when it compares less.
    Min,
}

/// `(value_out, index_out) = fold(body, (init_value, init_index), (values, iota))` along the middle
/// axis of the input viewed as `[outer, reduced, inner]`, where `values` is a fused expression over
/// the input shape and the index of element `k` along the axis is `k`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgReduceKernel {
    pub value_out: SlotId,
    pub index_out: SlotId,
    pub pick: Pick,
    pub elem: E,
    pub index_elem: E,
    pub outer: usize,
    pub reduced: usize,
    pub inner: usize,
    pub input_shape: Vec<i64>,
    pub inputs: Vec<SlotId>,
    pub expr: Expr,
    pub init_value: Operand,
    pub init_index: Operand,
}

/// Value types the kernel compares.
pub fn value_ok(elem: E) -> bool {
    matches!(elem, E::F32 | E::F64 | E::S32 | E::S64 | E::U32 | E::U64)
}

/// Index types the kernel writes (every one of them converts to `i64` keeping its order).
pub fn index_ok(elem: E) -> bool {
    matches!(elem, E::S32 | E::S64 | E::U32)
}

/// The largest axis length whose iota the index type holds.
pub fn max_axis(index_elem: E) -> u64 {
    match index_elem {
        E::S32 => i32::MAX as u64,
        E::U32 => u32::MAX as u64,
        _ => i64::MAX as u64,
    }
}

/// The comparison type `compare` uses on `elem` when none is written.
fn default_compare(elem: E) -> Option<CT> {
    if elem.is_float() {
        Some(CT::Float)
    } else if elem.is_signed_int() {
        Some(CT::Signed)
    } else if elem.is_unsigned_int() {
        Some(CT::Unsigned)
    } else {
        None
    }
}

/// A boolean or selected value of the body, as a tree over its params (0 and 2: the two values,
/// 1 and 3: the two indices).
#[derive(Clone, Debug)]
enum Term {
    Param(usize),
    Compare(D, Box<Term>, Box<Term>),
    Or(Box<Term>, Box<Term>),
    And(Box<Term>, Box<Term>),
    Select(Box<Term>, Box<Term>, Box<Term>),
}

impl Term {
    fn cmp(d: D, a: usize, b: usize) -> Term {
        Term::Compare(d, Box::new(Term::Param(a)), Box::new(Term::Param(b)))
    }
    fn or(a: Term, b: Term) -> Term {
        Term::Or(Box::new(a), Box::new(b))
    }
}

fn swapped(d: D) -> D {
    match d {
        D::Gt => D::Lt,
        D::Lt => D::Gt,
        D::Ge => D::Le,
        D::Le => D::Ge,
        other => other,
    }
}

/// Equality of terms up to the order of `or` / `and` operands and of compared operands.
fn same(a: &Term, b: &Term) -> bool {
    use Term as T;
    match (a, b) {
        (T::Param(x), T::Param(y)) => x == y,
        (T::Compare(d1, x1, y1), T::Compare(d2, x2, y2)) => {
            (d1 == d2 && same(x1, x2) && same(y1, y2)) || (swapped(*d1) == *d2 && same(x1, y2) && same(y1, x2))
        }
        (T::Or(x1, y1), T::Or(x2, y2)) | (T::And(x1, y1), T::And(x2, y2)) => {
            (same(x1, x2) && same(y1, y2)) || (same(x1, y2) && same(y1, x2))
        }
        (T::Select(c1, x1, y1), T::Select(c2, x2, y2)) => same(c1, c2) && same(x1, x2) && same(y1, y2),
        _ => false,
    }
}

/// The body's results as terms, or `None` when it uses anything but the ops of an arg reduce or
/// compares with a type other than its operands' default one.
fn terms(region: &Region, types: &dyn Fn(ValueId) -> Option<E>) -> Option<Vec<Term>> {
    let mut known: Vec<(ValueId, Term)> = region.params.iter().enumerate().map(|(i, &p)| (p, Term::Param(i))).collect();
    let get = |known: &[(ValueId, Term)], v: ValueId| known.iter().find(|k| k.0 == v).map(|k| Box::new(k.1.clone()));
    for op in &region.ops {
        let [r] = op.results.as_slice() else { return None };
        let x: Vec<Box<Term>> = op.operands.iter().map(|&v| get(&known, v)).collect::<Option<_>>()?;
        let term = match (&op.kind, x.as_slice()) {
            (OpKind::Compare { direction, compare_type }, [a, b]) => {
                let elem = types(op.operands[0])?;
                if compare_type.or(default_compare(elem)) != default_compare(elem) {
                    return None;
                }
                Term::Compare(*direction, a.clone(), b.clone())
            }
            (OpKind::Binary(BinaryOp::Or), [a, b]) if types(*r)? == E::Pred => Term::Or(a.clone(), b.clone()),
            (OpKind::Binary(BinaryOp::And), [a, b]) if types(*r)? == E::Pred => Term::And(a.clone(), b.clone()),
            (OpKind::Select, [c, a, b]) => Term::Select(c.clone(), a.clone(), b.clone()),
            _ => return None,
        };
        known.push((*r, term));
    }
    region.results.iter().map(|&v| get(&known, v).map(|b| *b)).collect()
}

/// The pick of a reduce body over (accumulator value, accumulator index, element value, element
/// index) that is an arg reduce, or `None`. `types` gives the element type of the body's values.
pub fn pick_of_body(region: &Region, types: &dyn Fn(ValueId) -> Option<E>) -> Option<Pick> {
    if region.params.len() != 4 || region.results.len() != 2 {
        return None;
    }
    let got = terms(region, types)?;
    [(Pick::Max, D::Gt), (Pick::Min, D::Lt)].into_iter().find_map(|(pick, direction)| {
        let keep_value = Term::or(Term::cmp(direction, 0, 2), Term::cmp(D::Ne, 0, 0));
        let tie = Term::And(Box::new(Term::cmp(D::Eq, 0, 2)), Box::new(Term::cmp(D::Lt, 1, 3)));
        let keep_index = Term::or(keep_value.clone(), tie);
        let value = Term::Select(Box::new(keep_value), Box::new(Term::Param(0)), Box::new(Term::Param(2)));
        let index = Term::Select(Box::new(keep_index), Box::new(Term::Param(1)), Box::new(Term::Param(3)));
        (same(&got[0], &value) && same(&got[1], &index)).then_some(pick)
    })
}
