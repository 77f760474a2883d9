//! HLO opcodes the IR has no op for: `erf`, the inverse-trigonometric and hyperbolic functions
//! (`acos`, `acosh`, `asin`, `asinh`, `atan`, `atanh`, `cosh`, `sinh`) and `topk`. They are the
//! functions StableHLO programs carry as CHLO ops, and are expanded inline into plain IR ops by
//! the same shared expansions ([`crate::chlo`]) the text reader uses, so both program formats reach
//! the executor in the same form.

use super::computation::Mapped;
use super::proto::HloInstructionProto;
use crate::chlo::{self, Builder};
use crate::ir::{Function, Location, Op, Type, ValueId};
use crate::{Error, Result};

/// The one-operand functions this module expands, by HLO opcode (the CHLO names are the same).
pub(super) const EXPANDED_OPCODES: [&str; 9] = [
    "erf", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh",
];

/// Emits the expansion of the one-operand function `opcode` of `values[0]`, of type `ty`.
pub(super) fn elementwise(
    f: &mut Function,
    ops: &mut Vec<Op>,
    opcode: &str,
    values: &[ValueId],
    ty: &Type,
    loc: &Location,
) -> Result<Mapped> {
    let [x] = values else {
        return Err(Error::invalid(format!(
            "{opcode} takes one operand, got {}",
            values.len()
        )));
    };
    let mut b = Builder::new(f, ops, loc.clone());
    Ok(Mapped::Value(chlo::expand_elementwise(
        &mut b, opcode, *x, ty,
    )?))
}

/// `topk`: the `k` largest (or, with `largest` false, smallest) elements along the last dimension
/// and their indices, as the tuple (values, indices).
pub(super) fn top_k(
    f: &mut Function,
    ops: &mut Vec<Op>,
    inst: &HloInstructionProto,
    values: &[ValueId],
    ty: &Type,
    loc: &Location,
) -> Result<Mapped> {
    let [x] = values else {
        return Err(Error::invalid(format!(
            "topk takes one operand, got {}",
            values.len()
        )));
    };
    let Type::Tuple(parts) = ty else {
        return Err(Error::invalid(format!(
            "topk must give a (values, indices) tuple, not {ty}"
        )));
    };
    let [values_ty, indices_ty] = &parts[..] else {
        return Err(Error::invalid(format!(
            "topk must give a (values, indices) tuple, not {ty}"
        )));
    };
    let mut b = Builder::new(f, ops, loc.clone());
    let (v, i) = chlo::top_k(&mut b, *x, inst.k, inst.largest, values_ty, indices_ty)?;
    Ok(Mapped::Tuple(vec![Mapped::Value(v), Mapped::Value(i)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, ComparisonDirection, ElementType, OpKind, TensorType, UnaryOp};
    use std::collections::HashMap;

    /// `name(x: ty) -> ty` computing `opcode` elementwise, as the HLO reader expands it.
    fn decomposition(opcode: &str, name: &str, ty: &TensorType) -> Result<Function> {
        let mut f = Function::new(name);
        let x = f.new_value(Type::Tensor(ty.clone()));
        f.body.params.push(x);
        let mut ops = Vec::new();
        let Mapped::Value(r) = elementwise(
            &mut f,
            &mut ops,
            opcode,
            &[x],
            &Type::Tensor(ty.clone()),
            &Location::default(),
        )?
        else {
            panic!("one result")
        };
        f.body.ops = ops;
        f.body.results = vec![r];
        f.result_types = vec![Type::Tensor(ty.clone())];
        Ok(f)
    }

    /// Evaluates a scalar decomposition in f64 with a tiny interpreter of the ops it uses.
    fn run(f: &Function, x: f64) -> f64 {
        let mut env: HashMap<ValueId, f64> = HashMap::new();
        env.insert(f.body.params[0], x);
        for op in &f.body.ops {
            let a = |i: usize| env[&op.operands[i]];
            let v = match &op.kind {
                OpKind::Constant(l) if l.bytes.len() == 4 => {
                    f32::from_le_bytes(l.bytes[..4].try_into().unwrap()) as f64
                }
                OpKind::Constant(l) => f64::from_le_bytes(l.bytes[..8].try_into().unwrap()),
                OpKind::Clamp => a(1).max(a(0)).min(a(2)),
                OpKind::Select => {
                    if a(0) != 0.0 {
                        a(1)
                    } else {
                        a(2)
                    }
                }
                OpKind::Convert => a(0),
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    ..
                } => (a(0) < a(1)) as u8 as f64,
                OpKind::Compare {
                    direction: ComparisonDirection::Gt,
                    ..
                } => (a(0) > a(1)) as u8 as f64,
                OpKind::Compare {
                    direction: ComparisonDirection::Eq,
                    ..
                } => (a(0) == a(1)) as u8 as f64,
                OpKind::Binary(BinaryOp::Multiply) => a(0) * a(1),
                OpKind::Binary(BinaryOp::Add) => a(0) + a(1),
                OpKind::Binary(BinaryOp::Subtract) => a(0) - a(1),
                OpKind::Binary(BinaryOp::Divide) => a(0) / a(1),
                OpKind::Binary(BinaryOp::Atan2) => a(0).atan2(a(1)),
                OpKind::Unary(UnaryOp::Abs) => a(0).abs(),
                OpKind::Unary(UnaryOp::Negate) => -a(0),
                OpKind::Unary(UnaryOp::Sign) => {
                    if a(0) == 0.0 {
                        0.0
                    } else {
                        a(0).signum()
                    }
                }
                OpKind::Unary(UnaryOp::Sqrt) => a(0).sqrt(),
                OpKind::Unary(UnaryOp::Exponential) => a(0).exp(),
                OpKind::Unary(UnaryOp::ExponentialMinusOne) => a(0).exp_m1(),
                OpKind::Unary(UnaryOp::Log) => a(0).ln(),
                OpKind::Unary(UnaryOp::LogPlusOne) => a(0).ln_1p(),
                other => panic!("unexpected op {}", other.name()),
            };
            env.insert(op.results[0], v);
        }
        env[&f.body.results[0]]
    }

    fn close(got: f64, want: f64) -> bool {
        (got.is_nan() && want.is_nan())
            || got == want
            || (got - want).abs() <= 1e-6 * want.abs().max(1e-30) + 1e-12
    }

    #[test]
    fn erf_matches_reference_values() {
        let f = decomposition("erf", "erf", &TensorType::scalar(ElementType::F32)).unwrap();
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (-2.0, -0.995_322_265_018_952_7),
            (6.0, 1.0),
        ] {
            let got = run(&f, x);
            assert!(
                (got - want).abs() < 2e-7,
                "erf({x}) = {got}, expected {want}"
            );
        }
    }

    #[test]
    fn trig_and_hyperbolic_match_std() {
        type Case = (&'static str, fn(f64) -> f64, &'static [f64]);
        let cases: [Case; 8] = [
            ("atan", f64::atan, &[-1e6, -3.0, -0.5, 0.0, 1e-8, 0.7, 20.0]),
            (
                "asin",
                f64::asin,
                &[-1.0, -0.9, -1e-7, 0.0, 0.3, 0.999, 1.0, 1.5],
            ),
            ("acos", f64::acos, &[-1.0, -0.9, 0.0, 0.3, 0.999, 1.0, -1.5]),
            (
                "sinh",
                f64::sinh,
                &[-20.0, -1.5, -0.999, -1e-6, 0.0, 1e-6, 0.5, 1.0, 3.0, 88.0],
            ),
            ("cosh", f64::cosh, &[-20.0, -1.0, 0.0, 1e-4, 0.5, 3.0, 88.0]),
            (
                "asinh",
                f64::asinh,
                &[-1e20, -1e5, -2.0, -1e-6, 0.0, 1e-6, 0.5, 3.0, 9999.0, 1e30],
            ),
            (
                "acosh",
                f64::acosh,
                &[1.0, 1.0 + 1e-6, 1.5, 10.0, 9999.0, 1e30, 0.5],
            ),
            (
                "atanh",
                f64::atanh,
                &[-1.0, -0.99, -1e-7, 0.0, 1e-7, 0.5, 0.99, 1.0, 1.5],
            ),
        ];
        for elem in [ElementType::F32, ElementType::F64] {
            for (name, reference, points) in cases {
                let f = decomposition(name, name, &TensorType::scalar(elem)).unwrap();
                for &x in points {
                    let (got, want) = (run(&f, x), reference(x));
                    assert!(
                        close(got, want),
                        "{name}({x}) in {elem}: got {got}, expected {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn narrow_floats_compute_in_f32() {
        let f = decomposition("erf", "erf", &TensorType::new(vec![2], ElementType::BF16)).unwrap();
        assert_eq!(f.body.ops.first().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(f.body.ops.last().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(
            f.result_types,
            vec![Type::tensor(vec![2], ElementType::BF16)]
        );
        let compare =
            decomposition("sinh", "sinh", &TensorType::new(vec![2], ElementType::F16)).unwrap();
        let pred = compare
            .body
            .ops
            .iter()
            .find(|o| o.kind.name() == "compare")
            .unwrap();
        assert_eq!(
            compare.value_type(pred.results[0]),
            &Type::tensor(vec![2], ElementType::Pred)
        );
    }
}
