//! Reduce kernels: an elementwise expression over the input's index space folded along trailing
//! axes (rows, including "all axes") or leading axes (columns), with 8 independent accumulators
//! so the fold vectorises.

use super::fused::{self, Buf, Compiled, CHUNK};
use super::workers::Workers;
use super::Ptr;
use apu_compiler::ir::{BinaryOp as B, ElementType as E};
use apu_compiler::plan::{KScalar, ReduceLayout};
use std::sync::Mutex;

pub fn supported(op: B, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum),
        E::S32 | E::S64 | E::U32 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum | B::And | B::Or),
        _ => false,
    }
}

trait Elem: Copy + Send + Sync + 'static {
    fn slice(b: &Buf) -> &[Self];
    fn from_k(k: KScalar) -> Option<Self>;
}
macro_rules! elem {
    ($t:ty, $v:ident) => {
        impl Elem for $t {
            fn slice(b: &Buf) -> &[Self] {
                match b {
                    Buf::$v(v) => v,
                    _ => &[],
                }
            }
            fn from_k(k: KScalar) -> Option<Self> {
                match k {
                    KScalar::$v(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}
elem!(f32, F32);
elem!(f64, F64);
elem!(i32, S32);
elem!(i64, S64);
elem!(u32, U32);

struct Fold<T> {
    id: T,
    f: fn(T, T) -> T,
}

/// Folds flat indices `range` of the expression into one value (without the init).
unsafe fn fold_range<T: Elem>(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, fold: &Fold<T>) -> T {
    let mut regs = ex.registers().expect("registers of a compiled expression");
    let mut lanes = [fold.id; 8];
    let last = regs.len() - 1;
    let mut start = range.start;
    while start < range.end {
        let len = CHUNK.min(range.end - start);
        ex.eval(inputs, start, len, &mut regs);
        let v = &T::slice(&regs[last])[..len];
        let mut blocks = v.chunks_exact(8);
        for b in &mut blocks {
            for l in 0..8 {
                lanes[l] = (fold.f)(lanes[l], b[l]);
            }
        }
        for &x in blocks.remainder() {
            lanes[0] = (fold.f)(lanes[0], x);
        }
        start += len;
    }
    lanes.iter().fold(fold.id, |a, &b| (fold.f)(a, b))
}

#[allow(clippy::too_many_arguments)]
unsafe fn run_typed<T: Elem>(ex: &Compiled, inputs: &[Ptr], layout: ReduceLayout, init: T, fold: Fold<T>, out: *mut T, workers: &Workers) {
    let out = Ptr(out as *const u8);
    let ptrs: Vec<*const u8> = inputs.iter().map(|p| p.0).collect();
    let ptrs = PtrList(ptrs);
    match layout {
        ReduceLayout::Rows { outer, inner } => {
            if outer >= workers.threads() || outer.saturating_mul(inner) < 1 << 16 {
                workers.for_ranges(outer, 1, inner, &|rows| {
                    for i in rows {
                        let t = fold_range(ex, ptrs.get(), i * inner..(i + 1) * inner, &fold);
                        *(out.get() as *mut T).add(i) = (fold.f)(init, t);
                    }
                });
            } else {
                for i in 0..outer {
                    let parts = Mutex::new(Vec::new());
                    workers.for_ranges(inner, CHUNK, 1, &|r| {
                        let t = fold_range(ex, ptrs.get(), i * inner + r.start..i * inner + r.end, &fold);
                        parts.lock().unwrap().push((r.start, t));
                    });
                    let mut parts = parts.into_inner().unwrap();
                    parts.sort_by_key(|p| p.0);
                    let t = parts.iter().fold(fold.id, |a, p| (fold.f)(a, p.1));
                    *(out.get() as *mut T).add(i) = (fold.f)(init, t);
                }
            }
        }
        ReduceLayout::Columns { outer, inner } => {
            workers.for_ranges(inner, CHUNK, outer, &|cols| {
                let mut regs = ex.registers().expect("registers of a compiled expression");
                let last = regs.len() - 1;
                let mut acc = vec![fold.id; cols.len()];
                for i in 0..outer {
                    let mut j = cols.start;
                    while j < cols.end {
                        let len = CHUNK.min(cols.end - j);
                        ex.eval(ptrs.get(), i * inner + j, len, &mut regs);
                        let v = &T::slice(&regs[last])[..len];
                        for (a, &x) in acc[j - cols.start..j - cols.start + len].iter_mut().zip(v) {
                            *a = (fold.f)(*a, x);
                        }
                        j += len;
                    }
                }
                for (k, a) in acc.into_iter().enumerate() {
                    *(out.get() as *mut T).add(cols.start + k) = (fold.f)(init, a);
                }
            });
        }
    }
}

struct PtrList(Vec<*const u8>);
unsafe impl Sync for PtrList {}
unsafe impl Send for PtrList {}
impl PtrList {
    fn get(&self) -> &[*const u8] {
        &self.0
    }
}

macro_rules! int_fold {
    ($t:ty, $op:expr) => {
        match $op {
            B::Add => Fold { id: 0 as $t, f: <$t>::wrapping_add },
            B::Multiply => Fold { id: 1 as $t, f: <$t>::wrapping_mul },
            B::Maximum => Fold { id: <$t>::MIN, f: |a: $t, b: $t| a.max(b) },
            B::Minimum => Fold { id: <$t>::MAX, f: |a: $t, b: $t| a.min(b) },
            B::And => Fold { id: !(0 as $t), f: |a: $t, b: $t| a & b },
            _ => Fold { id: 0 as $t, f: |a: $t, b: $t| a | b },
        }
    };
}

/// Runs one reduce kernel; `init` is the init value, `out` the output buffer.
///
/// # Safety
/// Input pointers must cover the expression's loads and `out` must hold the output elements.
pub unsafe fn run(ex: &Compiled, elem: E, op: B, layout: ReduceLayout, inputs: &[Ptr], init: KScalar, out: *mut u8, workers: &Workers) {
    macro_rules! go {
        ($t:ty, $fold:expr) => {
            run_typed::<$t>(ex, inputs, layout, <$t>::from_k(init).unwrap_or($fold.id), $fold, out as *mut $t, workers)
        };
    }
    match elem {
        E::F32 => go!(
            f32,
            match op {
                B::Add => Fold { id: 0.0f32, f: |a, b| a + b },
                B::Multiply => Fold { id: 1.0, f: |a, b| a * b },
                B::Maximum => Fold { id: f32::NEG_INFINITY, f: fused::fmax32 },
                _ => Fold { id: f32::INFINITY, f: fused::fmin32 },
            }
        ),
        E::F64 => go!(
            f64,
            match op {
                B::Add => Fold { id: 0.0f64, f: |a, b| a + b },
                B::Multiply => Fold { id: 1.0, f: |a, b| a * b },
                B::Maximum => Fold { id: f64::NEG_INFINITY, f: fused::fmax64 },
                _ => Fold { id: f64::INFINITY, f: fused::fmin64 },
            }
        ),
        E::S32 => go!(i32, int_fold!(i32, op)),
        E::S64 => go!(i64, int_fold!(i64, op)),
        E::U32 => go!(u32, int_fold!(u32, op)),
        _ => {}
    }
}
