//! Kernels of one element (a loop counter's `i + 1`, the condition `i < n`, a recurrence's
//! `0.5 * y[i - 1] + x[i]`) evaluated directly on machine integers and floats. Run through the
//! chunked register evaluator, such a kernel costs register sets, dispatch and stores sized for
//! vectors, and through the widened-value evaluator's boxed functions (`one_element`) a call and a
//! tagged value per op; in a `while` loop that runs thousands of times that outweighs the loop's
//! real work. The op functions here (`load`, `store`, `binary`, `unary`, `compare`, `convert`) are
//! also those of the loop-body register programs (`exec::loops::body_program`): one definition of
//! each op on machine values.
//!
//! Floats take only the ops whose results are exact or correctly rounded (+, −, ×, ÷, maximum,
//! minimum, negation, absolute value, comparisons, selects, conversions to floats), so this path
//! gives the vector evaluator's bits (`one_element_agrees_with_the_vector_evaluator` holds it to
//! that); transcendentals stay with the vector evaluator.

use apu_compiler::ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType as E, UnaryOp};
use apu_compiler::plan::{Expr, Instr, KScalar};
use ops::{float_max, float_min, order};

pub(super) mod one_element;
pub(in crate::exec) mod ops;

#[derive(Clone, Copy, Debug)]
pub(in crate::exec) enum Op {
    /// Element `offset` of input `input`.
    Load { input: usize, offset: usize },
    Const(i64),
    Binary(BinaryOp, usize, usize),
    Unary(UnaryOp, usize),
    Compare(ComparisonDirection, usize, usize),
    /// To the register's type from integer, pred or float (floats only to floats).
    Convert(usize),
    /// `pred ? x : y`.
    Select(usize, usize, usize),
}

/// A one-element expression over integers, `pred` and floats. Every value is held as an `i64`:
/// signed types sign-extended, unsigned ones zero-extended (u64 as its bit pattern), pred as 0/1,
/// f32 and f64 as the bits of the f64 they equal (an f32 result is rounded to f32 after each op:
/// for these ops on f32 operands that gives the correctly rounded f32).
#[derive(Clone, Debug)]
pub struct ScalarExpr {
    ops: Vec<Op>,
    elems: Vec<E>,
    /// The same expression when it is one op between a loaded element and a constant (a loop
    /// counter's `i + 1`, its condition `i < n`), evaluated without walking `ops`.
    simple: Option<Simple>,
}

/// `x op k` or `k op x` for a loaded element `x` and a constant `k`.
#[derive(Clone, Copy, Debug)]
struct Simple {
    input: usize,
    offset: usize,
    /// Type of the loaded element and of the constant.
    operand: E,
    result: E,
    k: i64,
    k_left: bool,
    op: Op,
}

fn is_int(e: E) -> bool {
    matches!(e, E::S32 | E::S64 | E::U32 | E::U64 | E::Pred)
}

pub(in crate::exec) fn is_float(e: E) -> bool {
    matches!(e, E::F32 | E::F64)
}

/// Element types this evaluator (and the loop-body programs over its values) holds.
pub(in crate::exec) fn is_held(e: E) -> bool {
    is_int(e) || is_float(e)
}

/// The float a held value of a float type stands for.
#[inline(always)]
fn f(v: i64) -> f64 {
    f64::from_bits(v as u64)
}

/// Holds float `x` as a value of float type `e` (rounded to f32 for f32).
#[inline(always)]
fn hold(x: f64, e: E) -> i64 {
    let x = if e == E::F32 { x as f32 as f64 } else { x };
    x.to_bits() as i64
}

/// Wraps a result into the range of its element type.
fn wrap(v: i64, e: E) -> i64 {
    match e {
        E::S32 => v as i32 as i64,
        E::U32 => v as u32 as i64,
        E::Pred => v & 1,
        _ => v,
    }
}

/// Element `offset` of `p`, held as described on [`ScalarExpr`].
#[inline(always)]
pub(in crate::exec) unsafe fn load(p: *const u8, offset: usize, e: E) -> i64 {
    match e {
        E::S32 => (p as *const i32).add(offset).read_unaligned() as i64,
        E::U32 => (p as *const u32).add(offset).read_unaligned() as i64,
        E::S64 | E::U64 | E::F64 => (p as *const i64).add(offset).read_unaligned(),
        E::F32 => ((p as *const f32).add(offset).read_unaligned() as f64).to_bits() as i64,
        _ => (*p.add(offset) != 0) as i64,
    }
}

/// Stores held value `v` as one element of type `e`.
#[inline(always)]
pub(in crate::exec) unsafe fn store(out: *mut u8, v: i64, e: E) {
    match e {
        E::S32 | E::U32 => (out as *mut i32).write_unaligned(v as i32),
        E::S64 | E::U64 | E::F64 => (out as *mut i64).write_unaligned(v),
        E::F32 => (out as *mut f32).write_unaligned(f(v) as f32),
        _ => *out = v as u8,
    }
}

/// `a b c` for held values of type `e` (the result type).
#[inline(always)]
pub(in crate::exec) fn binary(b: BinaryOp, a: i64, c: i64, e: E) -> i64 {
    if is_float(e) {
        let (x, y) = (f(a), f(c));
        let r = match b {
            BinaryOp::Add => x + y,
            BinaryOp::Subtract => x - y,
            BinaryOp::Multiply => x * y,
            BinaryOp::Divide => x / y,
            BinaryOp::Maximum => float_max(x, y),
            _ => float_min(x, y),
        };
        return hold(r, e);
    }
    let unsigned64 = e == E::U64;
    let r = match b {
        BinaryOp::Add => a.wrapping_add(c),
        BinaryOp::Subtract => a.wrapping_sub(c),
        BinaryOp::Multiply => a.wrapping_mul(c),
        BinaryOp::Maximum if unsigned64 => (a as u64).max(c as u64) as i64,
        BinaryOp::Minimum if unsigned64 => (a as u64).min(c as u64) as i64,
        BinaryOp::Maximum => a.max(c),
        BinaryOp::Minimum => a.min(c),
        BinaryOp::And => a & c,
        BinaryOp::Or => a | c,
        // x / 0 is all ones and x % 0 is x; MIN / -1 wraps to MIN and MIN % -1 is 0 (the
        // interpreter's and the vector kernels' rules). Held u64 values divide as unsigned.
        BinaryOp::Divide if c == 0 => -1,
        BinaryOp::Remainder if c == 0 => a,
        BinaryOp::Divide if unsigned64 => ((a as u64) / (c as u64)) as i64,
        BinaryOp::Remainder if unsigned64 => ((a as u64) % (c as u64)) as i64,
        BinaryOp::Divide => a.wrapping_div(c),
        BinaryOp::Remainder => a.wrapping_rem(c),
        _ => a ^ c,
    };
    wrap(r, e)
}

/// `op a` for a held value of type `e`, with the vector kernels' rules (see `int_unary!`).
#[inline(always)]
pub(in crate::exec) fn unary(op: UnaryOp, a: i64, e: E) -> i64 {
    if is_float(e) {
        // Exact on the held f64 of either type: the sign bit flipped or cleared.
        return match op {
            UnaryOp::Negate => hold(-f(a), e),
            _ => hold(f(a).abs(), e),
        };
    }
    let unsigned = matches!(e, E::U32 | E::U64);
    let r = match op {
        UnaryOp::Not if e == E::Pred => a ^ 1,
        UnaryOp::Not => !a,
        UnaryOp::Negate => a.wrapping_neg(),
        UnaryOp::Abs if unsigned => a,
        UnaryOp::Abs => a.wrapping_abs(),
        UnaryOp::Sign if unsigned => (a != 0) as i64,
        _ => a.signum(),
    };
    wrap(r, e)
}

/// `a d c` as 0/1 for held values of the operands' type `e`.
#[inline(always)]
pub(in crate::exec) fn compare(d: ComparisonDirection, a: i64, c: i64, e: E) -> i64 {
    // Floats as IEEE (every comparison with a NaN false but `!=`); held integers order like
    // their types except u64, compared as unsigned.
    let r = match e {
        E::F32 | E::F64 => order(d, f(a), f(c)),
        E::U64 => order(d, a as u64, c as u64),
        _ => order(d, a, c),
    };
    r as i64
}

/// Held value `v` of type `from` converted to type `to` (not float to integer or pred: `new`
/// leaves those to the other evaluators).
#[inline(always)]
pub(in crate::exec) fn convert(v: i64, from: E, to: E) -> i64 {
    match (is_float(from), to) {
        // Two's complement truncation (held values are already extended from their type), and
        // nonzero to true for pred.
        (false, E::Pred) => (v != 0) as i64,
        (false, E::F32) if from == E::U64 => ((v as u64 as f32) as f64).to_bits() as i64,
        (false, E::F32) => ((v as f32) as f64).to_bits() as i64,
        (false, E::F64) if from == E::U64 => (v as u64 as f64).to_bits() as i64,
        (false, E::F64) => (v as f64).to_bits() as i64,
        (false, _) => wrap(v, to),
        (true, _) => hold(f(v), to),
    }
}

impl ScalarExpr {
    /// The expression in scalar form, when it has one element and only ops this evaluator has.
    pub fn new(expr: &Expr, shape: &[i64]) -> Option<ScalarExpr> {
        if shape.iter().product::<i64>() != 1 || expr.elems.len() != expr.instrs.len() || !expr.elems.iter().all(|&e| is_held(e)) {
            return None;
        }
        let mut ops = Vec::with_capacity(expr.instrs.len());
        for (i, ins) in expr.instrs.iter().enumerate() {
            let before = |r: usize| (r < i).then_some(r);
            let e = expr.elems[i];
            let operand = |r: usize| expr.elems.get(before(r)?).copied();
            let op = match ins {
                Instr::Load { input, view } => Op::Load { input: *input, offset: view.offset },
                Instr::Const(k) => Op::Const(match *k {
                    KScalar::S32(v) => v as i64,
                    KScalar::S64(v) => v,
                    KScalar::U32(v) => v as i64,
                    KScalar::U64(v) => v as i64,
                    KScalar::Pred(v) => v as i64,
                    KScalar::F32(v) => hold(v as f64, E::F32),
                    KScalar::F64(v) => hold(v, E::F64),
                }),
                Instr::Binary(b, x, y) => match b {
                    BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Divide | BinaryOp::Maximum | BinaryOp::Minimum if is_float(e) => {
                        Op::Binary(*b, before(*x)?, before(*y)?)
                    }
                    _ if is_float(e) => return None,
                    // On pred only the logical ops: `wrap` would turn a pred add into xor.
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => Op::Binary(*b, before(*x)?, before(*y)?),
                    _ if e == E::Pred => return None,
                    BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Divide | BinaryOp::Remainder => {
                        Op::Binary(*b, before(*x)?, before(*y)?)
                    }
                    _ => return None,
                },
                // JAX's `floor_divide` on integers compares signs.
                Instr::Unary(u, x) => match u {
                    UnaryOp::Negate | UnaryOp::Abs if is_float(e) => Op::Unary(*u, before(*x)?),
                    _ if is_float(e) => return None,
                    UnaryOp::Not => Op::Unary(*u, before(*x)?),
                    _ if e == E::Pred => return None,
                    UnaryOp::Negate | UnaryOp::Abs | UnaryOp::Sign => Op::Unary(*u, before(*x)?),
                    _ => return None,
                },
                // Integer comparisons (the operands' type decides signedness) and IEEE ones on
                // floats; not the total order.
                Instr::Compare(d, t, x, y) => match (t, is_float(operand(*x)?)) {
                    (None | Some(ComparisonType::Signed | ComparisonType::Unsigned), false) | (None | Some(ComparisonType::Float), true) => {
                        Op::Compare(*d, before(*x)?, before(*y)?)
                    }
                    _ => return None,
                },
                // JAX's index arithmetic converts i32 to i32 before clamping indices.
                Instr::Convert(x) if is_float(operand(*x)?) && !is_float(e) => return None,
                Instr::Convert(x) => Op::Convert(before(*x)?),
                // ... and selects `i + n` for a negative index.
                Instr::Select(p, x, y) => Op::Select(before(*p)?, before(*x)?, before(*y)?),
                _ => return None,
            };
            ops.push(op);
        }
        if ops.is_empty() {
            return None;
        }
        let simple = Self::simple(&ops, &expr.elems);
        Some(ScalarExpr { ops, elems: expr.elems.clone(), simple })
    }

    /// The [`Simple`] form of `ops`: a load, a constant, and one op of the two (either order).
    fn simple(ops: &[Op], elems: &[E]) -> Option<Simple> {
        let [_, _, op] = ops else { return None };
        let (x, y) = match *op {
            Op::Binary(_, x, y) | Op::Compare(_, x, y) => (x, y),
            _ => return None,
        };
        let (load, k, k_left) = match (&ops[x], &ops[y]) {
            (Op::Load { input, offset }, Op::Const(k)) => ((*input, *offset), *k, false),
            (Op::Const(k), Op::Load { input, offset }) => ((*input, *offset), *k, true),
            _ => return None,
        };
        Some(Simple { input: load.0, offset: load.1, operand: elems[x], result: elems[2], k, k_left, op: *op })
    }

    /// The ops in order (op `i`'s value is value `i`) and the type of each value.
    pub(in crate::exec) fn parts(&self) -> (&[Op], &[E]) {
        (&self.ops, &self.elems)
    }

    /// `(input, type, k)` when the expression is `x + k` (or `k + x`) for element 0 of input
    /// `input`: a loop counter's step.
    pub fn as_increment(&self) -> Option<(usize, E, i64)> {
        let s = self.simple?;
        match s.op {
            Op::Binary(BinaryOp::Add, ..) if s.offset == 0 && s.operand == s.result && s.result != E::Pred && is_int(s.result) => Some((s.input, s.result, s.k)),
            _ => None,
        }
    }

    /// `(input, d, type, k)` when the expression is the comparison `x d k` for element 0 of input
    /// `input` (a `k d x` comes back turned around): a loop counter's bound.
    pub fn as_bound(&self) -> Option<(usize, ComparisonDirection, E, i64)> {
        let s = self.simple?;
        let Op::Compare(d, ..) = s.op else { return None };
        let d = if s.k_left {
            match d {
                ComparisonDirection::Lt => ComparisonDirection::Gt,
                ComparisonDirection::Le => ComparisonDirection::Ge,
                ComparisonDirection::Gt => ComparisonDirection::Lt,
                ComparisonDirection::Ge => ComparisonDirection::Le,
                other => other,
            }
        } else {
            d
        };
        (s.offset == 0 && s.operand != E::Pred && is_int(s.operand)).then_some((s.input, d, s.operand, s.k))
    }

    /// Evaluates the expression and stores its one result element at `out`.
    ///
    /// # Safety
    /// `inputs[i]` must hold the loaded elements of the input's type; `out` must have room for one
    /// element of the result type.
    pub unsafe fn eval(&self, inputs: &[*const u8], out: *mut u8) {
        if let Some(s) = &self.simple {
            let x = load(inputs[s.input], s.offset, s.operand);
            let (a, c) = if s.k_left { (s.k, x) } else { (x, s.k) };
            let v = match s.op {
                Op::Binary(b, ..) => binary(b, a, c, s.result),
                Op::Compare(d, ..) => compare(d, a, c, s.operand),
                _ => return,
            };
            store(out, v, s.result);
            return;
        }
        let mut small = [0i64; 16];
        let mut big;
        let vals: &mut [i64] = if self.ops.len() <= small.len() {
            &mut small[..self.ops.len()]
        } else {
            big = vec![0i64; self.ops.len()];
            &mut big
        };
        for (i, op) in self.ops.iter().enumerate() {
            let e = self.elems[i];
            vals[i] = match *op {
                Op::Load { input, offset } => load(inputs[input], offset, e),
                Op::Const(v) => v,
                Op::Binary(b, x, y) => binary(b, vals[x], vals[y], e),
                Op::Unary(u, x) => unary(u, vals[x], e),
                Op::Compare(d, x, y) => compare(d, vals[x], vals[y], self.elems[x]),
                Op::Convert(x) => convert(vals[x], self.elems[x], e),
                Op::Select(p, x, y) => {
                    if vals[p] != 0 {
                        vals[x]
                    } else {
                        vals[y]
                    }
                }
            };
        }
        store(out, vals[vals.len() - 1], self.elems[self.elems.len() - 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apu_compiler::plan::View;

    fn load(input: usize) -> Instr {
        Instr::Load { input, view: View { offset: 0, strides: vec![] } }
    }

    #[test]
    fn counter_step_and_condition() {
        let mut add = Expr::default();
        let i = add.push(load(0), E::S32);
        let one = add.push(Instr::Const(KScalar::S32(1)), E::S32);
        add.push(Instr::Binary(BinaryOp::Add, i, one), E::S32);
        let s = ScalarExpr::new(&add, &[]).expect("scalar add");
        let x = i32::MAX.to_le_bytes();
        let mut out = [0u8; 4];
        unsafe { s.eval(&[x.as_ptr()], out.as_mut_ptr()) };
        assert_eq!(i32::from_le_bytes(out), i32::MIN, "s32 add wraps");

        let mut lt = Expr::default();
        let i = lt.push(load(0), E::U32);
        let n = lt.push(Instr::Const(KScalar::U32(1000)), E::U32);
        lt.push(Instr::Compare(ComparisonDirection::Lt, Some(ComparisonType::Unsigned), i, n), E::Pred);
        let s = ScalarExpr::new(&lt, &[1]).expect("scalar compare");
        for (v, want) in [(999u32, 1u8), (1000, 0), (u32::MAX, 0)] {
            let x = v.to_le_bytes();
            let mut out = 7u8;
            unsafe { s.eval(&[x.as_ptr()], &mut out) };
            assert_eq!(out, want, "{v} < 1000");
        }
    }

    /// Evaluates `x op y` on one element of `elem` given as little-endian bytes.
    fn binary(op: BinaryOp, elem: E, x: &[u8], y: &[u8]) -> Vec<u8> {
        let mut e = Expr::default();
        let a = e.push(load(0), elem);
        let b = e.push(load(1), elem);
        e.push(Instr::Binary(op, a, b), elem);
        let s = ScalarExpr::new(&e, &[]).expect("scalar binary");
        let mut out = vec![0u8; elem.byte_size()];
        unsafe { s.eval(&[x.as_ptr(), y.as_ptr()], out.as_mut_ptr()) };
        out
    }

    fn compare(d: ComparisonDirection, elem: E, x: &[u8], y: &[u8]) -> bool {
        let mut e = Expr::default();
        let a = e.push(load(0), elem);
        let b = e.push(load(1), elem);
        e.push(Instr::Compare(d, None, a, b), E::Pred);
        let s = ScalarExpr::new(&e, &[]).expect("scalar compare");
        let mut out = 9u8;
        unsafe { s.eval(&[x.as_ptr(), y.as_ptr()], &mut out) };
        assert!(out <= 1, "pred is stored as 0/1");
        out == 1
    }

    #[test]
    fn unsigned_and_64_bit_wrap_and_order_like_their_types() {
        let u32b = |v: u32| v.to_le_bytes().to_vec();
        let u64b = |v: u64| v.to_le_bytes().to_vec();
        let s64b = |v: i64| v.to_le_bytes().to_vec();
        assert_eq!(binary(BinaryOp::Subtract, E::U32, &u32b(1), &u32b(2)), u32b(u32::MAX), "u32 1 - 2");
        assert_eq!(binary(BinaryOp::Multiply, E::U32, &u32b(0x8000_0001), &u32b(4)), u32b(4), "u32 multiply keeps low bits");
        assert_eq!(binary(BinaryOp::Maximum, E::U32, &u32b(u32::MAX), &u32b(1)), u32b(u32::MAX), "u32 max");
        assert_eq!(binary(BinaryOp::Maximum, E::U64, &u64b(u64::MAX), &u64b(1)), u64b(u64::MAX), "u64 max is unsigned");
        assert_eq!(binary(BinaryOp::Minimum, E::U64, &u64b(1 << 63), &u64b(5)), u64b(5), "u64 min is unsigned");
        assert_eq!(binary(BinaryOp::Add, E::U64, &u64b(u64::MAX), &u64b(2)), u64b(1), "u64 add wraps");
        assert_eq!(binary(BinaryOp::Multiply, E::S64, &s64b(i64::MAX), &s64b(2)), s64b(-2), "s64 multiply wraps");
        assert_eq!(binary(BinaryOp::Minimum, E::S64, &s64b(-1), &s64b(1)), s64b(-1), "s64 min is signed");
        assert_eq!(binary(BinaryOp::Maximum, E::S32, &(-5i32).to_le_bytes(), &3i32.to_le_bytes()), 3i32.to_le_bytes(), "s32 max is signed");
        assert!(compare(ComparisonDirection::Gt, E::U64, &u64b(1 << 63), &u64b(1)), "u64 compare is unsigned");
        assert!(compare(ComparisonDirection::Gt, E::U32, &u32b(u32::MAX), &u32b(1)), "u32 compare is unsigned");
        assert!(compare(ComparisonDirection::Lt, E::S64, &s64b(-1), &s64b(1)), "s64 compare is signed");
        assert!(compare(ComparisonDirection::Ne, E::S32, &(-1i32).to_le_bytes(), &1i32.to_le_bytes()));
        let p = |v: bool| vec![v as u8];
        assert_eq!(binary(BinaryOp::Xor, E::Pred, &p(true), &p(true)), p(false));
        assert_eq!(binary(BinaryOp::Or, E::Pred, &p(true), &p(false)), p(true));
    }

    /// A load and a constant take the `Simple` form; the same op between two loads (the constant
    /// given as the second input) walks the ops. Both must agree, with the constant on either side.
    #[test]
    fn simple_form_matches_the_general_walk() {
        let values: [i64; 6] = [0, 1, -1, 7, i64::from(i32::MAX), i64::from(i32::MIN)];
        let binaries = [BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply, BinaryOp::Maximum, BinaryOp::Minimum];
        let dirs = [ComparisonDirection::Eq, ComparisonDirection::Ne, ComparisonDirection::Lt, ComparisonDirection::Le, ComparisonDirection::Gt, ComparisonDirection::Ge];
        for elem in [E::S32, E::U32, E::S64, E::U64] {
            let bytes = |v: i64| v.to_le_bytes()[..elem.byte_size()].to_vec();
            let konst = |v: i64| match elem {
                E::S32 => KScalar::S32(v as i32),
                E::U32 => KScalar::U32(v as u32),
                E::S64 => KScalar::S64(v),
                _ => KScalar::U64(v as u64),
            };
            let ops: Vec<Option<BinaryOp>> = binaries.iter().map(|&b| Some(b)).chain(dirs.iter().map(|_| None)).collect();
            for (n, op) in ops.iter().enumerate() {
                for k_left in [false, true] {
                    for &x in &values {
                        for &k in &values {
                            let build = |second: Instr| {
                                let mut e = Expr::default();
                                let (a, b) = if k_left {
                                    let b = e.push(second, elem);
                                    (e.push(load(0), elem), b)
                                } else {
                                    let a = e.push(load(0), elem);
                                    (a, e.push(second, elem))
                                };
                                let (l, r) = if k_left { (b, a) } else { (a, b) };
                                match op {
                                    Some(bop) => e.push(Instr::Binary(*bop, l, r), elem),
                                    None => e.push(Instr::Compare(dirs[n - binaries.len()], None, l, r), E::Pred),
                                };
                                ScalarExpr::new(&e, &[]).expect("scalar form")
                            };
                            let simple = build(Instr::Const(konst(k)));
                            let walked = build(load(1));
                            assert!(simple.simple.is_some() && walked.simple.is_none());
                            let (xb, kb) = (bytes(x), bytes(k));
                            let mut got = [0u8; 8];
                            let mut want = [0u8; 8];
                            unsafe {
                                simple.eval(&[xb.as_ptr()], got.as_mut_ptr());
                                walked.eval(&[xb.as_ptr(), kb.as_ptr()], want.as_mut_ptr());
                            }
                            assert_eq!(got, want, "{elem} {op:?} #{n} x={x} k={k} k_left={k_left}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn not_scalar_or_unsupported() {
        let mut e = Expr::default();
        let x = e.push(load(0), E::S32);
        e.push(Instr::Binary(BinaryOp::ShiftLeft, x, x), E::S32);
        assert!(ScalarExpr::new(&e, &[]).is_none(), "shifts are left to the vector evaluator");
        // Floats: only the exact ops; transcendentals, float-to-integer conversions and the
        // total order are left to the other evaluators.
        let float_expr = |op: Instr, result: E| {
            let mut f = Expr::default();
            let x = f.push(load(0), E::F32);
            let op = match op {
                Instr::Unary(u, _) => Instr::Unary(u, x),
                Instr::Convert(_) => Instr::Convert(x),
                Instr::Compare(d, t, _, _) => Instr::Compare(d, t, x, x),
                other => other,
            };
            f.push(op, result);
            ScalarExpr::new(&f, &[])
        };
        assert!(float_expr(Instr::Unary(UnaryOp::Negate, 0), E::F32).is_some());
        assert!(float_expr(Instr::Convert(0), E::F64).is_some());
        assert!(float_expr(Instr::Compare(ComparisonDirection::Lt, Some(ComparisonType::Float), 0, 0), E::Pred).is_some());
        assert!(float_expr(Instr::Unary(UnaryOp::Tanh, 0), E::F32).is_none(), "tanh");
        assert!(float_expr(Instr::Unary(UnaryOp::Sign, 0), E::F32).is_none(), "sign");
        assert!(float_expr(Instr::Convert(0), E::S32).is_none(), "f32 to s32");
        assert!(float_expr(Instr::Compare(ComparisonDirection::Lt, Some(ComparisonType::TotalOrder), 0, 0), E::Pred).is_none(), "total order");
        let mut g = Expr::default();
        g.push(load(0), E::S32);
        assert!(ScalarExpr::new(&g, &[2]).is_none(), "two elements");
    }
}
