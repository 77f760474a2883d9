//! The plan's copy of a view of a type without fused kernels (`plan::view_copy`): each element of
//! the output is one element of the source, found through the view's offset and strides, copied
//! as bytes a row at a time (one `memcpy` when the row is contiguous, a fill when it repeats one
//! element).

use apu_compiler::plan::view::View;
use apu_compiler::{Error, Result};

/// Writes into `out` (row-major, `shape`) the elements of `src` that `view` names; `esize` bytes
/// per element. Refuses a view that reaches outside `src` instead of reading out of bounds.
pub fn copy_view(src: &[u8], out: &mut [u8], shape: &[i64], view: &View, esize: usize) -> Result<()> {
    let dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    let n: usize = dims.iter().product();
    if out.len() != n * esize || view.strides.len() != dims.len() {
        return Err(Error::internal(format!("view copy of {shape:?}: output of {} bytes, {} strides", out.len(), view.strides.len())));
    }
    if n == 0 {
        return Ok(());
    }
    // The lowest and highest element the view reads must lie in `src`.
    let (mut lo, mut hi) = (view.offset as isize, view.offset as isize);
    for (&d, &s) in dims.iter().zip(&view.strides) {
        let reach = (d as isize - 1) * s;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    if lo < 0 || (hi as usize + 1) * esize > src.len() {
        return Err(Error::internal(format!("view copy of {shape:?} reads elements {lo}..={hi} of a {}-byte buffer", src.len())));
    }
    let Some((&inner, outer)) = dims.split_last() else {
        out.copy_from_slice(&src[view.offset * esize..(view.offset + 1) * esize]);
        return Ok(());
    };
    let step = *view.strides.last().unwrap_or(&1);
    let row_bytes = inner * esize;
    let mut index = vec![0usize; outer.len()];
    for row in out.chunks_exact_mut(row_bytes) {
        let base = view.offset as isize + index.iter().zip(&view.strides).map(|(&i, &s)| i as isize * s).sum::<isize>();
        match step {
            1 => {
                let at = base as usize * esize;
                row.copy_from_slice(&src[at..at + row_bytes]);
            }
            0 => {
                let at = base as usize * esize;
                for e in row.chunks_exact_mut(esize) {
                    e.copy_from_slice(&src[at..at + esize]);
                }
            }
            _ => {
                for (j, e) in row.chunks_exact_mut(esize).enumerate() {
                    let at = (base + j as isize * step) as usize * esize;
                    e.copy_from_slice(&src[at..at + esize]);
                }
            }
        }
        // The next row: the outer index in row-major order.
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < outer[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn transposes_broadcasts_reverses_and_slices_two_byte_elements() {
        let src = bytes(&[0, 1, 2, 3, 4, 5]); // a 2x3 value
        let mut out = vec![0u8; 12];
        copy_view(&src, &mut out, &[3, 2], &View::identity(&[2, 3]).transpose(&[1, 0]).unwrap(), 2).unwrap();
        assert_eq!(out, bytes(&[0, 3, 1, 4, 2, 5]));
        let row = bytes(&[7, 8, 9]);
        copy_view(&row, &mut out, &[2, 3], &View::identity(&[3]).broadcast(&[3], &[1], &[2, 3]).unwrap(), 2).unwrap();
        assert_eq!(out, bytes(&[7, 8, 9, 7, 8, 9]));
        copy_view(&src, &mut out, &[2, 3], &View::identity(&[2, 3]).reverse(&[2, 3], &[1]).unwrap(), 2).unwrap();
        assert_eq!(out, bytes(&[2, 1, 0, 5, 4, 3]));
        let mut two = vec![0u8; 4];
        copy_view(&src, &mut two, &[2, 1], &View::identity(&[2, 3]).slice(&[0, 1], &[1, 2]).unwrap(), 2).unwrap();
        assert_eq!(two, bytes(&[1, 4]));
        let one = bytes(&[5]);
        copy_view(&one, &mut out, &[2, 3], &View::identity(&[]).broadcast(&[], &[], &[2, 3]).unwrap(), 2).unwrap();
        assert_eq!(out, bytes(&[5; 6]));
    }

    #[test]
    fn a_view_reaching_outside_its_source_is_an_error() {
        let src = bytes(&[0, 1, 2]);
        let mut out = vec![0u8; 8];
        let wide = View { offset: 0, strides: vec![1] };
        assert!(copy_view(&src, &mut out, &[4], &wide, 2).is_err());
    }
}
