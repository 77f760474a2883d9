//! Convolution as im2col + GEMM: for a block of output positions, gather the input patches into a
//! row-major matrix (zeros where the window hangs over the padding), multiply by the kernel packed
//! as a [window * in_features, out_features] matrix on the `gemm` crate (one thread per block), and
//! let the GEMM write the output through its strides (NHWC and NCHW outputs need no extra copy).

use super::conv_dot::{self, Value};
use super::gemm::Element;
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::ElementType as E;
use apu_compiler::plan::ConvKernel;

/// Output positions per im2col block. The patch matrix stays in L2, and the `gemm` crate's
/// AVX-512 f32 kernel (which runs this product turned around: 64 output features by 6 positions)
/// gets whole 6-column tiles. Measured on conv2d 56x56x64 3x3x64: 32-72 rows within noise of
/// each other at 2 threads, 96 and more slower.
const BLOCK_ROWS: usize = 48;

/// Window rows of at least this many elements that overhang the padding are copied as one run.
const LONG_WINDOW_ROW: usize = 64;

/// c[m, n] = a[m, k] * b[k, n], with `a` and `b` row-major and `c` written through (rsc, csc)
/// without being read (it is the uninitialised output).
#[allow(clippy::too_many_arguments)]
unsafe fn block_product<T: Element>(m: usize, k: usize, n: usize, a: *const T, b: *const T, c: *mut T, rsc: isize, csc: isize) {
    super::gemm::product(m, n, k, a, 1, k as isize, b, 1, n as isize, c, csc, rsc)
}

pub(super) fn unravel(mut i: usize, shape: &[usize], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        out[d] = i % n;
        i /= n;
    }
}

/// # Safety
/// The slots must hold the kernel's operand and output shapes.
pub unsafe fn run(c: &ConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    match c.elem {
        E::F32 => run_repacked_or_not::<f32>(c, lhs, rhs, out, workers),
        E::F64 => run_repacked_or_not::<f64>(c, lhs, rhs, out, workers),
        _ => {}
    }
}

unsafe fn run_repacked_or_not<T: Value>(c: &ConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    match with_features_innermost(c, std::mem::size_of::<T>()) {
        Some(r) => with_repack_buffer(r.elements, |input: *mut T| {
            r.copy.run(lhs, Ptr(input as *const u8), workers);
            run_dot_or_im2col::<T>(&r.kernel, Ptr(input as *const u8), rhs, out, workers)
        }),
        None => run_dot_or_im2col::<T>(c, lhs, rhs, out, workers),
    }
}

/// Long windows into a small output (filter gradients) as dot products, the rest as im2col + GEMM.
unsafe fn run_dot_or_im2col<T: Value>(c: &ConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    if *DOT_FORM && conv_dot::suits(c) {
        conv_dot::run::<T>(c, lhs.get() as *const T, rhs, out, workers)
    } else {
        run_typed::<T>(c, lhs, rhs, out, workers)
    }
}

/// `APU_CONV_DOT=0` sends every convolution to im2col, to measure the dot form against it.
static DOT_FORM: once_cell::sync::Lazy<bool> = once_cell::sync::Lazy::new(|| std::env::var("APU_CONV_DOT").map_or(true, |v| v != "0"));

/// Whether `c` runs as dot products over its input (`conv_dot`) rather than im2col + GEMM.
pub fn takes_dot_form(c: &ConvKernel, elem_bytes: usize) -> bool {
    *DOT_FORM && conv_dot::suits(with_features_innermost(c, elem_bytes).as_ref().map_or(c, |r| &r.kernel))
}

unsafe fn run_typed<T: Element>(c: &ConvKernel, lhs: Ptr, rhs: Ptr, out: Ptr, workers: &Workers) {
    // Per group: `ci` input features, `co` output features; group g's output features start at g * co.
    let groups = c.groups.max(1);
    let (ci, co) = (c.in_features, c.out_features / groups);
    let windows: usize = c.kernel_spatial.iter().product();
    let positions: usize = c.out_spatial.iter().product();
    let k = windows * ci;
    let rows = c.batch * positions;
    if rows == 0 || co == 0 {
        return;
    }
    let co_all = co * groups;
    let op = out.get() as *mut T;
    if k == 0 {
        // An empty window sums nothing.
        for r in 0..rows {
            let (n, s) = (r / positions, r % positions);
            for o in 0..co_all {
                *op.offset(n as isize * c.out_batch_stride + s as isize * c.out_spatial_stride + o as isize * c.out_feature_stride) = T::default();
            }
        }
        return;
    }
    // Kernel packed as [window, in_feature] x [out_feature].
    let rp = rhs.get() as *const T;
    let ns = c.kernel_spatial.len();
    // Group g's kernel at packed[g * k * co..].
    let mut packed = vec![T::default(); groups * k * co];
    let mut kc = vec![0usize; ns];
    for g in 0..groups {
        for w in 0..windows {
            unravel(w, &c.kernel_spatial, &mut kc);
            let base: isize = kc.iter().zip(&c.rhs_spatial_strides).map(|(&x, &s)| x as isize * s).sum::<isize>() + (g * co) as isize * c.rhs_out_stride;
            for i in 0..ci {
                for o in 0..co {
                    packed[g * k * co + (w * ci + i) * co + o] = *rp.offset(base + i as isize * c.rhs_in_stride + o as isize * c.rhs_out_stride);
                }
            }
        }
    }
    let packed = PackedPtr(packed.as_ptr());
    let lp = Ptr(lhs.get());
    let fast_2d = ns == 2 && c.lhs_dilation.iter().all(|&d| d == 1);
    workers.for_ranges(rows, BLOCK_ROWS, k * co_all, &|range| {
        let lp = lp.get() as *const T;
        let packed = packed.get();
        let mut col = vec![T::default(); BLOCK_ROWS.min(range.len()) * k];
        let (mut oc, mut kc, mut ic) = (vec![0usize; ns], vec![0usize; ns], vec![0isize; ns]);
        let mut r = range.start;
        while r < range.end {
            // A block of positions of one batch item.
            let n = r / positions;
            let s0 = r % positions;
            let take = BLOCK_ROWS.min(range.end - r).min(positions - s0);
            for g in 0..groups {
            let feature0 = g as isize * c.group_lhs_stride;
            if fast_2d {
                im2col_2d(c, lp, n as isize * c.lhs_batch_stride + feature0, s0, take, ci, &mut col);
            } else {
            for j in 0..take {
                unravel(s0 + j, &c.out_spatial, &mut oc);
                let row = &mut col[j * k..(j + 1) * k];
                for w in 0..windows {
                    unravel(w, &c.kernel_spatial, &mut kc);
                    let mut inside = true;
                    for d in 0..ns {
                        // Position in the padded, dilated input; holes of the dilation read zeros.
                        let p = (oc[d] * c.window_strides[d] + kc[d] * c.rhs_dilation[d]) as isize - c.pad_low[d];
                        let ld = c.lhs_dilation[d] as isize;
                        // Undilated dimensions (nearly all) skip the division: it cost ~6 % of a 3x3 conv.
                        if ld == 1 {
                            ic[d] = p;
                            inside &= p >= 0 && (p as usize) < c.in_spatial[d];
                        } else {
                            ic[d] = p.div_euclid(ld);
                            inside &= p >= 0 && p % ld == 0 && (ic[d] as usize) < c.in_spatial[d];
                        }
                    }
                    let dst = &mut row[w * ci..(w + 1) * ci];
                    if !inside {
                        dst.fill(T::default());
                        continue;
                    }
                    let base = feature0 + n as isize * c.lhs_batch_stride + ic.iter().zip(&c.lhs_spatial_strides).map(|(&x, &s)| x * s).sum::<isize>();
                    if c.lhs_feature_stride == 1 {
                        std::ptr::copy_nonoverlapping(lp.offset(base), dst.as_mut_ptr(), ci);
                    } else {
                        for (i, v) in dst.iter_mut().enumerate() {
                            *v = *lp.offset(base + i as isize * c.lhs_feature_stride);
                        }
                    }
                }
            }
            }
            let dst = (out.get() as *mut T).offset(n as isize * c.out_batch_stride + s0 as isize * c.out_spatial_stride + (g * co) as isize * c.out_feature_stride);
            block_product(take, k, co, col.as_ptr(), packed.add(g * k * co), dst, c.out_spatial_stride, c.out_feature_stride);
            }
            r += take;
        }
    });
}

/// The kernel and a copy of its input laid out [batch, spatial..., feature], when the input's
/// features are strided (and there is one group). JAX's filter gradients convolve with the batch
/// as the feature dimension, so an im2col row gathered the whole input one element at a time, a
/// stride of a batch item apart (audio1d's training step spent ~13 % in those loads); one tiled
/// transpose of the input makes every window row one contiguous copy.
fn with_features_innermost(c: &ConvKernel, esize: usize) -> Option<Repack> {
    let ci = c.in_features;
    if c.lhs_feature_stride == 1 || ci < 2 || c.groups > 1 {
        return None;
    }
    let shape: Vec<usize> = std::iter::once(c.batch).chain(c.in_spatial.iter().copied()).chain([ci]).collect();
    let strides: Vec<isize> = std::iter::once(c.lhs_batch_stride).chain(c.lhs_spatial_strides.iter().copied()).chain([c.lhs_feature_stride]).collect();
    let copy = super::transpose::Transposed::new(&shape, &strides, 0, esize)?;
    let mut kernel = c.clone();
    kernel.lhs_feature_stride = 1;
    let mut stride = ci as isize;
    for d in (0..kernel.in_spatial.len()).rev() {
        kernel.lhs_spatial_strides[d] = stride;
        stride *= kernel.in_spatial[d] as isize;
    }
    kernel.lhs_batch_stride = stride;
    Some(Repack { kernel, copy, elements: shape.iter().product() })
}

/// A convolution on a repacked input: the kernel reading it, the copy making it, its size.
struct Repack {
    kernel: ConvKernel,
    copy: super::transpose::Transposed,
    elements: usize,
}

thread_local! {
    /// The repacked input of [`with_features_innermost`], kept for the next convolution of this thread.
    static REPACK: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on an uninitialised buffer of `elements` values of `T` (which `f` writes before it reads).
unsafe fn with_repack_buffer<T: Element, R>(elements: usize, f: impl FnOnce(*mut T) -> R) -> R {
    super::scratch::with_scratch(&REPACK, elements, f)
}

/// The im2col rows of output positions `s0..s0 + take` of one batch item (its input at `lp + base`)
/// for a 2-D convolution without input dilation: per position and
/// window row, one copy of `kw * ci` elements when the row lies inside the input and is not
/// dilated (a 5x5 window over one channel: 5 copies instead of 25 element visits), element by
/// element otherwise. LeNet's convolutions spent ~20 % of a training step in the general loop's
/// per-element index arithmetic.
unsafe fn im2col_2d<T: Element>(c: &ConvKernel, lp: *const T, base: isize, s0: usize, take: usize, ci: usize, col: &mut [T]) {
    let (kh, kw) = (c.kernel_spatial[0], c.kernel_spatial[1]);
    let k = kh * kw * ci;
    let ow = c.out_spatial[1];
    let (ih, iw) = (c.in_spatial[0] as isize, c.in_spatial[1] as isize);
    let (ys, xs) = (c.lhs_spatial_strides[0], c.lhs_spatial_strides[1]);
    let (dy, dx) = (c.rhs_dilation[0] as isize, c.rhs_dilation[1] as isize);
    let fs = c.lhs_feature_stride;
    let row_contiguous = fs == 1 && dx == 1 && xs == ci as isize;
    let long_rows = row_contiguous && kw * ci >= LONG_WINDOW_ROW;
    // `ci` features from `src` (strided when the features are not the innermost dimension, as in a
    // filter gradient, where they are the batch), or a whole window row when `row_contiguous`.
    let copy = |src: *const T, dst: &mut [T]| {
        if dst.len() == 1 {
            dst[0] = *src;
        } else if fs == 1 {
            std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len());
        } else {
            for (i, v) in dst.iter_mut().enumerate() {
                *v = *src.offset(i as isize * fs);
            }
        }
    };
    for j in 0..take {
        let s = s0 + j;
        let (oy, ox) = (s / ow, s % ow);
        let y0 = (oy * c.window_strides[0]) as isize - c.pad_low[0];
        let x0 = (ox * c.window_strides[1]) as isize - c.pad_low[1];
        let x_last = x0 + (kw as isize - 1) * dx;
        let row = &mut col[j * k..(j + 1) * k];
        for (ky, dst) in row.chunks_exact_mut(kw * ci).enumerate() {
            let y = y0 + ky as isize * dy;
            if y < 0 || y >= ih {
                dst.fill(T::default());
                continue;
            }
            let ybase = base + y * ys;
            if row_contiguous && x0 >= 0 && x_last < iw {
                copy(lp.offset(ybase + x0 * xs), dst);
                continue;
            }
            if long_rows {
                overhanging_row(lp.offset(ybase), x0, iw, xs, ci, dst, &copy);
                continue;
            }
            for (kx, d) in dst.chunks_exact_mut(ci).enumerate() {
                let x = x0 + kx as isize * dx;
                if x < 0 || x >= iw {
                    d.fill(T::default());
                } else {
                    copy(lp.offset(ybase + x * xs), d);
                }
            }
        }
    }
}

/// A window row of contiguous positions (from `x0`, row origin `row`) that overhangs the padding:
/// the positions inside the input are one run, so zeros, one copy, zeros. A filter gradient's
/// window spans the whole input, so most of its rows overhang by a few positions. Out of line, and
/// only for long rows: inlined into the im2col loop it made LeNet's short rows ~10 % slower.
#[inline(never)]
unsafe fn overhanging_row<T: Element>(row: *const T, x0: isize, iw: isize, xs: isize, ci: usize, dst: &mut [T], copy: &impl Fn(*const T, &mut [T])) {
    let kw = dst.len() / ci;
    let lo = (-x0).clamp(0, kw as isize) as usize;
    let hi = (iw - x0).clamp(lo as isize, kw as isize) as usize;
    dst[..lo * ci].fill(T::default());
    if hi > lo {
        copy(row.offset((x0 + lo as isize) * xs), &mut dst[lo * ci..hi * ci]);
    }
    dst[hi * ci..].fill(T::default());
}

struct PackedPtr<T>(*const T);
unsafe impl<T> Sync for PackedPtr<T> {}
unsafe impl<T> Send for PackedPtr<T> {}
impl<T> PackedPtr<T> {
    fn get(&self) -> *const T {
        self.0
    }
}
