//! Removal of ops whose result equals their operand: reshape, convert and broadcast_in_dim to the
//! same type, transposes by the identity permutation, and slices of the whole operand.

use super::remap::substitute_uses;
use crate::ir::{Function, Module, Op, OpKind, ValueId};
use std::collections::HashMap;

pub fn remove_identity_ops(module: &mut Module) {
    for f in &mut module.functions {
        remove_in_function(f);
    }
}

fn is_identity(f: &Function, op: &Op) -> bool {
    let ([x], [r]) = (op.operands.as_slice(), op.results.as_slice()) else { return false };
    let (Some(xt), Some(rt)) = (f.values.get(x.index()), f.values.get(r.index())) else { return false };
    if xt != rt {
        return false;
    }
    match &op.kind {
        OpKind::Reshape | OpKind::Convert => true,
        OpKind::BroadcastInDim { broadcast_dimensions } => broadcast_dimensions.iter().enumerate().all(|(i, &d)| d == i as i64),
        OpKind::Transpose { permutation } => permutation.iter().enumerate().all(|(i, &d)| d == i as i64),
        OpKind::Slice { start_indices, strides, .. } => {
            start_indices.iter().all(|&s| s == 0) && strides.iter().all(|&s| s == 1)
        }
        _ => false,
    }
}

fn remove_in_function(f: &mut Function) {
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    let ops = std::mem::take(&mut f.body.ops);
    for mut op in ops {
        substitute_uses(&mut op, &|v| *subst.get(&v).unwrap_or(&v));
        if is_identity(f, &op) {
            subst.insert(op.results[0], op.operands[0]);
        } else {
            f.body.ops.push(op);
        }
    }
    for r in &mut f.body.results {
        *r = *subst.get(r).unwrap_or(r);
    }
}
