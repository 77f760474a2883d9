//! `cholesky` and `triangular_solve` on batches of matrices (the last two dimensions), in f64 or
//! complex f64. Implementation-defined parts: the unused triangle of a Cholesky factor is zero,
//! and a matrix that is not positive definite yields NaN from the failing pivot on (as XLA:CPU).

use crate::values::complex::C64;
use super::field::{self, Field};
use crate::values::value::Dense;
use apu_compiler::ir::Transpose;
use apu_compiler::{Error, Result};

fn is_supported(d: &Dense) -> bool {
    matches!(d.elem().real_part(), apu_compiler::ir::ElementType::F32 | apu_compiler::ir::ElementType::F64)
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
    if a.elem().is_complex() {
        cholesky_in::<C64>(a, batch, n, lower)
    } else {
        cholesky_in::<f64>(a, batch, n, lower)
    }
}

fn cholesky_in<T: Field>(a: &Dense, batch: usize, n: usize, lower: bool) -> Result<Dense> {
    let v = field::values::<T>(a);
    let mut out = vec![T::default(); v.len()];
    let mut l = vec![T::default(); n * n];
    for b in 0..batch {
        let base = b * n * n;
        // Read the used triangle as the Hermitian matrix it stands for; compute L (each entry a
        // dot product of two contiguous rows of L), then store L or Lᴴ.
        let at = |i: usize, j: usize| if lower == (i >= j) { v[base + i * n + j] } else { v[base + j * n + i].conj() };
        l.fill(T::default());
        let mut failed = false;
        for j in 0..n {
            let d = at(j, j).real() - l[j * n..j * n + j].iter().map(|x| x.abs2()).sum::<f64>();
            let djj = if failed || d <= 0.0 || d.is_nan() { failed = true; f64::NAN } else { d.sqrt() };
            l[j * n + j] = T::from_real(djj);
            for i in j + 1..n {
                let mut s = at(i, j);
                for (x, y) in l[i * n..i * n + j].iter().zip(&l[j * n..j * n + j]) {
                    s = s - *x * y.conj();
                }
                l[i * n + j] = s / T::from_real(djj);
            }
        }
        for i in 0..n {
            for j in 0..=i {
                if lower {
                    out[base + i * n + j] = l[i * n + j];
                } else {
                    out[base + j * n + i] = l[i * n + j].conj();
                }
            }
        }
    }
    field::store_values(&a.ty, out)
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
    let shape = Solve { batch, n, m, k, left_side, lower, unit_diagonal, transpose_a };
    if a.elem().is_complex() {
        triangular_solve_in::<C64>(a, b, shape)
    } else {
        triangular_solve_in::<f64>(a, b, shape)
    }
}

/// The sizes and attributes of one `triangular_solve`: `a` is batch × n×n, `b` batch × m×k.
#[derive(Clone, Copy)]
struct Solve {
    batch: usize,
    n: usize,
    m: usize,
    k: usize,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: Transpose,
}

fn triangular_solve_in<T: Field>(a: &Dense, b: &Dense, s: Solve) -> Result<Dense> {
    let Solve { batch, n, m, k, left_side, .. } = s;
    let av = field::values::<T>(a);
    let mut out = field::values::<T>(b);
    let mut coef = vec![T::default(); n * n];
    for t in 0..batch {
        // Every case becomes M X = B with M triangular: left, op(a) x = b; right, x op(a) = b is
        // op(a)ᵀ xᵀ = bᵀ, where op(a)ᵀ is triangular the other way.
        let am = &av[t * n * n..(t + 1) * n * n];
        for i in 0..n {
            for j in 0..n {
                let (r, c) = if s.transpose_a == Transpose::NoTranspose { (i, j) } else { (j, i) };
                let z = if r == c && s.unit_diagonal {
                    T::from_real(1.0)
                } else if (s.lower && c <= r) || (!s.lower && c >= r) {
                    am[r * n + c]
                } else {
                    T::default()
                };
                let z = if s.transpose_a == Transpose::Adjoint { z.conj() } else { z };
                coef[if left_side { i * n + j } else { j * n + i }] = z;
            }
        }
        let op_lower = s.lower == (s.transpose_a == Transpose::NoTranspose);
        let x = &mut out[t * m * k..(t + 1) * m * k];
        if left_side {
            substitute(&coef, x, n, k, op_lower);
        } else {
            let mut xt: Vec<T> = (0..k * m).map(|q| x[(q % m) * k + q / m]).collect();
            substitute(&coef, &mut xt, n, m, !op_lower);
            for (q, z) in xt.into_iter().enumerate() {
                x[(q % m) * k + q / m] = z;
            }
        }
    }
    field::store_values(&b.ty, out)
}

/// Solves M X = B in place of B (n rows of width w) for triangular M (n×n): forward substitution
/// when `lower`, backward otherwise, combining whole rows.
fn substitute<T: Field>(mat: &[T], x: &mut [T], n: usize, w: usize, lower: bool) {
    let mut acc = vec![T::default(); w];
    for step in 0..n {
        let i = if lower { step } else { n - 1 - step };
        acc.copy_from_slice(&x[i * w..(i + 1) * w]);
        // The rows already solved, nearest the start of the substitution first.
        for k in 0..if lower { i } else { n - 1 - i } {
            let j = if lower { k } else { n - 1 - k };
            let c = mat[i * n + j];
            for (a, xj) in acc.iter_mut().zip(&x[j * w..(j + 1) * w]) {
                *a = *a - c * *xj;
            }
        }
        let d = mat[i * n + i];
        for (xi, a) in x[i * w..(i + 1) * w].iter_mut().zip(&acc) {
            *xi = *a / d;
        }
    }
}
