//! HLO opcodes the IR has no op for: `erf` and the inverse-trigonometric and hyperbolic
//! functions (`acos`, `acosh`, `asin`, `asinh`, `atan`, `atanh`, `cosh`, `sinh`). StableHLO
//! programs carry these as CHLO ops (JAX sends `chlo.erf` as a composite whose decomposition is a
//! private function). apu does the same for HLO: it synthesises one decomposition function per
//! (function, tensor type) from IR ops and emits a `chlo.<name>` composite, so both program
//! formats reach the runtime in the same form and an interpreter may run either the
//! decomposition or a native kernel.
//!
//! Narrow floats are computed in f32 and converted back; f64 is computed in f64. Complex
//! operands are UNIMPLEMENTED.
//!
//! erf: the rational approximation XLA uses for f32: clamp x to [-4, 4], then
//! erf(x) ≈ x·P(x²)/Q(x²) with P of degree 6 and Q of degree 4, clamped to [-1, 1] (max error
//! about 7e-8 against the exact function; the same polynomial is used for f64).
//! The others use textbook identities arranged to avoid overflow and cancellation:
//! - atan(x) = atan2(x, 1); asin(x) = atan2(x, √((1−x)(1+x))); acos(x) = atan2(√((1−x)(1+x)), x)
//! - sinh: (expm1(x) − expm1(−x))/2 for |x| < 1, else sign(x)·(e^(|x|−ln2) − e^(−|x|−ln2))
//! - cosh(x) = e^(|x|−ln2) + e^(−|x|−ln2)
//! - asinh(x) = sign(x)·log1p(|x| + x²/(1 + √(1 + x²))), or sign(x)·(ln|x| + ln2) for huge |x|
//! - acosh(x) = log1p(t + √(t(t+2))) with t = x − 1, or ln x + ln2 for huge x
//! - atanh(x) = log1p(2x/(1 − x))/2

use super::computation::{emit, Mapped, ModuleReader};
use crate::ir::{
    BinaryOp, ComparisonDirection, ElementType, Function, Literal, Location, Op, OpKind, TensorType, Type, UnaryOp,
    ValueId,
};
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

/// The functions this module expands, by HLO opcode.
pub(super) const EXPANDED_OPCODES: [&str; 9] = ["erf", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh"];

impl<'p> ModuleReader<'p> {
    /// Emits `chlo.<opcode>` as a composite over a synthesised decomposition.
    pub(super) fn expanded(
        &mut self,
        f: &mut Function,
        ops: &mut Vec<Op>,
        opcode: &str,
        values: &[ValueId],
        ty: &Type,
        loc: &Location,
    ) -> Result<Mapped> {
        let [x] = values else { return Err(Error::invalid(format!("{opcode} takes one operand, got {}", values.len()))) };
        let t = match ty {
            Type::Tensor(t) if t.elem.is_float() => t.clone(),
            _ => return Err(Error::unimplemented(format!("{opcode} of {ty} (apu expands it for real floats only)"))),
        };
        let decomposition = self.decomposition_function(opcode, &t)?;
        let kind =
            OpKind::Composite { name: format!("chlo.{opcode}"), decomposition, version: 0, attributes: Vec::new() };
        Ok(emit(f, ops, kind, vec![*x], ty, vec![], loc))
    }

    /// The name of the decomposition function of `opcode` for `ty`, made on first use.
    fn decomposition_function(&mut self, opcode: &str, ty: &TensorType) -> Result<String> {
        let dims: Vec<String> = ty.shape.iter().map(|d| d.to_string()).collect();
        let key = format!("apu.{opcode}.impl.{}x{}", dims.join("x"), ty.elem);
        if let Some(&i) = self.helpers.get(&key) {
            return Ok(self.functions[i].name.clone());
        }
        // A computation may (improbably) already use the name.
        let name = self.unique_name(&key);
        self.functions.push(decomposition(opcode, &name, ty)?);
        self.helpers.insert(key, self.functions.len() - 1);
        Ok(name)
    }
}

/// Builds `name(x: ty) -> ty` computing `opcode` elementwise.
fn decomposition(opcode: &str, name: &str, ty: &TensorType) -> Result<Function> {
    let mut b = Builder { f: Function::new(name), ops: Vec::new(), ty: ty.clone() };
    let x = b.f.new_value(Type::Tensor(ty.clone()));
    b.f.body.params.push(x);

    let compute = if ty.elem == ElementType::F64 { ElementType::F64 } else { ElementType::F32 };
    b.ty = TensorType::new(ty.shape.clone(), compute);
    let xc = if compute == ty.elem { x } else { b.convert(x, &TensorType::new(ty.shape.clone(), compute)) };
    let r = match opcode {
        "erf" => erf(&mut b, xc),
        "atan" => {
            let one = b.splat(1.0);
            b.binary(BinaryOp::Atan2, xc, one)
        }
        "asin" => {
            let c = b.sqrt_one_minus_square(xc);
            b.binary(BinaryOp::Atan2, xc, c)
        }
        "acos" => {
            let c = b.sqrt_one_minus_square(xc);
            b.binary(BinaryOp::Atan2, c, xc)
        }
        "sinh" => sinh(&mut b, xc),
        "cosh" => {
            let (up, down) = b.half_exponentials(xc);
            b.binary(BinaryOp::Add, up, down)
        }
        "asinh" => asinh(&mut b, xc, compute),
        "acosh" => acosh(&mut b, xc, compute),
        "atanh" => {
            let one = b.splat(1.0);
            let two_x = b.binary(BinaryOp::Add, xc, xc);
            let denom = b.binary(BinaryOp::Subtract, one, xc);
            let q = b.binary(BinaryOp::Divide, two_x, denom);
            let l = b.unary(UnaryOp::LogPlusOne, q);
            let half = b.splat(0.5);
            b.binary(BinaryOp::Multiply, l, half)
        }
        other => return Err(Error::internal(format!("no expansion for {other}"))),
    };
    let r = if compute == ty.elem { r } else { b.convert(r, ty) };

    let mut f = b.f;
    f.body.ops = b.ops;
    f.body.results = vec![r];
    f.result_types = vec![Type::Tensor(ty.clone())];
    f.arg_attrs = vec![Default::default()];
    Ok(f)
}

fn erf(b: &mut Builder, x: ValueId) -> ValueId {
    let lo = b.splat(-4.0);
    let hi = b.splat(4.0);
    let x = b.clamp(lo, x, hi);
    let x2 = b.binary(BinaryOp::Multiply, x, x);
    let p = b.polynomial(x2, &NUMERATOR);
    let p = b.binary(BinaryOp::Multiply, p, x);
    let q = b.polynomial(x2, &DENOMINATOR);
    let r = b.binary(BinaryOp::Divide, p, q);
    let minus_one = b.splat(-1.0);
    let one = b.splat(1.0);
    b.clamp(minus_one, r, one)
}

fn sinh(b: &mut Builder, x: ValueId) -> ValueId {
    // Small |x|: the difference of expm1 keeps full relative precision near 0.
    let neg = b.unary(UnaryOp::Negate, x);
    let e_pos = b.unary(UnaryOp::ExponentialMinusOne, x);
    let e_neg = b.unary(UnaryOp::ExponentialMinusOne, neg);
    let diff = b.binary(BinaryOp::Subtract, e_pos, e_neg);
    let half = b.splat(0.5);
    let small = b.binary(BinaryOp::Multiply, diff, half);
    // Large |x|: halve before exponentiating so that sinh does not overflow before it must.
    let (up, down) = b.half_exponentials(x);
    let magnitude = b.binary(BinaryOp::Subtract, up, down);
    let sign = b.unary(UnaryOp::Sign, x);
    let large = b.binary(BinaryOp::Multiply, sign, magnitude);
    let abs = b.unary(UnaryOp::Abs, x);
    let one = b.splat(1.0);
    let is_small = b.compare(ComparisonDirection::Lt, abs, one);
    b.select(is_small, small, large)
}

fn asinh(b: &mut Builder, x: ValueId, compute: ElementType) -> ValueId {
    let abs = b.unary(UnaryOp::Abs, x);
    let sign = b.unary(UnaryOp::Sign, x);
    // Moderate: log1p(|x| + x²/(1 + √(1 + x²))).
    let x2 = b.binary(BinaryOp::Multiply, abs, abs);
    let one = b.splat(1.0);
    let r = b.binary(BinaryOp::Add, one, x2);
    let r = b.unary(UnaryOp::Sqrt, r);
    let one = b.splat(1.0);
    let denom = b.binary(BinaryOp::Add, one, r);
    let frac = b.binary(BinaryOp::Divide, x2, denom);
    let arg = b.binary(BinaryOp::Add, abs, frac);
    let moderate = b.unary(UnaryOp::LogPlusOne, arg);
    // Huge: ln|x| + ln 2 (x² would overflow).
    let large = b.log_plus_ln2(abs);
    let limit = b.splat(huge_threshold(compute));
    let is_large = b.compare(ComparisonDirection::Gt, abs, limit);
    let m = b.select(is_large, large, moderate);
    b.binary(BinaryOp::Multiply, sign, m)
}

fn acosh(b: &mut Builder, x: ValueId, compute: ElementType) -> ValueId {
    let one = b.splat(1.0);
    let t = b.binary(BinaryOp::Subtract, x, one);
    let two = b.splat(2.0);
    let t2 = b.binary(BinaryOp::Add, t, two);
    let prod = b.binary(BinaryOp::Multiply, t, t2);
    let root = b.unary(UnaryOp::Sqrt, prod);
    let arg = b.binary(BinaryOp::Add, t, root);
    let moderate = b.unary(UnaryOp::LogPlusOne, arg);
    let large = b.log_plus_ln2(x);
    let limit = b.splat(huge_threshold(compute));
    let is_large = b.compare(ComparisonDirection::Gt, x, limit);
    b.select(is_large, large, moderate)
}

/// Above this magnitude x² + 1 == x² in the compute type, so asinh/acosh(x) = ln(2x).
fn huge_threshold(compute: ElementType) -> f64 {
    if compute == ElementType::F64 {
        1e8
    } else {
        1e4
    }
}

struct Builder {
    f: Function,
    ops: Vec<Op>,
    /// The compute type every helper produces.
    ty: TensorType,
}

impl Builder {
    fn push(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Type) -> ValueId {
        let v = self.f.new_value(ty);
        self.ops.push(Op::new(kind, operands, vec![v]));
        v
    }
    fn op(&mut self, kind: OpKind, operands: Vec<ValueId>) -> ValueId {
        let ty = Type::Tensor(self.ty.clone());
        self.push(kind, operands, ty)
    }
    fn unary(&mut self, op: UnaryOp, x: ValueId) -> ValueId {
        self.op(OpKind::Unary(op), vec![x])
    }
    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        self.op(OpKind::Binary(op), vec![a, b])
    }
    fn clamp(&mut self, lo: ValueId, x: ValueId, hi: ValueId) -> ValueId {
        self.op(OpKind::Clamp, vec![lo, x, hi])
    }
    fn select(&mut self, pred: ValueId, on_true: ValueId, on_false: ValueId) -> ValueId {
        self.op(OpKind::Select, vec![pred, on_true, on_false])
    }
    fn compare(&mut self, direction: ComparisonDirection, a: ValueId, b: ValueId) -> ValueId {
        let ty = Type::tensor(self.ty.shape.clone(), ElementType::Pred);
        self.push(OpKind::Compare { direction, compare_type: None }, vec![a, b], ty)
    }
    fn convert(&mut self, x: ValueId, to: &TensorType) -> ValueId {
        self.push(OpKind::Convert, vec![x], Type::Tensor(to.clone()))
    }

    fn splat(&mut self, value: f64) -> ValueId {
        let bytes = match self.ty.elem {
            ElementType::F64 => value.to_le_bytes().to_vec(),
            _ => (value as f32).to_le_bytes().to_vec(),
        };
        let lit = Literal::splat(self.ty.clone(), bytes).expect("element bytes match the f32/f64 compute type");
        self.op(OpKind::Constant(lit), vec![])
    }

    /// Horner evaluation of `coefficients` (highest degree first) at `x`.
    fn polynomial(&mut self, x: ValueId, coefficients: &[f64]) -> ValueId {
        let mut acc = self.splat(coefficients[0]);
        for &c in &coefficients[1..] {
            let m = self.binary(BinaryOp::Multiply, acc, x);
            let c = self.splat(c);
            acc = self.binary(BinaryOp::Add, m, c);
        }
        acc
    }

    /// √((1 − x)(1 + x)), NaN outside [-1, 1].
    fn sqrt_one_minus_square(&mut self, x: ValueId) -> ValueId {
        let one = self.splat(1.0);
        let a = self.binary(BinaryOp::Subtract, one, x);
        let b = self.binary(BinaryOp::Add, one, x);
        let p = self.binary(BinaryOp::Multiply, a, b);
        self.unary(UnaryOp::Sqrt, p)
    }

    /// (e^(|x|−ln2), e^(−|x|−ln2)), i.e. e^|x|/2 and e^−|x|/2 without overflowing early.
    fn half_exponentials(&mut self, x: ValueId) -> (ValueId, ValueId) {
        let abs = self.unary(UnaryOp::Abs, x);
        let ln2 = self.splat(std::f64::consts::LN_2);
        let a = self.binary(BinaryOp::Subtract, abs, ln2);
        let up = self.unary(UnaryOp::Exponential, a);
        let neg = self.unary(UnaryOp::Negate, abs);
        let ln2 = self.splat(std::f64::consts::LN_2);
        let b = self.binary(BinaryOp::Subtract, neg, ln2);
        let down = self.unary(UnaryOp::Exponential, b);
        (up, down)
    }

    /// ln(x) + ln 2.
    fn log_plus_ln2(&mut self, x: ValueId) -> ValueId {
        let l = self.unary(UnaryOp::Log, x);
        let ln2 = self.splat(std::f64::consts::LN_2);
        self.binary(BinaryOp::Add, l, ln2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Evaluates a scalar decomposition in f64 with a tiny interpreter of the ops it uses.
    fn run(f: &Function, x: f64) -> f64 {
        let mut env: HashMap<ValueId, f64> = HashMap::new();
        env.insert(f.body.params[0], x);
        for op in &f.body.ops {
            let a = |i: usize| env[&op.operands[i]];
            let v = match &op.kind {
                OpKind::Constant(l) if l.bytes.len() == 4 => f32::from_le_bytes(l.bytes[..4].try_into().unwrap()) as f64,
                OpKind::Constant(l) => f64::from_le_bytes(l.bytes[..8].try_into().unwrap()),
                OpKind::Clamp => a(1).max(a(0)).min(a(2)),
                OpKind::Select => if a(0) != 0.0 { a(1) } else { a(2) },
                OpKind::Convert => a(0),
                OpKind::Compare { direction: ComparisonDirection::Lt, .. } => (a(0) < a(1)) as u8 as f64,
                OpKind::Compare { direction: ComparisonDirection::Gt, .. } => (a(0) > a(1)) as u8 as f64,
                OpKind::Binary(BinaryOp::Multiply) => a(0) * a(1),
                OpKind::Binary(BinaryOp::Add) => a(0) + a(1),
                OpKind::Binary(BinaryOp::Subtract) => a(0) - a(1),
                OpKind::Binary(BinaryOp::Divide) => a(0) / a(1),
                OpKind::Binary(BinaryOp::Atan2) => a(0).atan2(a(1)),
                OpKind::Unary(UnaryOp::Abs) => a(0).abs(),
                OpKind::Unary(UnaryOp::Negate) => -a(0),
                OpKind::Unary(UnaryOp::Sign) => if a(0) == 0.0 { 0.0 } else { a(0).signum() },
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
        (got.is_nan() && want.is_nan()) || got == want || (got - want).abs() <= 1e-6 * want.abs().max(1e-30) + 1e-12
    }

    #[test]
    fn erf_matches_reference_values() {
        let f = decomposition("erf", "erf", &TensorType::scalar(ElementType::F32)).unwrap();
        for (x, want) in [(0.0, 0.0), (0.5, 0.520_499_877_813_046_5), (1.0, 0.842_700_792_949_714_9), (-2.0, -0.995_322_265_018_952_7), (6.0, 1.0)] {
            let got = run(&f, x);
            assert!((got - want).abs() < 2e-7, "erf({x}) = {got}, expected {want}");
        }
    }

    #[test]
    fn trig_and_hyperbolic_match_std() {
        type Case = (&'static str, fn(f64) -> f64, &'static [f64]);
        let cases: [Case; 8] = [
            ("atan", f64::atan, &[-1e6, -3.0, -0.5, 0.0, 1e-8, 0.7, 20.0]),
            ("asin", f64::asin, &[-1.0, -0.9, -1e-7, 0.0, 0.3, 0.999, 1.0, 1.5]),
            ("acos", f64::acos, &[-1.0, -0.9, 0.0, 0.3, 0.999, 1.0, -1.5]),
            ("sinh", f64::sinh, &[-20.0, -1.5, -0.999, -1e-6, 0.0, 1e-6, 0.5, 1.0, 3.0, 88.0]),
            ("cosh", f64::cosh, &[-20.0, -1.0, 0.0, 1e-4, 0.5, 3.0, 88.0]),
            ("asinh", f64::asinh, &[-1e20, -1e5, -2.0, -1e-6, 0.0, 1e-6, 0.5, 3.0, 9999.0, 1e30]),
            ("acosh", f64::acosh, &[1.0, 1.0 + 1e-6, 1.5, 10.0, 9999.0, 1e30, 0.5]),
            ("atanh", f64::atanh, &[-1.0, -0.99, -1e-7, 0.0, 1e-7, 0.5, 0.99, 1.0, 1.5]),
        ];
        for elem in [ElementType::F32, ElementType::F64] {
            for (name, reference, points) in cases {
                let f = decomposition(name, name, &TensorType::scalar(elem)).unwrap();
                for &x in points {
                    let (got, want) = (run(&f, x), reference(x));
                    assert!(close(got, want), "{name}({x}) in {elem}: got {got}, expected {want}");
                }
            }
        }
    }

    #[test]
    fn narrow_floats_compute_in_f32() {
        let f = decomposition("erf", "erf", &TensorType::new(vec![2], ElementType::BF16)).unwrap();
        assert_eq!(f.body.ops.first().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(f.body.ops.last().map(|o| o.kind.name()), Some("convert"));
        assert_eq!(f.result_types, vec![Type::tensor(vec![2], ElementType::BF16)]);
        let compare = decomposition("sinh", "sinh", &TensorType::new(vec![2], ElementType::F16)).unwrap();
        let pred = compare.body.ops.iter().find(|o| o.kind.name() == "compare").unwrap();
        assert_eq!(compare.value_type(pred.results[0]), &Type::tensor(vec![2], ElementType::Pred));
    }
}
