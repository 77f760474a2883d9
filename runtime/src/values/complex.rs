//! A minimal complex number type (the interpreter's and the executor's, as a number library would
//! be). Arithmetic happens in `f64`; `C64` values are widened on read and rounded on write, which
//! is exact for +, -, * and / component-wise rounding.

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
        // tan(z) = -i tanh(i z)
        let t = C64::new(-self.im, self.re).tanh();
        C64::new(t.im, -t.re)
    }
    /// Kahan's formulation ("Branch cuts for complex elementary functions", 1987), which stays finite
    /// where sinh/cosh overflow: with t = tan(y), b = 1 + t², s = sinh(x),
    /// tanh(x + iy) = (b s sqrt(1 + s²) + i t) / (1 + b s²). Past |x| = 20, tanh(x) is ±1 in f64 and
    /// the imaginary part is 4 sin y cos y e^(-2|x|), which keeps its sign and underflows to ±0.
    pub fn tanh(self) -> C64 {
        let (x, y) = (self.re, self.im);
        if x.abs() > 20.0 {
            // C99 Annex G: tanh(±inf + i y) = ±1 ± i0 for any y; a finite x with an infinite or
            // NaN y has no limit (NaN + i NaN).
            return match (y.is_finite(), x.is_infinite()) {
                (true, _) => C64::new(1.0f64.copysign(x), 4.0 * y.sin() * y.cos() * (-2.0 * x.abs()).exp()),
                (false, true) => C64::new(1.0f64.copysign(x), 0.0f64.copysign(y)),
                (false, false) => C64::new(f64::NAN, f64::NAN),
            };
        }
        let t = y.tan();
        let b = 1.0 + t * t;
        let s = x.sinh();
        let rho = (1.0 + s * s).sqrt();
        let d = 1.0 + b * s * s;
        C64::new(b * rho * s / d, t / d)
    }
    /// e^z - 1 without the cancellation of `exp(z) - 1` near zero: the real part is
    /// expm1(x) cos y - 2 sin²(y/2), both terms accurate for small x and y.
    pub fn exp_m1(self) -> C64 {
        let (x, y) = (self.re, self.im);
        let half = (y / 2.0).sin();
        // A real argument keeps an exact zero imaginary part (e^x sin 0 would be inf * 0 for large x).
        let im = if y == 0.0 { y } else { x.exp() * y.sin() };
        C64::new(x.exp_m1() * y.cos() - 2.0 * half * half, im)
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
