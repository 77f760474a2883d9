//! HLO's `erf` opcode. The IR has no erf op; StableHLO programs carry it as the composite
//! `chlo.erf` whose decomposition is a private function. apu does the same for HLO: it
//! synthesises one decomposition function per tensor type and emits a `chlo.erf` composite, so
//! both program formats reach the runtime in the same form.
//!
//! The decomposition is the rational approximation XLA uses for f32: clamp x to [-4, 4], then
//! erf(x) ≈ x·P(x²)/Q(x²) with P of degree 6 and Q of degree 4, clamped to [-1, 1] (max error
//! about 7e-8 against the exact function). Narrower floats are computed in f32; f64 uses the same
//! polynomial in f64 precision.

use super::computation::{emit, Mapped, ModuleReader};
use crate::ir::{BinaryOp, ElementType, Function, Literal, Location, Op, OpKind, TensorType, Type, ValueId};
use crate::{Error, Result};

const NUMERATOR: [f64; 7] = [
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
];
const DENOMINATOR: [f64; 5] =
    [-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02];

impl<'p> ModuleReader<'p> {
    pub(super) fn erf(
        &mut self,
        f: &mut Function,
        ops: &mut Vec<Op>,
        values: &[ValueId],
        ty: &Type,
        loc: &Location,
    ) -> Result<Mapped> {
        let [x] = values else { return Err(Error::invalid(format!("erf takes one operand, got {}", values.len()))) };
        let t = match ty {
            Type::Tensor(t) if t.elem.is_float() => t.clone(),
            _ => return Err(Error::unimplemented(format!("erf of {ty}"))),
        };
        let decomposition = self.erf_function(&t);
        let kind = OpKind::Composite { name: "chlo.erf".into(), decomposition, version: 0, attributes: Vec::new() };
        Ok(emit(f, ops, kind, vec![*x], ty, vec![], loc))
    }

    /// The name of the decomposition function for `ty`, made on first use.
    fn erf_function(&mut self, ty: &TensorType) -> String {
        let dims: Vec<String> = ty.shape.iter().map(|d| d.to_string()).collect();
        let key = format!("apu.erf.impl.{}x{}", dims.join("x"), ty.elem);
        if let Some(&i) = self.helpers.get(&key) {
            return self.functions[i].name.clone();
        }
        // A computation may (improbably) already use the name.
        let name = self.unique_name(&key);
        self.functions.push(erf_decomposition(&name, ty));
        self.helpers.insert(key, self.functions.len() - 1);
        name
    }
}

fn erf_decomposition(name: &str, ty: &TensorType) -> Function {
    let mut b = Builder { f: Function::new(name), ops: Vec::new() };
    let x = b.f.new_value(Type::Tensor(ty.clone()));
    b.f.body.params.push(x);

    let compute = if ty.elem == ElementType::F64 { ElementType::F64 } else { ElementType::F32 };
    let ct = TensorType::new(ty.shape.clone(), compute);
    let xc = if compute == ty.elem { x } else { b.op(OpKind::Convert, vec![x], &ct) };

    let lo = b.splat(&ct, -4.0);
    let hi = b.splat(&ct, 4.0);
    let xc = b.op(OpKind::Clamp, vec![lo, xc, hi], &ct);
    let x2 = b.op(OpKind::Binary(BinaryOp::Multiply), vec![xc, xc], &ct);
    let p = b.polynomial(&ct, x2, &NUMERATOR);
    let p = b.op(OpKind::Binary(BinaryOp::Multiply), vec![p, xc], &ct);
    let q = b.polynomial(&ct, x2, &DENOMINATOR);
    let r = b.op(OpKind::Binary(BinaryOp::Divide), vec![p, q], &ct);
    let minus_one = b.splat(&ct, -1.0);
    let one = b.splat(&ct, 1.0);
    let r = b.op(OpKind::Clamp, vec![minus_one, r, one], &ct);
    let r = if compute == ty.elem { r } else { b.op(OpKind::Convert, vec![r], ty) };

    let mut f = b.f;
    f.body.ops = b.ops;
    f.body.results = vec![r];
    f.result_types = vec![Type::Tensor(ty.clone())];
    f.arg_attrs = vec![Default::default()];
    f
}

struct Builder {
    f: Function,
    ops: Vec<Op>,
}

impl Builder {
    fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: &TensorType) -> ValueId {
        let v = self.f.new_value(Type::Tensor(ty.clone()));
        self.ops.push(Op::new(kind, operands, vec![v]));
        v
    }

    fn splat(&mut self, ty: &TensorType, value: f64) -> ValueId {
        let bytes = match ty.elem {
            ElementType::F64 => value.to_le_bytes().to_vec(),
            _ => (value as f32).to_le_bytes().to_vec(),
        };
        let lit = Literal::splat(ty.clone(), bytes).expect("element bytes match the f32/f64 type");
        self.op(OpKind::Constant(lit), vec![], ty)
    }

    /// Horner evaluation of `coefficients` (highest degree first) at `x`.
    fn polynomial(&mut self, ty: &TensorType, x: ValueId, coefficients: &[f64]) -> ValueId {
        let mut acc = self.splat(ty, coefficients[0]);
        for &c in &coefficients[1..] {
            let m = self.op(OpKind::Binary(BinaryOp::Multiply), vec![acc, x], ty);
            let c = self.splat(ty, c);
            acc = self.op(OpKind::Binary(BinaryOp::Add), vec![m, c], ty);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Evaluates the scalar f32 decomposition with a tiny interpreter of the ops it uses.
    fn run(f: &Function, x: f32) -> f32 {
        let mut env: HashMap<ValueId, f32> = HashMap::new();
        env.insert(f.body.params[0], x);
        for op in &f.body.ops {
            let a = |i: usize| env[&op.operands[i]];
            let v = match &op.kind {
                OpKind::Constant(l) => f32::from_le_bytes(l.bytes[..4].try_into().unwrap()),
                OpKind::Clamp => a(1).max(a(0)).min(a(2)),
                OpKind::Binary(BinaryOp::Multiply) => a(0) * a(1),
                OpKind::Binary(BinaryOp::Add) => a(0) + a(1),
                OpKind::Binary(BinaryOp::Divide) => a(0) / a(1),
                other => panic!("unexpected op {}", other.name()),
            };
            env.insert(op.results[0], v);
        }
        env[&f.body.results[0]]
    }

    #[test]
    fn decomposition_matches_erf() {
        let f = erf_decomposition("erf", &TensorType::scalar(ElementType::F32));
        for (x, want) in [(0.0f32, 0.0f32), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (-2.0, -0.995_322_3), (6.0, 1.0)] {
            let got = run(&f, x);
            assert!((got - want).abs() < 2e-6, "erf({x}) = {got}, expected {want}");
        }
    }

    #[test]
    fn narrow_floats_compute_in_f32() {
        let f = erf_decomposition("erf", &TensorType::new(vec![2], ElementType::BF16));
        assert_eq!(f.body.ops.first().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(f.body.ops.last().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(f.result_types, vec![Type::tensor(vec![2], ElementType::BF16)]);
    }
}
