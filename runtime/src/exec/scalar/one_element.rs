//! Kernels of one element evaluated op by op on widened values ([`Scalar`]), for any element type
//! the executor stores.
//!
//! The vector evaluator ([`crate::exec::fused`]) has registers for f32, f64, 32/64-bit integers and
//! pred only; a one-element kernel on complex (or f16, bf16, 8/16-bit integers) runs here instead of
//! as an interpreter step, which matters when a `while` body does scalar complex arithmetic on
//! every iteration (JAX's `sqrtm` runs a triple `fori_loop` of it; decision 52). The op tables are
//! the executor's copy of the interpreter's rules ([`super::ops`]), so the results are the
//! interpreter's bit for bit.
//!
//! On the vector evaluator's types this path also serves one-element kernels made only of ops
//! whose result both evaluators compute exactly (the correctly rounded arithmetic, comparisons,
//! selects and conversions, see [`exact_on_vector_types`]), which avoids the vector evaluator's
//! set-up for one value; transcendentals, whose vector forms are approximations, stay there.

use super::ops::{binary_fn, binary_result_elem, compare_fn, unary_fn, unary_result_elem, BinaryFn, CompareFn, UnaryFn};
use crate::values::array::{convert_scalar, is_stored, read_scalar, round_scalar, write_scalar, Scalar};
use apu_compiler::ir::{BinaryOp, ElementType as E, OpKind, UnaryOp};
use apu_compiler::plan::{Expr, Instr, KScalar, Reg};
use apu_compiler::{Error, Result};

enum Op {
    Load { input: usize, offset: usize },
    Const(Scalar),
    Unary(UnaryFn, Reg),
    Binary(BinaryFn, Reg, Reg),
    Compare(CompareFn, Reg, Reg),
    Select(Reg, Reg, Reg),
    /// `min(max(x, lo), hi)` with the element type's maximum and minimum.
    Clamp { max: BinaryFn, min: BinaryFn, lo: Reg, x: Reg, hi: Reg },
    Convert(Reg),
}

/// A one-element expression: `ops[i]` computes register `i` of type `elems[i]`.
pub struct OneElement {
    ops: Vec<Op>,
    elems: Vec<E>,
}

impl std::fmt::Debug for OneElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OneElement({} ops on {:?})", self.ops.len(), self.elems)
    }
}

fn constant(k: KScalar) -> Scalar {
    match k {
        KScalar::F32(v) => Scalar::Float(v as f64),
        KScalar::F64(v) => Scalar::Float(v),
        KScalar::S32(v) => Scalar::Int(v as i128),
        KScalar::S64(v) => Scalar::Int(v as i128),
        KScalar::U32(v) => Scalar::Int(v as i128),
        KScalar::U64(v) => Scalar::Int(v as i128),
        KScalar::Pred(v) => Scalar::Bool(v),
    }
}

/// Whether a one-element kernel evaluates `kind` on operands of types `operands` giving `result`:
/// the interpreter has the op on those types, and `result` is the type it gives.
pub fn supported(kind: &OpKind, operands: &[E], result: E) -> bool {
    if !operands.iter().chain([&result]).all(|&e| is_stored(e)) {
        return false;
    }
    match (kind, operands) {
        (OpKind::Unary(u), &[a]) => unary_fn(*u, a).is_ok() && unary_result_elem(*u, a) == result,
        (OpKind::Binary(b), &[a, c]) => a == c && binary_fn(*b, a).is_ok() && binary_result_elem(*b, a) == result,
        (OpKind::Compare { direction, compare_type }, &[a, c]) => a == c && result == E::Pred && compare_fn(*direction, *compare_type, a).is_ok(),
        (OpKind::Select, &[p, a, c]) => p == E::Pred && a == result && c == result,
        (OpKind::Clamp, &[lo, x, hi]) => {
            lo == x && hi == x && x == result && binary_fn(BinaryOp::Maximum, x).is_ok() && binary_fn(BinaryOp::Minimum, x).is_ok()
        }
        (OpKind::Convert, &[_]) => true,
        _ => false,
    }
}

/// Whether every instruction of `expr` gives the same bits on the vector evaluator and in the
/// interpreter: IEEE +, −, × and ÷ are correctly rounded in both (the interpreter rounds its f64
/// result once, which is exact for these on f32), and comparisons, selects, negation, absolute
/// value, maximum / minimum, clamps and conversions are exact. The test
/// `one_element_agrees_with_the_vector_evaluator` holds this list to that.
pub fn exact_on_vector_types(expr: &Expr) -> bool {
    expr.instrs.iter().all(|ins| match ins {
        Instr::Load { .. } | Instr::Const(_) | Instr::Iota { .. } | Instr::Select(..) | Instr::Compare(..) | Instr::Convert(_) => true,
        Instr::Unary(u, _) => matches!(u, UnaryOp::Negate | UnaryOp::Abs),
        Instr::Binary(b, _, _) => {
            matches!(b, BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Divide | BinaryOp::Maximum | BinaryOp::Minimum)
        }
        Instr::Clamp(..) => true,
    })
}

impl OneElement {
    /// The expression's one-element form, when its shape has one element and the interpreter
    /// has every op on every type in it; `Err` names what it lacks.
    pub fn new(expr: &Expr, shape: &[i64]) -> Result<OneElement> {
        if shape.iter().product::<i64>() != 1 {
            return Err(Error::internal(format!("one-element kernel of shape {shape:?}")));
        }
        if expr.instrs.is_empty() || expr.elems.len() != expr.instrs.len() {
            return Err(Error::internal("malformed fused expression"));
        }
        if let Some(e) = expr.elems.iter().find(|&&e| !is_stored(e)) {
            return Err(Error::unimplemented(format!("one-element kernels on {e}")));
        }
        let mut ops = Vec::with_capacity(expr.instrs.len());
        for (i, ins) in expr.instrs.iter().enumerate() {
            let reg = |r: Reg| if r < i { Ok(r) } else { Err(Error::internal("fused register out of order")) };
            let operand = |r: Reg| reg(r).map(|r| expr.elems[r]);
            ops.push(match ins {
                Instr::Load { input, view } => Op::Load { input: *input, offset: view.offset },
                Instr::Const(k) => Op::Const(constant(*k)),
                Instr::Iota { .. } => Op::Const(Scalar::Int(0)),
                Instr::Unary(u, a) => Op::Unary(unary_fn(*u, operand(*a)?)?, *a),
                Instr::Binary(b, x, y) => Op::Binary(binary_fn(*b, operand(*x)?)?, *x, reg(*y)?),
                Instr::Compare(d, t, x, y) => Op::Compare(compare_fn(*d, *t, operand(*x)?)?, *x, reg(*y)?),
                Instr::Select(p, x, y) => Op::Select(reg(*p)?, reg(*x)?, reg(*y)?),
                Instr::Clamp(lo, x, hi) => {
                    let e = operand(*x)?;
                    Op::Clamp { max: binary_fn(BinaryOp::Maximum, e)?, min: binary_fn(BinaryOp::Minimum, e)?, lo: reg(*lo)?, x: *x, hi: reg(*hi)? }
                }
                Instr::Convert(a) => Op::Convert(reg(*a)?),
            });
        }
        Ok(OneElement { ops, elems: expr.elems.clone() })
    }

    /// Evaluates the expression and stores its element at `out`.
    ///
    /// # Safety
    /// Each `inputs[i]` must hold the elements its loads reach (of the load's type), and `out`
    /// room for one element of the result type.
    pub unsafe fn eval(&self, inputs: &[*const u8], out: *mut u8) -> Result<()> {
        let mut small = [Scalar::Bool(false); 16];
        let mut big;
        let vals: &mut [Scalar] = if self.ops.len() <= small.len() {
            &mut small[..self.ops.len()]
        } else {
            big = vec![Scalar::Bool(false); self.ops.len()];
            &mut big
        };
        for (i, op) in self.ops.iter().enumerate() {
            let e = self.elems[i];
            let v = match op {
                Op::Load { input, offset } => {
                    let size = e.byte_size();
                    let p = inputs.get(*input).ok_or_else(|| Error::internal("one-element kernel load of a missing input"))?;
                    read_scalar(e, std::slice::from_raw_parts(p.add(offset * size), size))?
                }
                Op::Const(s) => *s,
                Op::Unary(f, a) => f(vals[*a]),
                Op::Binary(f, x, y) => f(vals[*x], vals[*y]),
                Op::Compare(f, x, y) => Scalar::Bool(f(vals[*x], vals[*y])),
                Op::Select(p, x, y) => {
                    if matches!(vals[*p], Scalar::Bool(true)) {
                        vals[*x]
                    } else {
                        vals[*y]
                    }
                }
                Op::Clamp { max, min, lo, x, hi } => min(max(vals[*x], vals[*lo]), vals[*hi]),
                Op::Convert(a) => convert_scalar(e, vals[*a])?,
            };
            // Every register holds what storing it as its type keeps, as the interpreter's
            // tensors do between ops (the ops give a value of the type's kind, so this rounds).
            vals[i] = round_scalar(e, v);
        }
        let last = self.elems.len() - 1;
        let size = self.elems[last].byte_size();
        write_scalar(self.elems[last], vals[last], std::slice::from_raw_parts_mut(out, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fused::{self, Compiled};
    use crate::exec::scalar::ScalarExpr;
    use apu_compiler::ir::{ComparisonDirection as D, ComparisonType};
    use apu_compiler::plan::View;

    fn load(input: usize) -> Instr {
        Instr::Load { input, view: View { offset: 0, strides: vec![] } }
    }

    /// Little-endian bytes of a few values of `elem` that reach its edges (NaN, infinities, signed
    /// zeros, extremes, an odd fraction; for integers the extremes, 0, ±1 and a middle value).
    fn samples(elem: E) -> Vec<Vec<u8>> {
        match elem {
            E::F32 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.5, 3.25e-30, f32::MAX, f32::MIN_POSITIVE, 2.5e9, -7.0e9]
                .iter()
                .map(|v| v.to_le_bytes().to_vec())
                .collect(),
            E::F64 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -1.5, 3.25e-300, f64::MAX, 1e-310, 2.5e9, -9.3e18, 1.0 / 3.0]
                .iter()
                .map(|v| v.to_le_bytes().to_vec())
                .collect(),
            E::S32 => [i32::MIN, -1, 0, 1, 7, i32::MAX].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
            E::U32 => [0u32, 1, 7, 1 << 31, u32::MAX].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
            E::S64 => [i64::MIN, -1, 0, 1, 7, i64::MAX].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
            E::U64 => [0u64, 1, 7, 1 << 63, u64::MAX].iter().map(|v| v.to_le_bytes().to_vec()).collect(),
            E::Pred => vec![vec![0], vec![1]],
            other => panic!("no samples of {other}"),
        }
    }

    fn same_bits(elem: E, a: &[u8], b: &[u8]) -> bool {
        let nan = |x: &[u8]| match elem {
            E::F32 => f32::from_le_bytes(x[..4].try_into().unwrap()).is_nan(),
            E::F64 => f64::from_le_bytes(x[..8].try_into().unwrap()).is_nan(),
            _ => false,
        };
        // NaN payloads are not kept by the vector evaluator (LLVM may swap an add's operands).
        (nan(a) && nan(b)) || a == b
    }

    /// Every expression `exact_on_vector_types` accepts gives the same bits on both evaluators, so
    /// taking the one-element path for it changes nothing but speed.
    #[test]
    fn one_element_agrees_with_the_vector_evaluator() {
        const VECTOR: [E; 7] = [E::F32, E::F64, E::S32, E::S64, E::U32, E::U64, E::Pred];
        let (mut checked, mut scalar_checked) = (0, 0);
        let mut run = |e: &Expr, args: &[&[u8]]| {
            assert!(exact_on_vector_types(e), "{e:?}");
            let Ok(vector) = Compiled::new(e, &[], args.len()) else { return };
            let one = OneElement::new(e, &[]).expect("one-element form");
            let elem = *e.elems.last().unwrap();
            let inputs: Vec<*const u8> = args.iter().map(|a| a.as_ptr()).collect();
            let (mut got, mut want) = ([0u8; 8], [0u8; 8]);
            // SAFETY: each input holds one element of its load's type; outputs have room for one.
            unsafe {
                one.eval(&inputs, got.as_mut_ptr()).unwrap();
                fused::eval_store(&vector, &inputs, want.as_mut_ptr(), 0..1, elem.byte_size());
            }
            assert!(same_bits(elem, &got, &want), "{e:?} on {args:?}: one-element {got:?}, vector {want:?}");
            checked += 1;
            // The scalar path, where it takes the expression, gives the same bits too.
            if let Some(scalar) = ScalarExpr::new(e, &[]) {
                let mut got = [0u8; 8];
                unsafe { scalar.eval(&inputs, got.as_mut_ptr()) };
                assert!(same_bits(elem, &got, &want), "{e:?} on {args:?}: scalar {got:?}, vector {want:?}");
                scalar_checked += usize::from(e.elems.iter().any(|&t| t == E::F32 || t == E::F64));
            }
        };
        for elem in VECTOR {
            let xs = samples(elem);
            for x in &xs {
                for u in [UnaryOp::Negate, UnaryOp::Abs] {
                    let mut e = Expr::default();
                    let a = e.push(load(0), elem);
                    e.push(Instr::Unary(u, a), elem);
                    run(&e, &[x]);
                }
                for to in VECTOR {
                    let mut e = Expr::default();
                    let a = e.push(load(0), elem);
                    e.push(Instr::Convert(a), to);
                    run(&e, &[x]);
                }
                for y in &xs {
                    for b in [BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply, BinaryOp::Divide, BinaryOp::Maximum, BinaryOp::Minimum] {
                        let mut e = Expr::default();
                        let (a, c) = (e.push(load(0), elem), e.push(load(1), elem));
                        e.push(Instr::Binary(b, a, c), elem);
                        run(&e, &[x, y]);
                    }
                    for d in [D::Eq, D::Ne, D::Lt, D::Le, D::Gt, D::Ge] {
                        let ty = if elem == E::F32 || elem == E::F64 { Some(ComparisonType::Float) } else { None };
                        let mut e = Expr::default();
                        let (a, c) = (e.push(load(0), elem), e.push(load(1), elem));
                        e.push(Instr::Compare(d, ty, a, c), E::Pred);
                        run(&e, &[x, y]);
                    }
                    for p in [0u8, 1] {
                        let mut e = Expr::default();
                        let (s, a, c) = (e.push(load(0), E::Pred), e.push(load(1), elem), e.push(load(2), elem));
                        e.push(Instr::Select(s, a, c), elem);
                        run(&e, &[&[p], x, y]);
                    }
                    let mut e = Expr::default();
                    let (lo, a, hi) = (e.push(load(0), elem), e.push(load(1), elem), e.push(load(2), elem));
                    e.push(Instr::Clamp(lo, a, hi), elem);
                    run(&e, &[x, y, &xs[xs.len() / 2]]);
                }
            }
        }
        assert!(checked > 2000, "only {checked} expressions had a vector form");
        // Float cases on the scalar path: all but float-to-integer conversions.
        assert!(scalar_checked > 2500, "only {scalar_checked} float expressions had a scalar form");
    }

    /// The integer scalar path's converts and selects (index arithmetic) agree with the
    /// interpreter's semantics, which the one-element path carries.
    #[test]
    fn integer_scalar_converts_and_selects_match_the_interpreter() {
        const INTS: [E; 5] = [E::S32, E::S64, E::U32, E::U64, E::Pred];
        for from in INTS {
            for x in samples(from) {
                for to in INTS {
                    let mut e = Expr::default();
                    let a = e.push(load(0), from);
                    let c = e.push(Instr::Convert(a), to);
                    let zero = e.push(Instr::Convert(a), to);
                    let p = e.push(Instr::Load { input: 1, view: View { offset: 0, strides: vec![] } }, E::Pred);
                    e.push(Instr::Select(p, c, zero), to);
                    for pick in [0u8, 1] {
                        let scalar = ScalarExpr::new(&e, &[]).expect("integer scalar form");
                        let one = OneElement::new(&e, &[]).unwrap();
                        let pred = [pick];
                        let inputs = [x.as_ptr(), pred.as_ptr()];
                        let (mut got, mut want) = ([0u8; 8], [0u8; 8]);
                        // SAFETY: one element per input; room for one in each output.
                        unsafe {
                            scalar.eval(&inputs, got.as_mut_ptr());
                            one.eval(&inputs, want.as_mut_ptr()).unwrap();
                        }
                        assert_eq!(got, want, "convert {from} {x:?} to {to}, select {pick}");
                    }
                }
            }
        }
    }

    /// Integer and pred ops give the interpreter's bits on the vector evaluator and, where it has
    /// them, on the integer scalar path: wrapping negation and `abs(MIN)`, sign, bit counts,
    /// division by zero and `MIN / -1`, comparisons of pred.
    #[test]
    fn integer_ops_agree_on_scalar_vector_and_interpreter_paths() {
        const INTS: [E; 5] = [E::S32, E::S64, E::U32, E::U64, E::Pred];
        let (mut vector_checked, mut scalar_checked) = (0, 0);
        let mut run = |e: &Expr, args: &[&[u8]]| {
            let Ok(want_one) = OneElement::new(e, &[]) else { return };
            let elem = *e.elems.last().unwrap();
            let inputs: Vec<*const u8> = args.iter().map(|a| a.as_ptr()).collect();
            let mut want = [0u8; 8];
            // SAFETY: each input holds one element of its load's type; outputs have room for one.
            unsafe { want_one.eval(&inputs, want.as_mut_ptr()).unwrap() };
            if let Ok(vector) = Compiled::new(e, &[], args.len()) {
                let mut got = [0u8; 8];
                unsafe { fused::eval_store(&vector, &inputs, got.as_mut_ptr(), 0..1, elem.byte_size()) };
                assert_eq!(got, want, "vector {e:?} on {args:?}");
                vector_checked += 1;
            }
            if let Some(scalar) = ScalarExpr::new(e, &[]) {
                let mut got = [0u8; 8];
                unsafe { scalar.eval(&inputs, got.as_mut_ptr()) };
                assert_eq!(got, want, "scalar {e:?} on {args:?}");
                scalar_checked += 1;
            }
        };
        for elem in INTS {
            let xs = samples(elem);
            for x in &xs {
                for u in [UnaryOp::Negate, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Not, UnaryOp::PopulationCount, UnaryOp::CountLeadingZeros] {
                    let mut e = Expr::default();
                    let a = e.push(load(0), elem);
                    e.push(Instr::Unary(u, a), elem);
                    run(&e, &[x]);
                }
                for y in &xs {
                    for b in [BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply, BinaryOp::Divide, BinaryOp::Remainder, BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::And, BinaryOp::Or, BinaryOp::Xor] {
                        let mut e = Expr::default();
                        let (a, c) = (e.push(load(0), elem), e.push(load(1), elem));
                        e.push(Instr::Binary(b, a, c), elem);
                        run(&e, &[x, y]);
                    }
                    for d in [D::Eq, D::Ne, D::Lt, D::Le, D::Gt, D::Ge] {
                        let ty = if elem == E::Pred { Some(ComparisonType::Unsigned) } else { None };
                        let mut e = Expr::default();
                        let (a, c) = (e.push(load(0), elem), e.push(load(1), elem));
                        e.push(Instr::Compare(d, ty, a, c), E::Pred);
                        run(&e, &[x, y]);
                    }
                }
            }
        }
        // Every case the interpreter has, on the vector evaluator (2122); the scalar path lacks the
        // bit counts (44 cases).
        assert!(vector_checked >= 2100 && scalar_checked >= 2050, "vector {vector_checked}, scalar {scalar_checked}");
    }

    #[test]
    fn types_and_ops_the_interpreter_lacks_are_refused() {
        let mut e = Expr::default();
        let a = e.push(load(0), E::C64);
        e.push(Instr::Binary(BinaryOp::Remainder, a, a), E::C64);
        let err = OneElement::new(&e, &[]).unwrap_err().to_string();
        assert!(err.contains("remainder") && err.contains("complex"), "{err}");
        assert!(OneElement::new(&e, &[2]).is_err(), "two elements");
        assert!(!supported(&OpKind::Binary(BinaryOp::Remainder), &[E::C64, E::C64], E::C64));
        assert!(supported(&OpKind::Binary(BinaryOp::Divide), &[E::C64, E::C64], E::C64));
        assert!(!supported(&OpKind::Binary(BinaryOp::Divide), &[E::C64, E::C64], E::C128), "wrong result type");
        assert!(supported(&OpKind::Unary(UnaryOp::Real), &[E::C128], E::F64));
        assert!(supported(&OpKind::Binary(BinaryOp::Complex), &[E::F32, E::F32], E::C64));
        assert!(!supported(&OpKind::Select, &[E::S32, E::C64, E::C64], E::C64), "select on a non-pred");
    }
}
