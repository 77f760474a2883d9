//! The op tables of the chunked evaluator: loads by access kind, the per-type loops of every
//! unary, binary, compare, convert and select instruction ([`compute`]), and the store of a
//! register. These are the vectorised hot path: each instruction is a tight loop over one chunk,
//! so they stay apart from the one-element evaluators of `exec::scalar`.

use super::*;
use super::fastmath;
use apu_compiler::ir::{BinaryOp as B, ComparisonDirection as D, ElementType as E, UnaryOp as U};
use apu_compiler::plan::{Instr, KScalar};

/// `o = a op k` (or `k op a`) for f32, with the same rules as the register form.
#[inline(always)]
pub(super) fn binary_scalar_f32(op: B, a: &[f32], k: f32, o: &mut [f32], k_left: bool) {
    match (op, k_left) {
        (B::Add, _) => map1(a, o, |x| x + k),
        (B::Multiply, _) => map1(a, o, |x| x * k),
        (B::Subtract, false) => map1(a, o, |x| x - k),
        (B::Subtract, true) => map1(a, o, |x| k - x),
        // Division by a broadcast value is a multiplication by its reciprocal, as XLA:CPU
        // rewrites it (docs/decisions.md 24); the general path below does the same per element.
        (B::Divide, false) => {
            let r = 1.0 / k;
            map1(a, o, |x| x * r)
        }
        (B::Divide, true) => map1(a, o, |x| k / x),
        (B::Maximum, false) => map1(a, o, |x| max_f32(x, k)),
        (B::Maximum, true) => map1(a, o, |x| max_f32(k, x)),
        (B::Minimum, false) => map1(a, o, |x| min_f32(x, k)),
        (B::Minimum, true) => map1(a, o, |x| min_f32(k, x)),
        _ => {}
    }
}

macro_rules! load_typed {
    ($v:expr, $t:ty, $src:expr, $access:expr, $shape:expr, $start:expr, $len:expr) => {{
        let p = $src as *const $t;
        match $access {
            Access::Contiguous(off) => {
                std::ptr::copy_nonoverlapping(p.wrapping_add(off + $start), $v.as_mut_ptr(), $len);
            }
            Access::Scalar(off) => {
                let x = *p.wrapping_add(*off);
                $v[..$len].fill(x);
            }
            Access::PerRow { offset, inner, stride, rows } => {
                let (mut j, mut i) = (0, $start);
                while j < $len {
                    let row = rows.row(i);
                    let run = ((row + 1) * inner - i).min($len - j);
                    $v[j..j + run].fill(*p.wrapping_add(offset + row * stride));
                    j += run;
                    i += run;
                }
            }
            Access::Cyclic { offset, period } => {
                let (mut j, mut pos) = (0, $start % period);
                while j < $len {
                    let run = (period - pos).min($len - j);
                    std::ptr::copy_nonoverlapping(p.wrapping_add(offset + pos), $v[j..j + run].as_mut_ptr(), run);
                    j += run;
                    pos = 0;
                }
            }
            Access::Strided { offset, strides } => {
                let v = &mut $v[..];
                // Broadcast rows (last stride 0) fill, contiguous rows copy, others gather.
                match strides.last().copied().unwrap_or(0) {
                    0 => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| v[j..j + run].fill(*p.wrapping_offset(base))),
                    1 => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| {
                        std::ptr::copy_nonoverlapping(p.wrapping_offset(base), v[j..j + run].as_mut_ptr(), run)
                    }),
                    s_last => for_runs($shape, strides, *offset, $start, $len, #[inline(always)] |j, base, run| {
                        for k in 0..run {
                            v[j + k] = *p.wrapping_offset(base + k as isize * s_last);
                        }
                    }),
                }
            }
        }
    }};
}

#[inline(always)]
pub(super) unsafe fn load(dst: Out<'_>, src: *const u8, access: &Access, shape: &[usize], start: usize, len: usize) {
    match dst {
        Out::F32(v) => load_typed!(v, f32, src, access, shape, start, len),
        Out::F64(v) => load_typed!(v, f64, src, access, shape, start, len),
        Out::S32(v) => load_typed!(v, i32, src, access, shape, start, len),
        Out::S64(v) => load_typed!(v, i64, src, access, shape, start, len),
        Out::U32(v) => load_typed!(v, u32, src, access, shape, start, len),
        Out::U64(v) => load_typed!(v, u64, src, access, shape, start, len),
        Out::Pred(v) => load_typed!(v, u8, src, access, shape, start, len),
    }
}

/// IEEE maximum/minimum as the interpreter does them: NaN wins, +0 > -0.
macro_rules! float_minmax {
    ($name_max:ident, $name_min:ident, $t:ty) => {
        #[inline(always)]
        fn $name_max(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                if x.is_sign_negative() { y } else { x }
            } else if x > y {
                x
            } else {
                y
            }
        }
        #[inline(always)]
        fn $name_min(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                if x.is_sign_negative() { x } else { y }
            } else if x < y {
                x
            } else {
                y
            }
        }
    };
}
float_minmax!(max_f32, min_f32, f32);
float_minmax!(max_f64, min_f64, f64);

#[inline(always)]
pub fn fmax32(x: f32, y: f32) -> f32 {
    max_f32(x, y)
}
#[inline(always)]
pub fn fmin32(x: f32, y: f32) -> f32 {
    min_f32(x, y)
}
#[inline(always)]
pub fn fmax64(x: f64, y: f64) -> f64 {
    max_f64(x, y)
}
#[inline(always)]
pub fn fmin64(x: f64, y: f64) -> f64 {
    min_f64(x, y)
}

/// The f64 function of a float unary op, from the one-element evaluator's tables (the f64 kernels and
/// the f32 ops without a vector form compute in f64 as it does). The planner only sends float ops
/// these tables cover; the fallbacks are never reached.
pub(super) fn unary_f64(op: U) -> fn(f64) -> f64 {
    crate::exec::scalar::ops::float_unary(op).unwrap_or(|x| x)
}

pub(super) fn binary_f64(op: B) -> fn(f64, f64) -> f64 {
    crate::exec::scalar::ops::float_binary(op).unwrap_or(|x, _| x)
}

#[inline(always)]
pub(super) fn map1<T: Copy, R>(a: &[T], out: &mut [R], f: impl Fn(T) -> R) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}
#[inline(always)]
pub(super) fn map2<T: Copy, R>(a: &[T], b: &[T], out: &mut [R], f: impl Fn(T, T) -> R) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// `out = a <d> b` as 0/1; the direction is matched once, outside the loop, so each loop is a
/// plain vector compare.
#[inline(always)]
pub(super) fn compare_into<T: PartialOrd + Copy>(d: D, a: &[T], b: &[T], out: &mut [u8]) {
    match d {
        D::Eq => map2(a, b, out, |x, y| (x == y) as u8),
        D::Ne => map2(a, b, out, |x, y| (x != y) as u8),
        D::Ge => map2(a, b, out, |x, y| (x >= y) as u8),
        D::Gt => map2(a, b, out, |x, y| (x > y) as u8),
        D::Le => map2(a, b, out, |x, y| (x <= y) as u8),
        D::Lt => map2(a, b, out, |x, y| (x < y) as u8),
    }
}

/// Integer unary ops with the interpreter's rules: negation and absolute value wrap (`abs(MIN)`
/// is MIN; an unsigned value is its own absolute value), sign is -1/0/1 (0/1 unsigned), and the
/// bit counts look at the two's complement pattern.
macro_rules! int_unary {
    ($op:expr, $a:expr, $o:expr, $t:ty) => {
        match $op {
            U::Negate => map1($a, $o, <$t>::wrapping_neg),
            #[allow(unused_comparisons)]
            U::Abs => map1($a, $o, |x: $t| if x < 0 as $t { x.wrapping_neg() } else { x }),
            #[allow(unused_comparisons)]
            U::Sign => map1($a, $o, |x: $t| if x > 0 as $t { 1 as $t } else if x < 0 as $t { (0 as $t).wrapping_sub(1) } else { 0 as $t }),
            U::Not => map1($a, $o, |x: $t| !x),
            U::PopulationCount => map1($a, $o, |x: $t| x.count_ones() as $t),
            U::CountLeadingZeros => map1($a, $o, |x: $t| x.leading_zeros() as $t),
            _ => {}
        }
    };
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $o:expr, $t:ty) => {
        int_binary!($op, $a, $b, $o, $t, <$t as IntBits>::U, <$t as IntBits>::S)
    };
    ($op:expr, $a:expr, $b:expr, $o:expr, $t:ty, $u:ty, $s:ty) => {
        match $op {
            // Shift amounts are read as unsigned; amounts >= the width shift everything out
            // (arithmetic right shifts then fill with the sign), the interpreter's rules.
            B::ShiftLeft => map2($a, $b, $o, |x: $t, y: $t| {
                let n = y as $u;
                if n >= <$u>::BITS as $u { 0 as $t } else { ((x as $u) << n) as $t }
            }),
            B::ShiftRightLogical => map2($a, $b, $o, |x: $t, y: $t| {
                let n = y as $u;
                if n >= <$u>::BITS as $u { 0 as $t } else { ((x as $u) >> n) as $t }
            }),
            B::ShiftRightArithmetic => map2($a, $b, $o, |x: $t, y: $t| {
                let n = (y as $u).min(<$u>::BITS as $u - 1);
                ((x as $s) >> n) as $t
            }),
            B::Add => map2($a, $b, $o, <$t>::wrapping_add),
            B::Subtract => map2($a, $b, $o, <$t>::wrapping_sub),
            B::Multiply => map2($a, $b, $o, <$t>::wrapping_mul),
            // x / 0 is all ones; MIN / -1 is MIN; x % 0 is x; MIN % -1 is 0 (the interpreter's rules).
            B::Divide => map2($a, $b, $o, |x: $t, y: $t| if y == 0 { (0 as $t).wrapping_sub(1) } else { x.wrapping_div(y) }),
            B::Remainder => map2($a, $b, $o, |x: $t, y: $t| if y == 0 { x } else { x.wrapping_rem(y) }),
            B::Maximum => map2($a, $b, $o, |x: $t, y: $t| x.max(y)),
            B::Minimum => map2($a, $b, $o, |x: $t, y: $t| x.min(y)),
            B::And => map2($a, $b, $o, |x: $t, y: $t| x & y),
            B::Or => map2($a, $b, $o, |x: $t, y: $t| x | y),
            B::Xor => map2($a, $b, $o, |x: $t, y: $t| x ^ y),
            _ => {}
        }
    };
}

/// The unsigned and signed types of the same width, for shifts.
pub(super) trait IntBits {
    type U;
    type S;
}
impl IntBits for i32 {
    type U = u32;
    type S = i32;
}
impl IntBits for u32 {
    type U = u32;
    type S = i32;
}
impl IntBits for i64 {
    type U = u64;
    type S = i64;
}
impl IntBits for u64 {
    type U = u64;
    type S = i64;
}

/// Converts register `src` into `dst` (a different or the same type), with the interpreter's rules:
/// float → int truncates and saturates (NaN → 0), int → int wraps, int → float rounds once.
#[inline(always)]
pub(super) fn convert(src: Src, dst: Out<'_>, n: usize) {
    macro_rules! from {
        ($a:expr, $conv_f32:expr, $conv_f64:expr, $conv_s32:expr, $conv_s64:expr, $conv_u32:expr, $conv_u64:expr) => {
            match dst {
                Out::F32(o) => map1(&$a[..n], &mut o[..n], $conv_f32),
                Out::F64(o) => map1(&$a[..n], &mut o[..n], $conv_f64),
                Out::S32(o) => map1(&$a[..n], &mut o[..n], $conv_s32),
                Out::S64(o) => map1(&$a[..n], &mut o[..n], $conv_s64),
                Out::U32(o) => map1(&$a[..n], &mut o[..n], $conv_u32),
                Out::U64(o) => map1(&$a[..n], &mut o[..n], $conv_u64),
                Out::Pred(_) => {}
            }
        };
    }
    match src {
        Src::F32(a) => from!(a, |x| x, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::F64(a) => from!(a, |x| x as f32, |x| x, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::S32(a) => from!(a, |x| x as f32, |x| x as f64, |x| x, |x| x as i64, |x| x as u32, |x| x as u64),
        Src::S64(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x, |x| x as u32, |x| x as u64),
        Src::U32(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x, |x| x as u64),
        Src::U64(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x),
        Src::Pred(a) => from!(a, |x| x as f32, |x| x as f64, |x| x as i32, |x| x as i64, |x| x as u32, |x| x as u64),
    }
}

#[inline(always)]
pub(super) fn select(p: &[u8], t: Src, f: Src, dst: Out<'_>, n: usize) {
    macro_rules! sel {
        ($a:expr, $b:expr, $o:expr) => {
            // Zipped slices of one length: no bounds checks, so this becomes a vector blend
            // (a branch per element mispredicts on masks like a relu's).
            for (((o, &c), &x), &y) in $o[..n].iter_mut().zip(&p[..n]).zip(&$a[..n]).zip(&$b[..n]) {
                *o = if c != 0 { x } else { y };
            }
        };
    }
    match (t, f, dst) {
        (Src::F32(a), Src::F32(b), Out::F32(o)) => sel!(a, b, o),
        (Src::F64(a), Src::F64(b), Out::F64(o)) => sel!(a, b, o),
        (Src::S32(a), Src::S32(b), Out::S32(o)) => sel!(a, b, o),
        (Src::S64(a), Src::S64(b), Out::S64(o)) => sel!(a, b, o),
        (Src::U32(a), Src::U32(b), Out::U32(o)) => sel!(a, b, o),
        (Src::U64(a), Src::U64(b), Out::U64(o)) => sel!(a, b, o),
        (Src::Pred(a), Src::Pred(b), Out::Pred(o)) => sel!(a, b, o),
        _ => {}
    }
}

#[inline(always)]
pub(super) fn fill_const(k: KScalar, dst: Out<'_>, n: usize) {
    match (k, dst) {
        (KScalar::F32(x), Out::F32(o)) => o[..n].fill(x),
        (KScalar::F64(x), Out::F64(o)) => o[..n].fill(x),
        (KScalar::S32(x), Out::S32(o)) => o[..n].fill(x),
        (KScalar::S64(x), Out::S64(o)) => o[..n].fill(x),
        (KScalar::U32(x), Out::U32(o)) => o[..n].fill(x),
        (KScalar::U64(x), Out::U64(o)) => o[..n].fill(x),
        (KScalar::Pred(x), Out::Pred(o)) => o[..n].fill(x as u8),
        _ => {}
    }
}

pub(super) fn iota(dim: usize, shape: &[usize], start: usize, n: usize, dst: Out<'_>) {
    let mut strides = vec![0isize; shape.len()];
    if dim < shape.len() {
        strides[dim] = 1;
    }
    macro_rules! io {
        ($o:expr, $t:ty) => {
            for_strided(shape, &strides, 0, start, n, |j, c| $o[j] = c as $t)
        };
    }
    match dst {
        Out::F32(o) => io!(o, f32),
        Out::F64(o) => io!(o, f64),
        Out::S32(o) => io!(o, i32),
        Out::S64(o) => io!(o, i64),
        Out::U32(o) => io!(o, u32),
        Out::U64(o) => io!(o, u64),
        Out::Pred(o) => io!(o, u8),
    }
}

#[inline(always)]
pub(super) fn compute<'r, M: fastmath::Madd>(ins: &Instr, src: impl Fn(usize) -> Src<'r>, dst: Out<'_>, shape: &[usize], start: usize, n: usize) {
    match *ins {
        Instr::Load { .. } => {}
        Instr::Const(k) => fill_const(k, dst, n),
        Instr::Iota { dim } => iota(dim, shape, start, n, dst),
        Instr::Unary(op, a) => match (src(a), dst) {
            (Src::F32(a), Out::F32(o)) => {
                let (a, o) = (&a[..n], &mut o[..n]);
                match op {
                    U::Negate => map1(a, o, |x| -x),
                    U::Abs => map1(a, o, f32::abs),
                    U::Sqrt => map1(a, o, f32::sqrt),
                    U::Exponential => fastmath::exp_slice_f32::<M>(a, o),
                    U::Tanh => map1(a, o, fastmath::tanh_f32::<M>),
                    U::Logistic => fastmath::logistic_slice_f32::<M>(a, o),
                    U::Log => fastmath::log_slice_f32::<M>(a, o),
                    U::LogPlusOne => fastmath::log1p_slice_f32::<M>(a, o),
                    U::Rsqrt => map1(a, o, |x| (1.0 / (x as f64).sqrt()) as f32),
                    _ => {
                        let g = unary_f64(op);
                        map1(a, o, |x| g(x as f64) as f32)
                    }
                }
            }
            (Src::F32(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x.is_finite() as u8),
            (Src::F64(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x.is_finite() as u8),
            (Src::F64(a), Out::F64(o)) => map1(&a[..n], &mut o[..n], unary_f64(op)),
            (Src::S32(a), Out::S32(o)) => int_unary!(op, &a[..n], &mut o[..n], i32),
            (Src::S64(a), Out::S64(o)) => int_unary!(op, &a[..n], &mut o[..n], i64),
            (Src::U32(a), Out::U32(o)) => int_unary!(op, &a[..n], &mut o[..n], u32),
            (Src::U64(a), Out::U64(o)) => int_unary!(op, &a[..n], &mut o[..n], u64),
            (Src::Pred(a), Out::Pred(o)) => map1(&a[..n], &mut o[..n], |x| x ^ 1),
            _ => {}
        },
        Instr::Binary(op, a, b) => match (src(a), src(b), dst) {
            (Src::F32(a), Src::F32(b), Out::F32(o)) => {
                let (a, b, o) = (&a[..n], &b[..n], &mut o[..n]);
                match op {
                    B::Add => map2(a, b, o, |x, y| x + y),
                    B::Subtract => map2(a, b, o, |x, y| x - y),
                    B::Multiply => map2(a, b, o, |x, y| x * y),
                    B::Divide => map2(a, b, o, |x, y| x / y),
                    B::Maximum => map2(a, b, o, max_f32),
                    B::Minimum => map2(a, b, o, min_f32),
                    _ => {
                        let g = binary_f64(op);
                        map2(a, b, o, |x, y| g(x as f64, y as f64) as f32)
                    }
                }
            }
            (Src::F64(a), Src::F64(b), Out::F64(o)) => map2(&a[..n], &b[..n], &mut o[..n], binary_f64(op)),
            (Src::S32(a), Src::S32(b), Out::S32(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], i32),
            (Src::S64(a), Src::S64(b), Out::S64(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], i64),
            (Src::U32(a), Src::U32(b), Out::U32(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], u32),
            (Src::U64(a), Src::U64(b), Out::U64(o)) => int_binary!(op, &a[..n], &b[..n], &mut o[..n], u64),
            (Src::Pred(a), Src::Pred(b), Out::Pred(o)) => match op {
                B::And => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x & y),
                B::Or => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x | y),
                _ => map2(&a[..n], &b[..n], &mut o[..n], |x, y| x ^ y),
            },
            _ => {}
        },
        Instr::Compare(d, _, a, b) => {
            let Out::Pred(o) = dst else { return };
            let o = &mut o[..n];
            match (src(a), src(b)) {
                (Src::F32(a), Src::F32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::F64(a), Src::F64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::S32(a), Src::S32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::S64(a), Src::S64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::U32(a), Src::U32(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::U64(a), Src::U64(b)) => compare_into(d, &a[..n], &b[..n], o),
                (Src::Pred(a), Src::Pred(b)) => compare_into(d, &a[..n], &b[..n], o),
                _ => {}
            }
        }
        Instr::Select(p, t, f) => {
            if let Src::Pred(p) = src(p) {
                select(p, src(t), src(f), dst, n)
            }
        }
        Instr::Clamp(lo, x, hi) => {
            macro_rules! clamp {
                ($l:expr, $x:expr, $h:expr, $o:expr, $max:expr, $min:expr) => {
                    for j in 0..n {
                        $o[j] = $min($max($x[j], $l[j]), $h[j]);
                    }
                };
            }
            match (src(lo), src(x), src(hi), dst) {
                (Src::F32(l), Src::F32(x), Src::F32(h), Out::F32(o)) => clamp!(l, x, h, o, max_f32, min_f32),
                (Src::F64(l), Src::F64(x), Src::F64(h), Out::F64(o)) => clamp!(l, x, h, o, max_f64, min_f64),
                (Src::S32(l), Src::S32(x), Src::S32(h), Out::S32(o)) => clamp!(l, x, h, o, i32::max, i32::min),
                (Src::S64(l), Src::S64(x), Src::S64(h), Out::S64(o)) => clamp!(l, x, h, o, i64::max, i64::min),
                (Src::U32(l), Src::U32(x), Src::U32(h), Out::U32(o)) => clamp!(l, x, h, o, u32::max, u32::min),
                (Src::U64(l), Src::U64(x), Src::U64(h), Out::U64(o)) => clamp!(l, x, h, o, u64::max, u64::min),
                // Pred as 0/1 bytes: false < true, as the interpreter orders it.
                (Src::Pred(l), Src::Pred(x), Src::Pred(h), Out::Pred(o)) => clamp!(l, x, h, o, u8::max, u8::min),
                _ => {}
            }
        }
        Instr::Convert(a) => convert(src(a), dst, n),
    }
}

/// Copies the first `len` values of a register to `dst` (typed as the register).
///
/// # Safety
/// `dst` must have room for `len` elements of the register's type.
pub unsafe fn store(reg: &Buf, dst: *mut u8, len: usize) {
    match reg {
        Buf::F32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut f32, len),
        Buf::F64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut f64, len),
        Buf::S32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut i32, len),
        Buf::S64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut i64, len),
        Buf::U32(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut u32, len),
        Buf::U64(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst as *mut u64, len),
        Buf::Pred(v) => std::ptr::copy_nonoverlapping(v.as_ptr(), dst, len),
    }
}

/// The bf16 nearest to `x` (ties to even; a NaN stays NaN, made quiet), as its bits. Branch-free,
/// so that loops of it vectorize.
#[inline(always)]
pub(super) fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    let nan = (b & 0x7fff_ffff) > 0x7f80_0000;
    ((if nan { b | 0x0040_0000 } else { rounded }) >> 16) as u16
}

/// f32 values of bf16 bits.
#[inline(always)]
fn bf16_value(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// Rounds f32 lanes to the nearest f16 values in place (ties to even, beyond f16's range infinite,
/// its subnormals kept), a chunk at a time through the `half` crate's slice conversions (F16C
/// instructions where the CPU has them).
fn round_f16_lanes(o: &mut [f32]) {
    use half::slice::HalfFloatSliceExt;
    let mut tmp = [half::f16::ZERO; CHUNK];
    for part in o.chunks_mut(CHUNK) {
        let t = &mut tmp[..part.len()];
        t.convert_from_f32_slice(part);
        t.convert_to_f32_slice(part);
    }
}

/// Brings the first `n` lanes of a register of narrow type `elem` back into that type after an
/// instruction computed them on the lanes' type: floats round, integers wrap, except after a
/// conversion from a float (`from_float`), where they saturate as the interpreter's
/// float-to-integer conversions do (the lanes already hold the value truncated and saturated to
/// the 32-bit range, so clamping to the narrow range saturates it there).
pub(super) fn narrow_lanes(elem: E, from_float: bool, dst: Out<'_>, n: usize) {
    match (elem, dst) {
        (E::BF16, Out::F32(o)) => o[..n].iter_mut().for_each(|x| *x = bf16_value(bf16_bits(*x))),
        (E::F16, Out::F32(o)) => round_f16_lanes(&mut o[..n]),
        (E::S8, Out::S32(o)) if from_float => o[..n].iter_mut().for_each(|x| *x = (*x).clamp(i8::MIN as i32, i8::MAX as i32)),
        (E::S16, Out::S32(o)) if from_float => o[..n].iter_mut().for_each(|x| *x = (*x).clamp(i16::MIN as i32, i16::MAX as i32)),
        (E::U8, Out::U32(o)) if from_float => o[..n].iter_mut().for_each(|x| *x = (*x).min(u8::MAX as u32)),
        (E::U16, Out::U32(o)) if from_float => o[..n].iter_mut().for_each(|x| *x = (*x).min(u16::MAX as u32)),
        (E::S8, Out::S32(o)) => o[..n].iter_mut().for_each(|x| *x = *x as i8 as i32),
        (E::S16, Out::S32(o)) => o[..n].iter_mut().for_each(|x| *x = *x as i16 as i32),
        (E::U8, Out::U32(o)) => o[..n].iter_mut().for_each(|x| *x = *x as u8 as u32),
        (E::U16, Out::U32(o)) => o[..n].iter_mut().for_each(|x| *x = *x as u16 as u32),
        _ => {}
    }
}

/// Reads `len` elements of narrow type `elem` from `src` through `access` into the lanes of `dst`
/// (bf16 and f16 exactly as f32, integers sign- or zero-extended).
///
/// # Safety
/// As [`load`], for elements of `elem`.
pub(super) unsafe fn load_widened(elem: E, dst: Out<'_>, src: *const u8, access: &Access, shape: &[usize], start: usize, len: usize) {
    macro_rules! widen {
        ($v:expr, $t:ty, $f:expr) => {{
            let p = src as *const $t;
            let f = $f;
            let v = &mut $v[..len];
            match access {
                // Contiguous runs as slices, so the conversion loop vectorizes.
                Access::Contiguous(off) => {
                    let from = std::slice::from_raw_parts(p.wrapping_add(off + start), len);
                    v.iter_mut().zip(from).for_each(|(o, &x)| *o = f(x));
                }
                _ => for_access(access, shape, start, len, #[inline(always)] |j, at| v[j] = f(*p.wrapping_offset(at))),
            }
        }};
    }
    match (elem, dst) {
        (E::BF16, Out::F32(v)) => widen!(v, u16, bf16_value),
        (E::F16, Out::F32(v)) => match access {
            Access::Contiguous(off) => {
                use half::slice::HalfFloatSliceExt;
                std::slice::from_raw_parts((src as *const half::f16).wrapping_add(off + start), len).convert_to_f32_slice(&mut v[..len]);
            }
            _ => widen!(v, u16, |b: u16| half::f16::from_bits(b).to_f32()),
        },
        (E::S8, Out::S32(v)) => widen!(v, i8, |x: i8| x as i32),
        (E::S16, Out::S32(v)) => widen!(v, i16, |x: i16| x as i32),
        (E::U8, Out::U32(v)) => widen!(v, u8, |x: u8| x as u32),
        (E::U16, Out::U32(v)) => widen!(v, u16, |x: u16| x as u32),
        _ => {}
    }
}

/// Visits the element index of each of `len` values from flat index `start` read through `access`.
#[inline(always)]
fn for_access(access: &Access, shape: &[usize], start: usize, len: usize, mut f: impl FnMut(usize, isize)) {
    match access {
        Access::Contiguous(off) => (0..len).for_each(|j| f(j, (off + start + j) as isize)),
        Access::Scalar(off) => (0..len).for_each(|j| f(j, *off as isize)),
        Access::PerRow { offset, stride, rows, .. } => (0..len).for_each(|j| f(j, (offset + rows.row(start + j) * stride) as isize)),
        Access::Cyclic { offset, period } => (0..len).for_each(|j| f(j, (offset + (start + j) % period) as isize)),
        Access::Strided { offset, strides } => for_strided(shape, strides, *offset, start, len, f),
    }
}

/// Stores the first `len` lanes of register `reg` as elements of `elem` at `dst`: narrow types are
/// narrowed (their lanes already hold values of the type), the others copied.
///
/// # Safety
/// `dst` must have room for `len` elements of `elem`.
pub unsafe fn store_as(reg: &Buf, elem: E, dst: *mut u8, len: usize) {
    macro_rules! narrow {
        ($v:expr, $t:ty, $f:expr) => {{
            let o = std::slice::from_raw_parts_mut(dst as *mut $t, len);
            let f = $f;
            for (o, &x) in o.iter_mut().zip(&$v[..len]) {
                *o = f(x);
            }
        }};
    }
    match (elem, reg) {
        (E::BF16, Buf::F32(v)) => narrow!(v, u16, bf16_bits),
        (E::F16, Buf::F32(v)) => {
            use half::slice::HalfFloatSliceExt;
            std::slice::from_raw_parts_mut(dst as *mut half::f16, len).convert_from_f32_slice(&v[..len]);
        }
        (E::S8, Buf::S32(v)) => narrow!(v, i8, |x: i32| x as i8),
        (E::S16, Buf::S32(v)) => narrow!(v, i16, |x: i32| x as i16),
        (E::U8, Buf::U32(v)) => narrow!(v, u8, |x: u32| x as u8),
        (E::U16, Buf::U32(v)) => narrow!(v, u16, |x: u32| x as u16),
        _ => store(reg, dst, len),
    }
}
