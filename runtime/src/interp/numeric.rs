//! Widened numeric vectors for contractions (dot_general, convolution): operands are read in the
//! domain of the result type (f64, i128 or complex f64), accumulated exactly there, and rounded
//! once when stored. Float accumulation is thus more precise than XLA's f32 accumulation.

use super::array::{to_f64, Array, Scalar};
use super::complex::C64;
use apu_compiler::ir::ElementType;
use apu_compiler::{Error, Result};

pub enum Wide {
    F(Vec<f64>),
    I(Vec<i128>),
    C(Vec<C64>),
}

/// Whether contractions can produce `elem`.
/// Every stored type contracts. Predicates use the boolean semiring (AND products, OR sums), as XLA
/// does: the products are counted as integers and a nonzero count stores as true.
pub fn contraction_supported(elem: ElementType) -> bool {
    super::array::is_stored(elem)
}

pub fn widen(a: &Array, result: ElementType) -> Result<Wide> {
    let n = a.len();
    Ok(if result.is_complex() {
        Wide::C((0..n).map(|k| match a.get(k) {
            Scalar::Complex(re, im) => C64::new(re, im),
            s => C64::new(to_f64(s), 0.0),
        }).collect())
    } else if result.is_float() {
        Wide::F((0..n).map(|k| to_f64(a.get(k))).collect())
    } else if result.is_int() || result.is_pred() {
        Wide::I((0..n).map(|k| match a.get(k) {
            Scalar::Int(v) => v,
            Scalar::Bool(b) => b as i128,
            s => super::array::to_int(s, 64, true),
        }).collect())
    } else {
        return Err(Error::unimplemented(format!("contraction producing {result}")));
    })
}

/// Multiply-accumulate in each of the three domains. Integers wrap in i128, which is congruent
/// to wrapping in the (narrower) result type.
pub trait Acc: Copy {
    fn zero() -> Self;
    fn mac(self, a: Self, b: Self) -> Self;
    fn scalar(self) -> Scalar;
}
impl Acc for f64 {
    fn zero() -> Self {
        0.0
    }
    fn mac(self, a: Self, b: Self) -> Self {
        self + a * b
    }
    fn scalar(self) -> Scalar {
        Scalar::Float(self)
    }
}
impl Acc for i128 {
    fn zero() -> Self {
        0
    }
    fn mac(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
    fn scalar(self) -> Scalar {
        Scalar::Int(self)
    }
}
impl Acc for C64 {
    fn zero() -> Self {
        C64::new(0.0, 0.0)
    }
    fn mac(self, a: Self, b: Self) -> Self {
        self + a * b
    }
    fn scalar(self) -> Scalar {
        Scalar::Complex(self.re, self.im)
    }
}
