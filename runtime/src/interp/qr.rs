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

use super::complex::C64;
use super::linalg::{complex_values, conj, store};
use super::value::Dense;
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

fn batch_count(batch: &[i64]) -> usize {
    batch.iter().map(|&d| d as usize).product()
}

fn check_elem(target: &str, ty: &TensorType) -> Result<()> {
    match ty.elem {
        ElementType::F32 | ElementType::F64 | ElementType::C64 | ElementType::C128 => Ok(()),
        e => Err(Error::unimplemented(format!("custom_call \"{target}\" for {e}"))),
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
    let op_types: Vec<&TensorType> = operands.iter().map(|d| &d.ty).collect();
    let res_types: Vec<&TensorType> = result_types.iter().collect();
    check(target, &op_types, &res_types)?;
    if target == QR_TARGET {
        let (packed, taus) = geqrf(operands[0], &result_types[1])?;
        Ok(vec![packed, taus])
    } else {
        Ok(vec![householder_product(operands[0], operands[1])?])
    }
}

/// √(Σ|x_i|²) scaled by the largest magnitude, so tiny or huge entries neither underflow to a
/// zero norm (which would wrongly skip a reflector) nor overflow.
fn norm2(xs: impl Iterator<Item = C64> + Clone) -> f64 {
    let scale = xs.clone().flat_map(|z| [z.re.abs(), z.im.abs()]).fold(0.0, f64::max);
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    let sum: f64 = xs.flat_map(|z| [z.re / scale, z.im / scale]).map(|t| t * t).sum();
    scale * sum.sqrt()
}

/// One reflector in LAPACK's xLARFG form, for a column whose head is `alpha` and whose tail (the
/// entries below the diagonal) has 2-norm `tail_norm`: returns (beta, tau, scale for the tail).
/// A real `alpha` with a zero tail needs no reflection: tau = 0, H = I.
fn reflector(alpha: C64, tail_norm: f64) -> (f64, C64, C64) {
    if tail_norm == 0.0 && alpha.im == 0.0 {
        return (alpha.re, C64::new(0.0, 0.0), C64::new(1.0, 0.0));
    }
    let mu = alpha.re.hypot(alpha.im).hypot(tail_norm);
    // beta takes the sign opposite to Re(alpha) (a zero counts as positive), avoiding cancellation.
    let beta = if alpha.re < 0.0 { mu } else { -mu };
    let tau = C64::new((beta - alpha.re) / beta, -alpha.im / beta);
    let scale = C64::new(1.0, 0.0) / (alpha - C64::new(beta, 0.0));
    (beta, tau, scale)
}

/// geqrf on each matrix of `a`; `taus_ty` is the type of the second result.
fn geqrf(a: &Dense, taus_ty: &TensorType) -> Result<(Dense, Dense)> {
    let Matrices { batch, m, n } = matrices(QR_TARGET, &a.ty)?;
    let p = m.min(n);
    let mut v = complex_values(a);
    let mut taus = vec![C64::new(0.0, 0.0); batch_count(batch) * p];
    for b in 0..batch_count(batch) {
        let x = &mut v[b * m * n..(b + 1) * m * n];
        for j in 0..p {
            let tail_norm = norm2((j + 1..m).map(|i| x[i * n + j]));
            let (beta, tau, scale) = reflector(x[j * n + j], tail_norm);
            for i in j + 1..m {
                x[i * n + j] = x[i * n + j] * scale;
            }
            x[j * n + j] = C64::new(1.0, 0.0);
            // Apply H_jᴴ = I - conj(tau) v vᴴ to the columns right of j (v is column j, rows j..m).
            let ctau = conj(tau);
            for c in j + 1..n {
                let mut dot = C64::new(0.0, 0.0);
                for i in j..m {
                    dot = dot + conj(x[i * n + j]) * x[i * n + c];
                }
                let f = ctau * dot;
                for i in j..m {
                    x[i * n + c] = x[i * n + c] - x[i * n + j] * f;
                }
            }
            x[j * n + j] = C64::new(beta, 0.0);
            taus[b * p + j] = tau;
        }
    }
    Ok((store(&a.ty, v)?, store(taus_ty, taus)?))
}

/// orgqr on each matrix of `a`: Q = H_1 … H_k applied to the first n columns of the identity,
/// by applying H_k first.
fn householder_product(a: &Dense, taus: &Dense) -> Result<Dense> {
    let Matrices { batch, m, n } = matrices(HOUSEHOLDER_PRODUCT_TARGET, &a.ty)?;
    let k = taus.ty.shape.last().copied().unwrap_or(0) as usize;
    let av = complex_values(a);
    let tv = complex_values(taus);
    let mut q = vec![C64::new(0.0, 0.0); av.len()];
    let mut vcol = vec![C64::new(0.0, 0.0); m];
    for b in 0..batch_count(batch) {
        let (x, out) = (&av[b * m * n..(b + 1) * m * n], &mut q[b * m * n..(b + 1) * m * n]);
        for i in 0..n {
            out[i * n + i] = C64::new(1.0, 0.0);
        }
        for j in (0..k).rev() {
            let tau = tv[b * k + j];
            vcol[j] = C64::new(1.0, 0.0);
            for i in j + 1..m {
                vcol[i] = x[i * n + j];
            }
            // Rows above j of v are zero, and so (while H_k … H_{j+1} are applied) are the
            // columns left of j of the partial product below row j: only the block j.., j.. changes.
            for c in j..n {
                let mut dot = C64::new(0.0, 0.0);
                for i in j..m {
                    dot = dot + conj(vcol[i]) * out[i * n + c];
                }
                let f = tau * dot;
                for i in j..m {
                    out[i * n + c] = out[i * n + c] - vcol[i] * f;
                }
            }
        }
    }
    store(&a.ty, q)
}
