//! Multi-dimensional index arithmetic shared by the shape ops.

/// Row-major strides of `shape`, in elements.
pub fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(0) as usize;
    }
    s
}

pub fn num_elements(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// Linear position of `index` under `strides`.
pub fn linear(index: &[i64], strides: &[usize]) -> usize {
    index.iter().zip(strides).map(|(&i, &s)| i as usize * s).sum()
}

/// Calls `f` with every index of `shape` in row-major order.
pub fn for_each_index(shape: &[i64], mut f: impl FnMut(&[i64])) {
    let _ = try_for_each_index::<()>(shape, |i| {
        f(i);
        Ok(())
    });
}

/// Like [`for_each_index`], stopping at the first error.
pub fn try_for_each_index<E>(shape: &[i64], mut f: impl FnMut(&[i64]) -> Result<(), E>) -> Result<(), E> {
    if shape.iter().any(|&d| d <= 0) {
        return Ok(());
    }
    let mut idx = vec![0i64; shape.len()];
    loop {
        f(&idx)?;
        let mut d = shape.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
