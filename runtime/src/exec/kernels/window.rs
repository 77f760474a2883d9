//! Window kernels: `reduce_window` (sum, product, max, min pooling; cumulative sums), the
//! max/min-pooling gradient `select_and_scatter`, and `pad`.
//!
//! Both window kernels compute every output element in exactly the interpreter's order: a
//! `reduce_window` output folds its window positions in row-major order from the init value,
//! padding and dilation holes folding the init value; a `select_and_scatter` picks, per source
//! element, the first window element no later one beats and adds the source elements in row-major
//! order. So results are bit-identical to the interpreter's whatever the thread count.
//!
//! The loops run over a row of outputs at a time (the last axis): for each window position, one
//! elementwise combine of the row with the operand elements it reads (`fold::combine`, compiled
//! per vector extension), so NHWC pooling combines whole channel rows.

use super::fold;
use crate::exec::fused;
use super::reduce::Elem;
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::{BinaryOp as B, ComparisonDirection as D, ElementType as E};
use apu_compiler::plan::{KScalar, PadKernel, SelectScatterKernel, WindowAxis, WindowKernel};

fn unravel(mut i: usize, shape: impl DoubleEndedIterator<Item = usize> + ExactSizeIterator, out: &mut [usize]) {
    for (d, n) in shape.enumerate().rev() {
        let n = n.max(1);
        out[d] = i % n;
        i /= n;
    }
}

/// Runs a `reduce_window` kernel. `init` is the init value.
///
/// # Safety
/// `input` must hold the operand the kernel's axes (strides and offset) describe, `out` the output.
pub unsafe fn reduce_window(k: &WindowKernel, input: Ptr, init: KScalar, out: *mut u8, workers: &Workers) {
    macro_rules! go {
        ($t:ty, $f:expr) => {{
            let init = <$t>::from_k(init).unwrap_or_else(|| panic_free_default::<$t>());
            reduce_window_typed::<$t, _>(k, input, init, $f, out as *mut $t, workers)
        }};
    }
    macro_rules! float {
        ($t:ty, $max:expr, $min:expr) => {
            match k.combiner {
                B::Add => go!($t, |a: $t, b: $t| a + b),
                B::Multiply => go!($t, |a: $t, b: $t| a * b),
                B::Maximum => go!($t, $max),
                _ => go!($t, $min),
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            match k.combiner {
                B::Add => go!($t, <$t>::wrapping_add),
                B::Multiply => go!($t, <$t>::wrapping_mul),
                B::Maximum => go!($t, |a: $t, b: $t| a.max(b)),
                B::Minimum => go!($t, |a: $t, b: $t| a.min(b)),
                B::And => go!($t, |a: $t, b: $t| a & b),
                _ => go!($t, |a: $t, b: $t| a | b),
            }
        };
    }
    match k.elem {
        E::F32 => float!(f32, fused::fmax32, fused::fmin32),
        E::F64 => float!(f64, fused::fmax64, fused::fmin64),
        E::S32 => int!(i32),
        E::S64 => int!(i64),
        E::U32 => int!(u32),
        E::U64 => int!(u64),
        _ => {}
    }
}

/// A zero of `T` (an init value of the wrong type cannot happen: the lowering checked the types).
fn panic_free_default<T: Elem>() -> T {
    // SAFETY: every `Elem` is a plain number type for which all-zero bytes are a value.
    unsafe { std::mem::zeroed() }
}

unsafe fn reduce_window_typed<T: Elem, F: Fn(T, T) -> T + Sync>(k: &WindowKernel, input: Ptr, init: T, f: F, out: *mut T, workers: &Workers) {
    let axes = &k.axes;
    let x = (input.get() as *const T).wrapping_add(k.in_offset);
    let Some((last, outer)) = axes.split_last() else {
        // Rank 0: one window position, the operand's only element.
        *out = f(init, *x);
        return;
    };
    let len = last.out;
    let rows: usize = outer.iter().map(|a| a.out).product();
    let outer_windows: usize = outer.iter().map(|a| a.window).product();
    if rows == 0 || len == 0 {
        return;
    }
    let out = Ptr(out as *const u8);
    let x = Ptr(x as *const u8);
    let contiguous = last.stride == 1 && last.base_dilation == 1 && last.in_stride == 1;
    let cost = len * outer_windows * last.window;
    workers.for_ranges(rows, 1, cost, &|range| {
        let x = x.get() as *const T;
        let inits = vec![init; len];
        let mut gathered = vec![init; len];
        let (mut oc, mut wc) = (vec![0usize; outer.len()], vec![0usize; outer.len()]);
        for row in range {
            unravel(row, outer.iter().map(|a| a.out), &mut oc);
            let acc = std::slice::from_raw_parts_mut((out.get() as *mut T).add(row * len), len);
            acc.fill(init);
            for w in 0..outer_windows {
                unravel(w, outer.iter().map(|a| a.window), &mut wc);
                let mut base = 0isize;
                let mut inside = true;
                for (d, a) in outer.iter().enumerate() {
                    match a.source(oc[d], wc[d]) {
                        Some(p) => base += p as isize * a.in_stride,
                        None => inside = false,
                    }
                }
                for wl in 0..last.window {
                    if !inside {
                        fold::combine(acc, &inits, &f);
                        continue;
                    }
                    if contiguous {
                        // Output i reads operand i + q: valid for i in [lo, hi).
                        let q = (wl * last.window_dilation) as isize - last.pad_low;
                        let lo = (-q).clamp(0, len as isize) as usize;
                        let hi = (last.size as isize - q).clamp(lo as isize, len as isize) as usize;
                        if lo > 0 {
                            fold::combine(&mut acc[..lo], &inits[..lo], &f);
                        }
                        if hi > lo {
                            let v = std::slice::from_raw_parts(x.offset(base + lo as isize + q), hi - lo);
                            fold::combine(&mut acc[lo..hi], v, &f);
                        }
                        if hi < len {
                            fold::combine(&mut acc[hi..], &inits[hi..], &f);
                        }
                    } else {
                        for (i, g) in gathered.iter_mut().enumerate() {
                            *g = match last.source(i, wl) {
                                Some(p) => *x.offset(base + p as isize * last.in_stride),
                                None => init,
                            };
                        }
                        fold::combine(acc, &gathered, &f);
                    }
                }
            }
        }
    });
}

/// Runs a `select_and_scatter` kernel. `init` is the init value.
///
/// # Safety
/// `operand` and `out` must hold the operand's shape, `source` the source's.
pub unsafe fn select_and_scatter(k: &SelectScatterKernel, operand: Ptr, source: Ptr, init: KScalar, out: *mut u8, workers: &Workers) {
    match k.elem {
        E::F32 => select_typed::<f32>(k, operand, source, f32::from_k(init).unwrap_or(0.0), out as *mut f32, workers),
        E::F64 => select_typed::<f64>(k, operand, source, f64::from_k(init).unwrap_or(0.0), out as *mut f64, workers),
        _ => {}
    }
}

/// Whether `select(best, v)` keeps `best`, as the compare region computes it (IEEE: NaN compares false).
#[inline(always)]
fn keeps<T: PartialOrd>(dir: D, best: T, v: T) -> bool {
    match dir {
        D::Ge => best >= v,
        D::Gt => best > v,
        D::Le => best <= v,
        _ => best < v,
    }
}

unsafe fn select_typed<T: Elem + PartialOrd + std::ops::Add<Output = T>>(k: &SelectScatterKernel, operand: Ptr, source: Ptr, init: T, out: *mut T, workers: &Workers) {
    let axes = &k.axes;
    let total: usize = axes.iter().map(|a| a.size).product();
    std::slice::from_raw_parts_mut(out, total).fill(init);
    let sources: usize = axes.iter().map(|a| a.out).product();
    if sources == 0 || total == 0 {
        return;
    }
    // The last axis runs as vector lanes when every window takes one element of it at the source
    // element's own position (NHWC pooling: the channels).
    let lane_axis = axes.last().is_some_and(|a| a.window == 1 && a.stride == 1 && a.pad_low == 0 && a.out == a.size);
    let (outer, lanes): (&[WindowAxis], usize) = if lane_axis { (&axes[..axes.len() - 1], axes[axes.len() - 1].size) } else { (&axes[..], 1) };
    let windows: usize = outer.iter().map(|a| a.window).product();
    let rows: usize = outer.iter().map(|a| a.out).product();
    // Source rows along the first axis write disjoint output rows when its window is one element
    // wide, so they may run on different threads; otherwise windows overlap and one thread adds
    // in order.
    let (parts, rows_per) = match outer.first() {
        Some(a) if a.window == 1 && a.out > 0 => (a.out, rows / a.out),
        _ => (1, rows),
    };
    let (x, src, out) = (Ptr(operand.get()), Ptr(source.get()), Ptr(out as *const u8));
    let run = |range: std::ops::Range<usize>| {
        let (x, src, out) = (x.get() as *const T, src.get() as *const T, out.get() as *mut T);
        let (mut best, mut at) = (vec![init; lanes], vec![0usize; lanes]);
        let (mut oc, mut wc) = (vec![0usize; outer.len()], vec![0usize; outer.len()]);
        for row in range.start * rows_per..range.end * rows_per {
            unravel(row, outer.iter().map(|a| a.out), &mut oc);
            let mut found = false;
            for w in 0..windows {
                unravel(w, outer.iter().map(|a| a.window), &mut wc);
                let mut base = 0usize;
                let mut inside = true;
                for (d, a) in outer.iter().enumerate() {
                    match a.source(oc[d], wc[d]) {
                        Some(p) => base += p * a.in_stride as usize,
                        None => inside = false,
                    }
                }
                if !inside {
                    continue;
                }
                let v = std::slice::from_raw_parts(x.add(base), lanes);
                if !found {
                    best.copy_from_slice(v);
                    for (c, a) in at.iter_mut().enumerate() {
                        *a = base + c;
                    }
                    found = true;
                } else {
                    for c in 0..lanes {
                        if !keeps(k.select, best[c], v[c]) {
                            best[c] = v[c];
                            at[c] = base + c;
                        }
                    }
                }
            }
            if found {
                for c in 0..lanes {
                    let o = out.add(at[c]);
                    *o = *o + *src.add(row * lanes + c);
                }
            }
        }
    };
    workers.for_ranges(parts, 1, rows_per * windows * lanes, &run);
}

/// Runs a `pad` kernel; `value` holds the padding value's bytes.
///
/// # Safety
/// `input` must hold the operand, `out` the output (`elem_bytes` per element).
pub unsafe fn pad(k: &PadKernel, input: *const u8, value: &[u8], out: *mut u8) {
    let es = k.elem_bytes;
    let total: usize = k.out_shape.iter().product();
    let out_bytes = std::slice::from_raw_parts_mut(out, total * es);
    if value.iter().all(|&b| b == value[0]) {
        out_bytes.fill(value[0]);
    } else {
        for c in out_bytes.chunks_exact_mut(es) {
            c.copy_from_slice(&value[..es]);
        }
    }
    let Some((&in_last, in_outer)) = k.in_shape.split_last() else {
        out_bytes[..es].copy_from_slice(std::slice::from_raw_parts(input, es));
        return;
    };
    let rank = k.in_shape.len();
    let rows: usize = in_outer.iter().product();
    if rows == 0 || in_last == 0 {
        return;
    }
    let out_strides = apu_compiler::plan::view::row_major(&k.out_shape.iter().map(|&d| d as i64).collect::<Vec<_>>());
    // Position along axis d of operand index i, if inside the output.
    let place = |d: usize, i: usize| -> Option<usize> {
        let q = k.low[d] + (i * (k.interior[d] + 1)) as isize;
        (q >= 0 && (q as usize) < k.out_shape[d]).then_some(q as usize)
    };
    let (last, step) = (rank - 1, k.interior[rank - 1] + 1);
    // Operand indices j along the last axis that land inside: [lo, hi).
    let lo = (0..in_last).find(|&j| place(last, j).is_some());
    let Some(lo) = lo else { return };
    let hi = (lo..in_last).take_while(|&j| place(last, j).is_some()).last().map_or(lo, |j| j + 1);
    let mut ic = vec![0usize; rank - 1];
    'rows: for row in 0..rows {
        unravel(row, in_outer.iter().copied(), &mut ic);
        let mut base = 0usize;
        for (d, &i) in ic.iter().enumerate() {
            match place(d, i) {
                Some(q) => base += q * out_strides[d] as usize,
                None => continue 'rows,
            }
        }
        let src = input.add(row * in_last * es);
        let dst = out.add((base + place(last, lo).unwrap_or(0)) * es);
        if step == 1 {
            std::ptr::copy_nonoverlapping(src.add(lo * es), dst, (hi - lo) * es);
        } else {
            for j in lo..hi {
                std::ptr::copy_nonoverlapping(src.add(j * es), dst.add((j - lo) * step * es), es);
            }
        }
    }
}
