//! The AVX-512 micro-kernel: one MR x NR tile of C from a packed sliver of A (MR rows, `kc`
//! deep) and a packed sliver of B (`kc` deep, NR columns).
//!
//! Why this shape: the tile's 12 x 2 accumulators, the two vectors of B and the broadcasts (taken
//! from memory by the FMA itself) fit in the 32 vector registers with room to spare, and 24
//! independent FMA chains cover the FMA latency of two 512-bit pipes (4 cycles x 2 pipes = 8
//! chains at least). Per step of k it loads 2 vectors and 12 scalars for 24 FMAs, well under the
//! two loads per cycle the core can issue.

use std::arch::x86_64::*;

/// C[0..rows, 0..cols] (+)= A_sliver . B_sliver, C row-major with row stride `ldc`; the tile is
/// MR rows by NV vectors of 16 columns.
///
/// # Safety
/// `a` holds `kc * MR` floats and `b` holds `kc * NR` floats (packed, 64-byte aligned); `c` covers
/// `rows` rows of `cols` columns at stride `ldc`; the CPU has AVX-512F. `rows <= MR`, `cols <= NR`.
#[target_feature(enable = "avx512f")]
pub unsafe fn tile<const MR: usize, const NV: usize>(kc: usize, a: *const f32, b: *const f32, c: *mut f32, ldc: usize, rows: usize, cols: usize, accumulate: bool) {
    if accumulate {
        // The tile's rows of C come from L3 or memory; ask for them now (into L2, not L1, where
        // rows a power of two apart would all land in one set and push out the B sliver) so
        // they are near by the time the k loop is done.
        for i in 0..rows {
            let cp = c.add(i * ldc) as *const i8;
            for v in 0..NV {
                _mm_prefetch::<_MM_HINT_T1>(cp.add(64 * v));
            }
        }
    }
    let mut acc = [[_mm512_setzero_ps(); NV]; MR];
    let (mut ap, mut bp) = (a, b);
    for _ in 0..kc {
        let mut bv = [_mm512_setzero_ps(); NV];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = _mm512_load_ps(bp.add(16 * v));
        }
        for (i, row) in acc.iter_mut().enumerate() {
            let ai = _mm512_set1_ps(*ap.add(i));
            for v in 0..NV {
                row[v] = _mm512_fmadd_ps(ai, bv[v], row[v]);
            }
        }
        ap = ap.add(MR);
        bp = bp.add(16 * NV);
    }
    let mut masks = [0 as __mmask16; NV];
    for (v, mask) in masks.iter_mut().enumerate() {
        let left = cols.saturating_sub(16 * v).min(16);
        *mask = ((1u32 << left) - 1) as u16;
    }
    for (i, row) in acc.iter().enumerate() {
        if i >= rows {
            break;
        }
        let cp = c.add(i * ldc);
        for v in 0..NV {
            let mut x = row[v];
            if accumulate {
                x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(masks[v], cp.add(16 * v)));
            }
            _mm512_mask_storeu_ps(cp.add(16 * v), masks[v], x);
        }
    }
}
