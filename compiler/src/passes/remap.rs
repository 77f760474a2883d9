//! Renaming of values inside ops and regions.

use crate::ir::{Op, Region, ValueId};

/// Renames every value an op mentions (operands, results, and everything in its regions).
pub fn remap_op(op: &mut Op, f: &dyn Fn(ValueId) -> ValueId) {
    for v in op.operands.iter_mut().chain(op.results.iter_mut()) {
        *v = f(*v);
    }
    for r in &mut op.regions {
        remap_region(r, f);
    }
}

pub fn remap_region(region: &mut Region, f: &dyn Fn(ValueId) -> ValueId) {
    for v in region.params.iter_mut().chain(region.results.iter_mut()) {
        *v = f(*v);
    }
    for op in &mut region.ops {
        remap_op(op, f);
    }
}

/// Renames only the values an op reads (operands, and reads inside its regions), leaving
/// definitions alone: used to substitute a value by another one.
pub fn substitute_uses(op: &mut Op, f: &dyn Fn(ValueId) -> ValueId) {
    for v in op.operands.iter_mut() {
        *v = f(*v);
    }
    for r in &mut op.regions {
        for inner in &mut r.ops {
            substitute_uses(inner, f);
        }
        for v in r.results.iter_mut() {
            *v = f(*v);
        }
    }
}
