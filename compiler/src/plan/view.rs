//! Strided views: how a value of some shape reads the elements of a buffer. Broadcasts, transposes,
//! slices and (some) reshapes of a stored value compose into one view instead of being copied.

/// Element `coords` of the viewed shape lives at `offset + sum(coords[d] * strides[d])` of the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub offset: usize,
    pub strides: Vec<isize>,
}

/// Row-major strides of `shape`, in elements.
pub fn row_major(shape: &[i64]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(0) as isize;
    }
    s
}

impl View {
    /// The whole buffer of a value of `shape`, in order.
    pub fn identity(shape: &[i64]) -> View {
        View { offset: 0, strides: row_major(shape) }
    }

    /// Whether this view reads a `shape` buffer exactly in order (size-1 dimensions ignored).
    pub fn is_contiguous(&self, shape: &[i64]) -> bool {
        self.offset == 0 && self.strides.iter().zip(row_major(shape)).zip(shape).all(|((&s, r), &d)| d == 1 || s == r)
    }

    /// Whether every element reads the same buffer element.
    pub fn is_scalar(&self, shape: &[i64]) -> bool {
        self.strides.iter().zip(shape).all(|(&s, &d)| s == 0 || d == 1)
    }

    /// `broadcast_in_dim` from `in_shape` to `out_shape`: operand dimension `i` becomes `dims[i]`.
    pub fn broadcast(&self, in_shape: &[i64], dims: &[i64], out_shape: &[i64]) -> Option<View> {
        let mut strides = vec![0isize; out_shape.len()];
        for (i, &d) in dims.iter().enumerate() {
            let d = usize::try_from(d).ok().filter(|&d| d < out_shape.len())?;
            if in_shape.get(i)? == out_shape.get(d)? {
                strides[d] = *self.strides.get(i)?;
            }
        }
        Some(View { offset: self.offset, strides })
    }

    /// `transpose`: result dimension `d` is operand dimension `perm[d]`.
    pub fn transpose(&self, perm: &[i64]) -> Option<View> {
        let strides = perm.iter().map(|&p| usize::try_from(p).ok().and_then(|p| self.strides.get(p).copied())).collect::<Option<_>>()?;
        Some(View { offset: self.offset, strides })
    }

    /// `slice` with unit-or-larger steps.
    pub fn slice(&self, start: &[i64], steps: &[i64]) -> Option<View> {
        let mut offset = self.offset as isize;
        let mut strides = Vec::with_capacity(self.strides.len());
        for ((&s, &b), &k) in self.strides.iter().zip(start).zip(steps) {
            if b < 0 || k < 1 {
                return None;
            }
            offset += s * b as isize;
            strides.push(s * k as isize);
        }
        Some(View { offset: usize::try_from(offset).ok()?, strides })
    }

    /// `reverse` of `dims` of a value of `shape`: those axes are read from their last element
    /// backwards (a negative stride).
    pub fn reverse(&self, shape: &[i64], dims: &[i64]) -> Option<View> {
        let mut offset = self.offset as isize;
        let mut strides = self.strides.clone();
        let mut seen = vec![false; shape.len()];
        for &d in dims {
            let d = usize::try_from(d).ok().filter(|&d| d < shape.len() && !seen[d])?;
            seen[d] = true;
            offset += strides[d] * (shape[d].max(1) - 1) as isize;
            strides[d] = -strides[d];
        }
        Some(View { offset: usize::try_from(offset).ok()?, strides })
    }

    /// `reshape` from `in_shape` to `out_shape`, when it is still a strided view: contiguous
    /// reads stay contiguous and a broadcast scalar stays a broadcast scalar.
    pub fn reshape(&self, in_shape: &[i64], out_shape: &[i64]) -> Option<View> {
        if self.is_scalar(in_shape) {
            return Some(View { offset: self.offset, strides: vec![0; out_shape.len()] });
        }
        if self.strides.iter().zip(row_major(in_shape)).zip(in_shape).all(|((&s, r), &d)| d == 1 || s == r) {
            return Some(View { offset: self.offset, strides: row_major(out_shape) });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_then_transpose_composes_strides() {
        let v = View::identity(&[3]);
        let b = v.broadcast(&[3], &[1], &[2, 3]).unwrap();
        assert_eq!(b.strides, vec![0, 1]);
        let t = b.transpose(&[1, 0]).unwrap();
        assert_eq!(t.strides, vec![1, 0]);
        assert!(!t.is_contiguous(&[3, 2]));
    }

    #[test]
    fn reverse_reads_axes_backwards() {
        let v = View::identity(&[2, 3]).reverse(&[2, 3], &[1]).unwrap();
        assert_eq!((v.offset, v.strides.clone()), (2, vec![3, -1]));
        let w = v.reverse(&[2, 3], &[0, 1]).unwrap();
        assert_eq!((w.offset, w.strides.clone()), (3, vec![-3, 1]));
        assert!(View::identity(&[2]).reverse(&[2], &[0, 0]).is_none());
    }

    #[test]
    fn reshape_of_transpose_is_not_a_view() {
        let t = View::identity(&[2, 3]).transpose(&[1, 0]).unwrap();
        assert!(t.reshape(&[3, 2], &[6]).is_none());
        let s = View::identity(&[4, 5]).slice(&[1, 2], &[1, 2]).unwrap();
        assert_eq!((s.offset, s.strides.clone()), (7, vec![5, 2]));
    }
}
