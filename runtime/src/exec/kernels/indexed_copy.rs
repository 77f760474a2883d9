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
    if let Some(rows) = RowForm::of(g) {
        return rows.for_each(g, indices, &mut f);
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

/// The form of JAX's row gathers and scatters (`x[idx]`, `segment_sum`, embedding lookups): one
/// index component placing whole slabs along the big tensor's first dimension, at most one batch
/// dimension, each slab contiguous in the small tensor. Its loop reads one typed index per slab
/// and makes one run of the slab, where the general loop's per-box bookkeeping (counters, a
/// start vector, a fit test per dimension) cost more than copying a 64-float row.
struct RowForm {
    slabs: usize,
    /// The slab's length in elements (the big tensor's first stride).
    slab: usize,
    index_stride: usize,
    small_stride: usize,
}

impl RowForm {
    fn of(g: &Geometry) -> Option<RowForm> {
        let rank = g.big_shape.len();
        if rank == 0 || g.big_shape[0] == 0 || g.start_map != [0] || !g.batch_starts.is_empty() || g.sizes[0] != 1 || g.batch_shape.len() > 1 {
            return None;
        }
        // Whole slabs, laid out row-major in the small tensor too.
        let mut expected = 1;
        for d in (1..rank).rev() {
            if g.sizes[d] != g.big_shape[d] || (g.sizes[d] > 1 && g.box_small_strides[d] != expected) {
                return None;
            }
            expected *= g.sizes[d];
        }
        let one = |v: &[usize]| v.first().copied().unwrap_or(0);
        Some(RowForm { slabs: one(&g.batch_shape).max(g.batch_shape.is_empty() as usize), slab: g.big_strides[0], index_stride: one(&g.batch_index_strides), small_stride: one(&g.batch_small_strides) })
    }

    fn for_each(&self, g: &Geometry, indices: &[u8], f: &mut impl FnMut(usize, usize, usize)) -> Result<()> {
        match g.index_elem {
            E::S32 => self.typed(g, indices, |b: [u8; 4]| i32::from_le_bytes(b) as i128, f),
            E::S64 => self.typed(g, indices, |b: [u8; 8]| i64::from_le_bytes(b) as i128, f),
            E::U32 => self.typed(g, indices, |b: [u8; 4]| u32::from_le_bytes(b) as i128, f),
            E::U64 => self.typed(g, indices, |b: [u8; 8]| u64::from_le_bytes(b) as i128, f),
            E::S16 => self.typed(g, indices, |b: [u8; 2]| i16::from_le_bytes(b) as i128, f),
            E::U16 => self.typed(g, indices, |b: [u8; 2]| u16::from_le_bytes(b) as i128, f),
            E::S8 => self.typed(g, indices, |b: [u8; 1]| b[0] as i8 as i128, f),
            _ => self.typed(g, indices, |b: [u8; 1]| b[0] as i128, f),
        }
    }

    #[inline(always)]
    fn typed<const N: usize>(&self, g: &Geometry, indices: &[u8], value: impl Fn([u8; N]) -> i128, f: &mut impl FnMut(usize, usize, usize)) -> Result<()> {
        if self.slabs > 0 && indices.len() < ((self.slabs - 1) * self.index_stride + 1) * N {
            return Err(Error::internal("index slot too short"));
        }
        let rows = g.big_shape[0] as i128;
        for b in 0..self.slabs {
            let at = b * self.index_stride * N;
            let i = value(indices[at..at + N].try_into().unwrap());
            if (0..rows).contains(&i) || !g.skip_outside {
                f(i.clamp(0, rows - 1) as usize * self.slab, b * self.small_stride, self.slab);
            }
        }
        Ok(())
    }
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
            let n = dst.len().min(src.len()) / N;
            let (d, s) = (dst.as_mut_ptr() as *mut $t, src.as_ptr() as *const $t);
            // SAFETY: both slices hold `n` elements; unaligned accesses (the byte slices need not
            // be aligned), element by element so that the loop vectorises. Little-endian host.
            for i in 0..n {
                unsafe { d.add(i).write_unaligned(d.add(i).read_unaligned().$op(s.add(i).read_unaligned())) };
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
