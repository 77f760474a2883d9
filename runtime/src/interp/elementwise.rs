//! Elementwise ops: each element is widened to a [`Scalar`], computed exactly or in `f64`, and
//! rounded once to the result type. For f16/bf16/f32, `f64` arithmetic followed by one rounding
//! gives the correctly rounded IEEE result for +, -, *, / and sqrt (f64 has more than 2p+2 bits).
//! Transcendentals are computed in `f64`, so f32 results may differ from XLA's in the last ulp.
//!
//! The `*_fn` lookups double as the support table: [`super::support`] asks them at compile time.

use super::array::{wrap, Array, Scalar};
use super::complex::C64;
use super::value::Dense;
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, TensorType, UnaryOp};
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

/// The f64 function of a unary op on floats (`None` for ops floats do not have, and for
/// `is_finite`, whose result is not a float).
/// The f64 function of a unary op on floats with a float result.
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
    if elem.is_float() && super::array::is_stored(elem) {
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
    if elem.is_int() && super::array::is_stored(elem) {
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

/// IEEE-754 `maximum`/`minimum`: NaN if either operand is NaN, and +0 > -0.
pub(crate) fn float_max(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        if x.is_sign_negative() { y } else { x }
    } else if x > y {
        x
    } else {
        y
    }
}
pub(crate) fn float_min(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        if x.is_sign_negative() { x } else { y }
    } else if x < y {
        x
    } else {
        y
    }
}

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
    if !super::array::is_stored(elem) {
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
    if !super::array::is_stored(elem) {
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

fn check_same_shape(what: &str, a: &Dense, b: &Dense) -> Result<()> {
    if a.ty != b.ty {
        return Err(Error::invalid(format!("{what}: operand types differ: {} vs {}", a.ty, b.ty)));
    }
    Ok(())
}

pub fn unary(op: UnaryOp, x: &Dense) -> Result<Dense> {
    // Fast path for f32/f64: the same f64 function, without widening to `Scalar`.
    // (8-bit floats also live in `F32` arrays, but need rounding: they take the general path.)
    match (if matches!(x.elem(), ElementType::F32 | ElementType::F64) { Some(&x.data) } else { None }, float_unary(op)) {
        (Some(Array::F32(v)), Some(g)) => return Dense::new(x.ty.clone(), Array::F32(v.iter().map(|&a| g(a as f64) as f32).collect())),
        (Some(Array::F64(v)), Some(g)) => return Dense::new(x.ty.clone(), Array::F64(v.iter().map(|&a| g(a)).collect())),
        _ => {}
    }
    let g = unary_fn(op, x.elem())?;
    let out_elem = unary_result_elem(op, x.elem());
    let data = Array::from_scalars(out_elem, (0..x.data.len()).map(|k| g(x.data.get(k))))?;
    Dense::new(TensorType::new(x.ty.shape.clone(), out_elem), data)
}

pub fn binary(op: BinaryOp, x: &Dense, y: &Dense) -> Result<Dense> {
    check_same_shape(apu_compiler::ir::OpKind::Binary(op).name(), x, y)?;
    let plain = matches!(x.elem(), ElementType::F32 | ElementType::F64);
    match (&x.data, &y.data, float_binary(op).filter(|_| plain)) {
        (Array::F32(a), Array::F32(b), Some(g)) => {
            let v = a.iter().zip(b).map(|(&p, &q)| g(p as f64, q as f64) as f32).collect();
            return Dense::new(x.ty.clone(), Array::F32(v));
        }
        (Array::F64(a), Array::F64(b), Some(g)) => {
            return Dense::new(x.ty.clone(), Array::F64(a.iter().zip(b).map(|(&p, &q)| g(p, q)).collect()));
        }
        _ => {}
    }
    let g = binary_fn(op, x.elem())?;
    let out_elem = binary_result_elem(op, x.elem());
    let data = Array::from_scalars(out_elem, (0..x.data.len()).map(|k| g(x.data.get(k), y.data.get(k))))?;
    Dense::new(TensorType::new(x.ty.shape.clone(), out_elem), data)
}

pub fn compare(dir: ComparisonDirection, ty: Option<ComparisonType>, x: &Dense, y: &Dense) -> Result<Dense> {
    check_same_shape("compare", x, y)?;
    let g = compare_fn(dir, ty, x.elem())?;
    let data = Array::Pred((0..x.data.len()).map(|k| g(x.data.get(k), y.data.get(k))).collect());
    Dense::new(TensorType::new(x.ty.shape.clone(), ElementType::Pred), data)
}

/// Index into an operand that is either full-size or a scalar broadcast to the result.
fn at(d: &Dense, k: usize) -> usize {
    if d.ty.rank() == 0 {
        0
    } else {
        k
    }
}

pub fn select(pred: &Dense, on_true: &Dense, on_false: &Dense) -> Result<Dense> {
    check_same_shape("select", on_true, on_false)?;
    let Array::Pred(p) = &pred.data else {
        return Err(Error::invalid(format!("select: predicate must be i1, got {}", pred.ty)));
    };
    if pred.ty.rank() != 0 && pred.ty.shape != on_true.ty.shape {
        return Err(Error::invalid(format!("select: predicate {} does not match {}", pred.ty, on_true.ty)));
    }
    let n = on_true.data.len();
    let pairs: Vec<(usize, usize)> = (0..n).filter(|&k| !p[at(pred, k)]).map(|k| (k, k)).collect();
    let mut out = on_true.data.clone();
    out.assign(&on_false.data, &pairs)?;
    Dense::new(on_true.ty.clone(), out)
}

/// `clamp(min, x, max) = min(max(x, min), max)` with the NaN rules of `maximum`/`minimum`.
pub fn clamp(lo: &Dense, x: &Dense, hi: &Dense) -> Result<Dense> {
    for (what, d) in [("min", lo), ("max", hi)] {
        if d.ty.elem != x.ty.elem || (d.ty.rank() != 0 && d.ty.shape != x.ty.shape) {
            return Err(Error::invalid(format!("clamp: {what} {} does not fit operand {}", d.ty, x.ty)));
        }
    }
    let max = binary_fn(BinaryOp::Maximum, x.elem())?;
    let min = binary_fn(BinaryOp::Minimum, x.elem())?;
    let data = Array::from_scalars(
        x.elem(),
        (0..x.data.len()).map(|k| min(max(x.data.get(k), lo.data.get(at(lo, k))), hi.data.get(at(hi, k)))),
    )?;
    Dense::new(x.ty.clone(), data)
}
