//! Copies of one-element constants into the `while` and `case` regions that read them.
//!
//! JAX 0.10 hoists a loop's constants (the trip count of `i < n`, the step of `i + 1`, scalars of
//! the body) out of the `while` and reads them from inside its regions. The planner fuses constants
//! only within one block, so a captured constant would be a buffer loaded on every iteration, and
//! the loop counter's kernels would lose their one-load-one-constant form. A one-element constant
//! costs nothing to repeat, so each region that reads one gets its own copy.

use super::remap::substitute_uses;
use crate::ir::{Function, Literal, Module, Op, OpKind, Region, ValueId};
use std::collections::HashMap;

pub fn sink_constants(module: &mut Module) {
    for f in &mut module.functions {
        let mut body = std::mem::take(&mut f.body);
        sink_into_nested(f, &mut body, &HashMap::new());
        f.body = body;
    }
}

/// One-element constants defined by `region`'s own ops.
fn own_constants(f: &Function, region: &Region) -> HashMap<ValueId, Literal> {
    region
        .ops
        .iter()
        .filter_map(|op| match (&op.kind, op.results.as_slice()) {
            (OpKind::Constant(lit), [r]) if f.value_type(*r).as_tensor().is_some_and(|t| t.num_elements() == 1) => Some((*r, lit.clone())),
            _ => None,
        })
        .collect()
}

/// For every `while` and `case` of `region`: copies the constants visible in `region` (its own and
/// `outer`'s) into each of its regions that reads them, then recurses.
fn sink_into_nested(f: &mut Function, region: &mut Region, outer: &HashMap<ValueId, Literal>) {
    let mut visible = outer.clone();
    visible.extend(own_constants(f, region));
    // Only control flow: the bodies of reduce, sort or scatter are matched by shape as combiners
    // and comparators, which an extra op would hide (JAX does not capture into them anyway).
    for op in region.ops.iter_mut().filter(|op| matches!(op.kind, OpKind::While | OpKind::Case)) {
        for nested in &mut op.regions {
            let mut read = Vec::new();
            reads(nested, &mut |v| {
                if visible.contains_key(&v) && !read.contains(&v) {
                    read.push(v);
                }
            });
            let mut copies: HashMap<ValueId, ValueId> = HashMap::new();
            let mut defs = Vec::with_capacity(read.len());
            for v in read {
                let copy = f.new_value(f.value_type(v).clone());
                copies.insert(v, copy);
                defs.push(Op::new(OpKind::Constant(visible[&v].clone()), vec![], vec![copy]));
            }
            if !copies.is_empty() {
                let rename = |v: ValueId| *copies.get(&v).unwrap_or(&v);
                for inner in &mut nested.ops {
                    substitute_uses(inner, &rename);
                }
                for r in &mut nested.results {
                    *r = rename(*r);
                }
                nested.ops.splice(0..0, defs);
            }
            // The copies are the nested region's own constants now; deeper regions get theirs.
            sink_into_nested(f, nested, &HashMap::new());
        }
    }
}

/// Calls `f` with every value `region` reads (operands and results, at any depth).
fn reads(region: &Region, f: &mut impl FnMut(ValueId)) {
    for op in &region.ops {
        for &v in &op.operands {
            f(v);
        }
        for r in &op.regions {
            reads(r, f);
        }
    }
    for &v in &region.results {
        f(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, ComparisonDirection, ElementType, TensorType, Type};

    /// `while (i < n) { i = i + 1 }` with `n` and `1` defined before the loop, as JAX 0.10 sends it.
    #[test]
    fn loop_constants_are_copied_into_the_regions_that_read_them() {
        let s32 = Type::tensor(vec![], ElementType::S32);
        let mut f = Function::new("main");
        let konst = |f: &mut Function, v: i32| {
            let r = f.new_value(Type::tensor(vec![], ElementType::S32));
            (r, Op::new(OpKind::Constant(Literal::dense(TensorType::scalar(ElementType::S32), v.to_le_bytes().to_vec()).unwrap()), vec![], vec![r]))
        };
        let (one, one_def) = konst(&mut f, 1);
        let (n, n_def) = konst(&mut f, 1000);
        let (zero, zero_def) = konst(&mut f, 0);
        let big = f.new_value(Type::tensor(vec![2], ElementType::S32));
        let big_def = Op::new(OpKind::Constant(Literal::dense(TensorType::new(vec![2], ElementType::S32), [0u8; 8].to_vec()).unwrap()), vec![], vec![big]);
        let (ci, cp) = (f.new_value(s32.clone()), f.new_value(Type::tensor(vec![], ElementType::Pred)));
        let cond = Region { params: vec![ci], ops: vec![Op::new(OpKind::Compare { direction: ComparisonDirection::Lt, compare_type: None }, vec![ci, n], vec![cp])], results: vec![cp] };
        let (bi, bs) = (f.new_value(s32.clone()), f.new_value(s32.clone()));
        let body = Region { params: vec![bi], ops: vec![Op::new(OpKind::Binary(BinaryOp::Add), vec![bi, one], vec![bs])], results: vec![bs] };
        let out = f.new_value(s32.clone());
        let mut w = Op::new(OpKind::While, vec![zero], vec![out]);
        w.regions = vec![cond, body];
        f.body = Region { params: vec![], ops: vec![one_def, n_def, zero_def, big_def, w], results: vec![out, one] };
        let mut m = Module { functions: vec![f], entry: 0, ..Default::default() };
        sink_constants(&mut m);
        let f = &m.functions[0];
        let w = &f.body.ops[4];
        let lit_of = |r: &Region, v: ValueId| r.ops.iter().find(|o| o.results == [v]).and_then(|o| match &o.kind {
            OpKind::Constant(l) => Some(l.clone()),
            _ => None,
        });
        for (region, captured) in [(&w.regions[0], n), (&w.regions[1], one)] {
            let user = region.ops.last().unwrap();
            let copy = user.operands[1];
            assert_ne!(copy, captured, "the region reads its own copy");
            assert_eq!(lit_of(region, copy), lit_of(&f.body, captured), "with the same value");
            assert_eq!(region.ops.len(), 2, "one copy, before its user: {:?}", region.ops);
        }
        assert_eq!(w.operands, vec![zero], "operands of the loop itself are not rewritten");
        assert_eq!(f.body.results, vec![out, one], "the outer block keeps its constants");
    }
}
