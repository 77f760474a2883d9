//! Packing of A and B blocks into the slivers the micro-kernel reads: contiguous, in the order
//! it reads them, with the last sliver padded with zeros so that the kernel never branches on a
//! short sliver inside its loop over k.

/// A strided view of a matrix: element (r, c) at `ptr[r * rs + c * cs]`.
#[derive(Clone, Copy)]
pub struct View {
    pub ptr: *const f32,
    pub rs: isize,
    pub cs: isize,
}

// SAFETY: a view only reads, and the caller of the GEMM keeps the matrix alive and unchanged for
// the product, on whichever threads run it.
unsafe impl Send for View {}
unsafe impl Sync for View {}

impl View {
    #[inline(always)]
    unsafe fn at(&self, r: usize, c: usize) -> *const f32 {
        self.ptr.offset(r as isize * self.rs + c as isize * self.cs)
    }
}

/// Rows `r0..r0 + mc`, columns (depth) `p0..p0 + kc` of A into `ceil(mc / MR)` slivers of
/// `kc * MR`: sliver s holds, for each p, the MR values of rows `s * MR ..`.
///
/// # Safety
/// `a` covers the block; `out` holds `mc.div_ceil(MR) * kc * MR` floats.
pub unsafe fn pack_a<const MR: usize>(a: View, r0: usize, mc: usize, p0: usize, kc: usize, out: *mut f32) {
    for s in 0..mc.div_ceil(MR) {
        let rows = (mc - s * MR).min(MR);
        let dst = out.add(s * kc * MR);
        let src = a.at(r0 + s * MR, p0);
        if a.cs == 1 {
            // Rows are contiguous along p: read each row in order, write with stride MR.
            for i in 0..rows {
                let row = src.offset(i as isize * a.rs);
                for p in 0..kc {
                    *dst.add(p * MR + i) = *row.add(p);
                }
            }
        } else {
            for p in 0..kc {
                let col = src.offset(p as isize * a.cs);
                for i in 0..rows {
                    *dst.add(p * MR + i) = *col.offset(i as isize * a.rs);
                }
            }
        }
        for p in 0..kc {
            for i in rows..MR {
                *dst.add(p * MR + i) = 0.0;
            }
        }
    }
}

/// Rows (depth) `p0..p0 + kc`, columns `c0..c0 + nc` of B into `ceil(nc / nr)` slivers of
/// `kc * nr`: sliver s holds, for each p, the nr values of columns `s * nr ..`.
///
/// # Safety
/// `b` covers the block; `out` holds `nc.div_ceil(nr) * kc * nr` floats.
pub unsafe fn pack_b(b: View, p0: usize, kc: usize, c0: usize, nc: usize, nr: usize, out: *mut f32) {
    for s in 0..nc.div_ceil(nr) {
        let cols = (nc - s * nr).min(nr);
        let dst = out.add(s * kc * nr);
        let src = b.at(p0, c0 + s * nr);
        if b.cs == 1 {
            for p in 0..kc {
                let d = dst.add(p * nr);
                std::ptr::copy_nonoverlapping(src.offset(p as isize * b.rs), d, cols);
                std::ptr::write_bytes(d.add(cols), 0, nr - cols);
            }
        } else {
            // Columns are contiguous along p (a transposed B): read each column in order.
            for j in 0..cols {
                let col = src.offset(j as isize * b.cs);
                for p in 0..kc {
                    *dst.add(p * nr + j) = *col.offset(p as isize * b.rs);
                }
            }
            for p in 0..kc {
                std::ptr::write_bytes(dst.add(p * nr + cols), 0, nr - cols);
            }
        }
    }
}
