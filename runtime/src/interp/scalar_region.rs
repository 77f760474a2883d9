//! Regions made only of scalar elementwise ops (the comparators of sort, the bodies of argmax
//! reductions and scatters), compiled once per op into a list of steps over `Scalar` slots, so
//! that each call skips building tensors. The steps use the same scalar functions as the
//! elementwise ops and round each result to its element type, as storing it would; anything else
//! in the region makes `compile` return `None` and the caller runs the region normally.

use super::array::{round_scalar, Array, Scalar};
use super::elementwise::{binary_fn, binary_result_elem, compare_fn, unary_fn, unary_result_elem, BinaryFn, CompareFn, UnaryFn};
use super::value::Value;
use apu_compiler::ir::{ElementType, Function, OpKind, Region, Type, ValueId};
use apu_compiler::{Error, Result};
use std::collections::HashMap;

/// One op, reading and writing slots.
enum Step {
    Unary(UnaryFn, ElementType, usize),
    Binary(BinaryFn, ElementType, usize, usize),
    Compare(CompareFn, usize, usize),
    Select(usize, usize, usize),
    Convert(ElementType, usize),
}

pub struct ScalarProgram {
    /// One slot per value: parameters first (filled per call), constants, then step results.
    template: Vec<Scalar>,
    params: usize,
    /// Each step and the slot it writes.
    steps: Vec<(Step, usize)>,
    results: Vec<usize>,
}

fn scalar_elem(f: &Function, v: ValueId) -> Option<ElementType> {
    match f.values.get(v.index())? {
        Type::Tensor(t) if t.rank() == 0 => Some(t.elem),
        _ => None,
    }
}

impl ScalarProgram {
    /// Compiles `region`; values it reads from outside must already be bound (`outer`).
    pub fn compile(f: &Function, region: &Region, outer: impl Fn(ValueId) -> Option<Value>) -> Option<ScalarProgram> {
        let mut slot: HashMap<ValueId, usize> = HashMap::new();
        let mut template = Vec::new();
        fn new_slot(v: ValueId, init: Scalar, template: &mut Vec<Scalar>, slot: &mut HashMap<ValueId, usize>) -> usize {
            template.push(init);
            slot.insert(v, template.len() - 1);
            template.len() - 1
        }
        for &p in &region.params {
            scalar_elem(f, p)?;
            new_slot(p, Scalar::Bool(false), &mut template, &mut slot);
        }
        let params = template.len();
        let mut steps = Vec::new();
        for op in &region.ops {
            let [result] = op.results.as_slice() else { return None };
            let out_elem = scalar_elem(f, *result)?;
            let mut ins = Vec::with_capacity(op.operands.len());
            for &v in &op.operands {
                scalar_elem(f, v)?;
                let s = match slot.get(&v) {
                    Some(&s) => s,
                    None => {
                        // A scalar defined before the region: the same value for every call.
                        let Some(Value::Tensor(d)) = outer(v) else { return None };
                        new_slot(v, d.data.get(0), &mut template, &mut slot)
                    }
                };
                ins.push(s);
            }
            let in_elem = op.operands.first().and_then(|&v| scalar_elem(f, v));
            let step = match (&op.kind, ins.as_slice()) {
                (OpKind::Constant(lit), []) if lit.ty.rank() == 0 => {
                    let value = Array::from_bytes(lit.ty.elem, &lit.bytes).ok().filter(|a| a.len() == 1)?.get(0);
                    new_slot(*result, value, &mut template, &mut slot);
                    continue;
                }
                (OpKind::Unary(u), &[a]) => {
                    let e = in_elem?;
                    (unary_result_elem(*u, e) == out_elem).then_some(())?;
                    Step::Unary(unary_fn(*u, e).ok()?, out_elem, a)
                }
                (OpKind::Binary(b), &[x, y]) => {
                    let e = in_elem?;
                    (binary_result_elem(*b, e) == out_elem).then_some(())?;
                    Step::Binary(binary_fn(*b, e).ok()?, out_elem, x, y)
                }
                (OpKind::Compare { direction, compare_type }, &[x, y]) => {
                    Step::Compare(compare_fn(*direction, *compare_type, in_elem?).ok()?, x, y)
                }
                (OpKind::Select, &[p, t, e]) => Step::Select(p, t, e),
                (OpKind::Convert, &[a]) => Step::Convert(out_elem, a),
                _ => return None,
            };
            let out = new_slot(*result, Scalar::Bool(false), &mut template, &mut slot);
            steps.push((step, out));
        }
        let results = region.results.iter().map(|r| slot.get(r).copied()).collect::<Option<Vec<_>>>()?;
        Some(ScalarProgram { template, params, steps, results })
    }

    pub fn run(&self, args: &[Scalar]) -> Result<Vec<Scalar>> {
        if args.len() != self.params {
            return Err(Error::invalid(format!("region takes {} values, got {}", self.params, args.len())));
        }
        let mut slots = self.template.clone();
        slots[..self.params].copy_from_slice(args);
        for (step, out) in &self.steps {
            slots[*out] = match *step {
                Step::Unary(ref g, e, a) => round_scalar(e, g(slots[a])),
                Step::Binary(ref g, e, x, y) => round_scalar(e, g(slots[x], slots[y])),
                Step::Compare(ref g, x, y) => Scalar::Bool(g(slots[x], slots[y])),
                Step::Select(p, t, e) => {
                    if matches!(slots[p], Scalar::Bool(true)) {
                        slots[t]
                    } else {
                        slots[e]
                    }
                }
                Step::Convert(e, a) => Array::from_scalars(e, [slots[a]])?.get(0),
            };
        }
        Ok(self.results.iter().map(|&r| slots[r]).collect())
    }
}
