//! Tokens as empty tensors. A `!stablehlo.token` carries no data, only order; apu runs a program's
//! steps in program order, so order holds without it. Every token value becomes a `tensor<0xi1>` (the
//! buffer PJRT frameworks pass for a token argument) and `create_token` / `after_all` become empty
//! constants, so that programs with ordered effects (JAX threads a token through `main`, loops and
//! callbacks) plan like any other instead of leaving the planner.

use crate::ir::{ElementType, Literal, Module, Op, OpKind, Region, TensorType, Type};

/// The tensor type a token becomes.
pub fn token_tensor_type() -> TensorType {
    TensorType::new(vec![0], ElementType::Pred)
}

fn retype(t: &mut Type) {
    match t {
        Type::Token => *t = Type::Tensor(token_tensor_type()),
        Type::Tuple(ts) => ts.iter_mut().for_each(retype),
        _ => {}
    }
}

fn rewrite_region(region: &mut Region, values: &[Type]) {
    for op in &mut region.ops {
        // A manual computation names no split for a token (rank 0); its empty tensor has rank 1.
        if let OpKind::ManualComputation(mc) = &mut op.kind {
            let is_token = |v: &crate::ir::ValueId| matches!(values.get(v.index()), Some(Type::Token));
            for (dims, v) in mc.in_shardings.iter_mut().zip(&op.operands).chain(mc.out_shardings.iter_mut().zip(&op.results)) {
                if is_token(v) {
                    *dims = vec![Vec::new()];
                }
            }
        }
        if matches!(op.kind, OpKind::CreateToken | OpKind::AfterAll) {
            let empty = Literal::dense(token_tensor_type(), Vec::new()).expect("an empty literal has no bytes");
            *op = Op { kind: OpKind::Constant(empty), operands: Vec::new(), ..op.clone() };
        }
        op.regions.iter_mut().for_each(|r| rewrite_region(r, values));
    }
}

pub fn tokens_as_empty_tensors(module: &mut Module) {
    for f in &mut module.functions {
        if !f.values.iter().any(|t| matches!(t, Type::Token) || matches!(t, Type::Tuple(_))) {
            continue;
        }
        let original = f.values.clone();
        rewrite_region(&mut f.body, &original);
        f.values.iter_mut().for_each(retype);
        f.result_types.iter_mut().for_each(retype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Function, Module};

    #[test]
    fn token_values_become_empty_pred_tensors_and_token_makers_constants() {
        let mut main = Function::new("main");
        let t = main.new_value(Type::Token);
        let x = main.new_value(Type::tensor(vec![2], ElementType::F32));
        let made = main.new_value(Type::Token);
        let joined = main.new_value(Type::Token);
        main.body.params = vec![t, x];
        main.body.ops.push(Op::new(OpKind::CreateToken, vec![], vec![made]));
        main.body.ops.push(Op::new(OpKind::AfterAll, vec![t, made], vec![joined]));
        main.body.results = vec![joined, x];
        main.result_types = vec![Type::Token, Type::tensor(vec![2], ElementType::F32)];
        let mut m = Module { functions: vec![main], entry: 0, ..Default::default() };
        tokens_as_empty_tensors(&mut m);
        let f = m.entry_function();
        let empty = Type::Tensor(token_tensor_type());
        assert_eq!(f.value_type(t), &empty);
        assert_eq!(f.value_type(joined), &empty);
        assert_eq!(f.value_type(x), &Type::tensor(vec![2], ElementType::F32));
        assert_eq!(f.result_types[0], empty);
        for op in &f.body.ops {
            assert!(matches!(&op.kind, OpKind::Constant(l) if l.ty == token_tensor_type()), "{:?}", op.kind);
            assert!(op.operands.is_empty());
        }
    }
}
