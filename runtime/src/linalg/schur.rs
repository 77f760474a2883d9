//! `custom_call @ApuSchur`: the Schur decomposition A = Z T Zᴴ, which JAX lowers to LAPACK's gees
//! on CPU only (`lax.linalg.schur`, and through it `jax.scipy.linalg.schur`, `sqrtm`, `funm` and
//! `solve_sylvester`). `apu_plugin/schur.py` registers this target for apu.
//!
//! - Operand `a`: `[..., n, n]`, f32, f64, c64 or c128; leading dimensions are batch dimensions.
//! - Results: `t` of `a`'s type and, when `backend_config` is "vectors", `z` of `a`'s type
//!   ("no_vectors" gives `t` alone). Real matrices give the real Schur form (upper
//!   quasi-triangular, each complex-conjugate pair in a standardized 2×2 block, as gees);
//!   complex matrices give an upper triangular `t`.
//! - A matrix with a NaN or an infinity, or one whose iteration does not converge (LAPACK's
//!   info > 0), gives NaN in every result, as JAX's CPU lowering does for info ≠ 0.
//!
//! The iteration is `schur_iteration.rs`; arithmetic is in f64, rounded once on store.

use crate::values::complex::C64;
use super::field::{self, Field};
use super::qr;
use super::schur_iteration::{complex_schur, hessenberg_and_q, real_schur, Precision};
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{AttrValue, ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const SCHUR_TARGET: &str = "ApuSchur";

/// The real Schur form of one real n×n matrix (row-major): (T, Z, wr, wi), or None for a
/// non-finite matrix or no convergence.
pub(super) type RealSchur = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

pub(super) fn real_decomposition(a: &[f64], n: usize, p: Precision) -> Option<RealSchur> {
    if a.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut t = a.to_vec();
    let mut z = hessenberg_and_q(&mut t, n);
    let (wr, wi) = real_schur(&mut t, &mut z, n, p)?;
    Some((t, z, wr, wi))
}

/// The complex Schur form of one complex n×n matrix: (T, Z, w), or None as above.
pub(super) fn complex_decomposition(a: &[C64], n: usize, p: Precision) -> Option<(Vec<C64>, Vec<C64>, Vec<C64>)> {
    if a.iter().any(|x| !Field::is_finite(*x)) {
        return None;
    }
    let mut t = a.to_vec();
    let mut z = hessenberg_and_q(&mut t, n);
    let w = complex_schur(&mut t, &mut z, n, p)?;
    Some((t, z, w))
}

/// The precision whose machine constants steer the iteration: the element type's.
pub(super) fn precision(elem: ElementType) -> Precision {
    if matches!(elem, ElementType::F32 | ElementType::C64) {
        Precision::SINGLE
    } else {
        Precision::DOUBLE
    }
}

/// Whether the config asks for Schur vectors.
fn wants_vectors(backend_config: Option<&AttrValue>) -> Result<bool> {
    match backend_config {
        Some(AttrValue::String(s)) if s == "vectors" => Ok(true),
        Some(AttrValue::String(s)) if s == "no_vectors" => Ok(false),
        other => Err(Error::invalid(format!("custom_call \"{SCHUR_TARGET}\": backend_config must be \"vectors\" or \"no_vectors\", got {other:?}"))),
    }
}

/// Checks the config and the operand and result types; the compile-time support check and the
/// evaluator both call this, so a program accepted at compile time runs.
pub fn check(backend_config: Option<&AttrValue>, operands: &[&TensorType], results: &[&TensorType]) -> Result<()> {
    let vectors = wants_vectors(backend_config)?;
    let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    let mismatch = || {
        Error::invalid(format!("custom_call \"{SCHUR_TARGET}\": operand types ({}) do not fit result types ({})", show(operands), show(results)))
    };
    let [a] = operands else { return Err(mismatch()) };
    qr::check_elem(SCHUR_TARGET, a)?;
    let r = a.rank();
    if r < 2 || a.shape[r - 1] != a.shape[r - 2] {
        return Err(Error::invalid(format!("custom_call \"{SCHUR_TARGET}\": operand {a} must be a square matrix or a batch of them")));
    }
    if results.len() != 1 + vectors as usize || results.iter().any(|t| *t != *a) {
        return Err(mismatch());
    }
    Ok(())
}

/// Runs the target on dense operands, giving dense results of `result_types`.
pub fn eval(backend_config: Option<&AttrValue>, operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    check_dense(operands, result_types, |ops, res| check(backend_config, ops, res))?;
    let a = operands[0];
    let n = *a.ty.shape.last().unwrap() as usize;
    let count = qr::batch_count(&a.ty.shape[..a.ty.rank() - 2]);
    let p = precision(a.ty.elem);
    if a.ty.elem.is_complex() {
        let values = field::values::<C64>(a);
        let [ts, zs] = per_matrix(&values, n, count, [n * n; 2], |m| complex_decomposition(m, n, p).map(|(t, z, _)| [t, z]));
        store(result_types, ts, zs)
    } else {
        let values = field::values::<f64>(a);
        let [ts, zs] = per_matrix(&values, n, count, [n * n; 2], |m| real_decomposition(m, n, p).map(|(t, z, _, _)| [t, z]));
        store(result_types, ts, zs)
    }
}

/// `t`, and `z` when the results include it.
fn store<T: Field>(result_types: &[TensorType], ts: Vec<T>, zs: Vec<T>) -> Result<Vec<Dense>> {
    let mut out = vec![field::store_values(&result_types[0], ts)?];
    if result_types.len() == 2 {
        out.push(field::store_values(&result_types[1], zs)?);
    }
    Ok(out)
}

/// Runs `one` on each of the `count` n×n matrices of `values` and concatenates each of the K parts
/// it returns over the batch. A matrix `one` gives no result for (a NaN or infinity, or no
/// convergence) contributes `sizes[i]` NaNs to part i, so the others keep their places.
pub(super) fn per_matrix<T: Field, U: Field, const K: usize>(
    values: &[T],
    n: usize,
    count: usize,
    sizes: [usize; K],
    one: impl Fn(&[T]) -> Option<[Vec<U>; K]>,
) -> [Vec<U>; K] {
    let nan = U::from_real(f64::NAN);
    let mut parts: [Vec<U>; K] = std::array::from_fn(|i| Vec::with_capacity(count * sizes[i]));
    for b in 0..count {
        let got = one(&values[b * n * n..(b + 1) * n * n]);
        for (i, part) in parts.iter_mut().enumerate() {
            match &got {
                Some(results) => part.extend_from_slice(&results[i]),
                None => part.extend(std::iter::repeat_n(nan, sizes[i])),
            }
        }
    }
    parts
}
