//! Common subexpression elimination: a pure op that repeats an earlier op of the same region (same
//! kind and attributes, same operands, same result types) is dropped and its results replaced by
//! the earlier op's.
//!
//! JAX emits such repeats where one Python expression is traced twice: `_sqrtm_triu` normalizes
//! the same loop index (`select(j < 0, j + n, j)`) once per `dynamic_slice` that reads it, so its
//! innermost loop ran the same kernel twice per iteration. Each repeat is a plan step, and in a
//! loop a step costs about as much as the scalar work it does.
//!
//! The scope is one region: an op is matched only with earlier ops of its own region, so no value
//! starts being captured by a loop or branch that did not capture it before.

use super::remap::substitute_uses;
use crate::ir::{Function, Module, Op, OpKind, Region, ValueId};
use std::collections::HashMap;

pub fn eliminate_common_subexpressions(module: &mut Module) {
    for f in &mut module.functions {
        let mut body = std::mem::take(&mut f.body);
        in_region(f, &mut body, &mut HashMap::new());
        f.body = body;
    }
}

/// Constants compared byte by byte; bigger ones are left alone (the comparison would cost more
/// than a repeated constant, which is not a step anyway).
const MAX_CONSTANT_BYTES: usize = 64;

/// Ops whose results depend only on their operands and attributes, have no regions and no effects.
fn is_pure(op: &Op) -> bool {
    if !op.regions.is_empty() {
        return false;
    }
    match &op.kind {
        OpKind::Constant(lit) => lit.bytes.len() <= MAX_CONSTANT_BYTES,
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert
        | OpKind::BitcastConvert
        | OpKind::ReducePrecision { .. }
        | OpKind::Iota { .. }
        | OpKind::BroadcastInDim { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Reverse { .. }
        | OpKind::Slice { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Concatenate { .. }
        | OpKind::Pad { .. }
        | OpKind::Gather { .. }
        | OpKind::GetDimensionSize { .. }
        | OpKind::DotGeneral { .. } => true,
        _ => false,
    }
}

fn in_region(f: &Function, region: &mut Region, subst: &mut HashMap<ValueId, ValueId>) {
    // Earlier pure ops of this region, by operand list.
    let mut seen: HashMap<Vec<ValueId>, Vec<usize>> = HashMap::new();
    let ops = std::mem::take(&mut region.ops);
    for mut op in ops {
        substitute_uses(&mut op, &|v| *subst.get(&v).unwrap_or(&v));
        for nested in &mut op.regions {
            in_region(f, nested, subst);
        }
        if is_pure(&op) {
            let same = |e: &Op| {
                e.kind == op.kind
                    && e.results.len() == op.results.len()
                    && e.results.iter().zip(&op.results).all(|(a, b)| f.value_type(*a) == f.value_type(*b))
            };
            let earlier = seen.get(&op.operands).and_then(|c| c.iter().map(|&i| &region.ops[i]).find(|e| same(e)));
            if let Some(e) = earlier {
                for (&r, &kept) in op.results.iter().zip(&e.results) {
                    subst.insert(r, kept);
                }
                continue;
            }
            seen.entry(op.operands.clone()).or_default().push(region.ops.len());
        }
        region.ops.push(op);
    }
    for r in &mut region.results {
        *r = *subst.get(r).unwrap_or(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{read_program, ProgramFormat};

    fn main_of(text: &str) -> Function {
        let mut m = read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap();
        eliminate_common_subexpressions(&mut m);
        m.entry_function().clone()
    }

    fn kinds(r: &Region) -> Vec<String> {
        r.ops.iter().map(|o| o.kind.name().to_string()).collect()
    }

    #[test]
    fn repeats_are_dropped_and_their_uses_renamed() {
        let f = main_of(
            "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.add %x, %y : tensor<4xf32>
  %b = stablehlo.add %x, %y : tensor<4xf32>
  %c = stablehlo.multiply %a, %b : tensor<4xf32>
  %d = stablehlo.add %y, %x : tensor<4xf32>
  %e = stablehlo.subtract %x, %y : tensor<4xf32>
  return %c, %d : tensor<4xf32>, tensor<4xf32>
}",
        );
        // %b goes (its use becomes %a); %d reads its operands the other way round and stays;
        // %e is a different op on the same operands and stays too.
        assert_eq!(kinds(&f.body), ["add", "multiply", "add", "subtract"]);
        let [add, mul, ..] = &f.body.ops[..] else { unreachable!() };
        assert_eq!(mul.operands, vec![add.results[0], add.results[0]]);
    }

    #[test]
    fn attributes_types_and_effects_keep_ops_apart() {
        let f = main_of(
            r#"func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x3xf64>, tensor<2x3xf16>, tensor<4xf32>, tensor<4xf32>) {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r1 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %r2 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %c1 = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %c2 = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %o1 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %o2 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  return %t, %r1, %r2, %c1, %c2, %o1, %o2 : tensor<3x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x3xf64>, tensor<2x3xf16>, tensor<4xf32>, tensor<4xf32>
}"#,
        );
        // One reshape goes; converts to different types stay; `rng` draws new numbers each time
        // and is not matched.
        assert_eq!(kinds(&f.body), ["transpose", "reshape", "convert", "convert", "constant", "constant", "constant", "rng", "rng"]);
        assert_eq!(f.body.results[1], f.body.results[2]);
        assert_ne!(f.body.results[5], f.body.results[6]);
    }

    #[test]
    fn each_region_matches_only_its_own_ops() {
        let f = main_of(
            "func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %n = stablehlo.constant dense<10> : tensor<i32>
  %a = stablehlo.add %x, %n : tensor<i32>
  %0:2 = stablehlo.while(%i = %x, %s = %a) : tensor<i32>, tensor<i32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %b = stablehlo.add %x, %n : tensor<i32>
    %j1 = stablehlo.add %i, %b : tensor<i32>
    %j2 = stablehlo.add %i, %b : tensor<i32>
    %t = stablehlo.multiply %j1, %j2 : tensor<i32>
    stablehlo.return %t, %s : tensor<i32>, tensor<i32>
  }
  return %0#0 : tensor<i32>
}",
        );
        let body = &f.body.ops[2].regions[1];
        // %b repeats %a of the function's body but stays (no new capture); %j2 goes.
        assert_eq!(kinds(body), ["add", "add", "multiply"]);
        let j1 = body.ops[1].results[0];
        assert_eq!(body.ops[2].operands, vec![j1, j1]);
    }
}
