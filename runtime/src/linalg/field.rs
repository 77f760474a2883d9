//! The scalar arithmetic the linear-algebra custom calls share: f64 for real operands (f32, f64)
//! and complex f64 for complex ones (c64, c128). Real operands computed in complex arithmetic
//! cost four times the multiplies and twice the memory for nothing, so each kernel is written
//! once over `Field` and instantiated for both.

use crate::values::array::{to_f64, Array, Scalar};
use crate::values::complex::C64;
use crate::values::value::Dense;
use apu_compiler::ir::TensorType;
use apu_compiler::Result;
use std::ops::{Add, Div, Mul, Sub};

pub trait Field:
    Copy + Default + PartialEq + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    fn conj(self) -> Self;
    /// |z|², and |z| without overflow for large parts.
    fn abs2(self) -> f64;
    fn abs(self) -> f64;
    fn scale(self, s: f64) -> Self;
    fn real(self) -> f64;
    fn from_real(x: f64) -> Self;
    fn is_finite(self) -> bool;
    fn from_scalar(s: Scalar) -> Self;
    fn widen(self) -> C64;
}

impl Field for f64 {
    fn conj(self) -> f64 {
        self
    }
    fn abs2(self) -> f64 {
        self * self
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn scale(self, s: f64) -> f64 {
        self * s
    }
    fn real(self) -> f64 {
        self
    }
    fn from_real(x: f64) -> f64 {
        x
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn from_scalar(s: Scalar) -> f64 {
        to_f64(s)
    }
    fn widen(self) -> C64 {
        C64::new(self, 0.0)
    }
}

impl Field for C64 {
    fn conj(self) -> C64 {
        C64::new(self.re, -self.im)
    }
    fn abs2(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn scale(self, s: f64) -> C64 {
        C64::new(self.re * s, self.im * s)
    }
    fn real(self) -> f64 {
        self.re
    }
    fn from_real(x: f64) -> C64 {
        C64::new(x, 0.0)
    }
    fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
    fn from_scalar(s: Scalar) -> C64 {
        match s {
            Scalar::Complex(re, im) => C64::new(re, im),
            s => C64::new(to_f64(s), 0.0),
        }
    }
    fn widen(self) -> C64 {
        self
    }
}

/// The elements of `d`, row-major, in the field `T`.
pub fn values<T: Field>(d: &Dense) -> Vec<T> {
    (0..d.data.len()).map(|k| T::from_scalar(d.data.get(k))).collect()
}

/// A dense tensor of type `ty` from field values (rounded once to the element type).
pub fn store_values<T: Field>(ty: &TensorType, v: Vec<T>) -> Result<Dense> {
    let complex = ty.elem.is_complex();
    let scalars = v.into_iter().map(Field::widen).map(|z| if complex { Scalar::Complex(z.re, z.im) } else { Scalar::Float(z.re) });
    Dense::new(ty.clone(), Array::from_scalars(ty.elem, scalars)?)
}
