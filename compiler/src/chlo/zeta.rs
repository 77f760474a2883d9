//! `zeta(s, q)` (the Hurwitz zeta function, Σ_k (q + k)^-s) and `polygamma(n, x)` built on it.
//!
//! zeta: Euler–Maclaurin summation. The first `DIRECT_TERMS` terms are summed directly; the tail from
//! a = q + DIRECT_TERMS is the integral a^(1-s)/(s-1), half the first tail term, and the Bernoulli
//! corrections Σ_j B_2j/(2j)! · s(s+1)…(s+2j-2) · a^(-s-2j+1). With a ≥ 9 the corrections fall fast
//! for the orders polygamma needs, so the sum is accurate to a few ulps in f32 and f64.
//! Domain, as XLA defines it: s = 1 → +inf; s < 1 → NaN; q ≤ 0 → +inf at integers, NaN when s is not
//! an integer.
//!
//! polygamma(n, x) = (-1)^(n+1) · n! · zeta(n + 1, x) for integer n ≥ 1, digamma(x) for n = 0, NaN
//! for other n.

use super::{gamma, Builder};
use crate::ir::*;
use crate::Result;

/// Terms of the series summed directly before the Euler–Maclaurin tail.
const DIRECT_TERMS: usize = 9;

/// B_2j for j = 1..=12, as exact fractions (numerator, denominator).
const BERNOULLI: [(f64, f64); 12] = [
    (1.0, 6.0),
    (-1.0, 30.0),
    (1.0, 42.0),
    (-1.0, 30.0),
    (5.0, 66.0),
    (-691.0, 2730.0),
    (7.0, 6.0),
    (-3617.0, 510.0),
    (43867.0, 798.0),
    (-174611.0, 330.0),
    (854513.0, 138.0),
    (-236364091.0, 2730.0),
];

fn pred_of(ty: &TensorType) -> TensorType {
    TensorType::new(ty.shape.clone(), ElementType::Pred)
}

/// x == floor(x).
fn is_integer(b: &mut Builder, x: ValueId, ty: &TensorType) -> ValueId {
    let f = b.un(UnaryOp::Floor, x);
    b.compare(ComparisonDirection::Eq, x, f, &pred_of(ty))
}

/// The Hurwitz zeta function ζ(s, q), elementwise in float type `ty`.
pub(super) fn zeta(b: &mut Builder, s: ValueId, q: ValueId, ty: &TensorType) -> Result<ValueId> {
    let neg_s = b.un(UnaryOp::Negate, s);
    let mut sum = b.splat(0.0, ty)?;
    for k in 0..DIRECT_TERMS {
        let shift = b.splat(k as f64, ty)?;
        let base = b.bin(BinaryOp::Add, q, shift);
        let term = b.bin(BinaryOp::Power, base, neg_s);
        sum = b.bin(BinaryOp::Add, sum, term);
    }
    // Tail from a = q + DIRECT_TERMS.
    let n = b.splat(DIRECT_TERMS as f64, ty)?;
    let a = b.bin(BinaryOp::Add, q, n);
    let a_pow = b.bin(BinaryOp::Power, a, neg_s); // a^-s
    let one = b.splat(1.0, ty)?;
    let s_minus_one = b.bin(BinaryOp::Subtract, s, one);
    let a_times = b.bin(BinaryOp::Multiply, a, a_pow);
    let integral = b.bin(BinaryOp::Divide, a_times, s_minus_one); // a^(1-s)/(s-1)
    sum = b.bin(BinaryOp::Add, sum, integral);
    let half = b.splat(0.5, ty)?;
    let first = b.bin(BinaryOp::Multiply, a_pow, half);
    sum = b.bin(BinaryOp::Add, sum, first);

    let a2 = b.bin(BinaryOp::Multiply, a, a);
    let mut rising = s; // s(s+1)…(s+2j-2)
    let mut power = b.bin(BinaryOp::Divide, a_pow, a); // a^(-s-2j+1)
    let mut factorial = 2.0f64; // (2j)!
    for (j, &(num, den)) in BERNOULLI.iter().enumerate() {
        let j = j as f64 + 1.0;
        let c = b.splat(num / den / factorial, ty)?;
        let t = b.bin(BinaryOp::Multiply, rising, power);
        let t = b.bin(BinaryOp::Multiply, c, t);
        sum = b.bin(BinaryOp::Add, sum, t);
        // Next j: two more factors of the rising product, a² more in the power, (2j+1)(2j+2) in the factorial.
        let k1 = b.splat(2.0 * j - 1.0, ty)?;
        let f1 = b.bin(BinaryOp::Add, s, k1);
        let k2 = b.splat(2.0 * j, ty)?;
        let f2 = b.bin(BinaryOp::Add, s, k2);
        let r = b.bin(BinaryOp::Multiply, rising, f1);
        rising = b.bin(BinaryOp::Multiply, r, f2);
        power = b.bin(BinaryOp::Divide, power, a2);
        factorial *= (2.0 * j + 1.0) * (2.0 * j + 2.0);
    }

    // Domain.
    let pred = pred_of(ty);
    let inf = b.splat(f64::INFINITY, ty)?;
    let nan = b.splat(f64::NAN, ty)?;
    let zero = b.splat(0.0, ty)?;
    let q_nonpositive = b.compare(ComparisonDirection::Le, q, zero, &pred);
    let q_int = is_integer(b, q, ty);
    let pole = b.bin(BinaryOp::And, q_nonpositive, q_int);
    let r = b.select(pole, inf, sum);
    let s_int = is_integer(b, s, ty);
    let s_fractional = b.un(UnaryOp::Not, s_int);
    let domain_error = b.bin(BinaryOp::And, q_nonpositive, s_fractional);
    let r = b.select(domain_error, nan, r);
    let s_below_one = b.compare(ComparisonDirection::Lt, s, one, &pred);
    let r = b.select(s_below_one, nan, r);
    let s_one = b.compare(ComparisonDirection::Eq, s, one, &pred);
    Ok(b.select(s_one, inf, r))
}

/// polygamma(n, x), elementwise in float type `ty`.
pub(super) fn polygamma(b: &mut Builder, n: ValueId, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let one = b.splat(1.0, ty)?;
    let n1 = b.bin(BinaryOp::Add, n, one);
    let z = zeta(b, n1, x, ty)?;
    let lg = gamma::lgamma(b, n1, ty)?;
    let factorial = b.un(UnaryOp::Exponential, lg);
    // (-1)^(n+1): +1 for odd n, -1 for even n.
    let two = b.splat(2.0, ty)?;
    let parity = b.bin(BinaryOp::Remainder, n, two);
    let zero = b.splat(0.0, ty)?;
    let pred = pred_of(ty);
    let even = b.compare(ComparisonDirection::Eq, parity, zero, &pred);
    let minus_one = b.splat(-1.0, ty)?;
    let sign = b.select(even, minus_one, one);
    let scaled = b.bin(BinaryOp::Multiply, factorial, z);
    let general = b.bin(BinaryOp::Multiply, sign, scaled);
    let dg = gamma::digamma(b, x, ty)?;
    let n_zero = b.compare(ComparisonDirection::Eq, n, zero, &pred);
    let r = b.select(n_zero, dg, general);
    let n_int = is_integer(b, n, ty);
    let n_fractional = b.un(UnaryOp::Not, n_int);
    let n_negative = b.compare(ComparisonDirection::Lt, n, zero, &pred);
    let invalid = b.bin(BinaryOp::Or, n_fractional, n_negative);
    let nan = b.splat(f64::NAN, ty)?;
    Ok(b.select(invalid, nan, r))
}
