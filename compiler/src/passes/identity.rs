//! Removal of ops whose result equals their operand: reshape, convert and broadcast_in_dim to the
//! same type, transposes by the identity permutation, slices of the whole operand, and the custom
//! calls that only move a value between memory kinds (every apu memory kind is host memory).

use super::remap::substitute_uses;
use crate::ir::{Function, Module, Op, OpKind, Region, ValueId};
use std::collections::HashMap;

pub fn remove_identity_ops(module: &mut Module) {
    for f in &mut module.functions {
        remove_in_function(f);
    }
}

/// Custom-call targets that move a value to another memory kind (JAX's `device_put` to a memory
/// kind inside `jit`, host-offloading `remat` policies): on apu, where every memory kind is host
/// memory, they return their operand (decision 84).
pub const PLACEMENT_TARGETS: [&str; 3] = ["annotate_device_placement", "MoveToHost", "MoveToDevice"];

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
        OpKind::CustomCall { call_target_name, .. } => PLACEMENT_TARGETS.contains(&call_target_name.as_str()),
        _ => false,
    }
}

fn remove_in_function(f: &mut Function) {
    let mut body = std::mem::take(&mut f.body);
    remove_in_region(f, &mut body, &mut HashMap::new());
    f.body = body;
}

/// Removes the identity ops of `region` and of the regions nested in it (JAX's loop bodies are
/// full of same-type converts of the counter), substituting each one's operand for its result.
/// Value ids are unique in a function, so one substitution map serves every region.
fn remove_in_region(f: &Function, region: &mut Region, subst: &mut HashMap<ValueId, ValueId>) {
    let ops = std::mem::take(&mut region.ops);
    for mut op in ops {
        substitute_uses(&mut op, &|v| *subst.get(&v).unwrap_or(&v));
        for nested in &mut op.regions {
            remove_in_region(f, nested, subst);
        }
        if is_identity(f, &op) {
            subst.insert(op.results[0], op.operands[0]);
        } else {
            region.ops.push(op);
        }
    }
    for r in &mut region.results {
        *r = *subst.get(r).unwrap_or(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{read_program, ProgramFormat};

    #[test]
    fn identity_ops_inside_loop_bodies_are_removed() {
        let mut m = read_program(
            ProgramFormat::Mlir,
            b"func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %n = stablehlo.constant dense<10> : tensor<i32>
  %0 = stablehlo.while(%i = %x) : tensor<i32>
  cond {
    %c = stablehlo.convert %i : tensor<i32>
    %p = stablehlo.compare LT, %c, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c = stablehlo.convert %i : tensor<i32>
    %r = stablehlo.reshape %c : (tensor<i32>) -> tensor<i32>
    %j = stablehlo.add %r, %c : tensor<i32>
    %k = stablehlo.convert %j : tensor<i32>
    stablehlo.return %k : tensor<i32>
  }
  return %0 : tensor<i32>
}",
        )
        .unwrap();
        remove_identity_ops(&mut m);
        let w = &m.entry_function().body.ops[1];
        let (cond, body) = (&w.regions[0], &w.regions[1]);
        let i = body.params[0];
        assert_eq!(cond.ops.len(), 1);
        assert_eq!(cond.ops[0].operands[0], cond.params[0]);
        // The add reads the loop parameter twice and is returned directly.
        assert_eq!(body.ops.len(), 1);
        assert_eq!(body.ops[0].operands, vec![i, i]);
        assert_eq!(body.results, body.ops[0].results);
    }

    #[test]
    fn placement_annotations_are_removed() {
        let mut m = read_program(
            ProgramFormat::Mlir,
            br#"func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) {
  %0 = stablehlo.custom_call @annotate_device_placement(%x) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<4xf32>
  %2 = stablehlo.custom_call @annotate_device_placement(%1) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.custom_call @other_target(%2) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}"#,
        )
        .unwrap();
        assert_eq!(m.entry_function().result_memory_kinds, vec![Some("pinned_host".to_string())]);
        remove_identity_ops(&mut m);
        let f = m.entry_function();
        let x = f.body.params[0];
        // The multiply reads the parameter directly; another target's custom call is kept.
        assert_eq!(f.body.ops.len(), 2, "{:?}", f.body.ops);
        assert_eq!(f.body.ops[0].operands, vec![x, x]);
        assert!(matches!(&f.body.ops[1].kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == "other_target"));
        assert_eq!(f.body.ops[1].operands, f.body.ops[0].results);
    }
}
