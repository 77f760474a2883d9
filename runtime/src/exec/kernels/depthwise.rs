//! Depthwise convolutions on channel vectors (`DepthwiseConvKernel`, recognised in
//! `apu_compiler::plan::depthwise`): each tile is (outer item, block of output positions, block of
//! channels); its accumulators are `POSITIONS x CHUNK` values, and every (contracted item, output
//! position, window position) adds one product of two channel vectors. Channels are the innermost
//! dimension of NHWC tensors and of JAX's depthwise kernels, so those vectors are contiguous and the
//! inner loop is a plain vector multiply-add; window rows inside the input take no bounds test.

use crate::exec::fused::{cpu_level, CpuLevel};
use super::gemm::Element;
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::ElementType as E;
use apu_compiler::plan::DepthwiseConvKernel;
use std::ops::{Add, Mul};

/// Channels per tile: one AVX-512 register of f32 (two of f64).
const CHUNK: usize = 16;
/// Output positions per tile: 32 x 16 f32 accumulators stay in L1.
const POSITIONS: usize = 32;

trait Value: Element + Add<Output = Self> + Mul<Output = Self> {}
impl Value for f32 {}
impl Value for f64 {}

/// # Safety
/// The slots must hold the kernel's operand and output shapes.
pub unsafe fn run(k: &DepthwiseConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    match k.elem {
        E::F32 => run_typed::<f32>(k, lhs, rhs, out, workers),
        E::F64 => run_typed::<f64>(k, lhs, rhs, out, workers),
        _ => {}
    }
}

unsafe fn run_typed<T: Value>(k: &DepthwiseConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    let positions = k.out_spatial[0] * k.out_spatial[1];
    let chunks = k.channels.div_ceil(CHUNK);
    let blocks = positions.div_ceil(POSITIONS);
    let tiles = k.outer * blocks * chunks;
    if tiles == 0 {
        return;
    }
    let windows = k.kernel_spatial[0] * k.kernel_spatial[1];
    let cost = POSITIONS.min(positions) * windows * k.contract * CHUNK;
    let (lp, rp, op) = (Ptr(lhs.get()), Ptr(rhs.get()), Ptr(out.get()));
    let level = cpu_level();
    workers.for_ranges(tiles, 1, cost, &|range| {
        let mut acc = [T::ZERO; POSITIONS * CHUNK];
        for tile in range {
            let (o, rest) = (tile / (blocks * chunks), tile % (blocks * chunks));
            let (block, chunk) = (rest / chunks, rest % chunks);
            let c0 = chunk * CHUNK;
            let cn = CHUNK.min(k.channels - c0);
            let p0 = block * POSITIONS;
            let pn = POSITIONS.min(positions - p0);
            let t = Tile { o, c0, cn, p0, pn };
            match level {
                // SAFETY: the level is only chosen when the CPU has these extensions.
                #[cfg(target_arch = "x86_64")]
                CpuLevel::Avx512 => tile_avx512(k, &t, lp.get() as *const T, rp.get() as *const T, op.get() as *mut T, &mut acc),
                #[cfg(target_arch = "x86_64")]
                CpuLevel::Avx2 => tile_avx2(k, &t, lp.get() as *const T, rp.get() as *const T, op.get() as *mut T, &mut acc),
                _ => tile_body(k, &t, lp.get() as *const T, rp.get() as *const T, op.get() as *mut T, &mut acc),
            }
        }
    });
}

/// One tile: outer item `o`, channels `c0..c0 + cn`, output positions `p0..p0 + pn` (row-major).
struct Tile {
    o: usize,
    c0: usize,
    cn: usize,
    p0: usize,
    pn: usize,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn tile_avx512<T: Value>(k: &DepthwiseConvKernel, t: &Tile, lp: *const T, rp: *const T, op: *mut T, acc: &mut [T; POSITIONS * CHUNK]) {
    tile_body(k, t, lp, rp, op, acc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2<T: Value>(k: &DepthwiseConvKernel, t: &Tile, lp: *const T, rp: *const T, op: *mut T, acc: &mut [T; POSITIONS * CHUNK]) {
    tile_body(k, t, lp, rp, op, acc)
}

/// The input index of padded, dilated position `p` along a dimension of `size` elements with input
/// dilation `ld`, or `None` for padding and dilation holes.
#[inline(always)]
fn undilate(p: isize, ld: isize, size: usize) -> Option<isize> {
    if p < 0 {
        return None;
    }
    let i = if ld == 1 {
        p
    } else if p % ld == 0 {
        p / ld
    } else {
        return None;
    };
    ((i as usize) < size).then_some(i)
}

/// `acc[j] += l[j * ls] * r[j * rs]` for `j < acc.len()`.
#[inline(always)]
unsafe fn multiply_add<T: Value>(acc: &mut [T], l: *const T, r: *const T, ls: isize, rs: isize) {
    if ls == 1 && rs == 1 && acc.len() == CHUNK {
        let (l, r) = (&*(l as *const [T; CHUNK]), &*(r as *const [T; CHUNK]));
        for j in 0..CHUNK {
            acc[j] = acc[j] + l[j] * r[j];
        }
    } else {
        for (j, a) in acc.iter_mut().enumerate() {
            *a = *a + *l.offset(j as isize * ls) * *r.offset(j as isize * rs);
        }
    }
}

#[inline(always)]
unsafe fn tile_body<T: Value>(k: &DepthwiseConvKernel, t: &Tile, lp: *const T, rp: *const T, op: *mut T, acc: &mut [T; POSITIONS * CHUNK]) {
    let [kh, kw] = k.kernel_spatial;
    let [ih, iw] = k.in_spatial;
    let ow = k.out_spatial[1].max(1);
    let [sy, sx] = k.window_strides.map(|s| s as isize);
    let [dy, dx] = k.rhs_dilation.map(|d| d as isize);
    let [ldy, ldx] = k.lhs_dilation.map(|d| d as isize);
    let [lo, lc, lcs] = k.lhs_strides;
    let [lys, lxs] = k.lhs_spatial_strides;
    let [rc, rcs] = k.rhs_strides;
    let [rys, rxs] = k.rhs_spatial_strides;
    let (cn, c0) = (t.cn, t.c0 as isize);
    acc[..t.pn * CHUNK].fill(T::ZERO);
    for n in 0..k.contract as isize {
        let lbase = t.o as isize * lo + n * lc + c0 * lcs;
        let rbase = n * rc + c0 * rcs;
        for p in 0..t.pn {
            let s = t.p0 + p;
            let (oy, ox) = ((s / ow) as isize, (s % ow) as isize);
            let y0 = oy * sy - k.pad_low[0];
            let x0 = ox * sx - k.pad_low[1];
            let a = &mut acc[p * CHUNK..p * CHUNK + cn];
            for ky in 0..kh as isize {
                let Some(iy) = undilate(y0 + ky * dy, ldy, ih) else { continue };
                let (lrow, rrow) = (lp.offset(lbase + iy * lys), rp.offset(rbase + ky * rys));
                if ldx == 1 {
                    // The window positions kx with 0 <= x0 + kx * dx < iw, without a test each.
                    let first = if x0 >= 0 { 0 } else { (-x0 + dx - 1) / dx };
                    let end = if x0 >= iw as isize { 0 } else { ((iw as isize - x0 + dx - 1) / dx).min(kw as isize) };
                    for kx in first..end {
                        multiply_add(a, lrow.offset((x0 + kx * dx) * lxs), rrow.offset(kx * rxs), lcs, rcs);
                    }
                } else {
                    for kx in 0..kw as isize {
                        if let Some(ix) = undilate(x0 + kx * dx, ldx, iw) {
                            multiply_add(a, lrow.offset(ix * lxs), rrow.offset(kx * rxs), lcs, rcs);
                        }
                    }
                }
            }
        }
    }
    let [oo, ocs] = k.out_strides;
    let [oys, oxs] = k.out_spatial_strides;
    for p in 0..t.pn {
        let s = t.p0 + p;
        let (oy, ox) = ((s / ow) as isize, (s % ow) as isize);
        let dst = op.offset(t.o as isize * oo + oy * oys + ox * oxs + c0 * ocs);
        for j in 0..cn {
            *dst.offset(j as isize * ocs) = acc[p * CHUNK + j];
        }
    }
}
