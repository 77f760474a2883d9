//! Reduce kernels: an elementwise expression over the input's index space folded along trailing
//! axes (rows, including "all axes") or leading axes (columns); the inner loops are in `fold`.

use super::fold::{self, Lanes};
use super::fused::{self, Buf, Compiled, CHUNK};
use super::workers::Workers;
use super::Ptr;
use apu_compiler::ir::{BinaryOp as B, ElementType as E};
use apu_compiler::plan::{KScalar, ReduceLayout};
use std::sync::Mutex;

pub fn supported(op: B, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum | B::And | B::Or),
        _ => false,
    }
}

pub(super) trait Elem: Copy + Send + Sync + 'static {
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
elem!(u64, U64);

struct Fold<T, F: Fn(T, T) -> T> {
    id: T,
    f: F,
    /// A faster fold of a slice that may decline it (then `f` folds it): see `fold::fold_plain`.
    plain: Option<fn(&mut Lanes<T>, &[T]) -> bool>,
}

impl<T: Copy, F: Fn(T, T) -> T> Fold<T, F> {
    fn slice(&self, lanes: &mut Lanes<T>, v: &[T]) {
        if !self.plain.is_some_and(|p| p(lanes, v)) {
            fold::fold(lanes, v, &self.f);
        }
    }
}

/// Folds flat indices `range` of the expression into one value (without the init).
unsafe fn fold_range<T: Elem, F: Fn(T, T) -> T>(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, fold: &Fold<T, F>) -> T {
    let mut lanes = Lanes::new(fold.id);
    if range.is_empty() {
        return fold.id;
    }
    if let Some((input, offset)) = ex.as_contiguous_load() {
        // A plain reduce of an input: fold it where it is.
        let v = std::slice::from_raw_parts((inputs[input] as *const T).wrapping_add(offset + range.start), range.len());
        fold.slice(&mut lanes, v);
    } else {
        fused::eval_chunks(ex, inputs, range, |result, _, len| fold.slice(&mut lanes, &T::slice(result)[..len]));
    }
    lanes.finish(&fold.f)
}

#[allow(clippy::too_many_arguments)]
unsafe fn run_typed<T: Elem, F: Fn(T, T) -> T + Sync>(ex: &Compiled, inputs: &[Ptr], layout: ReduceLayout, init: T, fold: Fold<T, F>, out: *mut T, workers: &Workers) {
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
        ReduceLayout::Columns { outer, inner } => columns(ex, ptrs.get(), 0, outer, inner, init, &fold, out, 0, workers),
        ReduceLayout::Middle { outer, reduced, inner } => {
            for o in 0..outer {
                columns(ex, ptrs.get(), o * reduced * inner, reduced, inner, init, &fold, out, o * inner, workers);
            }
        }
    }
}

/// Folds `rows` rows of `inner` elements starting at flat index `base` into `inner` outputs
/// written from `out_offset`; columns are split across threads (each owns its outputs).
#[allow(clippy::too_many_arguments)]
unsafe fn columns<T: Elem, F: Fn(T, T) -> T + Sync>(
    ex: &Compiled,
    ptrs: &[*const u8],
    base: usize,
    rows: usize,
    inner: usize,
    init: T,
    fold: &Fold<T, F>,
    out: Ptr,
    out_offset: usize,
    workers: &Workers,
) {
    let ptrs = PtrList(ptrs.to_vec());
    workers.for_ranges(inner, CHUNK, rows, &|cols| {
        ex.with_registers(|regs| {
            let last = regs.len() - 1;
            let mut acc = vec![fold.id; cols.len()];
            for i in 0..rows {
                let mut j = cols.start;
                while j < cols.end {
                    let len = CHUNK.min(cols.end - j);
                    ex.eval(ptrs.get(), base + i * inner + j, len, regs, i > 0 || j > cols.start);
                    fold::combine(&mut acc[j - cols.start..j - cols.start + len], &T::slice(&regs[last])[..len], &fold.f);
                    j += len;
                }
            }
            for (k, a) in acc.into_iter().enumerate() {
                *(out.get() as *mut T).add(out_offset + cols.start + k) = (fold.f)(init, a);
            }
        })
    });
}

struct PtrList(Vec<*const u8>);
unsafe impl Sync for PtrList {}
unsafe impl Send for PtrList {}
impl PtrList {
    fn get(&self) -> &[*const u8] {
        &self.0
    }
}

/// Rows `rows` of a `Rows` reduce with `inner` elements per row, on this thread.
unsafe fn rows_typed<T: Elem, F: Fn(T, T) -> T>(ex: &Compiled, inputs: &[*const u8], rows: std::ops::Range<usize>, inner: usize, init: T, fold: Fold<T, F>, out: *mut T) {
    for i in rows {
        let t = fold_range(ex, inputs, i * inner..(i + 1) * inner, &fold);
        *out.wrapping_add(i) = (fold.f)(init, t);
    }
}

/// What part of a reduce to compute, and how.
pub enum Job<'a> {
    /// The whole reduce, split across `workers` as its layout allows.
    Whole { layout: ReduceLayout, workers: &'a Workers },
    /// Rows `rows` of a `Rows { inner, .. }` reduce, on the calling thread (a row-blocked group).
    Rows { rows: std::ops::Range<usize>, inner: usize },
}

/// Runs one reduce kernel (or the rows of it that `job` says); `init` is the init value, `out` the
/// output buffer.
///
/// # Safety
/// Input pointers must cover the expression's loads and `out` must hold the output elements.
pub unsafe fn run(ex: &Compiled, elem: E, op: B, inputs: &[Ptr], init: KScalar, out: *mut u8, job: Job) {
    macro_rules! go {
        ($t:ty, $id:expr, $f:expr) => {
            go!($t, $id, $f, None)
        };
        ($t:ty, $id:expr, $f:expr, $plain:expr) => {{
            let fold = Fold { id: $id, f: $f, plain: $plain };
            let init = <$t>::from_k(init).unwrap_or(fold.id);
            match &job {
                Job::Whole { layout, workers } => run_typed::<$t, _>(ex, inputs, *layout, init, fold, out as *mut $t, workers),
                Job::Rows { rows, inner } => rows_typed::<$t, _>(ex, Ptr::raw(inputs), rows.clone(), *inner, init, fold, out as *mut $t),
            }
        }};
    }
    macro_rules! float {
        ($t:ty, $max:expr, $min:expr) => {
            match op {
                B::Add => go!($t, 0.0, |a: $t, b: $t| a + b),
                B::Multiply => go!($t, 1.0, |a: $t, b: $t| a * b),
                B::Maximum => go!($t, <$t>::NEG_INFINITY, $max, Some(fold::fold_plain::<$t, true>)),
                _ => go!($t, <$t>::INFINITY, $min, Some(fold::fold_plain::<$t, false>)),
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            match op {
                B::Add => go!($t, 0, <$t>::wrapping_add),
                B::Multiply => go!($t, 1, <$t>::wrapping_mul),
                B::Maximum => go!($t, <$t>::MIN, |a: $t, b: $t| a.max(b)),
                B::Minimum => go!($t, <$t>::MAX, |a: $t, b: $t| a.min(b)),
                B::And => go!($t, !0, |a: $t, b: $t| a & b),
                _ => go!($t, 0, |a: $t, b: $t| a | b),
            }
        };
    }
    match elem {
        E::F32 => float!(f32, fused::fmax32, fused::fmin32),
        E::F64 => float!(f64, fused::fmax64, fused::fmin64),
        E::S32 => int!(i32),
        E::S64 => int!(i64),
        E::U32 => int!(u32),
        E::U64 => int!(u64),
        _ => {}
    }
}
