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
//! Cyclic Jacobi in f64 (complex in f64 pairs), rounded once on store. It sweeps until the
//! off-diagonal mass reaches the f64 rounding level of the matrix (rather than the looser tolerance
//! in the config, which is meant for arithmetic in the operand's own type) or `max_sweeps` sweeps
//! are done, so results are as accurate as the element type holds.

use super::complex::C64;
use super::linalg::{complex_values, conj, store};
use super::value::Dense;
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
        return Err(Error::unimplemented(format!("custom_call \"{EIGH_TARGET}\" for {}", a.elem)));
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
    let ops: Vec<&TensorType> = operands.iter().map(|d| &d.ty).collect();
    let res: Vec<&TensorType> = result_types.iter().collect();
    let cfg = check(backend_config, &ops, &res)?;
    let a = operands[0];
    let n = *a.ty.shape.last().unwrap() as usize;
    let count = if n == 0 { 0 } else { a.data.len() / (n * n) };
    let values = complex_values(a);
    let mut vs = Vec::with_capacity(count * n * n);
    let mut ws = Vec::with_capacity(count * n);
    for b in 0..count {
        let (v, w) = eigh_one(&values[b * n * n..(b + 1) * n * n], n, cfg);
        vs.extend(v);
        ws.extend(w.into_iter().map(|x| C64::new(x, 0.0)));
    }
    Ok(vec![store(&result_types[0], vs)?, store(&result_types[1], ws)?])
}

/// Eigenvectors (row-major n×n, in columns) and eigenvalues of one matrix.
fn eigh_one(m: &[C64], n: usize, cfg: EighConfig) -> (Vec<C64>, Vec<f64>) {
    if n == 1 {
        return (vec![C64::new(1.0, 0.0)], vec![m[0].re]);
    }
    // The Hermitian matrix the named triangle stands for; its diagonal is taken as real.
    let mut a = vec![C64::default(); n * n];
    for i in 0..n {
        for j in 0..n {
            let from_lower = if i >= j { m[i * n + j] } else { conj(m[j * n + i]) };
            let from_upper = if i <= j { m[i * n + j] } else { conj(m[j * n + i]) };
            a[i * n + j] = if cfg.lower { from_lower } else { from_upper };
        }
        a[i * n + i] = C64::new(a[i * n + i].re, 0.0);
    }
    let mut v: Vec<C64> = (0..n * n).map(|k| C64::new(if k % (n + 1) == 0 { 1.0 } else { 0.0 }, 0.0)).collect();
    let total: f64 = a.iter().map(|z| z.re * z.re + z.im * z.im).sum();
    let tol = cfg.tolerance.min(f64::EPSILON);
    let mut last = f64::INFINITY;
    for _ in 0..cfg.max_sweeps {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[i * n + j].abs().powi(2)).sum();
        // Stops when converged, when rounding noise keeps a sweep from gaining anything (Jacobi
        // converges quadratically, so that is at the rounding level), and on NaN input (the
        // comparisons are false and no rotation can fix it).
        if !(off > tol * tol * total) || !(off < last) {
            break;
        }
        last = off;
        for p in 0..n - 1 {
            for q in p + 1..n {
                rotate(&mut a, &mut v, n, p, q);
            }
        }
    }
    let w: Vec<f64> = (0..n).map(|i| a[i * n + i].re).collect();
    if !cfg.sort_eigenvalues {
        return (v, w);
    }
    // Ascending, stable; NaNs last.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| w[x].total_cmp(&w[y]));
    let sorted_v = (0..n * n).map(|k| v[(k / n) * n + order[k % n]]).collect();
    (sorted_v, order.iter().map(|&i| w[i]).collect())
}

/// One Jacobi rotation in the (p, q) plane: with a_pq = r·e (|e| = 1), G has c on the diagonal,
/// G[p][q] = s·e and G[q][p] = -s·ē, where (c, s) diagonalize the real pair [[a_pp, r], [r, a_qq]]
/// (Golub and Van Loan's symmetric Schur step); A ← Gᴴ A G and V ← V G.
fn rotate(a: &mut [C64], v: &mut [C64], n: usize, p: usize, q: usize) {
    let apq = a[p * n + q];
    let r = apq.abs();
    if r == 0.0 {
        return;
    }
    let e = C64::new(apq.re / r, apq.im / r);
    let tau = (a[q * n + q].re - a[p * n + p].re) / (2.0 * r);
    let t = if tau >= 0.0 { 1.0 / (tau + (1.0 + tau * tau).sqrt()) } else { -1.0 / (-tau + (1.0 + tau * tau).sqrt()) };
    let c = 1.0 / (1.0 + t * t).sqrt();
    let s = t * c;
    let (cc, se, sec) = (C64::new(c, 0.0), C64::new(s, 0.0) * e, C64::new(s, 0.0) * conj(e));
    // Columns p and q of A and V: X G.
    for x in [&mut *a, &mut *v] {
        for k in 0..n {
            let (xp, xq) = (x[k * n + p], x[k * n + q]);
            x[k * n + p] = xp * cc - xq * sec;
            x[k * n + q] = xp * se + xq * cc;
        }
    }
    // Rows p and q of A: Gᴴ X.
    for k in 0..n {
        let (xp, xq) = (a[p * n + k], a[q * n + k]);
        a[p * n + k] = xp * cc - xq * se;
        a[q * n + k] = xp * sec + xq * cc;
    }
    a[p * n + q] = C64::default();
    a[q * n + p] = C64::default();
    a[p * n + p] = C64::new(a[p * n + p].re, 0.0);
    a[q * n + q] = C64::new(a[q * n + q].re, 0.0);
}
