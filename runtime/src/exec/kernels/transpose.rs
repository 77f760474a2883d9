//! Copies of transposed views, tile by tile.
//!
//! A fused kernel that only loads a transposed view (the planner's transposed copies, a
//! `transpose` the program stores) reads its input across rows when it walks its output in
//! order. With a power-of-two row length every one of those reads falls in the same few cache
//! sets, so each element costs a trip to L2 or further: about 1.6 ns per f32 for 512x512. Here
//! a square tile is read row by row into a small buffer and written out row by row: each cache
//! line is touched once on either side.

use crate::exec::workers::Workers;
use crate::exec::Ptr;

/// The output axes of a transposed copy: `a` is the output's last axis (contiguous in the
/// output, strided in the input) and `b` an earlier axis that is contiguous in the input.
#[derive(Clone, Debug)]
pub struct Transposed {
    /// Output shape.
    shape: Vec<usize>,
    /// Input stride (elements) per output axis, and the offset of output element 0.
    strides: Vec<isize>,
    offset: isize,
    b: usize,
    esize: usize,
}

impl Transposed {
    /// The tiled form of a copy of `(offset, strides)` over output `shape`, when the output's
    /// last axis is strided in the input and an earlier axis is contiguous there.
    pub fn new(shape: &[usize], strides: &[isize], offset: isize, esize: usize) -> Option<Transposed> {
        let rank = shape.len();
        if rank < 2 || !matches!(esize, 1 | 2 | 4 | 8) || shape.contains(&0) {
            return None;
        }
        let a = rank - 1;
        if strides[a] == 1 || shape[a] < 2 {
            return None;
        }
        let b = (0..a).rev().find(|&d| strides[d] == 1 && shape[d] > 1)?;
        Some(Transposed { shape: shape.to_vec(), strides: strides.to_vec(), offset, b, esize })
    }

    /// Writes the whole output, splitting tile rows over the pool.
    ///
    /// # Safety
    /// `input` must hold every element the strides reach from the offset; `out` must hold the
    /// output's elements and not overlap the input.
    pub unsafe fn run(&self, input: Ptr, out: Ptr, workers: &Workers) {
        // Tiles of at least a cache line of bytes per row.
        match self.esize {
            1 => self.run_typed::<u8, 64>(input, out, workers),
            2 => self.run_typed::<u16, 32>(input, out, workers),
            4 => self.run_typed::<u32, 16>(input, out, workers),
            _ => self.run_typed::<u64, 16>(input, out, workers),
        }
    }

    unsafe fn run_typed<T: Copy + Default, const TILE: usize>(&self, input: Ptr, out: Ptr, workers: &Workers) {
        let a = self.shape.len() - 1;
        let blocks = self.shape[self.b].div_ceil(TILE);
        let outer: usize = self.shape[..a].iter().enumerate().filter(|&(d, _)| d != self.b).map(|(_, &n)| n).product();
        workers.for_ranges(outer * blocks, 1, TILE * self.shape[a], &|units| {
            for u in units {
                self.band::<T, TILE>(input, out, u / blocks, u % blocks);
            }
        });
    }

    /// Tile row `block` (of axis b) of outer position `o` (the axes other than a and b, in order).
    unsafe fn band<T: Copy + Default, const TILE: usize>(&self, input: Ptr, out: Ptr, mut o: usize, block: usize) {
        let a = self.shape.len() - 1;
        let (mut base_in, mut base_out) = (self.offset, 0isize);
        let mut out_stride = 1isize;
        let mut out_stride_b = 0isize;
        for d in (0..a + 1).rev() {
            if d != a && d != self.b {
                let i = o % self.shape[d];
                o /= self.shape[d];
                base_in += i as isize * self.strides[d];
                base_out += i as isize * out_stride;
            }
            if d == self.b {
                out_stride_b = out_stride;
            }
            out_stride *= self.shape[d] as isize;
        }
        let (src, dst) = (input.get() as *const T, out.get() as *mut T);
        let sa = self.strides[a];
        let b0 = block * TILE;
        let nb = TILE.min(self.shape[self.b] - b0);
        let mut buf = [[T::default(); TILE]; TILE];
        let mut a0 = 0;
        while a0 < self.shape[a] {
            let na = TILE.min(self.shape[a] - a0);
            // Read: one input row (contiguous along b) per output column.
            for (j, row) in buf.iter_mut().enumerate().take(na) {
                let s = src.offset(base_in + (a0 + j) as isize * sa + b0 as isize);
                for (i, v) in row.iter_mut().enumerate().take(nb) {
                    *v = *s.add(i);
                }
            }
            // Write: one output row (contiguous along a) per input column.
            for i in 0..nb {
                let d = dst.offset(base_out + (b0 + i) as isize * out_stride_b + a0 as isize);
                for (j, row) in buf.iter().enumerate().take(na) {
                    *d.add(j) = row[i];
                }
            }
            a0 += na;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiled copy against the plain strided one, over shapes that leave partial tiles, with
    /// the contiguous input axis at different positions and every element size.
    #[test]
    fn tiled_copies_match_strided_reads() {
        fn check<T: Copy + Default + PartialEq + std::fmt::Debug + TryFrom<u64>>(shape_in: &[usize], perm: &[usize], threads: usize) {
            let n: usize = shape_in.iter().product();
            let input: Vec<T> = (0..n as u64).map(|i| T::try_from(i % 251).ok().unwrap()).collect();
            let mut in_strides = vec![1isize; shape_in.len()];
            for d in (0..shape_in.len() - 1).rev() {
                in_strides[d] = in_strides[d + 1] * shape_in[d + 1] as isize;
            }
            let shape: Vec<usize> = perm.iter().map(|&p| shape_in[p]).collect();
            let strides: Vec<isize> = perm.iter().map(|&p| in_strides[p]).collect();
            let mut expected = Vec::with_capacity(n);
            let mut idx = vec![0usize; shape.len()];
            for _ in 0..n {
                let at: isize = idx.iter().zip(&strides).map(|(&i, &s)| i as isize * s).sum();
                expected.push(input[at as usize]);
                for d in (0..shape.len()).rev() {
                    idx[d] += 1;
                    if idx[d] < shape[d] {
                        break;
                    }
                    idx[d] = 0;
                }
            }
            let t = Transposed::new(&shape, &strides, 0, std::mem::size_of::<T>()).expect("a transposed copy");
            let mut out = vec![T::default(); n];
            let workers = Workers::new(threads, 1).unwrap();
            unsafe { t.run(Ptr(input.as_ptr() as *const u8), Ptr(out.as_mut_ptr() as *const u8), &workers) };
            assert_eq!(out, expected, "shape {shape_in:?} perm {perm:?} threads {threads}");
        }
        for threads in [1, 3] {
            check::<u32>(&[37, 53], &[1, 0], threads);
            check::<u32>(&[16, 16], &[1, 0], threads);
            check::<u64>(&[5, 19, 33], &[0, 2, 1], threads);
            check::<u16>(&[3, 70, 41], &[2, 0, 1], threads);
            check::<u8>(&[130, 2, 67], &[1, 2, 0], threads);
            check::<u32>(&[4, 1, 9, 20], &[3, 1, 0, 2], threads);
        }
    }

    #[test]
    fn only_transposes_are_tiled() {
        // Output last axis contiguous in the input: an ordinary copy.
        assert!(Transposed::new(&[4, 8], &[8, 1], 0, 4).is_none());
        // No axis contiguous in the input (a strided slice): left to the general loads.
        assert!(Transposed::new(&[4, 8], &[2, 16], 0, 4).is_none());
        // Complex elements (16 bytes) are not tiled.
        assert!(Transposed::new(&[8, 4], &[1, 8], 0, 16).is_none());
        assert!(Transposed::new(&[8, 4], &[1, 8], 0, 4).is_some());
    }
}
