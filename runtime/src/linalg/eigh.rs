//! `custom_call @Eigh`: the eigendecomposition of Hermitian (real symmetric) matrices, as XLA's
//! Eigh expander defines the target (`xla/service/eigh_expander.cc`). JAX emits it for
//! `lax.linalg.eigh` on platforms without LAPACK, directly (Jacobi) or for the small blocks of its
//! QDWH divide and conquer; apu's Python package registers that lowering for `apu`, so
//! `jnp.linalg.eigh`, `svd`, `lstsq`, `pinv` and `polyfit` reach this code.
//!
//! - Operand `a`: `[..., n, n]`, f32, f64, c64 or c128; only the triangle named by `lower` is read.
//! - Results: `v` of `a`'s type, eigenvectors in its columns (a = v · diag(w) · vᴴ), and the real
//!   eigenvalues `w` of shape `[..., n]`, ascending when `sort_eigenvalues`.
//! - `backend_config` is the string "lower,sort_eigenvalues,max_sweeps,tolerance".
//! - n ≤ 1: v is 1 and w the real part of the diagonal (as the expander).
//!
//! The target's name says Jacobi, but what it promises is the decomposition, so apu computes it
//! the faster way: Householder tridiagonalization and implicit QL (`hermitian_eigen`), in f64 (the
//! complex types in complex f64) and rounded once on store. That is as accurate as the element
//! type holds; `max_sweeps` and `tolerance`, which tune XLA's Jacobi, are checked but not needed.
//! A matrix with a NaN or infinity in the triangle read gives NaN vectors and values.

use crate::values::complex::C64;
use super::field::{self, Field};
use super::hermitian_eigen;
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{AttrValue, ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const EIGH_TARGET: &str = "Eigh";

/// The four fields of the target's backend config.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EighConfig {
    pub lower: bool,
    pub sort_eigenvalues: bool,
    pub max_sweeps: u32,
    pub tolerance: f64,
}

/// Parses "lower,sort_eigenvalues,max_sweeps,tolerance" (e.g. "1,1,100,1e-06").
pub fn config(backend_config: Option<&AttrValue>) -> Result<EighConfig> {
    let text = match backend_config {
        Some(AttrValue::String(s)) => s.as_str(),
        other => {
            return Err(Error::invalid(format!(
                "custom_call \"{EIGH_TARGET}\": backend_config must be the string \"lower,sort,max_sweeps,tolerance\", got {other:?}"
            )))
        }
    };
    let bad = || Error::invalid(format!("custom_call \"{EIGH_TARGET}\": cannot read backend_config \"{text}\" as \"lower,sort,max_sweeps,tolerance\""));
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let [lower, sort, sweeps, tol] = fields[..] else { return Err(bad()) };
    let flag = |s: &str| match s {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(bad()),
    };
    Ok(EighConfig {
        lower: flag(lower)?,
        sort_eigenvalues: flag(sort)?,
        max_sweeps: sweeps.parse().map_err(|_| bad())?,
        tolerance: tol.parse().map_err(|_| bad())?,
    })
}

/// Checks the backend config and the operand and result types (compile time and run time), and
/// gives the config.
pub fn check(backend_config: Option<&AttrValue>, operands: &[&TensorType], results: &[&TensorType]) -> Result<EighConfig> {
    let cfg = config(backend_config)?;
    let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    if operands.len() != 1 || results.len() != 2 {
        return Err(Error::invalid(format!(
            "custom_call \"{EIGH_TARGET}\" takes 1 operand and gives 2 results, got {} and {}",
            operands.len(),
            results.len()
        )));
    }
    let a = operands[0];
    if !matches!(a.elem, ElementType::F32 | ElementType::F64 | ElementType::C64 | ElementType::C128) {
        return Err(Error::unimplemented(format!("custom_call \"{EIGH_TARGET}\": Unsupported dtype {}", a.elem)));
    }
    let r = a.rank();
    if r < 2 || a.shape[r - 1] != a.shape[r - 2] {
        return Err(Error::invalid(format!("custom_call \"{EIGH_TARGET}\": operand {a} must be a batch of square matrices")));
    }
    let w = TensorType::new(a.shape[..r - 1].to_vec(), a.elem.real_part());
    if *results[0] != *a || *results[1] != w {
        return Err(Error::invalid(format!(
            "custom_call \"{EIGH_TARGET}\": results ({}) must be ({a}, {w}) for operand {a}",
            show(results)
        )));
    }
    Ok(cfg)
}

/// Runs the target on its one operand `a`, giving `[v, w]` of `result_types`.
pub fn eval(backend_config: Option<&AttrValue>, operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    let cfg = check_dense(operands, result_types, |ops, res| check(backend_config, ops, res))?;
    if operands[0].ty.elem.is_complex() {
        eval_in::<C64>(operands[0], result_types, cfg)
    } else {
        eval_in::<f64>(operands[0], result_types, cfg)
    }
}

/// The decomposition of every matrix of `a` in the field `T`.
fn eval_in<T: Field>(a: &Dense, result_types: &[TensorType], cfg: EighConfig) -> Result<Vec<Dense>> {
    let n = *a.ty.shape.last().unwrap() as usize;
    let count = if n == 0 { 0 } else { a.data.len() / (n * n) };
    let values = field::values::<T>(a);
    let mut vs = Vec::with_capacity(count * n * n);
    let mut ws = Vec::with_capacity(count * n);
    for b in 0..count {
        let (v, w) = eigh_one(&values[b * n * n..(b + 1) * n * n], n, cfg);
        vs.extend(v);
        ws.extend(w);
    }
    Ok(vec![field::store_values(&result_types[0], vs)?, field::store_values(&result_types[1], ws)?])
}

/// Eigenvectors (row-major n×n, in columns) and eigenvalues of one matrix.
fn eigh_one<T: Field>(m: &[T], n: usize, cfg: EighConfig) -> (Vec<T>, Vec<f64>) {
    if n == 1 {
        return (vec![T::from_real(1.0)], vec![m[0].real()]);
    }
    let (rows, w) = hermitian_eigen::eigen(hermitian(m, n, cfg.lower), n);
    arrange(&rows, w, n, cfg.sort_eigenvalues)
}

/// The full Hermitian matrix the named triangle of `m` stands for; its diagonal is taken as real.
fn hermitian<T: Field>(m: &[T], n: usize, lower: bool) -> Vec<T> {
    let mut a = vec![T::default(); n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = if lower == (i >= j) { m[i * n + j] } else { m[j * n + i].conj() };
        }
        a[i * n + i] = T::from_real(a[i * n + i].real());
    }
    a
}

/// The eigenvector matrix (columns) from eigenvector rows, with the eigenvalues ascending when
/// `sort` (stable, NaNs last).
fn arrange<T: Field>(rows: &[T], w: Vec<f64>, n: usize, sort: bool) -> (Vec<T>, Vec<f64>) {
    let mut order: Vec<usize> = (0..n).collect();
    if sort {
        order.sort_by(|&x, &y| w[x].total_cmp(&w[y]));
    }
    let v = (0..n * n).map(|k| rows[order[k % n] * n + k / n]).collect();
    (v, order.iter().map(|&i| w[i]).collect())
}
