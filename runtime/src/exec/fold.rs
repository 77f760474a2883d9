//! The inner loops of reduce kernels, compiled once per vector extension (like the fused evaluator)
//! and picked at run time.
//!
//! A fold keeps [`LANES`] independent accumulators: lane `k` takes elements `k, k + LANES, ...`.
//! Independent lanes let the compiler keep several vector registers of partial results, so that
//! the loop is limited by memory bandwidth instead of by the latency of one chain of adds. The
//! lanes are combined in a fixed order at the end, so a result does not depend on the thread count
//! for a given split, but it does differ (by rounding) from a left-to-right sum.

use super::fused::{cpu_level, CpuLevel};

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

/// `acc[j] = f(acc[j], v[j])` for every j (a column reduce's row step).
pub fn combine<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], v: &[T], f: &F) {
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
        let mut acc = vec![1i32; 5];
        combine(&mut acc, &[1, 2, 3, 4, 5], &|a, b| a * b);
        assert_eq!(acc, [1, 2, 3, 4, 5]);
    }
}
