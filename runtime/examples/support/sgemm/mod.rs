//! An f32 GEMM of our own for CPUs with AVX-512, as an experiment beside `gemm` in the
//! `gemm_compare` example: C = A . B with C row-major and A, B strided.
//!
//! Why it is here and not in the runtime (decision 41): the large matmuls stayed level with
//! XLA:CPU, and the question was whether a kernel and blocking of our own, tuned for this Zen 5
//! machine, would beat the `gemm` crate (which exposes no blocking to tune). It does not: on one
//! thread it runs at the crate's speed (both at ~94 % of the FMA peak), and on two threads both
//! lose the same ~6 % per thread, which twins of one product (each thread its own C) lose too.
//! This is the classic blocked scheme: B is packed a `kc x nc` block at a time, A a `mc x kc`
//! block at a time, and the micro-kernel ([`kernel::tile`]) runs each tile with one sliver in L1.

pub mod kernel;
pub mod pack;

pub use pack::View;
use std::cell::RefCell;

/// Cache blocking: depth of a packed block (`kc`), rows of a packed A block (`mc`), columns of a
/// packed B block (`nc`).
#[derive(Clone, Copy, Debug)]
pub struct Blocking {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
    /// Loop order inside a block pair: false keeps each B sliver in L1 while the A slivers of
    /// the block stream past it; true keeps each A sliver in L1 while the B block streams.
    pub stream_b: bool,
}

impl Blocking {
    /// Sized for 48 KiB of L1 and 1 MiB of L2 per core (Zen 5): a B sliver `kc * nr * 4` = 32 KiB
    /// stays in L1 while the A slivers stream past it; an A block `mc * kc * 4` = 240 KiB stays in
    /// L2 while the B slivers of a block take turns.
    pub const DEFAULT: Blocking = Blocking { kc: 256, mc: 240, nc: 4096, stream_b: false };
}

/// C = A . B with the 12 x 32 tile (see [`gemm_shape`]).
///
/// # Safety
/// As for [`gemm_shape`].
pub unsafe fn gemm(m: usize, n: usize, k: usize, a: View, b: View, c: *mut f32, ldc: usize, blocking: Blocking) {
    gemm_shape::<12, 2>(m, n, k, a, b, c, ldc, blocking)
}

/// Whether this CPU can run the kernel.
pub fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

thread_local! {
    /// Packing buffers, kept per thread between calls (A block, B block).
    static BUFFERS: RefCell<(Aligned, Aligned)> = const { RefCell::new((Aligned::new(), Aligned::new())) };
}

/// A growable f32 buffer whose start is 64-byte aligned (the kernel's aligned loads of B).
struct Aligned {
    data: Vec<f32>,
}

impl Aligned {
    const fn new() -> Aligned {
        Aligned { data: Vec::new() }
    }
    fn get(&mut self, len: usize) -> *mut f32 {
        if self.data.len() < len + 16 {
            self.data = vec![0.0; len + 16];
        }
        let p = self.data.as_mut_ptr();
        p.wrapping_add(p.align_offset(64))
    }
}

/// C[0..m, 0..n] = A[0..m, 0..k] . B[0..k, 0..n] on this thread; C has row stride `ldc` and is
/// written without being read first (it may be uninitialised). `k` must be at least 1.
///
/// # Safety
/// The views cover their matrices, `c` covers `m` rows of `n` at stride `ldc`, and
/// [`available`] is true.
pub unsafe fn gemm_shape<const MR: usize, const NV: usize>(m: usize, n: usize, k: usize, a: View, b: View, c: *mut f32, ldc: usize, blocking: Blocking) {
    let nr = 16 * NV;
    let Blocking { kc: kc_max, mc: mc_max, nc: nc_max, stream_b } = blocking;
    let mc_max = mc_max.div_ceil(MR) * MR;
    let nc_max = nc_max.div_ceil(nr) * nr;
    BUFFERS.with(|bufs| {
        let (abuf, bbuf) = &mut *bufs.borrow_mut();
        let ap = abuf.get(mc_max.min(m.div_ceil(MR) * MR) * kc_max.min(k));
        let bp = bbuf.get(nc_max.min(n.div_ceil(nr) * nr) * kc_max.min(k));
        for jc in (0..n).step_by(nc_max) {
            let nc = (n - jc).min(nc_max);
            for pc in (0..k).step_by(kc_max) {
                let kc = (k - pc).min(kc_max);
                pack::pack_b(b, pc, kc, jc, nc, nr, bp);
                for ic in (0..m).step_by(mc_max) {
                    let mc = (m - ic).min(mc_max);
                    pack::pack_a::<MR>(a, ic, mc, pc, kc, ap);
                    let one = |ir: usize, jr: usize| {
                        let cols = (nc - jr * nr).min(nr);
                        let rows = (mc - ir * MR).min(MR);
                        let cp = c.add((ic + ir * MR) * ldc + jc + jr * nr);
                        kernel::tile::<MR, NV>(kc, ap.add(ir * kc * MR), bp.add(jr * kc * nr), cp, ldc, rows, cols, pc > 0);
                    };
                    if stream_b {
                        for ir in 0..mc.div_ceil(MR) {
                            for jr in 0..nc.div_ceil(nr) {
                                one(ir, jr);
                            }
                        }
                    } else {
                        for jr in 0..nc.div_ceil(nr) {
                            for ir in 0..mc.div_ceil(MR) {
                                one(ir, jr);
                            }
                        }
                    }
                }
            }
        }
    })
}
