//! Copies between apu's dense row-major storage and host memory laid out with arbitrary byte
//! strides (numpy views, transposed layouts, padded rows). Strides may be zero or negative, so every
//! copy first computes the byte range it touches and checks it against the slice it was given.

use apu_compiler::{Error, Result};
use apu_compiler::ir::same_dims;

/// Byte strides of the dense row-major layout of `shape` with `elem_size`-byte elements.
pub fn dense_byte_strides(shape: &[i64], elem_size: usize) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut step = elem_size as i64;
    for i in (0..shape.len()).rev() {
        strides[i] = step;
        step = step.saturating_mul(shape[i].max(0));
    }
    strides
}

/// Byte strides for a layout given as `minor_to_major` (XLA's layout order: first entry is the
/// fastest-varying dimension). `minor_to_major` must be a permutation of `0..rank`.
pub fn byte_strides_for_minor_to_major(
    shape: &[i64],
    minor_to_major: &[i64],
    elem_size: usize,
) -> Result<Vec<i64>> {
    let rank = shape.len();
    if minor_to_major.len() != rank {
        return Err(Error::invalid(format!(
            "layout minor_to_major {minor_to_major:?} has {} entries for a rank-{rank} shape",
            minor_to_major.len()
        )));
    }
    let mut seen = vec![false; rank];
    let mut strides = vec![0i64; rank];
    let mut step = elem_size as i64;
    for &dim in minor_to_major {
        let d = usize::try_from(dim)
            .ok()
            .filter(|&d| d < rank && !seen[d])
            .ok_or_else(|| {
                Error::invalid(format!(
                    "layout minor_to_major {minor_to_major:?} is not a permutation of 0..{rank}"
                ))
            })?;
        seen[d] = true;
        strides[d] = step;
        step = step.saturating_mul(shape[d].max(0));
    }
    Ok(strides)
}

/// The byte range `[lowest, end)` relative to element `[0, …, 0]` that a strided array touches, or
/// `None` for an array with no elements.
pub fn byte_extent(
    shape: &[i64],
    byte_strides: &[i64],
    elem_size: usize,
) -> Result<Option<(i64, i64)>> {
    check_rank(shape, byte_strides)?;
    if shape.iter().any(|&d| d <= 0) {
        if let Some(d) = shape.iter().find(|&&d| d < 0) {
            return Err(Error::invalid(format!(
                "negative dimension {d} in shape {shape:?}"
            )));
        }
        return Ok(None);
    }
    let (mut low, mut high) = (0i64, 0i64);
    for (&d, &s) in shape.iter().zip(byte_strides) {
        let span = (d - 1).checked_mul(s).ok_or_else(|| {
            Error::invalid(format!(
                "byte strides {byte_strides:?} overflow for shape {shape:?}"
            ))
        })?;
        if span < 0 {
            low += span;
        } else {
            high += span;
        }
    }
    Ok(Some((low, high + elem_size as i64)))
}

fn check_rank(shape: &[i64], byte_strides: &[i64]) -> Result<()> {
    if shape.len() != byte_strides.len() {
        return Err(Error::invalid(format!(
            "{} byte strides given for a rank-{} shape {shape:?}",
            byte_strides.len(),
            shape.len()
        )));
    }
    Ok(())
}

/// Visits the byte offset (relative to element zero) of every element in row-major order.
fn for_each_offset(shape: &[i64], byte_strides: &[i64], mut visit: impl FnMut(i64)) {
    let rank = shape.len();
    if shape.iter().any(|&d| d <= 0) {
        return;
    }
    if rank == 0 {
        visit(0);
        return;
    }
    let mut index = vec![0i64; rank];
    let mut offset = 0i64;
    loop {
        // The innermost dimension is a simple run.
        let (inner, inner_stride) = (shape[rank - 1], byte_strides[rank - 1]);
        for i in 0..inner {
            visit(offset + i * inner_stride);
        }
        // Advance the outer dimensions like an odometer.
        let mut dim = rank - 1;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            offset += byte_strides[dim];
            if index[dim] < shape[dim] {
                break;
            }
            offset -= index[dim] * byte_strides[dim];
            index[dim] = 0;
        }
    }
}

fn checked_origin(len: usize, origin: usize, extent: (i64, i64), what: &str) -> Result<()> {
    let low = origin as i64 + extent.0;
    let high = origin as i64 + extent.1;
    if low < 0 || high > len as i64 {
        return Err(Error::invalid(format!(
            "{what} touches bytes [{low}, {high}) outside the {len}-byte region it was given"
        )));
    }
    Ok(())
}

/// Copies a strided array out of `src` into `out`, dense row-major bytes (`out` must hold exactly
/// that many). Element zero is at byte `origin` of `src`. The caller allocates `out` (a host buffer
/// is copied once, straight into device memory), after [`byte_extent`] has accepted the shape.
pub fn gather_strided_into(
    src: &[u8],
    origin: usize,
    shape: &[i64],
    byte_strides: &[i64],
    elem_size: usize,
    out: &mut [u8],
) -> Result<()> {
    let Some(extent) = byte_extent(shape, byte_strides, elem_size)? else {
        return Ok(());
    };
    checked_origin(src.len(), origin, extent, "strided source")?;
    let count: usize = shape.iter().map(|&d| d as usize).product();
    if out.len() != count * elem_size {
        return Err(Error::internal(format!("gathering {count} elements of {elem_size} bytes into {} bytes", out.len())));
    }
    let dense = dense_byte_strides(shape, elem_size);
    if same_dims(byte_strides, &dense) {
        out.copy_from_slice(&src[origin..origin + out.len()]);
        return Ok(());
    }
    let mut chunks = out.chunks_exact_mut(elem_size.max(1));
    for_each_offset(shape, byte_strides, |off| {
        let at = (origin as i64 + off) as usize;
        if let Some(dst) = chunks.next() {
            dst.copy_from_slice(&src[at..at + elem_size]);
        }
    });
    Ok(())
}

/// Copies dense row-major bytes into a strided array inside `dst`. Element zero goes to byte
/// `origin` of `dst`.
pub fn scatter_strided(
    dense: &[u8],
    dst: &mut [u8],
    origin: usize,
    shape: &[i64],
    byte_strides: &[i64],
    elem_size: usize,
) -> Result<()> {
    let Some(extent) = byte_extent(shape, byte_strides, elem_size)? else {
        return Ok(());
    };
    let count: usize = shape.iter().map(|&d| d as usize).product();
    if dense.len() != count * elem_size {
        return Err(Error::internal(format!(
            "dense source has {} bytes, shape {shape:?} needs {}",
            dense.len(),
            count * elem_size
        )));
    }
    checked_origin(dst.len(), origin, extent, "strided destination")?;
    if same_dims(byte_strides, &dense_byte_strides(shape, elem_size)) {
        dst[origin..origin + dense.len()].copy_from_slice(dense);
        return Ok(());
    }
    let mut next = 0usize;
    for_each_offset(shape, byte_strides, |off| {
        let at = (origin as i64 + off) as usize;
        dst[at..at + elem_size].copy_from_slice(&dense[next..next + elem_size]);
        next += elem_size;
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gathers into a new `Vec`, allocated once `byte_extent` has accepted the shape (as
    /// `BufferFromHostBuffer` does into device memory).
    fn gather_strided(src: &[u8], origin: usize, shape: &[i64], byte_strides: &[i64], elem_size: usize) -> Result<Vec<u8>> {
        if byte_extent(shape, byte_strides, elem_size)?.is_none() {
            return Ok(Vec::new());
        }
        let mut out = vec![0u8; shape.iter().map(|&d| d as usize).product::<usize>() * elem_size];
        gather_strided_into(src, origin, shape, byte_strides, elem_size, &mut out)?;
        Ok(out)
    }

    #[test]
    fn dense_strides_are_row_major() {
        assert_eq!(dense_byte_strides(&[2, 3, 4], 4), vec![48, 16, 4]);
        assert_eq!(dense_byte_strides(&[], 8), Vec::<i64>::new());
        assert_eq!(
            byte_strides_for_minor_to_major(&[2, 3], &[1, 0], 4).unwrap(),
            vec![12, 4]
        );
        assert_eq!(
            byte_strides_for_minor_to_major(&[2, 3], &[0, 1], 4).unwrap(),
            vec![4, 8]
        );
        assert!(byte_strides_for_minor_to_major(&[2, 3], &[0, 0], 4).is_err());
        assert!(byte_strides_for_minor_to_major(&[2, 3], &[0], 4).is_err());
    }

    #[test]
    fn gather_transposed_and_negative_strides() {
        // A 2x3 u8 matrix stored column-major: element (i, j) at i + 2j.
        let col_major = [0u8, 3, 1, 4, 2, 5];
        let dense = gather_strided(&col_major, 0, &[2, 3], &[1, 2], 1).unwrap();
        assert_eq!(dense, vec![0, 1, 2, 3, 4, 5]);
        // Reversed vector: element zero at the end.
        let rev = [3u8, 2, 1, 0];
        assert_eq!(
            gather_strided(&rev, 3, &[4], &[-1], 1).unwrap(),
            vec![0, 1, 2, 3]
        );
        // Broadcast (stride 0).
        assert_eq!(
            gather_strided(&[7u8], 0, &[3], &[0], 1).unwrap(),
            vec![7, 7, 7]
        );
    }

    #[test]
    fn gather_rejects_out_of_range_strides() {
        let err = gather_strided(&[0u8; 4], 0, &[5], &[1], 1).unwrap_err();
        assert!(err.message.contains("outside"), "{err}");
        assert!(gather_strided(&[0u8; 4], 0, &[2], &[1, 1], 1).is_err());
        assert!(gather_strided(&[0u8; 4], 0, &[i64::MAX], &[i64::MAX], 1).is_err());
    }

    #[test]
    fn scatter_round_trips_gather() {
        let dense: Vec<u8> = (0..24).collect();
        // Padded rows: each row of 3 two-byte elements occupies 8 bytes.
        let mut host = vec![0xAAu8; 4 * 8];
        scatter_strided(&dense, &mut host, 0, &[4, 3], &[8, 2], 2).unwrap();
        assert_eq!(&host[6..8], &[0xAA, 0xAA], "padding untouched");
        assert_eq!(
            gather_strided(&host, 0, &[4, 3], &[8, 2], 2).unwrap(),
            dense
        );
        assert!(scatter_strided(&dense, &mut host[..29], 0, &[4, 3], &[8, 2], 2).is_err());
    }

    #[test]
    fn empty_and_scalar_shapes() {
        assert_eq!(
            gather_strided(&[], 0, &[0, 5], &[4, 4], 4).unwrap(),
            Vec::<u8>::new()
        );
        assert_eq!(gather_strided(&[1, 2], 0, &[], &[], 2).unwrap(), vec![1, 2]);
    }
}
