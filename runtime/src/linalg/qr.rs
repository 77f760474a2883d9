//! The two custom calls JAX emits for `jnp.linalg.qr` on platforms without LAPACK kernels (as
//! XLA's QR expander implements them), with LAPACK's conventions so results match XLA:CPU:
//!
//! - `Qr(a) -> (packed, taus)`, geqrf: `packed` holds R on and above the diagonal and, below it,
//!   the Householder vectors `v_j` (whose entry j is an implicit 1); `taus` holds min(m, n)
//!   scalars per matrix, with `H_j = I - tau_j v_j v_jᴴ` and `H_1ᴴ … H_pᴴ A = R`.
//! - `ProductOfElementaryHouseholderReflectors(a, taus) -> q`, orgqr: the first n columns of
//!   `H_1 H_2 … H_k` for `a` of shape m×n (m ≥ n) read as above and k = len(taus) ≤ n.
//!
//! Leading dimensions are batch dimensions. Arithmetic is in f64 (complex in f64 pairs), rounded
//! once on store. Element types: f32, f64, c64, c128.

use crate::values::complex::C64;
use super::field::{self, Field};
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const QR_TARGET: &str = "Qr";
pub const HOUSEHOLDER_PRODUCT_TARGET: &str = "ProductOfElementaryHouseholderReflectors";

/// Whether `target` is one of the custom calls this module computes.
pub fn is_qr_custom_call(target: &str) -> bool {
    target == QR_TARGET || target == HOUSEHOLDER_PRODUCT_TARGET
}

/// Leading (batch) dimensions, rows and columns of a tensor of rank ≥ 2.
struct Matrices<'a> {
    batch: &'a [i64],
    m: usize,
    n: usize,
}

fn matrices<'a>(target: &str, ty: &'a TensorType) -> Result<Matrices<'a>> {
    let r = ty.rank();
    if r < 2 {
        return Err(Error::invalid(format!("custom_call \"{target}\": operand {ty} must have rank at least 2")));
    }
    Ok(Matrices { batch: &ty.shape[..r - 2], m: ty.shape[r - 2] as usize, n: ty.shape[r - 1] as usize })
}

pub(super) fn batch_count(batch: &[i64]) -> usize {
    batch.iter().map(|&d| d as usize).product()
}

pub(super) fn check_elem(target: &str, ty: &TensorType) -> Result<()> {
    match ty.elem {
        ElementType::F32 | ElementType::F64 | ElementType::C64 | ElementType::C128 => Ok(()),
        e => Err(Error::unimplemented(format!("custom_call \"{target}\": Unsupported dtype {e}"))),
    }
}

fn arity(target: &str, operands: &[&TensorType], results: &[&TensorType], want: (usize, usize)) -> Result<()> {
    if (operands.len(), results.len()) != want {
        return Err(Error::invalid(format!(
            "custom_call \"{target}\" takes {} operand(s) and gives {} result(s), got {} and {}",
            want.0,
            want.1,
            operands.len(),
            results.len()
        )));
    }
    Ok(())
}

/// Checks operand and result types; the compile-time support check and the evaluator both call
/// this, so a program accepted at compile time runs.
pub fn check(target: &str, operands: &[&TensorType], results: &[&TensorType]) -> Result<()> {
    let mismatch = || {
        let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        Err(Error::invalid(format!(
            "custom_call \"{target}\": operand types ({}) do not fit result types ({})",
            show(operands),
            show(results)
        )))
    };
    if target == QR_TARGET {
        arity(target, operands, results, (1, 2))?;
        let a = operands[0];
        check_elem(target, a)?;
        let mats = matrices(target, a)?;
        let mut taus_shape = mats.batch.to_vec();
        taus_shape.push(mats.m.min(mats.n) as i64);
        if results[0] != a || results[1].elem != a.elem || results[1].shape != taus_shape {
            return mismatch();
        }
        Ok(())
    } else if target == HOUSEHOLDER_PRODUCT_TARGET {
        arity(target, operands, results, (2, 1))?;
        let (a, taus) = (operands[0], operands[1]);
        check_elem(target, a)?;
        let mats = matrices(target, a)?;
        let k = taus.shape.last().copied().unwrap_or(-1);
        if taus.elem != a.elem || taus.rank() != a.rank() - 1 || &taus.shape[..taus.rank().saturating_sub(1)] != mats.batch {
            return mismatch();
        }
        if mats.m < mats.n || k as usize > mats.n {
            return Err(Error::invalid(format!(
                "custom_call \"{target}\": needs rows ≥ columns ≥ reflectors, got {a} with {taus}"
            )));
        }
        if results[0] != a {
            return mismatch();
        }
        Ok(())
    } else {
        Err(Error::internal(format!("custom_call \"{target}\" is not a QR custom call")))
    }
}

/// Runs one of the two targets on dense operands, giving dense results of `result_types`.
pub fn eval(target: &str, operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    check_dense(operands, result_types, |ops, res| check(target, ops, res))?;
    if target == QR_TARGET {
        let (packed, taus) = geqrf(operands[0], &result_types[1])?;
        Ok(vec![packed, taus])
    } else {
        Ok(vec![householder_product(operands[0], operands[1])?])
    }
}

/// √(Σ|x_i|²) scaled by the largest magnitude, so tiny or huge entries neither underflow to a
/// zero norm (which would wrongly skip a reflector) nor overflow.
pub(super) fn norm2<T: Field>(xs: impl Iterator<Item = T> + Clone) -> f64 {
    let scale = xs.clone().map(Field::abs).fold(0.0, f64::max);
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    let sum: f64 = xs.map(|z| z.scale(1.0 / scale).abs2()).sum();
    scale * sum.sqrt()
}

/// One reflector in LAPACK's xLARFG form, for a column whose head is `alpha` and whose tail (the
/// entries below the diagonal) has 2-norm `tail_norm`: returns (beta, tau, scale for the tail).
/// A real `alpha` with a zero tail needs no reflection: tau = 0, H = I.
pub(super) fn reflector<T: Field>(alpha: T, tail_norm: f64) -> (f64, T, T) {
    let one = T::from_real(1.0);
    if tail_norm == 0.0 && alpha == T::from_real(alpha.real()) {
        return (alpha.real(), T::default(), one);
    }
    let mu = alpha.abs().hypot(tail_norm);
    // beta takes the sign opposite to Re(alpha) (a zero counts as positive), avoiding cancellation.
    let beta = if alpha.real() < 0.0 { mu } else { -mu };
    let tau = (T::from_real(beta) - alpha).scale(1.0 / beta);
    (beta, tau, one / (alpha - T::from_real(beta)))
}

/// geqrf on each matrix of `a`; `taus_ty` is the type of the second result.
fn geqrf(a: &Dense, taus_ty: &TensorType) -> Result<(Dense, Dense)> {
    if a.ty.elem.is_complex() {
        geqrf_in::<C64>(a, taus_ty)
    } else {
        geqrf_in::<f64>(a, taus_ty)
    }
}

fn geqrf_in<T: Field>(a: &Dense, taus_ty: &TensorType) -> Result<(Dense, Dense)> {
    let Matrices { batch, m, n } = matrices(QR_TARGET, &a.ty)?;
    let p = m.min(n);
    let mut v = field::values::<T>(a);
    let mut taus = vec![T::default(); batch_count(batch) * p];
    for b in 0..batch_count(batch) {
        geqrf_one(&mut v[b * m * n..(b + 1) * m * n], m, n, &mut taus[b * p..(b + 1) * p]);
    }
    Ok((field::store_values(&a.ty, v)?, field::store_values(taus_ty, taus)?))
}

/// geqrf of one row-major m×n matrix in place. The reflectors are applied row by row (a
/// row-vector product vᴴX, then a rank-1 update), never walking a column with a stride of n.
fn geqrf_one<T: Field>(x: &mut [T], m: usize, n: usize, taus: &mut [T]) {
    let mut f = vec![T::default(); n];
    for j in 0..taus.len() {
        let tail_norm = norm2((j + 1..m).map(|i| x[i * n + j]));
        let (beta, tau, scale) = reflector(x[j * n + j], tail_norm);
        for i in j + 1..m {
            x[i * n + j] = x[i * n + j] * scale;
        }
        // H_jᴴ = I - conj(tau) v vᴴ on the columns right of j, where v is column j from row j
        // down with an implicit 1 on top: X ← X - v (conj(tau) vᴴ X).
        let cols = j + 1..n;
        let fs = &mut f[cols.clone()];
        fs.fill(T::default());
        for i in j..m {
            let vi = if i == j { T::from_real(1.0) } else { x[i * n + j] }.conj();
            for (fc, xc) in fs.iter_mut().zip(&x[i * n + cols.start..(i + 1) * n]) {
                *fc = *fc + vi * *xc;
            }
        }
        let ctau = tau.conj();
        fs.iter_mut().for_each(|fc| *fc = ctau * *fc);
        for i in j..m {
            let vi = if i == j { T::from_real(1.0) } else { x[i * n + j] };
            for (xc, fc) in x[i * n + cols.start..(i + 1) * n].iter_mut().zip(fs.iter()) {
                *xc = *xc - vi * *fc;
            }
        }
        x[j * n + j] = T::from_real(beta);
        taus[j] = tau;
    }
}

/// orgqr on each matrix of `a`: Q = H_1 … H_k applied to the first n columns of the identity,
/// by applying H_k first.
fn householder_product(a: &Dense, taus: &Dense) -> Result<Dense> {
    if a.ty.elem.is_complex() {
        householder_product_in::<C64>(a, taus)
    } else {
        householder_product_in::<f64>(a, taus)
    }
}

fn householder_product_in<T: Field>(a: &Dense, taus: &Dense) -> Result<Dense> {
    let Matrices { batch, m, n } = matrices(HOUSEHOLDER_PRODUCT_TARGET, &a.ty)?;
    let k = taus.ty.shape.last().copied().unwrap_or(0) as usize;
    let av = field::values::<T>(a);
    let tv = field::values::<T>(taus);
    let mut q = vec![T::default(); av.len()];
    let mut f = vec![T::default(); n];
    for b in 0..batch_count(batch) {
        let (x, out) = (&av[b * m * n..(b + 1) * m * n], &mut q[b * m * n..(b + 1) * m * n]);
        for i in 0..n {
            out[i * n + i] = T::from_real(1.0);
        }
        for j in (0..k).rev() {
            let tau = tv[b * k + j];
            let v = |i: usize| if i == j { T::from_real(1.0) } else { x[i * n + j] };
            // Rows above j of v are zero, and so (while H_k … H_{j+1} are applied) are the
            // columns left of j of the partial product below row j: only the block j.., j..
            // changes. Out ← Out - v (tau vᴴ Out), row by row.
            let fs = &mut f[j..n];
            fs.fill(T::default());
            for i in j..m {
                let vi = v(i).conj();
                for (fc, oc) in fs.iter_mut().zip(&out[i * n + j..(i + 1) * n]) {
                    *fc = *fc + vi * *oc;
                }
            }
            fs.iter_mut().for_each(|fc| *fc = tau * *fc);
            for i in j..m {
                let vi = v(i);
                for (oc, fc) in out[i * n + j..(i + 1) * n].iter_mut().zip(fs.iter()) {
                    *oc = *oc - vi * *fc;
                }
            }
        }
    }
    field::store_values(&a.ty, q)
}
