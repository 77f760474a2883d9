//! Reduce kernels: an elementwise expression over the input's index space folded along trailing
//! axes (rows, including "all axes") or leading axes (columns); the inner loops are in `fold`.

use super::fold::{self, Lanes};
use crate::exec::fused::{self, Buf, Compiled, CHUNK};
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::{BinaryOp as B, ElementType as E};
use apu_compiler::plan::{KScalar, ReduceLayout};
use std::sync::Mutex;

pub fn supported(op: B, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(op, B::Add | B::Multiply | B::Maximum | B::Minimum | B::And | B::Or),
        // Booleans (one byte, 0 or 1): `and` / `or` (JAX's `all` / `any`, and the bounds check of
        // a batched gather in every optax cross-entropy), and max / min, which are the same.
        E::Pred => matches!(op, B::Maximum | B::Minimum | B::And | B::Or),
        _ => false,
    }
}

pub(in crate::exec) trait Elem: Copy + Send + Sync + 'static {
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

impl Elem for u8 {
    fn slice(b: &Buf) -> &[Self] {
        match b {
            Buf::Pred(v) => v,
            _ => &[],
        }
    }
    fn from_k(k: KScalar) -> Option<Self> {
        match k {
            KScalar::Pred(x) => Some(x as u8),
            _ => None,
        }
    }
}

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

/// Elements a fold's lanes take (256 per lane) before their partial folds join a pairwise tree, so
/// that a long row's float sum carries about log2(n / 16K) + 256 roundings per lane, not n / 64.
/// (64 per lane cost a sum of 1e7 floats ~10 % in the tree's bookkeeping, for no accuracy that
/// `tests/reduce_accuracy.rs` could see.)
const BLOCK_ELEMS: usize = fold::LANES * 256;

/// Folds flat indices `range` of the expression into one value (without the init).
unsafe fn fold_range<T: Elem, F: Fn(T, T) -> T>(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, fold: &Fold<T, F>) -> T {
    let mut lanes = Lanes::new(fold.id);
    if range.is_empty() {
        return fold.id;
    }
    let mut tree = PairwiseTree::new(fold.id, fold::LANES);
    if let Some((input, offset)) = ex.as_contiguous_load() {
        // A plain reduce of an input: fold it where it is.
        let v = std::slice::from_raw_parts((inputs[input] as *const T).wrapping_add(offset + range.start), range.len());
        if v.len() <= BLOCK_ELEMS {
            fold.slice(&mut lanes, v);
            return lanes.finish(&fold.f);
        }
        for block in v.chunks(BLOCK_ELEMS) {
            let mut part = Lanes::new(fold.id);
            fold.slice(&mut part, block);
            tree.add(&part.0, &fold.f);
        }
    } else {
        let mut taken = 0;
        fused::eval_chunks(ex, inputs, range, |result, _, len| {
            fold.slice(&mut lanes, &T::slice(result)[..len]);
            taken += len;
            if taken >= BLOCK_ELEMS {
                tree.add(&lanes.0, &fold.f);
                lanes = Lanes::new(fold.id);
                taken = 0;
            }
        });
        if tree.is_empty() {
            return lanes.finish(&fold.f);
        }
        tree.add(&lanes.0, &fold.f);
    }
    let mut all = Lanes::new(fold.id);
    all.0.copy_from_slice(&tree.finish(&fold.f));
    all.finish(&fold.f)
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
        ReduceLayout::Middle { outer, reduced, inner } if outer >= workers.threads() => {
            // Enough independent outputs for every thread: each folds whole [reduced, inner] slabs.
            workers.for_ranges(outer, 1, reduced * inner, &|os| {
                for o in os {
                    let acc = fold_rect(ex, ptrs.get(), o * reduced * inner, inner, 0..reduced, 0..inner, &fold);
                    for (k, a) in acc.into_iter().enumerate() {
                        *(out.get() as *mut T).add(o * inner + k) = (fold.f)(init, a);
                    }
                }
            })
        }
        ReduceLayout::Middle { outer, reduced, inner } => {
            for o in 0..outer {
                columns(ex, ptrs.get(), o * reduced * inner, reduced, inner, init, &fold, out, o * inner, workers);
            }
        }
    }
}

/// Rows a column fold adds one at a time before the block joins the pairwise tree (see `fold_rect`).
const BLOCK_ROWS: usize = 16;

/// Folds `rows` rows of `inner` elements starting at flat index `base` into `inner` outputs
/// written from `out_offset`. With enough columns for every thread, each thread owns a range of
/// columns over all rows; otherwise (BatchNorm's statistics: 64 channels, thousands of rows) each
/// takes a range of rows of every column and the partial folds join in row order.
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
    let write = |first: usize, acc: Vec<T>| {
        for (k, a) in acc.into_iter().enumerate() {
            *(out.get() as *mut T).add(out_offset + first + k) = (fold.f)(init, a);
        }
    };
    if inner >= workers.threads() * CHUNK {
        workers.for_ranges(inner, CHUNK, rows, &|cols| write(cols.start, fold_rect(ex, ptrs.get(), base, inner, 0..rows, cols.clone(), fold)));
    } else {
        let parts = Mutex::new(Vec::new());
        workers.for_ranges(rows, BLOCK_ROWS, inner, &|rs| {
            let part = fold_rect(ex, ptrs.get(), base, inner, rs.clone(), 0..inner, fold);
            parts.lock().unwrap().push((rs.start, part));
        });
        let mut parts = parts.into_inner().unwrap();
        parts.sort_by_key(|p| p.0);
        let mut parts = parts.into_iter().map(|p| p.1);
        let mut acc = parts.next().unwrap_or_else(|| vec![fold.id; inner]);
        for p in parts {
            fold::combine(&mut acc, &p, &fold.f);
        }
        write(0, acc);
    }
}

/// The fold over rows `rows` of columns `cols` of the `[rows, inner]` view starting at flat index
/// `base`, one value per column, on this thread.
///
/// Each column folds a block of rows (`BLOCK_ROWS`, more when rows are short) and the blocks are
/// folded pairwise (a binary counter of partial folds), so a float sum of n rows carries about
/// log2(n / 16) + 16 roundings instead of n: BatchNorm's statistics over N*H*W rows were 20-30
/// times less accurate than XLA:CPU's with one running accumulator per column (decision 66).
///
/// Whole rows shorter than a chunk are read several per chunk, and rows shorter than
/// `fold::LANES` side by side as one wide row (m rows of `inner` = one row of `inner * m`) whose m
/// partial folds per column are combined at the end: a fold of 16K rows of 64 (or of 3) columns
/// then takes 1K vector combines instead of 16K short ones.
unsafe fn fold_rect<T: Elem, F: Fn(T, T) -> T>(
    ex: &Compiled,
    ptrs: &[*const u8],
    base: usize,
    inner: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    fold: &Fold<T, F>,
) -> Vec<T> {
    let contiguous = ex.as_contiguous_load();
    ex.with_registers(|regs| {
        // The values of flat indices `start..start + len` (len <= CHUNK): in place for a plain
        // input, else evaluated into the last register.
        let mut ready = 0;
        let mut values = |start: usize, len: usize, regs: &mut [Buf]| -> *const T {
            match contiguous {
                Some((input, offset)) => (ptrs[input] as *const T).wrapping_add(offset + start),
                None => {
                    ex.eval(ptrs, start, len, regs, ready >= len);
                    ready = len;
                    T::slice(&regs[regs.len() - 1]).as_ptr()
                }
            }
        };
        if cols.start == 0 && cols.end == inner && (1..=CHUNK).contains(&inner) {
            let m = if inner < fold::LANES { fold::LANES / inner } else { 1 };
            let wide = inner * m;
            let per_chunk = (CHUNK / wide).max(1) * m;
            let mut tree = PairwiseTree::new(fold.id, wide);
            let mut block = vec![fold.id; wide];
            let (mut r, mut in_block) = (rows.start, 0);
            while r < rows.end {
                let k = per_chunk.min(rows.end - r);
                let v = std::slice::from_raw_parts(values(base + r * inner, k * inner, regs), k * inner);
                let mut wide_rows = v.chunks_exact(wide);
                for row in &mut wide_rows {
                    fold::combine(&mut block, row, &fold.f);
                }
                for row in wide_rows.remainder().chunks_exact(inner) {
                    fold::combine(&mut block[..inner], row, &fold.f);
                }
                r += k;
                in_block += k;
                if in_block >= BLOCK_ROWS * m || r == rows.end {
                    block = tree.push(block, &fold.f);
                    in_block = 0;
                }
            }
            let acc = tree.finish(&fold.f);
            let mut out = acc[..inner].to_vec();
            for side in acc[inner..].chunks_exact(inner) {
                fold::combine(&mut out, side, &fold.f);
            }
            return out;
        }
        let mut tree = PairwiseTree::new(fold.id, cols.len());
        let mut block = vec![fold.id; cols.len()];
        for i in rows.clone() {
            let mut j = cols.start;
            while j < cols.end {
                let len = CHUNK.min(cols.end - j);
                let v = std::slice::from_raw_parts(values(base + i * inner + j, len, regs), len);
                fold::combine(&mut block[j - cols.start..j - cols.start + len], v, &fold.f);
                j += len;
            }
            if (i + 1 - rows.start) % BLOCK_ROWS == 0 || i + 1 == rows.end {
                block = tree.push(block, &fold.f);
            }
        }
        tree.finish(&fold.f)
    })
}

/// Partial folds of 1, 2, 4, ... blocks of columns, merged as a binary counter carries, so that
/// each result is a balanced tree of blocks.
struct PairwiseTree<T> {
    id: T,
    width: usize,
    /// `levels[k]` holds the fold of 2^k blocks, when that bit of the count is set.
    levels: Vec<Option<Vec<T>>>,
    /// Buffers to reuse as the next block.
    spare: Vec<Vec<T>>,
}

impl<T: Copy> PairwiseTree<T> {
    fn new(id: T, width: usize) -> Self {
        PairwiseTree { id, width, levels: Vec::new(), spare: Vec::new() }
    }

    /// Adds one block's fold; returns a buffer of the identity for the next block.
    fn push(&mut self, mut carry: Vec<T>, f: &impl Fn(T, T) -> T) -> Vec<T> {
        for level in self.levels.iter_mut() {
            match level.take() {
                None => {
                    *level = Some(carry);
                    return self.fresh();
                }
                Some(mut earlier) => {
                    fold::combine(&mut earlier, &carry, f);
                    self.spare.push(carry);
                    carry = earlier;
                }
            }
        }
        self.levels.push(Some(carry));
        self.fresh()
    }

    /// Adds one block's fold given as a slice (copied).
    fn add(&mut self, block: &[T], f: &impl Fn(T, T) -> T) {
        let mut carry = self.fresh();
        carry.copy_from_slice(block);
        let next = self.push(carry, f);
        self.spare.push(next);
    }

    fn is_empty(&self) -> bool {
        self.levels.iter().all(Option::is_none)
    }

    fn fresh(&mut self) -> Vec<T> {
        match self.spare.pop() {
            Some(mut v) => {
                v.fill(self.id);
                v
            }
            None => vec![self.id; self.width],
        }
    }

    /// The fold of every block pushed (the identity if none).
    fn finish(mut self, f: &impl Fn(T, T) -> T) -> Vec<T> {
        let mut parts = self.levels.drain(..).flatten();
        let Some(mut acc) = parts.next() else { return vec![self.id; self.width] };
        for p in parts {
            fold::combine(&mut acc, &p, f);
        }
        acc
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
        E::Pred => match op {
            B::And | B::Minimum => go!(u8, 1, |a: u8, b: u8| a & b),
            _ => go!(u8, 0, |a: u8, b: u8| a | b),
        },
        E::F32 => float!(f32, fused::fmax32, fused::fmin32),
        E::F64 => float!(f64, fused::fmax64, fused::fmin64),
        E::S32 => int!(i32),
        E::S64 => int!(i64),
        E::U32 => int!(u32),
        E::U64 => int!(u64),
        _ => {}
    }
}
