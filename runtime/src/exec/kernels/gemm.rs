//! dot_general as batched GEMM on the `gemm` crate. Operands are addressed by strides, so
//! transposed operands are not copied. Products are split by rows across the program's threads
//! (the calling thread and its helpers), each block a one-thread GEMM: a large product in one
//! block per thread, many small products (batch dims) in blocks of rows (decision 43).

use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::ElementType as E;
use apu_compiler::plan::DotKernel;
use gemm::Parallelism;

/// Products of at least this many multiply-adds (m * n * k) are split into one block of rows per
/// thread; below it one product is cheaper on one thread than the hand-off (about 128^3).
const SPLIT_ONE_PRODUCT: usize = 1 << 21;

/// Multiply-adds per unit of `min_parallel_work` (which counts an elementwise kernel's operations
/// on elements): a product is split from 4 * 2^16 = 2^18 multiply-adds, about 2-3 µs of one
/// thread's work. Counted one for one, products of ~64^3 (2^17) were split: 1-2 µs of work, about
/// what handing it out costs, and on this machine's slow-sharing hours (its two CPUs not sharing a
/// cache) the split made neural-ODE training 2x slower than one thread. At 16, products of
/// 32x128x128 (2^19) ran on one thread and LSTM/GRU steps lost 10-60 % (decision 81).
const MULTIPLY_ADDS_PER_UNIT: usize = 4;

pub fn supported(lhs: E, rhs: E, out: E) -> bool {
    lhs == rhs && rhs == out && matches!(out, E::F32 | E::F64)
}

/// Whether `d` is one product large enough to be split into one block of rows per thread.
fn one_block_per_thread(d: &DotKernel, workers: &Workers) -> bool {
    let product = d.m.saturating_mul(d.n).saturating_mul(d.k);
    workers.threads() > 1 && product >= SPLIT_ONE_PRODUCT && workers.worth_splitting(product)
}

/// # Safety
/// `a`, `b` must cover every element the kernel's strides reach; `c` must hold batch*m*n elements.
pub unsafe fn run(d: &DotKernel, a: Ptr, b: Ptr, c: Ptr, workers: &Workers) {
    let (m, n, k) = (d.m, d.n, d.k);
    let rows = d.batch * m;
    if rows == 0 || n == 0 {
        return;
    }
    let cost = n.saturating_mul(k).div_ceil(MULTIPLY_ADDS_PER_UNIT).max(1);
    let f = |r: std::ops::Range<usize>| {
        let mut row = r.start;
        while row < r.end {
            let (bi, mi) = (row / m, row % m);
            let take = (m - mi).min(r.end - row);
            block(d, a, b, c, bi, mi, take);
            row += take;
        }
    };
    // A large product: one block of rows per thread, since each block packs all of B once and
    // fewer, larger blocks pack less (with decision 42 each CPU takes the same rows every call).
    // Otherwise rows aligned to 16, which keep the GEMM's packed panels whole.
    let align = if one_block_per_thread(d, workers) { m.div_ceil(workers.threads()).next_multiple_of(16) } else { 16 };
    workers.for_ranges(rows, align, cost, &f);
}

/// Rows `mi..mi + rows` of product `bi`, on this thread.
#[allow(clippy::too_many_arguments)]
unsafe fn block(d: &DotKernel, a: Ptr, b: Ptr, c: Ptr, bi: usize, mi: usize, rows: usize) {
    match d.elem {
        E::F32 => block_typed::<f32>(d, a, b, c, bi, mi, rows),
        E::F64 => block_typed::<f64>(d, a, b, c, bi, mi, rows),
        _ => {}
    }
}

/// The element types the GEMM kernels (dot_general and convolution) run on.
pub(in crate::exec) trait Element: Copy + Default + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
}
impl Element for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}
impl Element for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}

#[allow(clippy::too_many_arguments)]
unsafe fn block_typed<T: Element>(d: &DotKernel, a: Ptr, b: Ptr, c: Ptr, bi: usize, mi: usize, rows: usize) {
    let [lbs, lms, lks] = d.lhs_strides;
    let [rbs, rks, rns] = d.rhs_strides;
    let (n, k) = (d.n, d.k);
    let a_off = d.lhs_offset as isize + bi as isize * lbs + mi as isize * lms;
    let b_off = d.rhs_offset as isize + bi as isize * rbs;
    let cp = (c.get() as *mut T).add((bi * d.m + mi) * n);
    if k == 0 {
        // An empty sum: the output is zero.
        std::ptr::write_bytes(cp, 0, rows * n);
        return;
    }
    // c = a.b, without reading c (it is uninitialised scratch).
    product(rows, n, k, (a.get() as *const T).offset(a_off), lks, lms, (b.get() as *const T).offset(b_off), rns, rks, cp, 1, n as isize)
}

/// Products whose row-major output rows are narrower than one 64-byte vector are computed into a
/// column-major scratch and copied over (when there are at least this many times more rows).
const NARROW_ROWS_RATIO: usize = 2;

thread_local! {
    /// The column-major scratch of narrow products, kept for the next product on this thread.
    static NARROW: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// c[m, n] = a[m, k] * b[k, n] on this thread, every operand addressed by (column, row) strides;
/// c is written without being read. The `gemm` crate turns a product with a row-major output
/// around (its microkernel wants the output's columns contiguous), so an output of 6 or 10
/// features ran the m = 6 rows of the turned product in 16-lane vectors, 10 lanes of 16 idle
/// (LeNet's 6-feature convolutions and every 10-class dense layer). Such products are computed
/// column-major, the long dimension on the vector lanes, and copied into place (decision 82).
#[allow(clippy::too_many_arguments)]
pub(in crate::exec) unsafe fn product<T: Element>(
    m: usize,
    n: usize,
    k: usize,
    a: *const T,
    a_cs: isize,
    a_rs: isize,
    b: *const T,
    b_cs: isize,
    b_rs: isize,
    c: *mut T,
    c_cs: isize,
    c_rs: isize,
) {
    let narrow = c_cs.unsigned_abs() < c_rs.unsigned_abs() && n * std::mem::size_of::<T>() < 64 && m >= NARROW_ROWS_RATIO * n && n > 1;
    if !narrow {
        gemm::gemm(m, n, k, c, c_cs, c_rs, false, a, a_cs, a_rs, b, b_cs, b_rs, T::ZERO, T::ONE, false, false, false, Parallelism::None);
        return;
    }
    super::scratch::with_scratch(&NARROW, m * n, |t: *mut T| {
        gemm::gemm(m, n, k, t, m as isize, 1, false, a, a_cs, a_rs, b, b_cs, b_rs, T::ZERO, T::ONE, false, false, false, Parallelism::None);
        for i in 0..m {
            let row = c.offset(i as isize * c_rs);
            for j in 0..n {
                *row.offset(j as isize * c_cs) = *t.add(j * m + i);
            }
        }
    })
}
