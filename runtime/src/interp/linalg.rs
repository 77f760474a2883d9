//! `cholesky` and `triangular_solve` on batches of matrices (the last two dimensions), in f64 or
//! complex f64. Implementation-defined parts: the unused triangle of a Cholesky factor is zero,
//! and a matrix that is not positive definite yields NaN from the failing pivot on (as XLA:CPU).

use super::array::{to_f64, Array, Scalar};
use super::complex::C64;
use super::value::Dense;
use apu_compiler::ir::{TensorType, Transpose};
use apu_compiler::{Error, Result};

fn is_supported(d: &Dense) -> bool {
    matches!(d.elem().real_part(), apu_compiler::ir::ElementType::F32 | apu_compiler::ir::ElementType::F64)
}

pub(super) fn complex_values(d: &Dense) -> Vec<C64> {
    (0..d.data.len())
        .map(|k| match d.data.get(k) {
            Scalar::Complex(re, im) => C64::new(re, im),
            s => C64::new(to_f64(s), 0.0),
        })
        .collect()
}

pub(super) fn store(ty: &TensorType, v: Vec<C64>) -> Result<Dense> {
    let complex = ty.elem.is_complex();
    let values = v.into_iter().map(|z| if complex { Scalar::Complex(z.re, z.im) } else { Scalar::Float(z.re) });
    Dense::new(ty.clone(), Array::from_scalars(ty.elem, values)?)
}

pub(super) fn conj(z: C64) -> C64 {
    C64::new(z.re, -z.im)
}

/// (batch count, rows, cols) of a tensor of rank ≥ 2.
fn matrices(d: &Dense, what: &str) -> Result<(usize, usize, usize)> {
    let r = d.ty.rank();
    if r < 2 {
        return Err(Error::invalid(format!("{what}: operand {} must have rank at least 2", d.ty)));
    }
    let (m, n) = (d.ty.shape[r - 2] as usize, d.ty.shape[r - 1] as usize);
    Ok((d.data.len() / (m * n).max(1), m, n))
}

pub fn cholesky(a: &Dense, lower: bool) -> Result<Dense> {
    if !is_supported(a) {
        return Err(Error::unimplemented(format!("cholesky for {}", a.elem())));
    }
    let (batch, n, n2) = matrices(a, "cholesky")?;
    if n != n2 {
        return Err(Error::invalid(format!("cholesky: {} is not a batch of square matrices", a.ty)));
    }
    let v = complex_values(a);
    let mut out = vec![C64::new(0.0, 0.0); v.len()];
    for b in 0..batch {
        let base = b * n * n;
        // Read the used triangle as the Hermitian matrix it stands for; compute L, then store L
        // or L^H.
        let at = |i: usize, j: usize| if lower == (i >= j) { v[base + i * n + j] } else { conj(v[base + j * n + i]) };
        let mut l = vec![C64::new(0.0, 0.0); n * n];
        let mut failed = false;
        for j in 0..n {
            let mut d = at(j, j).re;
            for k in 0..j {
                d -= l[j * n + k].abs().powi(2);
            }
            let djj = if failed || d <= 0.0 || d.is_nan() { failed = true; f64::NAN } else { d.sqrt() };
            l[j * n + j] = C64::new(djj, 0.0);
            for i in j + 1..n {
                let mut s = at(i, j);
                for k in 0..j {
                    s = s - l[i * n + k] * conj(l[j * n + k]);
                }
                l[i * n + j] = C64::new(s.re / djj, s.im / djj);
            }
        }
        for i in 0..n {
            for j in 0..=i {
                if lower {
                    out[base + i * n + j] = l[i * n + j];
                } else {
                    out[base + j * n + i] = conj(l[i * n + j]);
                }
            }
        }
    }
    store(&a.ty, out)
}

pub fn triangular_solve(a: &Dense, b: &Dense, left_side: bool, lower: bool, unit_diagonal: bool, transpose_a: Transpose) -> Result<Dense> {
    if !is_supported(a) {
        return Err(Error::unimplemented(format!("triangular_solve for {}", a.elem())));
    }
    if a.elem() != b.elem() {
        return Err(Error::invalid(format!("triangular_solve: {} and {} differ in element type", a.ty, b.ty)));
    }
    let (batch, n, n2) = matrices(a, "triangular_solve")?;
    let (bbatch, m, k) = matrices(b, "triangular_solve")?;
    if n != n2 || bbatch != batch || (left_side && m != n) || (!left_side && k != n) {
        return Err(Error::invalid(format!("triangular_solve: {} and {} do not fit", a.ty, b.ty)));
    }
    let av = complex_values(a);
    let bv = complex_values(b);
    let mut out = bv.clone();
    for t in 0..batch {
        let abase = t * n * n;
        // The triangle of `a` that is read, with an optional unit diagonal.
        let tri = |i: usize, j: usize| -> C64 {
            if i == j && unit_diagonal {
                C64::new(1.0, 0.0)
            } else if (lower && j <= i) || (!lower && j >= i) {
                av[abase + i * n + j]
            } else {
                C64::new(0.0, 0.0)
            }
        };
        // op(a), materialised.
        let op = |i: usize, j: usize| -> C64 {
            match transpose_a {
                Transpose::NoTranspose => tri(i, j),
                Transpose::Transpose => tri(j, i),
                Transpose::Adjoint => conj(tri(j, i)),
            }
        };
        let op_lower = lower == (transpose_a == Transpose::NoTranspose);
        let bbase = t * m * k;
        // Left: op(a) x = b column by column. Right: x op(a) = b ⇔ op(a)^T x^T = b^T row by row,
        // where op(a)^T is triangular the other way.
        let (systems, size) = if left_side { (k, n) } else { (m, n) };
        for s in 0..systems {
            let idx = |r: usize| if left_side { bbase + r * k + s } else { bbase + s * k + r };
            let coef = |i: usize, j: usize| if left_side { op(i, j) } else { op(j, i) };
            let forward = if left_side { op_lower } else { !op_lower };
            let order: Vec<usize> = if forward { (0..size).collect() } else { (0..size).rev().collect() };
            for (pos, &i) in order.iter().enumerate() {
                let mut acc = bv[idx(i)];
                for &j in &order[..pos] {
                    acc = acc - coef(i, j) * out[idx(j)];
                }
                out[idx(i)] = acc / coef(i, i);
            }
        }
    }
    store(&b.ty, out)
}
