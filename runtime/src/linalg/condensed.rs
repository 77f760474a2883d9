//! Two custom calls of apu's own that reduce a square matrix to a condensed form by Householder
//! reflections, with LAPACK's conventions, so that `lax.linalg.hessenberg`, `lax.linalg.tridiagonal`
//! and `jax.scipy.linalg.hessenberg` give on apu what they give on CPU (JAX lowers them to LAPACK's
//! gehrd / sytrd / hetrd there and has no rule for other platforms; `apu_plugin/condensed.py`
//! registers these for apu):
//!
//! - `ApuHessenberg(a) -> (packed, taus)`, gehrd: `packed` holds the upper Hessenberg matrix on and
//!   above the first subdiagonal and, below it, reflector `v_i` in column i (rows i+2.., with an
//!   implicit 1 in row i+1); `taus` has n-1 scalars, `H_i = I - tau_i v_i v_iᴴ`, and
//!   `A = Q H Qᴴ` with `Q = H_0 … H_{n-2}`.
//! - `ApuTridiagonal(a) -> (packed, d, e, taus)`, sytrd / hetrd, reading only the triangle that
//!   `backend_config` names ("lower" or "upper") as a Hermitian matrix: `d` the real diagonal, `e`
//!   the real off-diagonal, `taus` n-1 scalars; the reflectors are stored below the subdiagonal
//!   (lower, `v_i` in column i with its implicit 1 in row i+1, reduced from the first column on) or
//!   above the superdiagonal (upper, `v_i` in column i+1 with its implicit 1 in row i, reduced from
//!   the last column back). The other triangle of `packed` is the input's.
//!
//! Leading dimensions are batch dimensions. Arithmetic is in f64 (complex in f64 pairs), rounded
//! once on store. Element types: f32, f64, c64, c128.

use crate::values::complex::C64;
use super::field::{self, Field};
use super::qr::{self, norm2, reflector};
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{AttrValue, ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const HESSENBERG_TARGET: &str = "ApuHessenberg";
pub const TRIDIAGONAL_TARGET: &str = "ApuTridiagonal";

/// Whether `target` is one of the custom calls this module computes.
pub fn is_condensed_custom_call(target: &str) -> bool {
    target == HESSENBERG_TARGET || target == TRIDIAGONAL_TARGET
}

/// Which triangle `ApuTridiagonal` reads, from its backend config.
fn lower(backend_config: Option<&AttrValue>) -> Result<bool> {
    match backend_config {
        Some(AttrValue::String(s)) if s == "lower" => Ok(true),
        Some(AttrValue::String(s)) if s == "upper" => Ok(false),
        other => Err(Error::invalid(format!("custom_call \"{TRIDIAGONAL_TARGET}\": backend_config must be \"lower\" or \"upper\", got {other:?}"))),
    }
}

/// Checks operand and result types (and the config); the compile-time support check and the
/// evaluator both call this, so a program accepted at compile time runs.
pub fn check(target: &str, backend_config: Option<&AttrValue>, operands: &[&TensorType], results: &[&TensorType]) -> Result<()> {
    let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    let mismatch = || {
        Error::invalid(format!("custom_call \"{target}\": operand types ({}) do not fit result types ({})", show(operands), show(results)))
    };
    let [a] = operands else { return Err(mismatch()) };
    qr::check_elem(target, a)?;
    let r = a.rank();
    if r < 2 || a.shape[r - 1] != a.shape[r - 2] || a.shape[r - 1] < 1 {
        return Err(Error::invalid(format!("custom_call \"{target}\": operand {a} must be a non-empty square matrix or a batch of them")));
    }
    let (batch, n) = (&a.shape[..r - 2], a.shape[r - 1]);
    let vector = |elem: ElementType, len: i64| TensorType::new(batch.iter().copied().chain([len]).collect(), elem);
    let want = if target == HESSENBERG_TARGET {
        vec![(*a).clone(), vector(a.elem, n - 1)]
    } else if target == TRIDIAGONAL_TARGET {
        lower(backend_config)?;
        let real = a.elem.real_part();
        vec![(*a).clone(), vector(real, n), vector(real, n - 1), vector(a.elem, n - 1)]
    } else {
        return Err(Error::internal(format!("custom_call \"{target}\" is not a condensed-form custom call")));
    };
    if results.len() != want.len() || results.iter().zip(&want).any(|(r, w)| *r != w) {
        return Err(mismatch());
    }
    Ok(())
}

/// Runs one of the two targets on dense operands, giving dense results of `result_types`.
pub fn eval(target: &str, backend_config: Option<&AttrValue>, operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    check_dense(operands, result_types, |ops, res| check(target, backend_config, ops, res))?;
    let complex = operands[0].ty.elem.is_complex();
    match (target == HESSENBERG_TARGET, complex) {
        (true, false) => hessenberg::<f64>(operands[0], result_types),
        (true, true) => hessenberg::<C64>(operands[0], result_types),
        (false, false) => tridiagonal::<f64>(operands[0], lower(backend_config)?, result_types),
        (false, true) => tridiagonal::<C64>(operands[0], lower(backend_config)?, result_types),
    }
}

fn square(ty: &TensorType) -> (usize, usize) {
    let n = ty.shape[ty.rank() - 1] as usize;
    (qr::batch_count(&ty.shape[..ty.rank() - 2]), n)
}

fn hessenberg<T: Field>(a: &Dense, types: &[TensorType]) -> Result<Vec<Dense>> {
    let (count, n) = square(&a.ty);
    let mut x = field::values::<T>(a);
    let mut taus = vec![T::default(); count * (n - 1)];
    for b in 0..count {
        gehrd(&mut x[b * n * n..(b + 1) * n * n], n, &mut taus[b * (n - 1)..(b + 1) * (n - 1)]);
    }
    Ok(vec![field::store_values(&types[0], x)?, field::store_values(&types[1], taus)?])
}

/// gehrd of one row-major n×n matrix in place.
pub(super) fn gehrd<T: Field>(x: &mut [T], n: usize, taus: &mut [T]) {
    let one = T::from_real(1.0);
    let mut f = vec![T::default(); n];
    for i in 0..n - 1 {
        let (beta, tau, scale) = reflector(x[(i + 1) * n + i], norm2((i + 2..n).map(|r| x[r * n + i])));
        for r in i + 2..n {
            x[r * n + i] = x[r * n + i] * scale;
        }
        // v: rows i+1.. of column i, with the implicit 1 on top.
        let v: Vec<T> = std::iter::once(one).chain((i + 2..n).map(|r| x[r * n + i])).collect();
        // From the right, on every row: X ← X - (X v) tau vᴴ over columns i+1.. .
        for r in 0..n {
            let row = &mut x[r * n + i + 1..(r + 1) * n];
            let w = row.iter().zip(&v).fold(T::default(), |s, (&c, &vk)| s + c * vk) * tau;
            for (c, &vk) in row.iter_mut().zip(&v) {
                *c = *c - w * vk.conj();
            }
        }
        // From the left with Hᴴ, on rows i+1..: X ← X - v (conj(tau) vᴴ X) over columns i+1.. .
        let fs = &mut f[i + 1..n];
        fs.fill(T::default());
        for (k, &vk) in v.iter().enumerate() {
            let row = &x[(i + 1 + k) * n + i + 1..(i + 2 + k) * n];
            for (fc, &c) in fs.iter_mut().zip(row) {
                *fc = *fc + vk.conj() * c;
            }
        }
        let ctau = tau.conj();
        fs.iter_mut().for_each(|fc| *fc = ctau * *fc);
        for (k, &vk) in v.iter().enumerate() {
            let row = &mut x[(i + 1 + k) * n + i + 1..(i + 2 + k) * n];
            for (c, &fc) in row.iter_mut().zip(fs.iter()) {
                *c = *c - vk * fc;
            }
        }
        x[(i + 1) * n + i] = T::from_real(beta);
        taus[i] = tau;
    }
}

fn tridiagonal<T: Field>(a: &Dense, lower: bool, types: &[TensorType]) -> Result<Vec<Dense>> {
    let (count, n) = square(&a.ty);
    let mut x = field::values::<T>(a);
    let (mut d, mut e) = (vec![0.0; count * n], vec![0.0; count * (n - 1)]);
    let mut taus = vec![T::default(); count * (n - 1)];
    for b in 0..count {
        let m = b * n * n..(b + 1) * n * n;
        let (ds, es, ts) = (&mut d[b * n..(b + 1) * n], &mut e[b * (n - 1)..(b + 1) * (n - 1)], &mut taus[b * (n - 1)..(b + 1) * (n - 1)]);
        if lower {
            sytrd_lower(&mut x[m], n, ds, es, ts);
        } else {
            sytrd_upper(&mut x[m], n, ds, es, ts);
        }
    }
    let to_t = |v: Vec<f64>| v.into_iter().map(T::from_real).collect::<Vec<T>>();
    Ok(vec![
        field::store_values(&types[0], x)?,
        field::store_values(&types[1], to_t(d))?,
        field::store_values(&types[2], to_t(e))?,
        field::store_values(&types[3], taus)?,
    ])
}

/// The Hermitian matrix whose triangle `lower` (or upper) is stored in `x`, in full, with a real
/// diagonal (the imaginary part of a stored diagonal entry is not read).
fn hermitian<T: Field>(x: &[T], n: usize, lower: bool) -> Vec<T> {
    let mut h = vec![T::default(); n * n];
    for r in 0..n {
        for c in 0..n {
            let stored = if (r >= c) == lower { x[r * n + c] } else { x[c * n + r].conj() };
            h[r * n + c] = if r == c { T::from_real(stored.real()) } else { stored };
        }
    }
    h
}

/// `h[idx, idx] -= v wᴴ + w vᴴ` after `w = tau h[idx, idx] v` is corrected by
/// `-tau/2 (wᴴ v) v` (LAPACK's symmetric rank-2 update of the trailing block `idx`).
fn rank2_update<T: Field>(h: &mut [T], n: usize, idx: &[usize], v: &[T], tau: T) {
    let mut w: Vec<T> = idx.iter().map(|&r| tau * idx.iter().zip(v).fold(T::default(), |s, (&c, &vc)| s + h[r * n + c] * vc)).collect();
    let dot = w.iter().zip(v).fold(T::default(), |s, (&wk, &vk)| s + wk.conj() * vk);
    let alpha = (tau * dot).scale(-0.5);
    for (wk, &vk) in w.iter_mut().zip(v) {
        *wk = *wk + alpha * vk;
    }
    for (k, &r) in idx.iter().enumerate() {
        for (l, &c) in idx.iter().enumerate() {
            h[r * n + c] = h[r * n + c] - v[k] * w[l].conj() - w[k] * v[l].conj();
        }
    }
}

/// sytrd / hetrd, lower triangle, of one row-major n×n matrix in place.
fn sytrd_lower<T: Field>(x: &mut [T], n: usize, d: &mut [f64], e: &mut [f64], taus: &mut [T]) {
    let mut h = hermitian(x, n, true);
    for i in 0..n - 1 {
        let (beta, tau, scale) = reflector(h[(i + 1) * n + i], norm2((i + 2..n).map(|r| h[r * n + i])));
        let v: Vec<T> = std::iter::once(T::from_real(1.0)).chain((i + 2..n).map(|r| h[r * n + i] * scale)).collect();
        if tau != T::default() {
            let idx: Vec<usize> = (i + 1..n).collect();
            rank2_update(&mut h, n, &idx, &v, tau);
        }
        for (k, &vk) in v.iter().enumerate().skip(1) {
            x[(i + 1 + k) * n + i] = vk;
        }
        x[(i + 1) * n + i] = T::from_real(beta);
        e[i] = beta;
        taus[i] = tau;
    }
    for i in 0..n {
        d[i] = h[i * n + i].real();
        x[i * n + i] = T::from_real(d[i]);
    }
}

/// sytrd / hetrd, upper triangle: reflector i zeroes column i+1 above row i, from the last
/// column back, with its implicit 1 in row i.
fn sytrd_upper<T: Field>(x: &mut [T], n: usize, d: &mut [f64], e: &mut [f64], taus: &mut [T]) {
    let mut h = hermitian(x, n, false);
    for i in (0..n - 1).rev() {
        let col = i + 1;
        let (beta, tau, scale) = reflector(h[i * n + col], norm2((0..i).map(|r| h[r * n + col])));
        // v over rows 0..=i: the scaled entries above row i, then the implicit 1.
        let v: Vec<T> = (0..i).map(|r| h[r * n + col] * scale).chain(std::iter::once(T::from_real(1.0))).collect();
        if tau != T::default() {
            let idx: Vec<usize> = (0..=i).collect();
            rank2_update(&mut h, n, &idx, &v, tau);
        }
        for (r, &vr) in v.iter().enumerate().take(i) {
            x[r * n + col] = vr;
        }
        x[i * n + col] = T::from_real(beta);
        e[i] = beta;
        taus[i] = tau;
    }
    for i in 0..n {
        d[i] = h[i * n + i].real();
        x[i * n + i] = T::from_real(d[i]);
    }
}
