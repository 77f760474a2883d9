//! Vectorisable exp/tanh/logistic/log/log1p for f32 kernels in f32 arithmetic (16 lanes with AVX-512), a few
//! ulp from the correctly rounded results the interpreter computes through f64. f64 kernels use the
//! standard library.
//!
//! Each function is written once over [`Lanes`]: on `f32` for loops the compiler vectorises, and on
//! [`x16::F32x16`] (AVX-512 registers) for loops that apply more ops to the function's result in
//! the same register (see `fused`'s epilogues). Both evaluate the same operations in the same
//! order, so they give the same bits.

/// The f32 arithmetic the functions are written in: one value, or one per lane of a register.
pub trait Lanes: Copy {
    fn splat(x: f32) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn neg(self) -> Self;
    /// `self * b + c` rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    /// As `f32::clamp`: NaN and -0.0 pass through.
    fn clamp(self, lo: f32, hi: f32) -> Self;
    /// `2^n` for `t = n + ROUNDER_F` (n held in the low mantissa bits, as `exp_core` leaves it).
    fn pow2_of_rounded(t: Self) -> Self;
}

impl Lanes for f32 {
    #[inline(always)]
    fn splat(x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn add(self, o: f32) -> f32 {
        self + o
    }
    #[inline(always)]
    fn sub(self, o: f32) -> f32 {
        self - o
    }
    #[inline(always)]
    fn mul(self, o: f32) -> f32 {
        self * o
    }
    #[inline(always)]
    fn div(self, o: f32) -> f32 {
        self / o
    }
    #[inline(always)]
    fn neg(self) -> f32 {
        -self
    }
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> f32 {
        f32::clamp(self, lo, hi)
    }
    #[inline(always)]
    fn pow2_of_rounded(t: f32) -> f32 {
        f32::from_bits(t.to_bits().wrapping_add(127) << 23)
    }
}

/// How a polynomial step `a * b + c` is computed: one fused multiply-add where the kernel is built
/// for a CPU with FMA (half the operations, and one rounding instead of two), else a multiply and
/// an add (a software fused multiply-add would be far slower).
pub trait Madd {
    /// Whether `madd` rounds once (lets a function pick the evaluation that loses least).
    const FUSED: bool;
    fn madd<V: Lanes>(a: V, b: V, c: V) -> V;
}

/// For kernels compiled with the `fma` target feature.
pub struct Fused;
/// For kernels compiled without it.
pub struct Separate;

impl Madd for Fused {
    const FUSED: bool = true;
    #[inline(always)]
    fn madd<V: Lanes>(a: V, b: V, c: V) -> V {
        a.fma(b, c)
    }
}

impl Madd for Separate {
    const FUSED: bool = false;
    #[inline(always)]
    fn madd<V: Lanes>(a: V, b: V, c: V) -> V {
        a.mul(b).add(c)
    }
}

const LOG2E_F: f32 = std::f32::consts::LOG2_E;
/// ln 2 split so that `n * LN2_HI_F` is exact for the n that occur.
const LN2_HI_F: f32 = 355.0 / 512.0;
const LN2_LO_F: f32 = -2.121_944_5e-4;
/// 1.5 * 2^23: adding it rounds an f32 to an integer held in the low mantissa bits.
const ROUNDER_F: f32 = 12_582_912.0;

/// e^x in f32 arithmetic for x in [-87, 88.7] (so that 2^n is a normal number).
#[inline(always)]
fn exp_core_f32<M: Madd>(x: f32) -> f32 {
    exp_core::<f32, M>(x)
}

/// [`exp_core_f32`] on any [`Lanes`].
#[inline(always)]
pub fn exp_core<V: Lanes, M: Madd>(x: V) -> V {
    let k = V::splat;
    let t = M::madd(x, k(LOG2E_F), k(ROUNDER_F));
    let n = t.sub(k(ROUNDER_F));
    let r = M::madd(n, k(-LN2_LO_F), M::madd(n, k(-LN2_HI_F), x));
    // Taylor series to degree 7 on |r| <= ln2/2: truncation error about 0.1 ulp.
    let mut p = k(1.0 / 5040.0);
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = M::madd(p, r, k(c));
    }
    p.mul(V::pow2_of_rounded(t))
}

/// 1 / (1 + e^-x) for x in [-88, 86], where e^-x needs only [`exp_core`].
#[inline(always)]
pub fn logistic_core<V: Lanes, M: Madd>(x: V) -> V {
    V::splat(1.0).div(V::splat(1.0).add(exp_core::<V, M>(x.neg())))
}

/// e^x in f32 arithmetic, within a few ulp of the correctly rounded result (subnormal results
/// may differ by more ulps, being tiny in absolute terms).
#[inline(always)]
pub fn exp_f32<M: Madd>(x: f32) -> f32 {
    // Arguments outside the core's range are shifted into it and the result scaled back, so that
    // one polynomial evaluation serves every lane.
    let c = x.clamp(-104.0, 89.0);
    let (shift, factor) = if c > 88.0 {
        (-1.0, std::f32::consts::E)
    } else if c < -86.0 {
        (20.0, 2.061_153_6e-9)
    } else {
        (0.0, 1.0)
    };
    let y = exp_core_f32::<M>(c + shift) * factor;
    let y = if x > 88.722_84 { f32::INFINITY } else if x < -104.0 { 0.0 } else { y };
    if x.is_nan() { x } else { y }
}

/// e^x over a slice. Arguments in [-86, 88] (nearly all, in practice) need only the core
/// polynomial, where [`exp_f32`] gives the same result with about twice the operations; a slice
/// with any other value takes the general function.
#[inline(always)]
pub fn exp_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    exp_map_slice_f32::<M>(a, o, |x| x)
}

/// `o = e^pre(a)`: the argument computed in the same loop.
#[inline(always)]
pub fn exp_map_slice_f32<M: Madd>(a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) {
    core_else_general(a, o, pre, (-86.0, 88.0), EXP_SATURATES, exp_core_f32::<M>, #[inline(always)] |x| exp_f32::<M>(x));
}

/// Where a function's result is a constant: below `low.0` it is `low.1`, above `high.0` it is
/// `high.1` (bit for bit what the general function gives there). A softmax under a causal mask
/// takes e^x of about -2.4e38 (flax's mask value) for half its elements: those lanes need no
/// general evaluation.
#[derive(Clone, Copy)]
pub struct Saturates {
    pub low: (f32, f32),
    pub high: (f32, f32),
}

/// e^x is 0 below -104 and infinite above 88.72284 (`exp_f32`).
pub const EXP_SATURATES: Saturates = Saturates { low: (-104.0, 0.0), high: (88.722_84, f32::INFINITY) };
/// 1 / (1 + e^-x) is 0 where e^-x is infinite and 1 where it is 0.
pub const LOGISTIC_SATURATES: Saturates = Saturates { low: (-88.722_84, 0.0), high: (104.0, 1.0) };

/// `o = core(pre(a))` where `pre(a)` is in `[lo, hi]` (where `core` gives `general`'s results)
/// and the saturated constant where it is beyond `sat`'s bounds, checked in the same vectorised
/// loop; if any other value (or NaN) occurs, `o = general(pre(a))` over again (rare).
#[inline(always)]
fn core_else_general(a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy, (lo, hi): (f32, f32), sat: Saturates, core: impl Fn(f32) -> f32, general: impl Fn(f32) -> f32) {
    // First the plain loop (nearly every slice: a softmax's arguments are at most 0): the
    // saturation's clamp and selects cost a third more per element, so they come only after it.
    let mut within = true;
    for (o, &x) in o.iter_mut().zip(a) {
        let y = pre(x);
        within &= (y >= lo) & (y <= hi);
        *o = core(y);
    }
    if within {
        return;
    }
    let mut covered = true;
    for (o, &x) in o.iter_mut().zip(a) {
        let y = pre(x);
        let (below, above) = (y < sat.low.0, y > sat.high.0);
        covered &= ((y >= lo) & (y <= hi)) | below | above;
        let v = core(y.clamp(lo, hi));
        *o = if below { sat.low.1 } else if above { sat.high.1 } else { v };
    }
    if !covered {
        for (o, &x) in o.iter_mut().zip(a) {
            *o = general(pre(x));
        }
    }
}

/// The logistic function over a slice, with the core exponential when every `-x` is in its range.
#[inline(always)]
pub fn logistic_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    logistic_map_slice_f32::<M>(a, o, |x| x)
}

/// `o = logistic(pre(a))`, as [`exp_map_slice_f32`].
#[inline(always)]
pub fn logistic_map_slice_f32<M: Madd>(a: &[f32], o: &mut [f32], pre: impl Fn(f32) -> f32 + Copy) {
    core_else_general(a, o, pre, (-88.0, 86.0), LOGISTIC_SATURATES, logistic_core::<f32, M>, #[inline(always)] |x| logistic_f32::<M>(x));
}

/// Beyond this |x|, tanh(x) is +-1 to f32 precision: tanh(9) is within an ulp of 1, and 1 is the
/// correctly rounded result from 9.011 on.
const TANH_CLAMP: f32 = 9.0;
/// T(x) = x P(x^2) / Q(x^2) approximates tanh(x/2) on |x| <= 9, with P(0) = 1 and Q(0) = 2 exactly.
/// Our own fit (`scripts/fit_tanh_rational.py`): a weighted minimax of the relative error of T in
/// float64, weighted by (1 - T^2) / (1 + T^2), which is how much an error of T moves
/// 2T / (1 + T^2); the weighted error is 1e-8 (0.16 * 2^-24) with these f32 coefficients.
const TANH_P1: f32 = 0.029_778_372;
const TANH_P2: f32 = 0.000_114_353_395;
const TANH_Q1: f32 = 0.226_223_35;
const TANH_Q2: f32 = 0.002_414_057_3;
const TANH_Q3: f32 = 2.462_235_4e-6;

/// tanh in f32 arithmetic: at most 4 ulp from the correctly rounded result with either `Madd`
/// (measured over every f32 with |x| <= 10: worst 4 ulp for both, at 186 arguments with `Fused`
/// and 396 with `Separate`, over 99 % within 1 ulp), exact for |x| < 2^-12 (so tiny and
/// subnormal arguments and -0.0 come back unchanged), NaN stays NaN, +-inf gives +-1.
///
/// A rational function of x^2 for T = tanh(x/2) and then tanh(x) = 2T / (1 + T^2), as one
/// division: with T = A / Q, tanh(x) = 2AQ / (Q^2 + A^2). Two reasons for the half-argument form:
/// T needs only low degrees (2 and 3 in x^2), and errors of A and Q (shared by numerator and
/// denominator) cancel more and more as tanh approaches 1, where a direct x P / Q approximation
/// accumulates 5-6 ulp from its longer polynomials. About 13 vector operations and one division.
#[inline(always)]
pub fn tanh_f32<M: Madd>(x: f32) -> f32 {
    tanh::<f32, M>(x)
}

/// [`tanh_f32`] on any [`Lanes`].
#[inline(always)]
pub fn tanh<V: Lanes, M: Madd>(x: V) -> V {
    let k = V::splat;
    // clamp keeps NaN (and -0.0), and then every operation propagates it.
    let x = x.clamp(-TANH_CLAMP, TANH_CLAMP);
    let s = x.mul(x);
    // A = x P(s) written as x + (x s)(P1 + P2 s): one rounding near zero, and exactly x when x s
    // vanishes against x.
    let a = M::madd(x.mul(s), M::madd(k(TANH_P2), s, k(TANH_P1)), x);
    let q_rest = M::madd(M::madd(k(TANH_Q3), s, k(TANH_Q2)), s, k(TANH_Q1));
    let q = M::madd(q_rest, s, k(2.0));
    let den = if M::FUSED {
        M::madd(q, q, a.mul(a))
    } else {
        // Q^2 as 4 + v (v + 4) from v = Q - 2 before Q is rounded: without a fused multiply-add,
        // squaring the rounded Q would add the rounding of a number near 4, which cost an ulp
        // (5 in the worst case) for small x.
        let v = q_rest.mul(s);
        v.add(k(4.0)).mul(v).add(a.mul(a)).add(k(4.0))
    };
    a.add(a).mul(q).div(den)
}

/// 1 / (1 + e^-x) in f32 arithmetic.
#[inline(always)]
pub fn logistic_f32<M: Madd>(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32::<M>(-x))
}

/// The bits of sqrt(1/2) (rounded down): [`log_core_f32`] scales its argument into
/// [sqrt(1/2), sqrt(2)), where log(m) is smallest and the series below converges fastest.
const SQRT_HALF_BITS: i32 = 0x3f35_04f3;

/// ln(u) in f32 arithmetic for a positive normal finite `u`, within ~2 ulp of the correctly
/// rounded result. u = 2^e m with m in [sqrt(1/2), sqrt(2)) (integer operations on the bits, which
/// vectorise), then ln(m) = 2 atanh(s) with s = f / (2 + f), f = m - 1 exact: |s| <= 0.1716, so the
/// odd series 2s (1 + s^2/3 + ... + s^8/9) is within 2e-9 of it, relative. e ln 2 is added with
/// ln 2 split so that e times its high part is exact, and for e = 0 the result is ln(m) alone,
/// relatively accurate near u = 1.
#[inline(always)]
fn log_core_f32<M: Madd>(u: f32) -> f32 {
    let bits = u.to_bits() as i32;
    let e = bits.wrapping_sub(SQRT_HALF_BITS) >> 23;
    let m = f32::from_bits(bits.wrapping_sub(e << 23) as u32);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let mut p = 1.0 / 9.0;
    for c in [1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0, 1.0] {
        p = M::madd::<f32>(p, z, c);
    }
    let ef = e as f32;
    M::madd::<f32>(ef, LN2_HI_F, M::madd::<f32>(ef, LN2_LO_F, (s + s) * p))
}

/// Never saturates: every argument outside a log's core range takes the general function.
const NO_SATURATION: Saturates = Saturates { low: (f32::NEG_INFINITY, 0.0), high: (f32::INFINITY, 0.0) };

/// ln(x) over a slice: positive normal finite arguments (nearly all, in practice) take
/// [`log_core_f32`]; a slice with any other value (0, negative, subnormal, infinite, NaN) takes the
/// f64 library function over again, as the one-element evaluator computes it.
#[inline(always)]
pub fn log_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    // The core as an `inline(always)` closure: passed as a function item, its `Fn::call` shim was
    // compiled on its own (without the kernel's target features, one element per call).
    core_else_general(a, o, |x| x, (f32::MIN_POSITIVE, f32::MAX), NO_SATURATION, #[inline(always)] |x| log_core_f32::<M>(x), |x| (x as f64).ln() as f32);
}

/// ln(1 + x) in f32 arithmetic for x in [-1 + 2^-24, f32::MAX], within ~3 ulp of the correctly
/// rounded result: u = 1 + x rounded, ln(u) by [`log_core_f32`], plus the first-order correction
/// (x - (u - 1)) / u for the rounding of u (u - 1 and that difference are exact), so that small x
/// keep their relative accuracy (x itself when u rounds to 1).
#[inline(always)]
fn log1p_core_f32<M: Madd>(x: f32) -> f32 {
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let y = log_core_f32::<M>(u) + c;
    // Where u rounds to 1, y is x already, but +0 for x = -0.0.
    if u == 1.0 { x } else { y }
}

/// ln(1 + x) over a slice, as [`log_slice_f32`]; arguments at or below -1, infinite or NaN take the
/// f64 library function.
#[inline(always)]
pub fn log1p_slice_f32<M: Madd>(a: &[f32], o: &mut [f32]) {
    core_else_general(a, o, |x| x, (-0.999_999_94, f32::MAX), NO_SATURATION, #[inline(always)] |x| log1p_core_f32::<M>(x), |x| (x as f64).ln_1p() as f32);
}

/// The functions over AVX-512 registers, with ops on their results in the same loop.
#[cfg(target_arch = "x86_64")]
pub mod x16 {
    use super::{exp_core, exp_f32, logistic_core, logistic_f32, tanh, Fused, Lanes, Saturates, EXP_SATURATES, LOGISTIC_SATURATES};
    use apu_compiler::ir::UnaryOp as U;
    use std::arch::x86_64::*;

    /// Sixteen f32 lanes. Only code compiled for AVX-512 (the `avx512` kernels of `fused`) may
    /// make one: every method is an AVX-512 instruction.
    #[derive(Clone, Copy)]
    pub struct F32x16(__m512);

    impl Lanes for F32x16 {
        #[inline(always)]
        fn splat(x: f32) -> F32x16 {
            // SAFETY (here and below): values of this type exist only on CPUs with AVX-512.
            F32x16(unsafe { _mm512_set1_ps(x) })
        }
        #[inline(always)]
        fn add(self, o: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_add_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn sub(self, o: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_sub_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn mul(self, o: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_mul_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn div(self, o: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_div_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn neg(self) -> F32x16 {
            F32x16(unsafe { _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(self.0), _mm512_set1_epi32(i32::MIN))) })
        }
        #[inline(always)]
        fn fma(self, b: F32x16, c: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
        }
        #[inline(always)]
        fn clamp(self, lo: f32, hi: f32) -> F32x16 {
            // max(a, b) is `a > b ? a : b` and min(a, b) `a < b ? a : b`: with the bound first, a
            // NaN or a zero of either sign in `self` is what comes back, as with f32::clamp.
            F32x16(unsafe { _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), self.0)) })
        }
        #[inline(always)]
        fn pow2_of_rounded(t: F32x16) -> F32x16 {
            F32x16(unsafe { _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_add_epi32(_mm512_castps_si512(t.0), _mm512_set1_epi32(127)))) })
        }
    }

    impl F32x16 {
        /// Lanes of `mask` from `p` (the others 0.0).
        ///
        /// # Safety
        /// The masked lanes of `p` must be readable.
        #[inline(always)]
        unsafe fn load(p: *const f32, mask: u16) -> F32x16 {
            F32x16(_mm512_maskz_loadu_ps(mask, p))
        }
        /// # Safety
        /// The masked lanes of `p` must be writable.
        #[inline(always)]
        unsafe fn store(self, p: *mut f32, mask: u16) {
            _mm512_mask_storeu_ps(p, mask, self.0)
        }
        /// The lanes of `mask` where `lo <= self <= hi` (not NaN).
        #[inline(always)]
        fn within(self, lo: f32, hi: f32, mask: u16) -> u16 {
            unsafe { _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_mask_cmp_ps_mask::<_CMP_GE_OQ>(mask, self.0, _mm512_set1_ps(lo)), self.0, _mm512_set1_ps(hi)) }
        }
        /// The lanes of `mask` below `t`.
        #[inline(always)]
        fn less_than(self, t: f32, mask: u16) -> u16 {
            unsafe { _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(mask, self.0, _mm512_set1_ps(t)) }
        }
        /// The lanes of `mask` above `t`.
        #[inline(always)]
        fn greater_than(self, t: f32, mask: u16) -> u16 {
            unsafe { _mm512_mask_cmp_ps_mask::<_CMP_GT_OQ>(mask, self.0, _mm512_set1_ps(t)) }
        }
        /// `v` in the lanes of `mask`, this register's values in the others.
        #[inline(always)]
        fn blend(self, mask: u16, v: f32) -> F32x16 {
            F32x16(unsafe { _mm512_mask_blend_ps(mask, self.0, _mm512_set1_ps(v)) })
        }
        /// `f` on every lane, one at a time.
        #[inline(always)]
        fn per_lane(self, f: impl Fn(f32) -> f32) -> F32x16 {
            let mut v = [0.0f32; 16];
            unsafe { _mm512_storeu_ps(v.as_mut_ptr(), self.0) };
            for x in &mut v {
                *x = f(*x);
            }
            F32x16(unsafe { _mm512_loadu_ps(v.as_ptr()) })
        }
    }

    /// An op applied to a function's result in the function's loop.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PostOp {
        Add,
        Multiply,
        Subtract,
    }

    /// The op's other operand: a scalar, or a slice read at the lane's index.
    #[derive(Clone, Copy, Debug)]
    pub enum PostOperand<'a> {
        Scalar(f32),
        Vector(&'a [f32]),
    }

    /// One op after the function, its operands in the order the instruction it stands for takes
    /// them (`result_left`: the running result is the left one).
    #[derive(Clone, Copy, Debug)]
    pub struct Post<'a> {
        pub op: PostOp,
        pub result_left: bool,
        pub operand: PostOperand<'a>,
    }

    #[inline(always)]
    fn apply(op: PostOp, l: F32x16, r: F32x16) -> F32x16 {
        match op {
            PostOp::Add => l.add(r),
            PostOp::Multiply => l.mul(r),
            PostOp::Subtract => l.sub(r),
        }
    }

    /// `o[i] = posts(f(pre(a[i])))` for `f` one of exp, tanh and logistic, 16 lanes at a time,
    /// with the same results as the f32 forms one instruction at a time (`exp_map_slice_f32`,
    /// `tanh_f32`, `logistic_map_slice_f32`, then each post as its own loop): the same operations
    /// on the same values, without storing and reloading the values in between.
    ///
    /// # Safety
    /// The CPU must have AVX-512 (F, DQ, VL); every `Vector` post's slice must be `a.len()` long.
    #[inline(always)]
    pub unsafe fn function_with_posts(f: U, a: &[f32], o: &mut [f32], pre: impl Fn(F32x16) -> F32x16, posts: &[Post]) {
        // One loop per function (a match inside the loop would run on every register).
        match f {
            U::Tanh => map_with_posts(a, o, #[inline(always)] |x, _| tanh::<F32x16, Fused>(pre(x)), posts),
            U::Exponential => map_with_posts(a, o, #[inline(always)] |x, mask| core_or_lanes(pre(x), mask, (-86.0, 88.0), EXP_SATURATES, #[inline(always)] |x| exp_core::<F32x16, Fused>(x), #[inline(always)] |x| exp_f32::<Fused>(x)), posts),
            _ => map_with_posts(a, o, #[inline(always)] |x, mask| core_or_lanes(pre(x), mask, (-88.0, 86.0), LOGISTIC_SATURATES, #[inline(always)] |x| logistic_core::<F32x16, Fused>(x), #[inline(always)] |x| logistic_f32::<Fused>(x)), posts),
        }
    }

    /// `core(x)` when the lanes of `mask` are all in `[lo, hi]`, where it gives the general
    /// function's results, with saturated lanes (beyond `sat`'s bounds) set to their constants;
    /// else (rare: a lane between the core's range and saturation, or NaN) the general function
    /// lane by lane.
    #[inline(always)]
    fn core_or_lanes(x: F32x16, mask: u16, (lo, hi): (f32, f32), sat: Saturates, core: impl Fn(F32x16) -> F32x16, general: impl Fn(f32) -> f32) -> F32x16 {
        let within = x.within(lo, hi, mask);
        if within == mask {
            return core(x);
        }
        let below = x.less_than(sat.low.0, mask);
        let above = x.greater_than(sat.high.0, mask);
        if within | below | above == mask {
            core(x.clamp(lo, hi)).blend(below, sat.low.1).blend(above, sat.high.1)
        } else {
            x.per_lane(general)
        }
    }

    /// `o[i] = posts(f(a[i]))`, `f` given the register and its mask of lanes in range.
    #[inline(always)]
    unsafe fn map_with_posts(a: &[f32], o: &mut [f32], f: impl Fn(F32x16, u16) -> F32x16, posts: &[Post]) {
        let n = a.len().min(o.len());
        let mut i = 0;
        while i < n {
            let mask = if n - i >= 16 { u16::MAX } else { (1u16 << (n - i)) - 1 };
            let mut y = f(F32x16::load(a.as_ptr().add(i), mask), mask);
            for p in posts {
                let v = match p.operand {
                    PostOperand::Scalar(k) => F32x16::splat(k),
                    PostOperand::Vector(v) => F32x16::load(v.as_ptr().add(i), mask),
                };
                y = if p.result_left { apply(p.op, y, v) } else { apply(p.op, v, y) };
            }
            y.store(o.as_mut_ptr().add(i), mask);
            i += 16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_functions_match_the_correctly_rounded_f32_results() {
        // Both ways of computing the polynomials (kernels with and without FMA).
        check::<Separate>();
        check::<Fused>();
    }

    fn check<M: Madd>() {
        let mut worst = (0u32, 0.0f32, 0usize);
        let mut x = -90.0f32;
        while x < 90.0 {
            for (k, (got, want)) in [
                (exp_f32::<M>(x), (x as f64).exp() as f32),
                (tanh_f32::<M>(x), (x as f64).tanh() as f32),
                (logistic_f32::<M>(x), (1.0 / (1.0 + (-(x as f64)).exp())) as f32),
            ]
            .into_iter()
            .enumerate()
            {
                // Results below the smallest normal f32 are flushed to zero (documented above).
                if want.abs() < f32::MIN_POSITIVE && got == 0.0 {
                    continue;
                }
                let d = ulp_distance(got, want);
                if d > worst.0 {
                    worst = (d, x, k);
                }
            }
            x += 0.0137;
        }
        assert!(worst.0 <= 4, "worst difference {} ulp at x = {} (function {})", worst.0, worst.1, worst.2);
        // The slice forms take the core polynomial when they can: bit for bit the same results.
        let xs: Vec<f32> = (0..2000).map(|i| -90.0 + i as f32 * 0.09).chain([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]).collect();
        // Saturated arguments (a masked softmax's -2.4e38; here f32::MIN and others) among core-range ones, with values just
        // beyond each function's thresholds, and no value that needs the general function: the
        // saturated constants are what the general function gives.
        let saturated = |edges: [f32; 2]| -> Vec<f32> {
            (0..300)
                .map(|i| match i % 5 {
                    0 => f32::MIN,
                    1 => [-1e9, -200.0, 200.0, 1e9, f32::MAX][i / 5 % 5],
                    2 => edges[i / 5 % 2],
                    _ => -80.0 + i as f32 * 0.5,
                })
                .collect()
        };
        let (xe, xl) = (saturated([-104.0001, 88.7229]), saturated([-88.7229, 104.0001]));
        let (mut e, mut l) = (vec![0.0f32; xe.len()], vec![0.0f32; xl.len()]);
        exp_slice_f32::<M>(&xe, &mut e);
        logistic_slice_f32::<M>(&xl, &mut l);
        for k in 0..xe.len() {
            assert_eq!(e[k].to_bits(), exp_f32::<M>(xe[k]).to_bits(), "exp({})", xe[k]);
            assert_eq!(l[k].to_bits(), logistic_f32::<M>(xl[k]).to_bits(), "logistic({})", xl[k]);
        }
        for window in [&xs[..], &xs[100..300], &xs[1000..1200], &xs[1990..]] {
            let (mut e, mut l) = (vec![0.0f32; window.len()], vec![0.0f32; window.len()]);
            exp_slice_f32::<M>(window, &mut e);
            logistic_slice_f32::<M>(window, &mut l);
            for (k, &x) in window.iter().enumerate() {
                assert_eq!(e[k].to_bits(), exp_f32::<M>(x).to_bits(), "exp({x})");
                assert_eq!(l[k].to_bits(), logistic_f32::<M>(x).to_bits(), "logistic({x})");
            }
        }
        // tanh near zero, near its clamp and where its largest errors are, which the grid skips.
        for x in [1e-30f32, 3e-12, 1e-7, 1e-5, 1e-3, 0.0605, 0.1250052, 0.2499708, 0.35, 0.5199, 8.99, 9.0, 9.01, 9.02, 1e6] {
            for x in [x, -x] {
                let (got, want) = (tanh_f32::<M>(x), (x as f64).tanh() as f32);
                let d = ulp_distance(got, want);
                assert!(d <= 4, "tanh({x}) = {got}, want {want} ({d} ulp)");
            }
        }
        // Tiny and subnormal arguments come back unchanged (tanh x = x - x^3/3 rounds to x).
        for x in [f32::from_bits(1), 1e-40, f32::MIN_POSITIVE, 1e-30, 1e-10, 2e-4, 2.4e-4] {
            for x in [x, -x] {
                assert_eq!(tanh_f32::<M>(x).to_bits(), x.to_bits(), "tanh({x:e})");
            }
        }
        assert!(exp_f32::<M>(f32::NAN).is_nan() && tanh_f32::<M>(f32::NAN).is_nan() && tanh_f32::<M>(-f32::NAN).is_nan());
        assert_eq!(exp_f32::<M>(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32::<M>(f32::NEG_INFINITY), 0.0);
        assert_eq!(tanh_f32::<M>(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32::<M>(f32::NEG_INFINITY), -1.0);
        assert_eq!(tanh_f32::<M>(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh_f32::<M>(0.0).to_bits(), 0);
    }

    /// The AVX-512 form (`x16::function_with_posts`, no posts) gives the scalar functions' bits on
    /// registers that mix saturated lanes (f32::MIN, -1e9, 1e9), core-range lanes,
    /// lanes that need the general function, NaN, and a partial last register.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_functions_match_the_scalar_ones_on_saturated_lanes() {
        use apu_compiler::ir::UnaryOp as U;
        if !(std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq") && std::arch::is_x86_feature_detected!("avx512vl")) {
            return;
        }
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
        unsafe fn run(f: U, a: &[f32], o: &mut [f32]) {
            x16::function_with_posts(f, a, o, |x| x, &[]);
        }
        // Per function: saturated lanes (both sides, just beyond each threshold) and core-range ones.
        let pattern = |edges: [f32; 2]| vec![f32::MIN, -1e9, 0.5, -3.0, edges[0], edges[1], -200.0, 200.0, 1e9, f32::MAX, 2.0, -1.0, 7.0, -20.0, 0.0, 1.0];
        let exp: fn(f32) -> f32 = exp_f32::<Fused>;
        let logistic: fn(f32) -> f32 = logistic_f32::<Fused>;
        for (f, scalar, edges) in [(U::Exponential, exp, [-104.0001, 88.7229]), (U::Logistic, logistic, [-88.7229, 104.0001])] {
            let p = pattern(edges);
            let mut inputs = vec![p.clone(), p.iter().map(|&x| if x.abs() < 100.0 { x } else { -1e30 }).collect::<Vec<f32>>()];
            // With a lane for the general function (-95: between the core range and saturation) or NaN.
            inputs.push(p.iter().enumerate().map(|(i, &x)| if i == 3 { -95.0 } else { x }).collect());
            inputs.push(p.iter().enumerate().map(|(i, &x)| if i == 5 { f32::NAN } else { x }).collect());
            inputs.push(p.iter().cycle().take(37).copied().collect());
            for a in &inputs {
                let mut o = vec![0.0f32; a.len()];
                // SAFETY: the CPU has AVX-512 (checked above).
                unsafe { run(f, a, &mut o) };
                for (k, &x) in a.iter().enumerate() {
                    assert_eq!(o[k].to_bits(), scalar(x).to_bits(), "{f:?}({x}) in {a:?}");
                }
            }
        }
    }

    /// ln and ln(1 + x) against the correctly rounded results over every 61st f32 of their core
    /// ranges (all positive normal floats; every float in (-1, f32::MAX] for ln(1 + x), subnormal
    /// and tiny arguments included), with both `Madd`s; and the slice forms: the core's bits where
    /// every argument is in range, the f64 library's results on a slice holding 0, -1, -2, a
    /// subnormal, infinities or NaN.
    #[test]
    fn log_and_log1p_are_within_3_ulp_of_the_correctly_rounded_results() {
        let step = 61u32;
        let mut worst = [(0u32, 0.0f32); 4];
        let mut bits = 0u32;
        while bits < f32::INFINITY.to_bits() {
            let x = f32::from_bits(bits);
            let mut note = |k: usize, got: f32, want: f32| {
                let d = if got == want { 0 } else if got.signum() != want.signum() { u32::MAX } else { ulp_distance(got, want) };
                if d > worst[k].0 {
                    worst[k] = (d, x);
                }
            };
            if x >= f32::MIN_POSITIVE {
                let want = (x as f64).ln() as f32;
                note(0, log_core_f32::<Fused>(x), want);
                note(1, log_core_f32::<Separate>(x), want);
            }
            for x in [x, -x] {
                if x >= -0.999_999_94 {
                    let want = (x as f64).ln_1p() as f32;
                    note(2, log1p_core_f32::<Fused>(x), want);
                    note(3, log1p_core_f32::<Separate>(x), want);
                }
            }
            bits += step;
        }
        assert!(worst.iter().all(|w| w.0 <= 3), "worst (ulp, argument) for log, log (no FMA), log1p, log1p (no FMA): {worst:?}");
        // Tiny arguments of ln(1 + x) come back unchanged, -0.0 included.
        for x in [0.0f32, -0.0, 1e-30, -1e-30, f32::from_bits(1), 2.9e-8] {
            assert_eq!(log1p_core_f32::<Fused>(x).to_bits(), x.to_bits(), "log1p({x:e})");
        }
        let xs: Vec<f32> = (1..3000).map(|i| i as f32 * 0.37 - 0.99).collect();
        let mut o = vec![0.0; xs.len()];
        log1p_slice_f32::<Fused>(&xs, &mut o);
        assert!(xs.iter().zip(&o).all(|(&x, y)| y.to_bits() == log1p_core_f32::<Fused>(x).to_bits()));
        let specials = [0.5f32, 0.0, -1.0, -2.0, f32::from_bits(3), f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 3.0];
        log_slice_f32::<Fused>(&specials, &mut o[..specials.len()]);
        for (x, y) in specials.iter().zip(&o) {
            let want = (*x as f64).ln() as f32;
            assert!(y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()), "log({x:e}) = {y:e}, want {want:e}");
        }
        log1p_slice_f32::<Fused>(&specials, &mut o[..specials.len()]);
        for (x, y) in specials.iter().zip(&o) {
            let want = (*x as f64).ln_1p() as f32;
            assert!(y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()), "log1p({x:e}) = {y:e}, want {want:e}");
        }
    }

    /// Distance in units in the last place between two finite f32 of the same sign (or zeros).
    fn ulp_distance(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    /// tanh against the correctly rounded result for every f32 in [0, 10] (about 1.1e9 values;
    /// beyond 9.011 the correct result is 1, which the clamp gives) with both `Madd`s, and odd
    /// symmetry bit for bit. Exhaustive in release builds (`cargo test --release -p apu-runtime
    /// --lib fastmath`, about a minute on two cores); every 97th value in debug builds.
    #[test]
    fn tanh_is_within_4_ulp_of_the_correctly_rounded_result_for_every_f32_up_to_10() {
        let step: u32 = if cfg!(debug_assertions) { 97 } else { 1 };
        let top = 10.0f32.to_bits();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16) as u32;
        // Per thread, for Fused and Separate: (worst ulp, its argument's bits) and counts by ulp.
        type Tally = ([(u32, u32); 2], [[u64; 6]; 2]);
        let results: Vec<Tally> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        let mut worst = [(0u32, 0u32); 2];
                        let mut histogram = [[0u64; 6]; 2];
                        let mut bits = t * step;
                        while bits <= top {
                            let x = f32::from_bits(bits);
                            let want = (x as f64).tanh() as f32;
                            for (k, (got, got_neg)) in
                                [(tanh_f32::<Fused>(x), tanh_f32::<Fused>(-x)), (tanh_f32::<Separate>(x), tanh_f32::<Separate>(-x))]
                                    .into_iter()
                                    .enumerate()
                            {
                                assert_eq!(got_neg.to_bits(), (-got).to_bits(), "tanh(-{x:e}) is not -tanh({x:e}) ({k})");
                                if x < 1.0 / 4096.0 {
                                    assert_eq!(got.to_bits(), bits, "tanh({x:e}) is not {x:e} ({k})");
                                }
                                let d = ulp_distance(got, want);
                                histogram[k][(d as usize).min(5)] += 1;
                                if d > worst[k].0 {
                                    worst[k] = (d, bits);
                                }
                            }
                            bits = match bits.checked_add(step * threads) {
                                Some(b) => b,
                                None => break,
                            };
                        }
                        (worst, histogram)
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        for (k, name) in ["Fused", "Separate"].into_iter().enumerate() {
            let (d, bits) = results.iter().map(|r| r.0[k]).max().unwrap();
            let mut histogram = [0u64; 6];
            for r in &results {
                for (h, n) in histogram.iter_mut().zip(r.1[k]) {
                    *h += n;
                }
            }
            println!("tanh {name}: worst {d} ulp at x = {:e}; count by ulp 0..=5+: {histogram:?}", f32::from_bits(bits));
            assert!(d <= 4, "tanh {name}: {d} ulp at x = {:e}", f32::from_bits(bits));
        }
    }
}
