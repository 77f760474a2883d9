//! `custom_call @ApuEig`: eigenvalues and left / right eigenvectors of general square matrices,
//! which JAX lowers to LAPACK's geev on CPU only (`lax.linalg.eig`, `jnp.linalg.eig`, `eigvals`).
//! `apu_plugin/eig.py` registers this target for apu.
//!
//! - Operand `a`: `[..., n, n]`, f32, f64, c64 or c128.
//! - `backend_config` "L,R" with L, R ∈ {0, 1}: whether left and right eigenvectors are wanted.
//! - Results: `w` `[..., n]`, then `vl` if L, then `vr` if R, each `[..., n, n]`; all of the complex
//!   type of `a`'s precision. Column j of `vr` satisfies A v = w_j v, column j of `vl`
//!   satisfies vᴴ A = w_j vᴴ.
//!
//! The method is geev's: the Schur decomposition A = Z T Zᴴ (`schur_iteration.rs`), eigenvectors of
//! T by substitution (xTREVC: x_k = 1 at the eigenvalue's own position, a zero divisor replaced
//! by ulp·|λ|), then Z x. A real matrix's 2×2 blocks are first rotated to complex triangular form,
//! with the eigenvalues kept exactly as the standardized blocks give them, so a real matrix's
//! eigenvalues are exactly real or exact conjugate pairs, a real eigenvalue's eigenvectors are
//! real and a pair's eigenvectors are conjugates, as geev packs them.
//!
//! Normalization (what JAX's eigenvector derivatives assume): unit 2-norm, and for a complex vector
//! the component of largest magnitude (the first such) made real and positive, as zgeev does.
//! The eigenvalues come in the order of T's diagonal and do not depend on whether vectors are
//! wanted, so `eigvals` equals `eig`'s `w` exactly.
//!
//! A matrix with a NaN or infinity, or whose iteration does not converge, gives NaN in every
//! result, as JAX's CPU lowering does for info ≠ 0.

use crate::values::complex::C64;
use super::field::{self, Field};
use super::qr;
use super::schur::{complex_decomposition, per_matrix, precision, real_decomposition};
use super::schur_iteration::Precision;
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{AttrValue, ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const EIG_TARGET: &str = "ApuEig";

/// xLAMCH('P') and xLAMCH('S').
const ULP: f64 = f64::EPSILON;
const SAFE_MIN: f64 = f64::MIN_POSITIVE;
/// Back substitution rescales x when an entry grows past this, so it cannot overflow.
const BIG: f64 = 1e100;

/// Which eigenvectors the config asks for: (left, right).
fn wanted(backend_config: Option<&AttrValue>) -> Result<(bool, bool)> {
    let bad = || Error::invalid(format!("custom_call \"{EIG_TARGET}\": backend_config must be \"L,R\" with L and R 0 or 1, got {backend_config:?}"));
    let Some(AttrValue::String(s)) = backend_config else { return Err(bad()) };
    let flag = |x: &str| match x.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(bad()),
    };
    match s.split(',').collect::<Vec<_>>()[..] {
        [l, r] => Ok((flag(l)?, flag(r)?)),
        _ => Err(bad()),
    }
}

/// Checks the config and the operand and result types (compile time and run time).
pub fn check(backend_config: Option<&AttrValue>, operands: &[&TensorType], results: &[&TensorType]) -> Result<()> {
    let (left, right) = wanted(backend_config)?;
    let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    let mismatch = || {
        Error::invalid(format!("custom_call \"{EIG_TARGET}\": operand types ({}) do not fit result types ({})", show(operands), show(results)))
    };
    let [a] = operands else { return Err(mismatch()) };
    qr::check_elem(EIG_TARGET, a)?;
    let r = a.rank();
    if r < 2 || a.shape[r - 1] != a.shape[r - 2] {
        return Err(Error::invalid(format!("custom_call \"{EIG_TARGET}\": operand {a} must be a square matrix or a batch of them")));
    }
    let complex = match a.elem {
        ElementType::F32 | ElementType::C64 => ElementType::C64,
        _ => ElementType::C128,
    };
    let w = TensorType::new(a.shape[..r - 1].to_vec(), complex);
    let v = TensorType::new(a.shape.clone(), complex);
    let want: Vec<&TensorType> = std::iter::once(&w).chain(std::iter::repeat_n(&v, left as usize + right as usize)).collect();
    if results.len() != want.len() || results.iter().zip(&want).any(|(r, w)| r != w) {
        return Err(mismatch());
    }
    Ok(())
}

/// Runs the target on dense operands, giving dense results of `result_types`.
pub fn eval(backend_config: Option<&AttrValue>, operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    check_dense(operands, result_types, |ops, res| check(backend_config, ops, res))?;
    let (left, right) = wanted(backend_config)?;
    let a = operands[0];
    let n = *a.ty.shape.last().unwrap() as usize;
    let count = qr::batch_count(&a.ty.shape[..a.ty.rank() - 2]);
    let p = precision(a.ty.elem);
    let sizes = [n, if left { n * n } else { 0 }, if right { n * n } else { 0 }];
    let [ws, vls, vrs] = if a.ty.elem.is_complex() {
        let values = field::values::<C64>(a);
        per_matrix(&values, n, count, sizes, |m| eig_complex(m, n, p, left, right))
    } else {
        let values = field::values::<f64>(a);
        per_matrix(&values, n, count, sizes, |m| eig_real(m, n, p, left, right))
    };
    let mut out = vec![field::store_values(&result_types[0], ws)?];
    if left {
        out.push(field::store_values(&result_types[1], vls)?);
    }
    if right {
        out.push(field::store_values(&result_types[out.len()], vrs)?);
    }
    Ok(out)
}

/// w, vl and vr of one matrix; vl or vr is empty when not wanted.
type Eigen = [Vec<C64>; 3];

fn eig_complex(a: &[C64], n: usize, p: Precision, left: bool, right: bool) -> Option<Eigen> {
    let (t, z, w) = complex_decomposition(a, n, p)?;
    let vr = if right { normalized(right_vectors(&t, &z, n), n, None) } else { Vec::new() };
    let vl = if left { normalized(left_vectors(&t, &z, n), n, None) } else { Vec::new() };
    Some([w, vl, vr])
}

fn eig_real(a: &[f64], n: usize, p: Precision, left: bool, right: bool) -> Option<Eigen> {
    let (t, z, wr, wi) = real_decomposition(a, n, p)?;
    let w: Vec<C64> = wr.iter().zip(&wi).map(|(&re, &im)| C64::new(re, im)).collect();
    if !left && !right {
        return Some([w, Vec::new(), Vec::new()]);
    }
    let (t, z) = complex_triangular(t, z, n, &w);
    let vr = if right { normalized(right_vectors(&t, &z, n), n, Some(&wi)) } else { Vec::new() };
    let vl = if left { normalized(left_vectors(&t, &z, n), n, Some(&wi)) } else { Vec::new() };
    Some([w, vl, vr])
}

/// The complex Schur form of a real Schur form: each 2×2 block [[a, b], [c, a]] (b·c < 0) at rows
/// m, m+1 is rotated by the unitary [u, u⊥] whose first column u is the block's eigenvector for
/// w_m, which leaves w_m and w_{m+1} = conj(w_m) on the diagonal and zero below it.
fn complex_triangular(t: Vec<f64>, z: Vec<f64>, n: usize, w: &[C64]) -> (Vec<C64>, Vec<C64>) {
    let mut t: Vec<C64> = t.into_iter().map(C64::from_real).collect();
    let mut z: Vec<C64> = z.into_iter().map(C64::from_real).collect();
    let at = |r: usize, c: usize| r * n + c;
    let mut m = 0;
    while m + 1 < n {
        if t[at(m + 1, m)] == C64::default() {
            m += 1;
            continue;
        }
        // (B − λ I) u = 0 for B = [[a, b], [c, d]]: u ∝ (b, λ − a).
        let (u1, u2) = (t[at(m, m + 1)], w[m] - t[at(m, m)]);
        let norm = u1.abs().hypot(u2.abs());
        let (u1, u2) = (u1.scale(1.0 / norm), u2.scale(1.0 / norm));
        // Rows m, m+1 ← Gᴴ rows; columns m, m+1 ← columns G, with G = [[u1, −conj(u2)], [u2, conj(u1)]].
        for c in m..n {
            let (x, y) = (t[at(m, c)], t[at(m + 1, c)]);
            t[at(m, c)] = u1.conj() * x + u2.conj() * y;
            t[at(m + 1, c)] = u1 * y - u2 * x;
        }
        for r in 0..m + 2 {
            let (x, y) = (t[at(r, m)], t[at(r, m + 1)]);
            t[at(r, m)] = x * u1 + y * u2;
            t[at(r, m + 1)] = y * u1.conj() - x * u2.conj();
        }
        for r in 0..n {
            let (x, y) = (z[at(r, m)], z[at(r, m + 1)]);
            z[at(r, m)] = x * u1 + y * u2;
            z[at(r, m + 1)] = y * u1.conj() - x * u2.conj();
        }
        (t[at(m, m)], t[at(m + 1, m + 1)], t[at(m + 1, m)]) = (w[m], w[m + 1], C64::default());
        m += 2;
    }
    (t, z)
}

/// The smallest divisor allowed in the substitution for eigenvalue λ (xTREVC's smin).
fn smallest_divisor(lambda: C64, n: usize) -> f64 {
    (ULP * (lambda.re.abs() + lambda.im.abs())).max(SAFE_MIN * (n as f64 / ULP))
}

fn guarded(d: C64, smin: f64) -> C64 {
    if d.re.abs() + d.im.abs() < smin {
        C64::from_real(smin)
    } else {
        d
    }
}

/// Scales `x` down when an entry has grown past BIG (an eigenvector is defined up to scale).
fn rescale(x: &mut [C64], latest: C64) {
    if latest.abs() > BIG {
        let s = 1.0 / latest.abs();
        x.iter_mut().for_each(|v| *v = v.scale(s));
    }
}

/// Right eigenvectors of the upper triangular T, times Z: column j of the result (row-major)
/// satisfies A v = T_jj v.
fn right_vectors(t: &[C64], z: &[C64], n: usize) -> Vec<C64> {
    let at = |r: usize, c: usize| r * n + c;
    let mut v = vec![C64::default(); n * n];
    let mut x = vec![C64::default(); n];
    for ki in 0..n {
        let lambda = t[at(ki, ki)];
        let smin = smallest_divisor(lambda, n);
        x.fill(C64::default());
        x[ki] = C64::from_real(1.0);
        (0..ki).for_each(|k| x[k] = -t[at(k, ki)]);
        for k in (0..ki).rev() {
            x[k] = x[k] / guarded(t[at(k, k)] - lambda, smin);
            let xk = x[k];
            (0..k).for_each(|r| x[r] = x[r] - t[at(r, k)] * xk);
            rescale(&mut x[..=ki], xk);
        }
        for r in 0..n {
            v[at(r, ki)] = (0..=ki).fold(C64::default(), |s, k| s + z[at(r, k)] * x[k]);
        }
    }
    v
}

/// Left eigenvectors: column j satisfies vᴴ A = T_jj vᴴ, from yᴴ (T − λ) = 0 by forward substitution.
fn left_vectors(t: &[C64], z: &[C64], n: usize) -> Vec<C64> {
    let at = |r: usize, c: usize| r * n + c;
    let mut v = vec![C64::default(); n * n];
    let mut x = vec![C64::default(); n];
    for ki in 0..n {
        let lambda = t[at(ki, ki)];
        let smin = smallest_divisor(lambda, n);
        x.fill(C64::default());
        x[ki] = C64::from_real(1.0);
        (ki + 1..n).for_each(|k| x[k] = -t[at(ki, k)].conj());
        for k in ki + 1..n {
            x[k] = x[k] / guarded(t[at(k, k)] - lambda, smin).conj();
            let xk = x[k];
            (k + 1..n).for_each(|c| x[c] = x[c] - t[at(k, c)].conj() * xk);
            rescale(&mut x[ki..], xk);
        }
        for r in 0..n {
            v[at(r, ki)] = (ki..n).fold(C64::default(), |s, k| s + z[at(r, k)] * x[k]);
        }
    }
    v
}

/// geev's normalization of the columns of `v`: unit 2-norm, the first component of largest
/// magnitude real and positive. For a real matrix (`wi` given), a real eigenvalue's vector is made
/// exactly real and the second of a conjugate pair is the first's conjugate.
fn normalized(mut v: Vec<C64>, n: usize, wi: Option<&[f64]>) -> Vec<C64> {
    let at = |r: usize, c: usize| r * n + c;
    for c in 0..n {
        match wi.map(|wi| wi[c]) {
            Some(im) if im < 0.0 && c > 0 => {
                (0..n).for_each(|r| v[at(r, c)] = v[at(r, c - 1)].conj());
                continue;
            }
            Some(im) if im == 0.0 => (0..n).for_each(|r| v[at(r, c)].im = 0.0),
            _ => {}
        }
        let norm = qr::norm2((0..n).map(|r| v[at(r, c)]));
        if norm == 0.0 || !norm.is_finite() {
            continue;
        }
        if wi.is_some_and(|wi| wi[c] == 0.0) {
            (0..n).for_each(|r| v[at(r, c)] = v[at(r, c)].scale(1.0 / norm));
            continue;
        }
        let k = (0..n).fold(0, |best, r| if v[at(r, c)].abs2() > v[at(best, c)].abs2() { r } else { best });
        let big = v[at(k, c)];
        let phase = big.conj().scale(1.0 / big.abs());
        (0..n).for_each(|r| v[at(r, c)] = (v[at(r, c)] * phase).scale(1.0 / norm));
        v[at(k, c)] = C64::from_real(big.abs() / norm);
    }
    v
}
