//! Reduces that move no data become elementwise ops: a reduce whose reduced dimensions all have
//! extent 1 folds one element per result, so it is `body(init, x)` on `x` reshaped to the result
//! type. JAX emits such reduces in every gather and scatter of `jnp` indexing (the bounds check
//! `all(0 <= i <= n)` over the index vector dimension, often of size 1). As a reduce, a
//! `[2048, 1] -> [2048]` one planned a reduce kernel folding 2048 rows of one element each; as an
//! elementwise op it fuses into the `select` that reads it.

use crate::ir::{Function, Module, Op, OpKind, Region, Type};

pub fn rewrite_unit_reduces(module: &mut Module) {
    for f in &mut module.functions {
        let mut body = std::mem::take(&mut f.body);
        in_region(f, &mut body);
        f.body = body;
    }
}

fn in_region(f: &mut Function, region: &mut Region) {
    let ops = std::mem::take(&mut region.ops);
    for mut op in ops {
        for nested in &mut op.regions {
            in_region(f, nested);
        }
        match as_elementwise(f, &op) {
            Some(replacement) => region.ops.extend(replacement),
            None => region.ops.push(op),
        }
    }
}

/// The ops computing `op`'s result elementwise, when `op` is a one-input reduce over extent-1
/// dimensions whose body is one binary op of its two parameters.
fn as_elementwise(f: &mut Function, op: &Op) -> Option<Vec<Op>> {
    let OpKind::Reduce { dimensions } = &op.kind else { return None };
    let (&[x, init], &[r], [body]) = (op.operands.as_slice(), op.results.as_slice(), op.regions.as_slice()) else { return None };
    let [combine] = body.ops.as_slice() else { return None };
    let OpKind::Binary(b) = combine.kind else { return None };
    let &[acc, elem] = body.params.as_slice() else { return None };
    if body.results != combine.results {
        return None;
    }
    let init_first = match combine.operands.as_slice() {
        &[p, q] if p == acc && q == elem => true,
        &[p, q] if p == elem && q == acc => false,
        _ => return None,
    };
    let xt = f.value_type(x).as_tensor()?.clone();
    let rt = f.value_type(r).as_tensor()?.clone();
    let unit = dimensions.iter().all(|&d| usize::try_from(d).ok().and_then(|d| xt.shape.get(d)) == Some(&1));
    if !unit || xt.elem != rt.elem || f.value_type(init).as_tensor()?.elem != rt.elem {
        return None;
    }
    let ty = Type::Tensor(rt);
    let (reshaped, broadcast) = (f.new_value(ty.clone()), f.new_value(ty));
    let at = |mut o: Op| {
        o.location = op.location.clone();
        o
    };
    let (lhs, rhs) = if init_first { (broadcast, reshaped) } else { (reshaped, broadcast) };
    Some(vec![
        at(Op::new(OpKind::Reshape, vec![x], vec![reshaped])),
        at(Op::new(OpKind::BroadcastInDim { broadcast_dimensions: Vec::new() }, vec![init], vec![broadcast])),
        at(Op::new(OpKind::Binary(b), vec![lhs, rhs], vec![r])),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{read_program, ProgramFormat};

    fn kinds(m: &Module) -> Vec<String> {
        m.functions[0].body.ops.iter().map(|o| format!("{:?}", o.kind).split([' ', '(', '{']).next().unwrap().to_string()).collect()
    }

    #[test]
    fn reduces_over_extent_one_become_elementwise_and_others_stay() {
        let mut m = read_program(
            ProgramFormat::Mlir,
            b"func.func @main(%x: tensor<8x1xi1>, %y: tensor<8x2xf32>, %t: tensor<i1>, %z: tensor<f32>) -> (tensor<8xi1>, tensor<8xf32>) {
  %0 = stablehlo.reduce(%x init: %t) applies stablehlo.and across dimensions = [1] : (tensor<8x1xi1>, tensor<i1>) -> tensor<8xi1>
  %1 = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xi1>, tensor<8xf32>
}",
        )
        .unwrap();
        rewrite_unit_reduces(&mut m);
        assert_eq!(kinds(&m), ["Reshape", "BroadcastInDim", "Binary", "Reduce"]);
        crate::valid::validate(m).expect("the rewritten module is valid");
    }
}
