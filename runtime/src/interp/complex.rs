//! A minimal complex number for the interpreter. Arithmetic happens in `f64`; `C64` values are
//! widened on read and rounded on write, which is exact for +, -, * and / component-wise rounding.

use std::ops::{Add, Div, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Complex<T> {
    pub re: T,
    pub im: T,
}

pub type C64 = Complex<f64>;

impl<T> Complex<T> {
    pub fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }
}

impl Complex<f32> {
    pub fn widen(self) -> C64 {
        C64::new(self.re as f64, self.im as f64)
    }
}

impl C64 {
    pub fn narrow(self) -> Complex<f32> {
        Complex::new(self.re as f32, self.im as f32)
    }
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    pub fn exp(self) -> C64 {
        let m = self.re.exp();
        C64::new(m * self.im.cos(), m * self.im.sin())
    }
    pub fn log(self) -> C64 {
        C64::new(self.abs().ln(), self.im.atan2(self.re))
    }
    pub fn sqrt(self) -> C64 {
        // Principal root; computed from the polar form, with the branch cut on the negative real axis.
        if self.re == 0.0 && self.im == 0.0 {
            return C64::new(0.0, self.im);
        }
        let r = self.abs();
        let t = ((r + self.re.abs()) / 2.0).sqrt();
        if self.re >= 0.0 {
            C64::new(t, self.im / (2.0 * t))
        } else {
            C64::new(self.im.abs() / (2.0 * t), t.copysign(self.im))
        }
    }
    pub fn sin(self) -> C64 {
        C64::new(self.re.sin() * self.im.cosh(), self.re.cos() * self.im.sinh())
    }
    pub fn cos(self) -> C64 {
        C64::new(self.re.cos() * self.im.cosh(), -(self.re.sin() * self.im.sinh()))
    }
    pub fn tan(self) -> C64 {
        self.sin() / self.cos()
    }
    pub fn tanh(self) -> C64 {
        // tanh(z) = -i tan(i z)
        let iz = C64::new(-self.im, self.re);
        let t = iz.tan();
        C64::new(t.im, -t.re)
    }
    pub fn powc(self, e: C64) -> C64 {
        if self.re == 0.0 && self.im == 0.0 {
            return if e.re == 0.0 && e.im == 0.0 { C64::new(1.0, 0.0) } else { C64::new(0.0, 0.0) };
        }
        (self.log() * e).exp()
    }
}

impl Add for C64 {
    type Output = C64;
    fn add(self, o: C64) -> C64 {
        C64::new(self.re + o.re, self.im + o.im)
    }
}
impl Sub for C64 {
    type Output = C64;
    fn sub(self, o: C64) -> C64 {
        C64::new(self.re - o.re, self.im - o.im)
    }
}
impl Mul for C64 {
    type Output = C64;
    fn mul(self, o: C64) -> C64 {
        C64::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
    }
}
impl Div for C64 {
    type Output = C64;
    fn div(self, o: C64) -> C64 {
        // Smith's algorithm: avoids overflow in the denominator for large components.
        if o.re.abs() >= o.im.abs() {
            let r = o.im / o.re;
            let d = o.re + o.im * r;
            C64::new((self.re + self.im * r) / d, (self.im - self.re * r) / d)
        } else {
            let r = o.re / o.im;
            let d = o.re * r + o.im;
            C64::new((self.re * r + self.im) / d, (self.im * r - self.re) / d)
        }
    }
}
impl Neg for C64 {
    type Output = C64;
    fn neg(self) -> C64 {
        C64::new(-self.re, -self.im)
    }
}
