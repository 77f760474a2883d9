//! Convolutions whose windows are long and whose output is small, as dot products read straight
//! from the input: JAX's filter gradients. There the window is the output gradient's whole spatial
//! extent (LeNet's first layer: 28 x 28 positions of 64 batch items, 50176 multiply-adds per output
//! element) and the output is the kernel's (5 x 5 x 6). im2col copied the window of every output
//! position (a 5 MiB patch matrix for 150 outputs) and the product had 25 rows: one block, one
//! thread. Here the features (the batch, repacked innermost) and the window's last dimension are one
//! contiguous run of the input, so output positions that are neighbours along that dimension read
//! overlapping runs of the same row with no copy: a tile of `MR` such positions by `NR` output
//! features keeps `MR * NR` vector accumulators over the runs and loads each input vector once for
//! `NR` products and each kernel vector once for `MR`. Threads split the window's outer rows and
//! each sums into its own copy of the small output; the copies are added in a fixed order, so a
//! result does not depend on which thread took which rows (decision 82).

use super::gemm::Element;
use super::transpose::Transposed;
use crate::exec::fused::{cpu_level, CpuLevel};
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::plan::ConvKernel;
use std::ops::{Add, Mul};

/// Contiguous runs shorter than this many elements leave the dot form to im2col.
const MIN_RUN: usize = 128;
/// Outputs larger than this (elements) leave the dot form to im2col: every piece of work keeps a
/// copy of the output.
const MAX_OUTPUT: usize = 1 << 16;

pub(super) trait Value: Element + Add<Output = Self> + Mul<Output = Self> {
    fn fused(self, b: Self, c: Self) -> Self;
}
impl Value for f32 {
    #[inline(always)]
    fn fused(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}
impl Value for f64 {
    #[inline(always)]
    fn fused(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// Whether `c` (its input already repacked features-innermost where that applies) runs here: one
/// group, no input dilation, every window row one long contiguous run of the input, a small output
/// that the contraction dwarfs.
pub(super) fn suits(c: &ConvKernel) -> bool {
    let ns = c.in_spatial.len();
    if ns == 0 || c.groups > 1 || c.lhs_dilation.iter().any(|&d| d != 1) || c.lhs_feature_stride != 1 {
        return false;
    }
    let f = c.in_features;
    if c.lhs_spatial_strides[ns - 1] != f as isize {
        return false;
    }
    let run = if c.rhs_dilation[ns - 1] == 1 { c.kernel_spatial[ns - 1] * f } else { f };
    let windows: usize = c.kernel_spatial.iter().product();
    let out = c.batch * c.out_spatial.iter().product::<usize>() * c.out_features;
    run >= MIN_RUN && out <= MAX_OUTPUT && out <= windows * f
}

/// The geometry of one dot-form convolution, in elements.
struct Geometry {
    f: usize,
    co: usize,
    /// The window's last dimension: size, dilation, stride; the input's, and the output's.
    kx: usize,
    dx: usize,
    sx: usize,
    w: usize,
    ox: usize,
    pad_x: isize,
    /// Per output position of the outer dimensions, `ox * co` outputs; per batch item `oy * ..`.
    oy: usize,
    wy: usize,
    /// The repacked kernel: `co` rows of `k` = all window positions times `f`.
    k: usize,
}

/// # Safety
/// `c` must satisfy [`suits`]; `lhs` holds its input, `rhs` its kernel, `out` its output.
pub(super) unsafe fn run<T: Value>(c: &ConvKernel, lhs: *const T, rhs: Ptr, out: Ptr, workers: &Workers) {
    let ns = c.in_spatial.len();
    let last = ns - 1;
    let g = Geometry {
        f: c.in_features,
        co: c.out_features,
        kx: c.kernel_spatial[last],
        dx: c.rhs_dilation[last],
        sx: c.window_strides[last],
        w: c.in_spatial[last],
        ox: c.out_spatial[last],
        pad_x: c.pad_low[last],
        oy: c.out_spatial[..last].iter().product(),
        wy: c.kernel_spatial[..last].iter().product(),
        k: c.kernel_spatial.iter().product::<usize>() * c.in_features,
    };
    let outputs = c.batch * g.oy * g.ox * g.co;
    if outputs == 0 {
        return;
    }
    with_kernel_rows::<T, _>(c, rhs, workers, |kernel| {
        let items = c.batch * g.oy * g.wy;
        let cost = g.ox * g.co * g.kx * g.f;
        let pieces = if workers.worth_splitting(items.saturating_mul(cost)) { (2 * workers.threads()).min(items) } else { 1 };
        let mut partial = vec![T::ZERO; pieces * outputs];
        let (pp, kp, lp) = (Ptr(partial.as_mut_ptr() as *const u8), Ptr(kernel as *const u8), Ptr(lhs as *const u8));
        let level = cpu_level();
        workers.for_ranges(pieces, 1, usize::MAX / pieces.max(1), &|range| {
            for p in range {
                let acc = (pp.get() as *mut T).add(p * outputs);
                let (lhs, kernel) = (lp.get() as *const T, kp.get() as *const T);
                for item in p * items / pieces..(p + 1) * items / pieces {
                    item_dispatch(level, c, &g, item, lhs, kernel, acc);
                }
            }
        });
        // The pieces' sums, added in piece order, written through the output's strides.
        let op = out.get() as *mut T;
        let per_item = g.oy * g.ox * g.co;
        for i in 0..outputs {
            let mut v = T::ZERO;
            for p in 0..pieces {
                v = v + partial[p * outputs + i];
            }
            let (n, s, o) = (i / per_item, (i % per_item) / g.co, i % g.co);
            *op.offset(n as isize * c.out_batch_stride + s as isize * c.out_spatial_stride + o as isize * c.out_feature_stride) = v;
        }
    });
}

thread_local! {
    /// The repacked kernel, kept for the next convolution on this thread.
    static KERNEL_ROWS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on the kernel laid out [out feature][window position][in feature], contiguous: each
/// output feature's weights one row of `k`, in the order the input runs are read.
unsafe fn with_kernel_rows<T: Value, R>(c: &ConvKernel, rhs: Ptr, workers: &Workers, f: impl FnOnce(*const T) -> R) -> R {
    let co = c.out_features;
    let shape: Vec<usize> = std::iter::once(co).chain(c.kernel_spatial.iter().copied()).chain([c.in_features]).collect();
    let strides: Vec<isize> = std::iter::once(c.rhs_out_stride).chain(c.rhs_spatial_strides.iter().copied()).chain([c.rhs_in_stride]).collect();
    let elements: usize = shape.iter().product();
    super::scratch::with_scratch(&KERNEL_ROWS, elements, |dst: *mut T| {
        match Transposed::new(&shape, &strides, 0, std::mem::size_of::<T>()) {
            Some(t) => t.run(rhs, Ptr(dst as *const u8), workers),
            None => {
                // Already feature-innermost (or too small to tile): a plain strided copy.
                let src = rhs.get() as *const T;
                let mut index = vec![0usize; shape.len()];
                for e in 0..elements {
                    super::conv::unravel(e, &shape, &mut index);
                    *dst.add(e) = *src.offset(index.iter().zip(&strides).map(|(&i, &s)| i as isize * s).sum());
                }
            }
        }
        f(dst)
    })
}

unsafe fn item_dispatch<T: Value>(level: CpuLevel, c: &ConvKernel, g: &Geometry, item: usize, lhs: *const T, kernel: *const T, acc: *mut T) {
    match level {
        // SAFETY: the level is only chosen when the CPU has these extensions.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512 => item_avx512(c, g, item, lhs, kernel, acc),
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2 => item_avx2(c, g, item, lhs, kernel, acc),
        // 1 x 2 accumulators of four 16-byte vectors: 16 registers with the operands.
        _ => item_body::<T, 1, 2, false>(c, g, item, lhs, kernel, acc),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
unsafe fn item_avx512<T: Value>(c: &ConvKernel, g: &Geometry, item: usize, lhs: *const T, kernel: *const T, acc: *mut T) {
    // 4 x 6 accumulators of one 64-byte vector each, 4 input vectors, a kernel vector: 29 of 32
    // registers.
    item_body::<T, 4, 6, true>(c, g, item, lhs, kernel, acc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn item_avx2<T: Value>(c: &ConvKernel, g: &Geometry, item: usize, lhs: *const T, kernel: *const T, acc: *mut T) {
    // 2 x 2 accumulators of two 32-byte vectors each, 2 input and 1 kernel vector: 14 of 16.
    item_body::<T, 2, 2, true>(c, g, item, lhs, kernel, acc)
}

/// One item: batch item `n`, outer output position `oy`, outer window position `wy` (the window
/// rows of dimensions other than the last). Adds its products into `acc` (this piece's output).
#[inline(always)]
unsafe fn item_body<T: Value, const MR: usize, const NR: usize, const FMA: bool>(c: &ConvKernel, g: &Geometry, item: usize, lhs: *const T, kernel: *const T, acc: *mut T) {
    let (n, rest) = (item / (g.oy * g.wy), item % (g.oy * g.wy));
    let (oy, wy) = (rest / g.wy, rest % g.wy);
    // The input row this (oy, wy) reads, if inside the input.
    let last = c.in_spatial.len() - 1;
    let (mut o_rest, mut w_rest) = (oy, wy);
    let mut row = n as isize * c.lhs_batch_stride;
    for d in (0..last).rev() {
        let (o, w) = (o_rest % c.out_spatial[d], w_rest % c.kernel_spatial[d]);
        o_rest /= c.out_spatial[d];
        w_rest /= c.kernel_spatial[d];
        let y = (o * c.window_strides[d] + w * c.rhs_dilation[d]) as isize - c.pad_low[d];
        if y < 0 || y >= c.in_spatial[d] as isize {
            return;
        }
        row += y * c.lhs_spatial_strides[d];
    }
    let row = lhs.offset(row);
    let kernel = kernel.add(wy * g.kx * g.f);
    let out = acc.add((n * g.oy + oy) * g.ox * g.co);
    // Window positions [lo, hi) of output position x that fall inside the input.
    let inside = |x: usize| -> (usize, usize) {
        let x0 = (x * g.sx) as isize - g.pad_x;
        let (dx, w) = (g.dx as isize, g.w as isize);
        let lo = if x0 >= 0 { 0 } else { (-x0 + dx - 1) / dx };
        let hi = if x0 >= w { 0 } else { (w - 1 - x0) / dx + 1 };
        let lo = (lo as usize).min(g.kx);
        (lo, (hi as usize).clamp(lo, g.kx))
    };
    let mut x = 0;
    while x < g.ox {
        let mr = MR.min(g.ox - x);
        // The window positions every output of the tile has inside the input run as one tile;
        // each output's positions beyond them (it overhangs the padding differently) on its own.
        let (mut lo, mut hi) = (0, g.kx);
        for i in 0..mr {
            let (l, h) = inside(x + i);
            lo = lo.max(l);
            hi = hi.min(h);
        }
        if lo < hi {
            columns::<T, MR, NR, FMA>(g, row, kernel, out, x, mr, lo, hi);
        } else {
            (lo, hi) = (0, 0);
        }
        for i in 0..mr {
            let (l, h) = inside(x + i);
            if lo < hi {
                columns::<T, 1, NR, FMA>(g, row, kernel, out, x + i, 1, l, lo.max(l));
                columns::<T, 1, NR, FMA>(g, row, kernel, out, x + i, 1, hi.min(h).max(l), h);
            } else {
                columns::<T, 1, NR, FMA>(g, row, kernel, out, x + i, 1, l, h);
            }
        }
        x += mr;
    }
}

/// Window positions `lo..hi` of output positions `x..x + mr`, for every output feature in tiles
/// of up to `NR`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn columns<T: Value, const MR: usize, const NR: usize, const FMA: bool>(g: &Geometry, row: *const T, kernel: *const T, out: *mut T, x: usize, mr: usize, lo: usize, hi: usize) {
    if lo >= hi {
        return;
    }
    // The input run of output x starts at window position lo: element (x * sx + lo * dx - pad) * f.
    let a = row.offset(((x * g.sx + lo * g.dx) as isize - g.pad_x) * g.f as isize);
    let lda = (g.sx * g.f) as isize;
    let b = kernel.add(lo * g.f);
    // With no dilation the window positions are one run; else one run of f per position.
    let (runs, len, a_step) = if g.dx == 1 { (1, (hi - lo) * g.f, 0) } else { (hi - lo, g.f, (g.dx * g.f) as isize) };
    let mut o = 0;
    while o < g.co {
        let nr = NR.min(g.co - o);
        let t = Tile { a, lda, b: b.add(o * g.k), ldb: g.k, runs, len, a_step, b_step: g.f, out: out.add(x * g.co + o), ldo: g.co };
        tile_sized::<T, MR, NR, FMA>(&t, mr, nr);
        o += nr;
    }
}

/// A tile's operands: `mr` input runs from `a` (`lda` apart), `nr` kernel rows from `b` (`ldb`
/// apart), `runs` runs of `len` (advancing `a_step` and `b_step`), outputs at `out` (`ldo` a row).
struct Tile<T> {
    a: *const T,
    lda: isize,
    b: *const T,
    ldb: usize,
    runs: usize,
    len: usize,
    a_step: isize,
    b_step: usize,
    out: *mut T,
    ldo: usize,
}

/// The tile kernel for `mr <= MR` rows and `nr <= NR` columns, each size its own instance (so
/// the accumulators are registers).
#[inline(always)]
unsafe fn tile_sized<T: Value, const MR: usize, const NR: usize, const FMA: bool>(t: &Tile<T>, mr: usize, nr: usize) {
    macro_rules! sizes {
        ($($m:literal => [$($n:literal)*])*) => {
            match (mr, nr) {
                $($(($m, $n) if $m <= MR && $n <= NR => tile::<T, $m, $n, FMA>(t),)*)*
                _ => unreachable!("tile of {mr} x {nr}"),
            }
        };
    }
    sizes! {
        1 => [1 2 3 4 5 6]
        2 => [1 2 3 4 5 6]
        3 => [1 2 3 4 5 6]
        4 => [1 2 3 4 5 6]
    }
}

/// Lanes per accumulator: 64 bytes.
const VECTOR_BYTES: usize = 64;

/// `out[i][j] += sum over runs and elements of a[i] * b[j]`, `M x N` accumulators of 64 bytes.
#[inline(always)]
unsafe fn tile<T: Value, const M: usize, const N: usize, const FMA: bool>(t: &Tile<T>) {
    // A 64-byte vector as an array the compiler keeps in registers: 16 f32 or 8 f64 (the f64
    // arrays are declared 16 long and only the first 8 lanes used, so one code serves both).
    let lanes = VECTOR_BYTES / std::mem::size_of::<T>();
    debug_assert!(lanes <= 16);
    let mut acc = [[[T::ZERO; 16]; N]; M];
    let mut tail = [[T::ZERO; N]; M];
    let madd = |a: T, b: T, c: T| if FMA { a.fused(b, c) } else { a * b + c };
    for r in 0..t.runs {
        let a = t.a.offset(r as isize * t.a_step);
        let b = t.b.add(r * t.b_step);
        let whole = t.len / lanes * lanes;
        let mut e = 0;
        while e < whole {
            let mut av = [[T::ZERO; 16]; M];
            for i in 0..M {
                for l in 0..lanes {
                    av[i][l] = *a.offset(i as isize * t.lda + (e + l) as isize);
                }
            }
            for j in 0..N {
                let mut bv = [T::ZERO; 16];
                for l in 0..lanes {
                    bv[l] = *b.add(j * t.ldb + e + l);
                }
                for i in 0..M {
                    for l in 0..lanes {
                        acc[i][j][l] = madd(av[i][l], bv[l], acc[i][j][l]);
                    }
                }
            }
            e += lanes;
        }
        for e in whole..t.len {
            for i in 0..M {
                let av = *a.offset(i as isize * t.lda + e as isize);
                for j in 0..N {
                    tail[i][j] = madd(av, *b.add(j * t.ldb + e), tail[i][j]);
                }
            }
        }
    }
    for i in 0..M {
        for j in 0..N {
            let sum = acc[i][j][..lanes].iter().fold(tail[i][j], |s, &v| s + v);
            let o = t.out.add(i * t.ldo + j);
            *o = *o + sum;
        }
    }
}
