//! Dispatch and chunk loops: the instruction functions compiled per vector extension, the chunk
//! loop that stores and reductions share, and the walks of flat indices over strided views.

use super::*;
use super::fastmath;

/// One instruction of a chunk, compiled for one vector extension (see [`Compiled::eval_to`]).
pub(super) type StepFn = unsafe fn(&Compiled, usize, &[*const u8], usize, usize, &mut [Buf], bool, *mut u8);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
pub(super) unsafe fn step_avx512(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Fused, true>(i, inputs, start, len, regs, consts_ready, out)
}

/// [`Compiled::with_epilogue`] in a function of its own: inlined into the instruction functions, its
/// many register temporaries made their stack frames (every instruction's) megabytes large in
/// unoptimised builds, which overflowed a worker thread's stack.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma,bmi2")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn epilogue_avx512(ex: &Compiled, i: usize, e: Epilogue, regs: &mut [Buf], inputs: &[*const u8], start: usize, len: usize, out: *mut u8) -> bool {
    ex.with_epilogue(i, e, regs, inputs, start, len, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn step_avx2(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Fused, false>(i, inputs, start, len, regs, consts_ready, out)
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn step_avx512(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    step_baseline(ex, i, inputs, start, len, regs, consts_ready, out)
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn step_avx2(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    step_baseline(ex, i, inputs, start, len, regs, consts_ready, out)
}

#[inline(never)]
pub(super) unsafe fn step_baseline(ex: &Compiled, i: usize, inputs: &[*const u8], start: usize, len: usize, regs: &mut [Buf], consts_ready: bool, out: *mut u8) {
    ex.eval_step::<fastmath::Separate, false>(i, inputs, start, len, regs, consts_ready, out)
}

/// Evaluates flat indices `range` of the expression and stores them to `out` (`esize` bytes per
/// element) on this thread, CHUNK elements at a time.
///
/// # Safety
/// As [`Compiled::eval`]; `out` must hold the range's elements, and no other thread may write them.
pub unsafe fn eval_store(ex: &Compiled, inputs: &[*const u8], out: *mut u8, range: std::ops::Range<usize>, esize: usize) {
    // An in-place kernel's output is one of its inputs: its chunks are computed whole in the
    // registers before they overwrite that input. Otherwise the last instruction writes straight
    // to the output.
    if inputs.contains(&(out as *const u8)) {
        let elem = ex.expr.elems[ex.expr.elems.len() - 1];
        eval_chunks(ex, inputs, range, |result, start, len| store_as(result, elem, out.wrapping_add(start * esize), len));
    } else {
        chunk_loop(ex, inputs, range, |start| out.wrapping_add(start * esize), |_, _, _| {});
    }
}

/// Evaluates flat indices `range` of the expression CHUNK elements at a time on this thread and
/// hands each chunk's result register, first index and length to `each`.
///
/// # Safety
/// As [`Compiled::eval`].
pub unsafe fn eval_chunks(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, each: impl FnMut(&Buf, usize, usize)) {
    chunk_loop(ex, inputs, range, |_| std::ptr::null_mut(), each);
}

/// The one chunk loop that stores and reductions share: chunk by chunk, the expression is
/// evaluated with its last instruction writing to `out_at(start)` (its register when null), then
/// `each` gets the last register, the chunk's first index and its length.
///
/// # Safety
/// As [`Compiled::eval_to`] for every chunk's output pointer.
pub(super) unsafe fn chunk_loop(ex: &Compiled, inputs: &[*const u8], range: std::ops::Range<usize>, out_at: impl Fn(usize) -> *mut u8, mut each: impl FnMut(&Buf, usize, usize)) {
    ex.with_registers(|regs| {
        let last = regs.len() - 1;
        let mut start = range.start;
        // Lanes of the constant registers filled by the last call that filled them (chunks cut at
        // row ends may be followed by longer ones).
        let mut filled = 0;
        while start < range.end {
            let len = ex.chunk_len(start, range.end);
            let consts_ready = len <= filled;
            ex.eval_to(inputs, start, len, regs, consts_ready, out_at(start));
            if !consts_ready {
                filled = len;
            }
            each(&regs[last], start, len);
            start += len;
        }
    });
}

/// Coordinates of flat index `i` in `shape`.
pub(super) fn unravel(mut i: usize, shape: &[usize], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        out[d] = i % n;
        i /= n;
    }
}

/// Visits flat indices `start..start+len` of `shape` as runs along the last dimension, giving
/// `(position, element index of the run's first element, run length)` where the element index is
/// `offset + sum(coords * strides)`; within a run it advances by the last stride.
#[inline(always)]
pub(super) fn for_runs(shape: &[usize], strides: &[isize], offset: isize, start: usize, len: usize, mut f: impl FnMut(usize, isize, usize)) {
    let rank = shape.len();
    if rank == 0 {
        if len > 0 {
            f(0, offset, len);
        }
        return;
    }
    let mut coords = [0usize; 16];
    let mut big;
    let coords: &mut [usize] = if rank <= 16 {
        &mut coords[..rank]
    } else {
        big = vec![0usize; rank];
        &mut big[..]
    };
    unravel(start, shape, coords);
    let last = rank - 1;
    let n_last = shape[last];
    let mut j = 0;
    while j < len {
        let base = offset + coords.iter().zip(strides).map(|(&c, &s)| c as isize * s).sum::<isize>();
        let run = (n_last - coords[last]).min(len - j);
        f(j, base, run);
        j += run;
        // Next row: carry into the outer dimensions.
        coords[last] = 0;
        let mut d = last;
        while d > 0 {
            d -= 1;
            coords[d] += 1;
            if coords[d] < shape[d] {
                break;
            }
            coords[d] = 0;
        }
    }
}

/// Visits flat indices `start..start+len` of `shape`, giving `(position, element index)`.
pub(super) fn for_strided(shape: &[usize], strides: &[isize], offset: isize, start: usize, len: usize, mut f: impl FnMut(usize, isize)) {
    let s_last = strides.last().copied().unwrap_or(0);
    for_runs(shape, strides, offset, start, len, #[inline(always)] |j, base, run| {
        for k in 0..run {
            f(j + k, base + k as isize * s_last);
        }
    });
}
