//! The inner loops of reduce kernels, compiled once per vector extension (like the fused evaluator)
//! and picked at run time.
//!
//! A fold keeps [`LANES`] independent accumulators: lane `k` takes elements `k, k + LANES, ...`.
//! Independent lanes let the compiler keep several vector registers of partial results, so that
//! the loop is limited by memory bandwidth instead of by the latency of one chain of adds. The
//! lanes are combined in a fixed order at the end, so a result does not depend on the thread count
//! for a given split, but it does differ (by rounding) from a left-to-right sum.

use crate::exec::fused::{cpu_level, CpuLevel};

/// Accumulators per fold: four AVX-512 registers of f32 (eight of f64).
pub const LANES: usize = 64;

/// Accumulators of one fold.
pub struct Lanes<T>(pub [T; LANES]);

impl<T: Copy> Lanes<T> {
    pub fn new(id: T) -> Lanes<T> {
        Lanes([id; LANES])
    }

    /// The lanes combined in a fixed order (pairwise, which also keeps rounding error low).
    pub fn finish(&self, f: &impl Fn(T, T) -> T) -> T {
        let mut v = self.0;
        let mut n = LANES;
        while n > 1 {
            n /= 2;
            for k in 0..n {
                v[k] = f(v[k], v[k + n]);
            }
        }
        v[0]
    }
}

#[inline(always)]
fn fold_body<T: Copy, F: Fn(T, T) -> T>(lanes: &mut Lanes<T>, v: &[T], f: &F) {
    let mut acc = lanes.0;
    let mut blocks = v.chunks_exact(LANES);
    for b in &mut blocks {
        for l in 0..LANES {
            acc[l] = f(acc[l], b[l]);
        }
    }
    for (l, &x) in blocks.remainder().iter().enumerate() {
        acc[l] = f(acc[l], x);
    }
    lanes.0 = acc;
}

/// Floats whose maximum/minimum folds have a plain compare-and-select fast path.
pub trait PlainFloat: Copy + PartialOrd {
    const ZERO: Self;
}
impl PlainFloat for f32 {
    const ZERO: f32 = 0.0;
}
impl PlainFloat for f64 {
    const ZERO: f64 = 0.0;
}

/// The maximum (`MAX`) or minimum fold as one compare and select per element, committed to the
/// lanes only when that is exact: no element is NaN (NaN wins under the IEEE rules the kernels
/// follow) and no lane ends at a zero (only there can the order of -0 and +0 matter, +0 being the
/// larger). Returns whether the lanes were updated.
#[inline(always)]
fn plain_body<T: PlainFloat, const MAX: bool>(lanes: &mut Lanes<T>, v: &[T]) -> bool {
    let mut acc = lanes.0;
    // Per lane, a NaN seen (else zero). Kept as floats and updated by a select, which compiles to
    // a compare and a masked move per vector; an array of bools costs conversions between mask
    // registers and bytes on every block. A lane already NaN (an earlier slice folded exactly) must
    // stay NaN, which the plain compare would not keep: it counts as a NaN seen.
    #[allow(clippy::eq_op)]
    let mut nan: [T; LANES] = std::array::from_fn(|l| if acc[l] != acc[l] { acc[l] } else { T::ZERO });
    let pick = |a: T, x: T| if MAX { if a > x { a } else { x } } else if a < x { a } else { x };
    #[allow(clippy::eq_op)]
    let note = |seen: T, x: T| if x != x { x } else { seen };
    let mut blocks = v.chunks_exact(LANES);
    for b in &mut blocks {
        for l in 0..LANES {
            nan[l] = note(nan[l], b[l]);
            acc[l] = pick(acc[l], b[l]);
        }
    }
    for (l, &x) in blocks.remainder().iter().enumerate() {
        nan[l] = note(nan[l], x);
        acc[l] = pick(acc[l], x);
    }
    #[allow(clippy::eq_op)]
    if nan.iter().any(|&s| s != s) || acc.iter().any(|&a| a == T::ZERO) {
        return false;
    }
    lanes.0 = acc;
    true
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn plain_avx512<T: PlainFloat, const MAX: bool>(lanes: &mut Lanes<T>, v: &[T]) -> bool {
    plain_body::<T, MAX>(lanes, v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn plain_avx2<T: PlainFloat, const MAX: bool>(lanes: &mut Lanes<T>, v: &[T]) -> bool {
    plain_body::<T, MAX>(lanes, v)
}

/// Folds `v` into the lanes by maximum (`MAX`) or minimum with the fast path of `plain_body`;
/// returns false (lanes unchanged) when `v` holds a NaN or a zero, for the exact fold to handle.
pub fn fold_plain<T: PlainFloat, const MAX: bool>(lanes: &mut Lanes<T>, v: &[T]) -> bool {
    match cpu_level() {
        // SAFETY: as in `fold`.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512 => unsafe { plain_avx512::<T, MAX>(lanes, v) },
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2 => unsafe { plain_avx2::<T, MAX>(lanes, v) },
        _ => plain_body::<T, MAX>(lanes, v),
    }
}

#[inline(always)]
fn combine_body<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], v: &[T], f: &F) {
    for (a, &x) in acc.iter_mut().zip(v) {
        *a = f(*a, x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn fold_avx512<T: Copy, F: Fn(T, T) -> T>(lanes: &mut Lanes<T>, v: &[T], f: &F) {
    fold_body(lanes, v, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fold_avx2<T: Copy, F: Fn(T, T) -> T>(lanes: &mut Lanes<T>, v: &[T], f: &F) {
    fold_body(lanes, v, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn combine_avx512<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], v: &[T], f: &F) {
    combine_body(acc, v, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn combine_avx2<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], v: &[T], f: &F) {
    combine_body(acc, v, f)
}

/// Folds `v` into the lanes.
pub fn fold<T: Copy, F: Fn(T, T) -> T>(lanes: &mut Lanes<T>, v: &[T], f: &F) {
    match cpu_level() {
        // SAFETY: the level is only chosen when the CPU has these extensions.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512 => unsafe { fold_avx512(lanes, v, f) },
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2 => unsafe { fold_avx2(lanes, v, f) },
        _ => fold_body(lanes, v, f),
    }
}

/// `acc[j] = f(acc[j], v[j])` for every j (a column reduce's row step, a pooling window's). Rows
/// of at most 8 elements (NHWC pooling over few channels) run in place: the dispatch to a vector
/// build costs more than their loop, and the same `f` gives the same bits.
#[inline]
pub fn combine<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], v: &[T], f: &F) {
    if acc.len() <= 8 {
        return combine_body(acc, v, f);
    }
    match cpu_level() {
        // SAFETY: as in `fold`.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512 => unsafe { combine_avx512(acc, v, f) },
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2 => unsafe { combine_avx2(acc, v, f) },
        _ => combine_body(acc, v, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_visits_every_element_once_whatever_the_length() {
        for n in [0usize, 1, LANES - 1, LANES, LANES + 1, 3 * LANES + 7, 1000] {
            let v: Vec<u64> = (1..=n as u64).collect();
            let mut lanes = Lanes::new(0u64);
            fold(&mut lanes, &v[..n / 2], &|a, b| a + b);
            fold(&mut lanes, &v[n / 2..], &|a, b| a + b);
            assert_eq!(lanes.finish(&|a, b| a + b), (n as u64) * (n as u64 + 1) / 2, "n = {n}");
        }
        // The plain maximum agrees with the exact one, and declines slices with zeros or NaN.
        let v: Vec<f32> = (0..200).map(|i| ((i * 37) % 101) as f32 - 50.5).collect();
        let exact = |v: &[f32]| {
            let mut l = Lanes::new(f32::NEG_INFINITY);
            fold(&mut l, v, &crate::exec::fused::fmax32);
            l.finish(&crate::exec::fused::fmax32)
        };
        let mut l = Lanes::new(f32::NEG_INFINITY);
        assert!(fold_plain::<f32, true>(&mut l, &v));
        assert_eq!(l.finish(&crate::exec::fused::fmax32), exact(&v));
        // A zero below the maximum changes nothing; a lane ending at a zero or a NaN anywhere
        // makes it decline.
        let mut w = v.clone();
        w[77] = -0.0;
        let mut l = Lanes::new(f32::NEG_INFINITY);
        assert!(fold_plain::<f32, true>(&mut l, &w));
        assert_eq!(l.finish(&crate::exec::fused::fmax32), exact(&w));
        for (special, at) in [(f32::NAN, 77), (0.0, 3), (-0.0, 3)] {
            let mut w: Vec<f32> = v.iter().map(|x| -x.abs() - 1.0).collect();
            w[at] = special;
            let mut l = Lanes::new(f32::NEG_INFINITY);
            assert!(!fold_plain::<f32, true>(&mut l, &w), "{special}");
            assert!(l.0.iter().all(|&x| x == f32::NEG_INFINITY), "declined folds leave the lanes alone");
        }
        // A lane left NaN by an earlier exact fold stays NaN: the plain path declines.
        let mut l = Lanes::new(f32::NEG_INFINITY);
        let mut first = vec![1.0f32; LANES];
        first[2] = f32::NAN;
        fold(&mut l, &first, &crate::exec::fused::fmax32);
        assert!(!fold_plain::<f32, true>(&mut l, &v));
        fold(&mut l, &v, &crate::exec::fused::fmax32);
        assert!(l.finish(&crate::exec::fused::fmax32).is_nan());
        let mut l = Lanes::new(f64::INFINITY);
        assert!(fold_plain::<f64, false>(&mut l, &[3.0, -2.0, 5.0]));
        assert_eq!(l.finish(&crate::exec::fused::fmin64), -2.0);
        let mut acc = vec![1i32; 5];
        combine(&mut acc, &[1, 2, 3, 4, 5], &|a, b| a * b);
        assert_eq!(acc, [1, 2, 3, 4, 5]);
    }
}
