//! dot_general as batched GEMM on `matrixmultiply`, with rows of the output split across threads
//! for large products. Operands are addressed by strides, so transposed operands are not copied.

use super::workers::Workers;
use super::Ptr;
use apu_compiler::ir::ElementType as E;
use apu_compiler::plan::DotKernel;

pub fn supported(lhs: E, rhs: E, out: E) -> bool {
    lhs == rhs && rhs == out && matches!(out, E::F32 | E::F64)
}

/// # Safety
/// `a`, `b` must cover every element the kernel's strides reach; `c` must hold batch*m*n elements.
pub unsafe fn run(d: &DotKernel, a: Ptr, b: Ptr, c: Ptr, workers: &Workers) {
    let (m, n, k) = (d.m, d.n, d.k);
    let rows = d.batch * m;
    if rows == 0 || n == 0 {
        return;
    }
    let cost = n.saturating_mul(k).max(1);
    let f = |r: std::ops::Range<usize>| {
        let mut row = r.start;
        while row < r.end {
            let (bi, mi) = (row / m, row % m);
            let take = (m - mi).min(r.end - row);
            block(d, a, b, c, bi, mi, take);
            row += take;
        }
    };
    // Rows aligned to 16 keep the GEMM's packed panels whole.
    workers.for_ranges(rows, 16, cost, &f);
}

unsafe fn block(d: &DotKernel, a: Ptr, b: Ptr, c: Ptr, bi: usize, mi: usize, rows: usize) {
    let [lbs, lms, lks] = d.lhs_strides;
    let [rbs, rks, rns] = d.rhs_strides;
    let (n, k) = (d.n, d.k);
    let a_off = d.lhs_offset as isize + bi as isize * lbs + mi as isize * lms;
    let b_off = d.rhs_offset as isize + bi as isize * rbs;
    let c_off = (bi * d.m + mi) * n;
    match d.elem {
        E::F32 => {
            let cp = (c.get() as *mut f32).add(c_off);
            if k == 0 {
                std::ptr::write_bytes(cp, 0, rows * n);
                return;
            }
            matrixmultiply::sgemm(
                rows,
                k,
                n,
                1.0,
                (a.get() as *const f32).offset(a_off),
                lms,
                lks,
                (b.get() as *const f32).offset(b_off),
                rks,
                rns,
                0.0,
                cp,
                n as isize,
                1,
            )
        }
        E::F64 => {
            let cp = (c.get() as *mut f64).add(c_off);
            if k == 0 {
                std::ptr::write_bytes(cp, 0, rows * n);
                return;
            }
            matrixmultiply::dgemm(
                rows,
                k,
                n,
                1.0,
                (a.get() as *const f64).offset(a_off),
                lms,
                lks,
                (b.get() as *const f64).offset(b_off),
                rks,
                rns,
                0.0,
                cp,
                n as isize,
                1,
            )
        }
        _ => {}
    }
}
