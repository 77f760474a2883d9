//! The held-value ops of [`crate::exec::scalar`] (`load`, `store`, `binary`, `unary`, `compare`,
//! `convert`, selects, power-of-two division) written as Cranelift IR, for the native loop bodies
//! of [`super::native`].
//!
//! Every value is an `i64` holding what the scalar evaluator holds: integers extended from their
//! type, pred as 0/1, floats as the bits of the f64 they equal. Each op here is the same sequence of
//! machine operations as its Rust counterpart (an f32 op is the f64 op rounded to f32 and widened
//! back, IEEE comparisons, the scalar evaluator's NaN and signed-zero rules for maximum and minimum,
//! its division-by-zero results), so the bits agree; `native_agrees_with_the_register_program`
//! holds it to that.

use apu_compiler::ir::{BinaryOp, ComparisonDirection as D, ElementType as E, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::Ieee64;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

/// Loads and stores of the loop's buffers: never trapping (the plan sized them), possibly
/// unaligned (the scalar evaluator reads with `read_unaligned`).
pub(super) const MEM: MemFlagsData = MemFlagsData::new().with_notrap();

pub(super) type Fb<'a> = FunctionBuilder<'a>;

fn is_float(e: E) -> bool {
    matches!(e, E::F32 | E::F64)
}

/// The f64 a held float stands for.
fn float(b: &mut Fb, v: Value) -> Value {
    b.ins().bitcast(types::F64, MemFlagsData::new(), v)
}

/// `scalar::hold`: the f64 `x` held as a value of float type `e` (rounded to f32 for f32).
fn hold(b: &mut Fb, x: Value, e: E) -> Value {
    let x = if e == E::F32 {
        let s = b.ins().fdemote(types::F32, x);
        b.ins().fpromote(types::F64, s)
    } else {
        x
    };
    b.ins().bitcast(types::I64, MemFlagsData::new(), x)
}

/// `scalar::wrap`: a result brought back into the range of its type.
fn wrap(b: &mut Fb, v: Value, e: E) -> Value {
    match e {
        E::S32 => {
            let n = b.ins().ireduce(types::I32, v);
            b.ins().sextend(types::I64, n)
        }
        E::U32 => {
            let n = b.ins().ireduce(types::I32, v);
            b.ins().uextend(types::I64, n)
        }
        E::Pred => b.ins().band_imm_s(v, 1),
        _ => v,
    }
}

/// A comparison's flag as the held 0/1.
fn flag(b: &mut Fb, c: Value) -> Value {
    b.ins().uextend(types::I64, c)
}

/// `scalar::load` of the element at address `p`.
pub(super) fn load(b: &mut Fb, p: Value, e: E) -> Result<Value, String> {
    Ok(match e {
        E::S32 => b.ins().sload32(MEM, p, 0),
        E::U32 => b.ins().uload32(MEM, p, 0),
        E::S64 | E::U64 | E::F64 => b.ins().load(types::I64, MEM, p, 0),
        E::F32 => {
            let s = b.ins().load(types::F32, MEM, p, 0);
            let d = b.ins().fpromote(types::F64, s);
            b.ins().bitcast(types::I64, MemFlagsData::new(), d)
        }
        E::Pred => {
            let byte = b.ins().uload8(types::I64, MEM, p, 0);
            let c = b.ins().icmp_imm_s(IntCC::NotEqual, byte, 0);
            flag(b, c)
        }
        other => return Err(format!("load of {other}")),
    })
}

/// `scalar::store` of held `v` at address `p`.
pub(super) fn store(b: &mut Fb, p: Value, v: Value, e: E) -> Result<(), String> {
    match e {
        E::S32 | E::U32 => b.ins().istore32(MEM, v, p, 0),
        E::S64 | E::U64 | E::F64 => b.ins().store(MEM, v, p, 0),
        E::F32 => {
            let d = float(b, v);
            let s = b.ins().fdemote(types::F32, d);
            b.ins().store(MEM, s, p, 0)
        }
        E::Pred => b.ins().istore8(MEM, v, p, 0),
        other => return Err(format!("store of {other}")),
    };
    Ok(())
}

/// IEEE maximum (`max`) or minimum as `scalar::ops::float_max`/`float_min`: NaN if either is (the
/// default NaN, not an operand's payload), +0 above -0, else the larger (smaller) operand.
fn float_extreme(b: &mut Fb, x: Value, y: Value, max: bool) -> Value {
    let nan = b.ins().fcmp(FloatCC::Unordered, x, y);
    let eq = b.ins().fcmp(FloatCC::Equal, x, y);
    let wins = b.ins().fcmp(if max { FloatCC::GreaterThan } else { FloatCC::LessThan }, x, y);
    let bits = b.ins().bitcast(types::I64, MemFlagsData::new(), x);
    let x_negative = b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0);
    // Equal operands: the sign of `x` picks (max keeps x unless it is -0, min keeps x if it is).
    let on_equal = if max { b.ins().select(x_negative, y, x) } else { b.ins().select(x_negative, x, y) };
    let r = b.ins().select(wins, x, y);
    let r = b.ins().select(eq, on_equal, r);
    let default_nan = b.ins().f64const(Ieee64::with_bits(f64::NAN.to_bits()));
    b.ins().select(nan, default_nan, r)
}

/// `a / c` or `a % c` with `scalar::binary`'s rules: `x / 0` is all ones, `x % 0` is `x`,
/// `MIN / -1` wraps and `MIN % -1` is 0; u64 divides unsigned. The hardware divide traps on the
/// first and third, so those divisors are replaced by 1 and the results selected.
fn divide(b: &mut Fb, a: Value, c: Value, rem: bool, unsigned64: bool) -> Value {
    let zero = b.ins().icmp_imm_s(IntCC::Equal, c, 0);
    let one = b.ins().iconst(types::I64, 1);
    if unsigned64 {
        let d = b.ins().select(zero, one, c);
        let q = if rem { b.ins().urem(a, d) } else { b.ins().udiv(a, d) };
        let at_zero = if rem { a } else { b.ins().iconst(types::I64, -1) };
        return b.ins().select(zero, at_zero, q);
    }
    let minus_one = b.ins().icmp_imm_s(IntCC::Equal, c, -1);
    let unsafe_divisor = b.ins().bor(zero, minus_one);
    let d = b.ins().select(unsafe_divisor, one, c);
    if rem {
        // x % 1 is 0, as x % -1 is.
        let r = b.ins().srem(a, d);
        return b.ins().select(zero, a, r);
    }
    let q = b.ins().sdiv(a, d);
    let negated = b.ins().ineg(a);
    let q = b.ins().select(minus_one, negated, q);
    let all_ones = b.ins().iconst(types::I64, -1);
    b.ins().select(zero, all_ones, q)
}

/// `scalar::binary(op, a, c, e)`.
pub(super) fn binary(b: &mut Fb, op: BinaryOp, a: Value, c: Value, e: E) -> Value {
    if is_float(e) {
        let (x, y) = (float(b, a), float(b, c));
        let r = match op {
            BinaryOp::Add => b.ins().fadd(x, y),
            BinaryOp::Subtract => b.ins().fsub(x, y),
            BinaryOp::Multiply => b.ins().fmul(x, y),
            BinaryOp::Divide => b.ins().fdiv(x, y),
            BinaryOp::Maximum => float_extreme(b, x, y, true),
            _ => float_extreme(b, x, y, false),
        };
        return hold(b, r, e);
    }
    let unsigned64 = e == E::U64;
    let r = match op {
        BinaryOp::Add => b.ins().iadd(a, c),
        BinaryOp::Subtract => b.ins().isub(a, c),
        BinaryOp::Multiply => b.ins().imul(a, c),
        BinaryOp::Maximum if unsigned64 => b.ins().umax(a, c),
        BinaryOp::Minimum if unsigned64 => b.ins().umin(a, c),
        BinaryOp::Maximum => b.ins().smax(a, c),
        BinaryOp::Minimum => b.ins().smin(a, c),
        BinaryOp::And => b.ins().band(a, c),
        BinaryOp::Or => b.ins().bor(a, c),
        BinaryOp::Divide => divide(b, a, c, false, unsigned64),
        BinaryOp::Remainder => divide(b, a, c, true, unsigned64),
        _ => b.ins().bxor(a, c),
    };
    wrap(b, r, e)
}

/// `scalar::unary(op, a, e)`.
pub(super) fn unary(b: &mut Fb, op: UnaryOp, a: Value, e: E) -> Value {
    if is_float(e) {
        let x = float(b, a);
        let r = match op {
            UnaryOp::Negate => b.ins().fneg(x),
            _ => b.ins().fabs(x),
        };
        return hold(b, r, e);
    }
    let unsigned = matches!(e, E::U32 | E::U64);
    let r = match op {
        UnaryOp::Not if e == E::Pred => b.ins().bxor_imm_s(a, 1),
        UnaryOp::Not => b.ins().bnot(a),
        UnaryOp::Negate => b.ins().ineg(a),
        UnaryOp::Abs if unsigned => a,
        UnaryOp::Abs => {
            let negative = b.ins().icmp_imm_s(IntCC::SignedLessThan, a, 0);
            let n = b.ins().ineg(a);
            b.ins().select(negative, n, a)
        }
        UnaryOp::Sign if unsigned => {
            let c = b.ins().icmp_imm_s(IntCC::NotEqual, a, 0);
            flag(b, c)
        }
        _ => {
            let (p, n) = (b.ins().icmp_imm_s(IntCC::SignedGreaterThan, a, 0), b.ins().icmp_imm_s(IntCC::SignedLessThan, a, 0));
            let (p, n) = (flag(b, p), flag(b, n));
            b.ins().isub(p, n)
        }
    };
    wrap(b, r, e)
}

/// `scalar::compare(d, a, c, e)`, `e` the operands' type.
pub(super) fn compare(b: &mut Fb, d: D, a: Value, c: Value, e: E) -> Value {
    let r = if is_float(e) {
        // IEEE: every comparison with a NaN is false but `!=`.
        let cc = match d {
            D::Eq => FloatCC::Equal,
            D::Ne => FloatCC::NotEqual,
            D::Ge => FloatCC::GreaterThanOrEqual,
            D::Gt => FloatCC::GreaterThan,
            D::Le => FloatCC::LessThanOrEqual,
            D::Lt => FloatCC::LessThan,
        };
        let (x, y) = (float(b, a), float(b, c));
        b.ins().fcmp(cc, x, y)
    } else {
        let u = e == E::U64;
        let cc = match d {
            D::Eq => IntCC::Equal,
            D::Ne => IntCC::NotEqual,
            D::Ge if u => IntCC::UnsignedGreaterThanOrEqual,
            D::Gt if u => IntCC::UnsignedGreaterThan,
            D::Le if u => IntCC::UnsignedLessThanOrEqual,
            D::Lt if u => IntCC::UnsignedLessThan,
            D::Ge => IntCC::SignedGreaterThanOrEqual,
            D::Gt => IntCC::SignedGreaterThan,
            D::Le => IntCC::SignedLessThanOrEqual,
            D::Lt => IntCC::SignedLessThan,
        };
        b.ins().icmp(cc, a, c)
    };
    flag(b, r)
}

/// `scalar::convert(v, from, to)`.
pub(super) fn convert(b: &mut Fb, v: Value, from: E, to: E) -> Value {
    if is_float(from) {
        // A float to a float type is held anew; `scalar::convert` takes no float to integers
        // (`hold` leaves such bits as they are, and so does this).
        if to == E::F32 {
            let x = float(b, v);
            return hold(b, x, E::F32);
        }
        return v;
    }
    let int_to_float = |b: &mut Fb, ty| if from == E::U64 { b.ins().fcvt_from_uint(ty, v) } else { b.ins().fcvt_from_sint(ty, v) };
    match to {
        E::Pred => {
            let c = b.ins().icmp_imm_s(IntCC::NotEqual, v, 0);
            flag(b, c)
        }
        // One rounding, from the integer straight to f32, as `v as f32` rounds.
        E::F32 => {
            let s = int_to_float(b, types::F32);
            let d = b.ins().fpromote(types::F64, s);
            b.ins().bitcast(types::I64, MemFlagsData::new(), d)
        }
        E::F64 => {
            let d = int_to_float(b, types::F64);
            b.ins().bitcast(types::I64, MemFlagsData::new(), d)
        }
        _ => wrap(b, v, to),
    }
}

/// `p != 0 ? x : y`.
pub(super) fn select(b: &mut Fb, p: Value, x: Value, y: Value) -> Value {
    b.ins().select(p, x, y)
}

/// `body_program::pow2`: `a / 2^k` (or `a % 2^k`), truncating toward zero for signed types.
pub(super) fn pow2(b: &mut Fb, a: Value, k: u32, signed: bool, rem: bool) -> Value {
    let q = if signed {
        let sign = b.ins().sshr_imm_s(a, 63);
        let bias = b.ins().ushr_imm_s(sign, i64::from(64 - k));
        let biased = b.ins().iadd(a, bias);
        b.ins().sshr_imm_s(biased, i64::from(k))
    } else {
        b.ins().ushr_imm_s(a, i64::from(k))
    };
    if rem {
        let back = b.ins().ishl_imm_s(q, i64::from(k));
        b.ins().isub(a, back)
    } else {
        q
    }
}
