//! The op tables of the one-element evaluator over widened values ([`Scalar`]), for every element
//! type the executor stores: each element is widened, computed exactly or in `f64`, and rounded
//! once to the result type by the caller. The same rules as the reference interpreter's
//! `interp::elementwise` (its module comment has them), written out here again on purpose: the
//! interpreter is the oracle that `plan_vs_interp` and the one-element tests hold this copy to, so
//! the two must not share evaluation code. `float_max`, `float_min`, `order`, `float_unary` and
//! `float_binary` also serve the machine-value evaluator (`super`) and the vectorised kernels'
//! f64 fallbacks (`exec::fused::compute`).

use crate::values::array::{is_stored, wrap, Scalar};
use crate::values::complex::C64;
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};
use apu_compiler::{Error, Result};

pub type UnaryFn = Box<dyn Fn(Scalar) -> Scalar + Send + Sync>;
pub type BinaryFn = Box<dyn Fn(Scalar, Scalar) -> Scalar + Send + Sync>;

fn unsupported(op: &str, elem: ElementType) -> Error {
    Error::unimplemented(format!("{op} for {elem}"))
}

fn f(s: Scalar) -> f64 {
    match s {
        Scalar::Float(x) => x,
        Scalar::Int(i) => i as f64,
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Complex(re, _) => re,
    }
}
fn i(s: Scalar) -> i128 {
    match s {
        Scalar::Int(x) => x,
        Scalar::Bool(b) => b as i128,
        _ => 0,
    }
}
fn b(s: Scalar) -> bool {
    matches!(s, Scalar::Bool(true))
}
fn c(s: Scalar) -> C64 {
    match s {
        Scalar::Complex(re, im) => C64::new(re, im),
        other => C64::new(f(other), 0.0),
    }
}
fn cs(z: C64) -> Scalar {
    Scalar::Complex(z.re, z.im)
}

/// The element type `unary` produces for an operand of type `elem`.
pub fn unary_result_elem(op: UnaryOp, elem: ElementType) -> ElementType {
    match op {
        UnaryOp::IsFinite => ElementType::Pred,
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => elem.real_part(),
        _ => elem,
    }
}

/// The f64 function of a unary op on floats with a float result (`None` for ops floats do not
/// have, and for `is_finite`, whose result is not a float).
pub fn float_unary(op: UnaryOp) -> Option<fn(f64) -> f64> {
    use UnaryOp as U;
    Some(match op {
        U::Abs => f64::abs,
        U::Cbrt => f64::cbrt,
        U::Ceil => f64::ceil,
        U::Cosine => f64::cos,
        U::Exponential => f64::exp,
        U::ExponentialMinusOne => f64::exp_m1,
        U::Floor => f64::floor,
        U::Imag => |_| 0.0,
        U::Log => f64::ln,
        U::LogPlusOne => f64::ln_1p,
        U::Logistic => |x| 1.0 / (1.0 + (-x).exp()),
        U::Negate => |x| -x,
        U::Real => |x| x,
        U::RoundNearestAfz => f64::round,
        U::RoundNearestEven => f64::round_ties_even,
        U::Rsqrt => |x| 1.0 / x.sqrt(),
        U::Sign => |x| if x.is_nan() || x == 0.0 { x } else { x.signum() },
        U::Sine => f64::sin,
        U::Sqrt => f64::sqrt,
        U::Tan => f64::tan,
        U::Tanh => f64::tanh,
        U::IsFinite | U::Not | U::PopulationCount | U::CountLeadingZeros => return None,
    })
}

/// The f64 function of a binary op on floats with a float result.
pub fn float_binary(op: BinaryOp) -> Option<fn(f64, f64) -> f64> {
    use BinaryOp as B;
    Some(match op {
        B::Add => |x, y| x + y,
        B::Subtract => |x, y| x - y,
        B::Multiply => |x, y| x * y,
        B::Divide => |x, y| x / y,
        // Rust's `%` on floats is C's fmod: the sign follows the dividend, quotient truncated.
        B::Remainder => |x, y| x % y,
        B::Power => f64::powf,
        B::Maximum => float_max,
        B::Minimum => float_min,
        B::Atan2 => f64::atan2,
        _ => return None,
    })
}

/// The scalar function of a unary op on `elem`, or UNIMPLEMENTED.
pub fn unary_fn(op: UnaryOp, elem: ElementType) -> Result<UnaryFn> {
    use UnaryOp as U;
    let name = apu_compiler::ir::OpKind::Unary(op).name();
    if elem.is_float() && is_stored(elem) {
        if op == U::IsFinite {
            return Ok(Box::new(|s| Scalar::Bool(f(s).is_finite())));
        }
        let g = float_unary(op).ok_or_else(|| unsupported(name, elem))?;
        return Ok(Box::new(move |s| Scalar::Float(g(f(s)))));
    }
    if elem.is_complex() {
        let g: fn(C64) -> Scalar = match op {
            U::Abs => |z| Scalar::Float(z.abs()),
            U::Real => |z| Scalar::Float(z.re),
            U::Imag => |z| Scalar::Float(z.im),
            U::Negate => |z| cs(-z),
            U::Exponential => |z| cs(z.exp()),
            U::ExponentialMinusOne => |z| cs(z.exp_m1()),
            U::Log => |z| cs(z.log()),
            U::LogPlusOne => |z| cs((z + C64::new(1.0, 0.0)).log()),
            U::Sqrt => |z| cs(z.sqrt()),
            U::Rsqrt => |z| cs(C64::new(1.0, 0.0) / z.sqrt()),
            U::Sine => |z| cs(z.sin()),
            U::Cosine => |z| cs(z.cos()),
            U::Tan => |z| cs(z.tan()),
            U::Tanh => |z| cs(z.tanh()),
            U::Sign => |z| {
                if z.re.is_nan() || z.im.is_nan() {
                    Scalar::Complex(f64::NAN, f64::NAN)
                } else if z.re == 0.0 && z.im == 0.0 {
                    Scalar::Complex(0.0, 0.0)
                } else {
                    let m = z.abs();
                    Scalar::Complex(z.re / m, z.im / m)
                }
            },
            _ => return Err(unsupported(name, elem)),
        };
        return Ok(Box::new(move |s| g(c(s))));
    }
    if elem.is_int() && is_stored(elem) {
        let bits = elem.bit_width();
        // Bit-level ops look at the unsigned two's complement pattern.
        let pattern = move |v: i128| wrap(v, bits, false);
        return Ok(match op {
            U::Abs => Box::new(|s| Scalar::Int(i(s).abs())),
            U::Negate => Box::new(|s| Scalar::Int(-i(s))),
            U::Not => Box::new(|s| Scalar::Int(!i(s))),
            U::Sign => Box::new(|s| Scalar::Int(i(s).signum())),
            U::PopulationCount => Box::new(move |s| Scalar::Int(pattern(i(s)).count_ones() as i128)),
            U::CountLeadingZeros => {
                Box::new(move |s| Scalar::Int(bits as i128 - (128 - pattern(i(s)).leading_zeros()) as i128))
            }
            _ => return Err(unsupported(name, elem)),
        });
    }
    if elem.is_pred() && op == U::Not {
        return Ok(Box::new(|s| Scalar::Bool(!b(s))));
    }
    Err(unsupported(name, elem))
}

/// IEEE-754 `maximum`/`minimum`: NaN if either operand is NaN, and +0 > -0. One definition with the
/// vector kernels' (`fused::compute`), which instantiate it for f32 and f64.
pub(crate) use crate::exec::fused::{fmax64 as float_max, fmin64 as float_min};

/// Integer power by squaring, wrapping to the type at every step. Negative exponents give 0
/// except for bases 1 and -1 (as XLA does).
fn int_pow(base: i128, exp: i128, bits: u32, signed: bool) -> i128 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 => if exp % 2 == 0 { 1 } else { -1 },
            _ => 0,
        };
    }
    let (mut acc, mut b, mut e) = (1i128, wrap(base, bits, signed), exp);
    while e > 0 {
        if e & 1 == 1 {
            acc = wrap(acc.wrapping_mul(b), bits, signed);
        }
        b = wrap(b.wrapping_mul(b), bits, signed);
        e >>= 1;
    }
    acc
}

/// The element type `binary` produces.
pub fn binary_result_elem(op: BinaryOp, elem: ElementType) -> ElementType {
    match (op, elem) {
        (BinaryOp::Complex, ElementType::F32) => ElementType::C64,
        (BinaryOp::Complex, ElementType::F64) => ElementType::C128,
        _ => elem,
    }
}

/// The scalar function of a binary op on operands of type `elem`, or UNIMPLEMENTED.
pub fn binary_fn(op: BinaryOp, elem: ElementType) -> Result<BinaryFn> {
    use BinaryOp as B;
    let name = apu_compiler::ir::OpKind::Binary(op).name();
    if !is_stored(elem) {
        return Err(unsupported(name, elem));
    }
    if elem.is_float() {
        if op == B::Complex && matches!(elem, ElementType::F32 | ElementType::F64) {
            return Ok(Box::new(|x, y| Scalar::Complex(f(x), f(y))));
        }
        let g = float_binary(op).ok_or_else(|| unsupported(name, elem))?;
        return Ok(Box::new(move |x, y| Scalar::Float(g(f(x), f(y)))));
    }
    if elem.is_complex() {
        let g: fn(C64, C64) -> C64 = match op {
            B::Add => |x, y| x + y,
            B::Subtract => |x, y| x - y,
            B::Multiply => |x, y| x * y,
            B::Divide => |x, y| x / y,
            B::Power => C64::powc,
            // Lexicographic on (re, im), as the spec says.
            B::Maximum => |x, y| if (x.re, x.im) >= (y.re, y.im) { x } else { y },
            B::Minimum => |x, y| if (x.re, x.im) <= (y.re, y.im) { x } else { y },
            _ => return Err(unsupported(name, elem)),
        };
        return Ok(Box::new(move |x, y| cs(g(c(x), c(y)))));
    }
    if elem.is_pred() {
        let g: fn(bool, bool) -> bool = match op {
            B::And | B::Multiply | B::Minimum => |x, y| x & y,
            B::Or | B::Add | B::Maximum => |x, y| x | y,
            B::Xor => |x, y| x ^ y,
            _ => return Err(unsupported(name, elem)),
        };
        return Ok(Box::new(move |x, y| Scalar::Bool(g(b(x), b(y)))));
    }
    // Integers: exact in i128, wrapped to the type when the result is stored.
    let bits = elem.bit_width();
    let signed = elem.is_signed_int();
    let int = |g: Box<dyn Fn(i128, i128) -> i128 + Send + Sync>| -> Result<BinaryFn> {
        Ok(Box::new(move |x, y| Scalar::Int(g(i(x), i(y)))))
    };
    match op {
        B::Add => int(Box::new(|x, y| x.wrapping_add(y))),
        B::Subtract => int(Box::new(|x, y| x.wrapping_sub(y))),
        B::Multiply => int(Box::new(|x, y| x.wrapping_mul(y))),
        // x / 0 is all ones (-1); MIN / -1 is MIN (the i128 quotient wraps to it).
        B::Divide => int(Box::new(|x, y| if y == 0 { -1 } else { x / y })),
        // x % 0 is x; MIN % -1 is 0.
        B::Remainder => int(Box::new(|x, y| if y == 0 { x } else { x % y })),
        B::Power => int(Box::new(move |x, y| int_pow(x, y, bits, signed))),
        B::Maximum => int(Box::new(|x, y| x.max(y))),
        B::Minimum => int(Box::new(|x, y| x.min(y))),
        B::And => int(Box::new(|x, y| x & y)),
        B::Or => int(Box::new(|x, y| x | y)),
        B::Xor => int(Box::new(|x, y| x ^ y)),
        // Shift amounts are read as unsigned; amounts >= the bit width shift everything out
        // (arithmetic shifts then fill with the sign), as XLA does.
        B::ShiftLeft => int(Box::new(move |x, y| {
            let n = wrap(y, bits, false);
            if n >= bits as i128 { 0 } else { wrap(x, bits, false) << n }
        })),
        B::ShiftRightLogical => int(Box::new(move |x, y| {
            let n = wrap(y, bits, false);
            if n >= bits as i128 { 0 } else { wrap(x, bits, false) >> n }
        })),
        B::ShiftRightArithmetic => int(Box::new(move |x, y| {
            let n = wrap(y, bits, false);
            let v = wrap(x, bits, true);
            if n >= bits as i128 { if v < 0 { -1 } else { 0 } } else { v >> n }
        })),
        _ => Err(unsupported(name, elem)),
    }
}

/// Total order key of a float widened to f64 (sign-magnitude bits made monotonic).
fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    if bits < 0 {
        bits ^ i64::MAX
    } else {
        bits
    }
}

#[inline(always)]
pub(crate) fn order<T: PartialOrd>(dir: ComparisonDirection, x: T, y: T) -> bool {
    use ComparisonDirection as D;
    match dir {
        D::Eq => x == y,
        D::Ne => x != y,
        D::Ge => x >= y,
        D::Gt => x > y,
        D::Le => x <= y,
        D::Lt => x < y,
    }
}

pub type CompareFn = Box<dyn Fn(Scalar, Scalar) -> bool + Send + Sync>;

/// The scalar predicate of `compare` on `elem`, or UNIMPLEMENTED.
pub fn compare_fn(dir: ComparisonDirection, ty: Option<ComparisonType>, elem: ElementType) -> Result<CompareFn> {
    if !is_stored(elem) {
        return Err(unsupported("compare", elem));
    }
    if elem.is_float() {
        return Ok(match ty {
            Some(ComparisonType::TotalOrder) => {
                Box::new(move |x, y| order(dir, total_order_key(f(x)), total_order_key(f(y))))
            }
            _ => Box::new(move |x, y| order(dir, f(x), f(y))),
        });
    }
    if elem.is_complex() {
        // Lexicographic on (re, im), as the spec says.
        return Ok(Box::new(move |x, y| {
            let (a, b) = (c(x), c(y));
            match dir {
                ComparisonDirection::Eq => a.re == b.re && a.im == b.im,
                ComparisonDirection::Ne => a.re != b.re || a.im != b.im,
                _ if a.re == b.re => order(dir, a.im, b.im),
                _ => order(dir, a.re, b.re),
            }
        }));
    }
    if elem.is_pred() {
        return Ok(Box::new(move |x, y| order(dir, b(x), b(y))));
    }
    let bits = elem.bit_width();
    let signed = match ty {
        Some(ComparisonType::Signed) => true,
        Some(ComparisonType::Unsigned) => false,
        _ => elem.is_signed_int(),
    };
    Ok(Box::new(move |x, y| order(dir, wrap(i(x), bits, signed), wrap(i(y), bits, signed))))
}
