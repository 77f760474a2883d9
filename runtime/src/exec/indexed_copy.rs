//! gather, and scatter that replaces or adds, as runs over index-placed boxes (the geometry is
//! `apu_compiler::plan::indexed_copy`'s). Scatter writes into its input's buffer when the plan says
//! this is the input's last use and nobody else holds it, so setting one row of a large carried
//! array costs one row.

use super::dynamic_slice::{read_index, with_scratch};
use apu_compiler::ir::ElementType as E;
use apu_compiler::plan::indexed_copy::{adds, Geometry};
use apu_compiler::plan::Combine;
use apu_compiler::{Error, Result};
use std::ops::Add;

/// Calls `f(big_element_offset, small_element_offset, run_elements)` for every contiguous run of
/// every box the index tensor places, in batch order; boxes that do not fit are clamped (gather)
/// or skipped (scatter).
fn for_each_run(g: &Geometry, indices: &[u8], mut f: impl FnMut(usize, usize, usize)) -> Result<()> {
    let rank = g.big_shape.len();
    if g.sizes.contains(&0) || g.batch_shape.contains(&0) {
        return Ok(());
    }
    // Runs along the last big dimension when the small tensor is contiguous there too.
    let (run, inner_dims) = match rank {
        0 => (1, 0),
        _ if g.box_small_strides[rank - 1] == 1 => (g.sizes[rank - 1], rank - 1),
        _ => (1, rank),
    };
    let runs_per_box: usize = g.sizes[..inner_dims].iter().product();
    let batches: usize = g.batch_shape.iter().product();
    // Index bookkeeping on the stack: a loop scattering one element per iteration would
    // otherwise allocate three vectors each time.
    let nb = g.batch_shape.len();
    with_scratch(nb + inner_dims, |counters: &mut [usize]| {
        with_scratch(rank, |start: &mut [i128]| {
            let (coord, at) = counters.split_at_mut(nb);
            runs(g, indices, coord, start, at, (run, inner_dims, runs_per_box, batches), &mut f)
        })
    })
}

/// The loop of [`for_each_run`] over scratch counters `coord` (batch), `start` and `at` (box).
fn runs(
    g: &Geometry,
    indices: &[u8],
    coord: &mut [usize],
    start: &mut [i128],
    at: &mut [usize],
    (run, inner_dims, runs_per_box, batches): (usize, usize, usize, usize),
    f: &mut impl FnMut(usize, usize, usize),
) -> Result<()> {
    let rank = g.big_shape.len();
    let big_strides = &g.big_strides;
    let isize = g.index_elem.byte_size();
    for _ in 0..batches {
        let ibase: usize = coord.iter().zip(&g.batch_index_strides).map(|(c, s)| c * s).sum();
        let sbase: usize = coord.iter().zip(&g.batch_small_strides).map(|(c, s)| c * s).sum();
        start.iter_mut().for_each(|x| *x = 0);
        for (k, &d) in g.start_map.iter().enumerate() {
            let pos = (ibase + k * g.component_stride) * isize;
            start[d] = read_index(g.index_elem, &indices[pos..pos + isize])? as i128;
        }
        for &(d, j) in &g.batch_starts {
            start[d] = coord[j] as i128;
        }
        let fits = (0..rank).all(|d| start[d] >= 0 && start[d] + g.sizes[d] as i128 <= g.big_shape[d] as i128);
        if fits || !g.skip_outside {
            let big_base: usize = (0..rank)
                .map(|d| start[d].clamp(0, (g.big_shape[d] - g.sizes[d]) as i128) as usize * big_strides[d])
                .sum();
            at.iter_mut().for_each(|x| *x = 0);
            for _ in 0..runs_per_box {
                let b: usize = at.iter().zip(big_strides).map(|(i, s)| i * s).sum();
                let s: usize = at.iter().zip(&g.box_small_strides).map(|(i, s)| i * s).sum();
                f(big_base + b, sbase + s, run);
                for d in (0..inner_dims).rev() {
                    at[d] += 1;
                    if at[d] < g.sizes[d] {
                        break;
                    }
                    at[d] = 0;
                }
            }
        }
        for j in (0..coord.len()).rev() {
            coord[j] += 1;
            if coord[j] < g.batch_shape[j] {
                break;
            }
            coord[j] = 0;
        }
    }
    Ok(())
}

/// gather: fills `out` (the result) from `operand`.
pub fn gather(g: &Geometry, operand: &[u8], indices: &[u8], out: &mut [u8]) -> Result<()> {
    let e = g.elem_bytes;
    for_each_run(g, indices, |big, small, n| out[small * e..(small + n) * e].copy_from_slice(&operand[big * e..(big + n) * e]))
}

/// scatter: combines `updates` into `target` (already holding the input's bytes).
pub fn scatter(g: &Geometry, combine: Combine, target: &mut [u8], indices: &[u8], updates: &[u8]) -> Result<()> {
    let e = g.elem_bytes;
    if let Combine::Add(elem) = combine {
        if !adds(elem) {
            return Err(Error::internal(format!("scatter-add of {elem} reached the plan kernel")));
        }
    }
    for_each_run(g, indices, |big, small, n| {
        let (dst, src) = (&mut target[big * e..(big + n) * e], &updates[small * e..(small + n) * e]);
        match combine {
            Combine::Replace => dst.copy_from_slice(src),
            Combine::Add(elem) => add_into(elem, dst, src),
        }
    })
}


/// dst[i] += src[i] for little-endian elements of `elem` (wrapping for integers).
fn add_into(elem: E, dst: &mut [u8], src: &[u8]) {
    macro_rules! add {
        ($t:ty, $op:ident) => {{
            const N: usize = std::mem::size_of::<$t>();
            for (d, s) in dst.chunks_exact_mut(N).zip(src.chunks_exact(N)) {
                let sum = <$t>::from_le_bytes(d.try_into().unwrap()).$op(<$t>::from_le_bytes(s.try_into().unwrap()));
                d.copy_from_slice(&sum.to_le_bytes());
            }
        }};
    }
    match elem {
        E::F32 => add!(f32, add),
        E::F64 => add!(f64, add),
        E::S8 => add!(i8, wrapping_add),
        E::S16 => add!(i16, wrapping_add),
        E::S32 => add!(i32, wrapping_add),
        E::S64 => add!(i64, wrapping_add),
        E::U8 => add!(u8, wrapping_add),
        E::U16 => add!(u16, wrapping_add),
        E::U32 => add!(u32, wrapping_add),
        E::U64 => add!(u64, wrapping_add),
        // `scatter` checked `adds(elem)` before the first run.
        _ => {}
    }
}
