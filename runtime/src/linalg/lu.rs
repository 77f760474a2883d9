//! `custom_call @LuDecomposition(a) -> (lu, pivots, permutation)`: LU with partial pivoting, the
//! target JAX's TPU rule for `lax.linalg.lu` emits (`_lu_tpu_lowering_rule`); apu's package registers
//! that rule for apu. Without it `jnp.linalg.solve`, `inv`, `det`, `slogdet` and `lu_factor` ran
//! JAX's `_lu_python`, a loop of masked full-panel passes per column (5.3 ms at 256 against
//! LAPACK's 0.5 ms).
//!
//! The factorisation is `_lu_python`'s (which LAPACK's getrf also computes, up to rounding): at step
//! k the pivot is the first row i ≥ k whose magnitude |a_ik| (complex: |re| + |im|) is largest, a NaN
//! counting as largest (as JAX's argmax); rows k and i swap; the column below the pivot is divided
//! by it unless it is zero; the trailing block takes the rank-1 update. `lu` holds L (unit diagonal,
//! implicit) below the diagonal and U on and above it; `pivots` (s32, min(m, n) per matrix) are the
//! 0-based rows swapped in; `permutation` (s32, m per matrix) is where each row of P·A came from.
//! Leading dimensions are batch dimensions. Arithmetic is in f64 (complex in f64 pairs), rounded
//! once on store, rows walked contiguously. Element types: f32, f64, c64, c128.

use crate::values::array::{Array, Scalar};
use crate::values::complex::C64;
use super::field::{self, Field};
use super::qr;
use super::check_dense;
use crate::values::value::Dense;
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::{Error, Result};

pub const LU_TARGET: &str = "LuDecomposition";

/// Checks operand and result types; the compile-time support check and the evaluator both call
/// this, so a program accepted at compile time runs.
pub fn check(operands: &[&TensorType], results: &[&TensorType]) -> Result<()> {
    let show = |ts: &[&TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    let mismatch = || {
        Error::invalid(format!("custom_call \"{LU_TARGET}\": operand types ({}) do not fit result types ({})", show(operands), show(results)))
    };
    let [a] = operands else { return Err(mismatch()) };
    qr::check_elem(LU_TARGET, a)?;
    let r = a.rank();
    if r < 2 {
        return Err(Error::invalid(format!("custom_call \"{LU_TARGET}\": operand {a} must have rank at least 2")));
    }
    let (batch, m, n) = (&a.shape[..r - 2], a.shape[r - 2], a.shape[r - 1]);
    let vector = |len: i64| TensorType::new(batch.iter().copied().chain([len]).collect(), ElementType::S32);
    let want = [(*a).clone(), vector(m.min(n)), vector(m)];
    if results.len() != 3 || results.iter().zip(&want).any(|(r, w)| *r != w) {
        return Err(mismatch());
    }
    Ok(())
}

/// Runs the target on a dense operand, giving dense results of `result_types`.
pub fn eval(operands: &[&Dense], result_types: &[TensorType]) -> Result<Vec<Dense>> {
    check_dense(operands, result_types, check)?;
    if operands[0].ty.elem.is_complex() {
        lu::<C64>(operands[0], result_types)
    } else {
        lu::<f64>(operands[0], result_types)
    }
}

/// The magnitude the pivot search compares: |x| for reals, |re| + |im| for complex numbers.
fn magnitude<T: Field>(x: T) -> f64 {
    let z = x.widen();
    z.re.abs() + z.im.abs()
}

fn lu<T: Field>(a: &Dense, types: &[TensorType]) -> Result<Vec<Dense>> {
    let r = a.ty.rank();
    let (m, n) = (a.ty.shape[r - 2] as usize, a.ty.shape[r - 1] as usize);
    let count = qr::batch_count(&a.ty.shape[..r - 2]);
    let p = m.min(n);
    let mut x = field::values::<T>(a);
    let mut pivots = Vec::with_capacity(count * p);
    let mut perms = Vec::with_capacity(count * m);
    for b in 0..count {
        let mut perm: Vec<usize> = (0..m).collect();
        let mat = &mut x[b * m * n..(b + 1) * m * n];
        for k in 0..p {
            // The first largest magnitude at or below row k; a NaN wins and stays.
            let mut best = k;
            for i in k + 1..m {
                let (cand, cur) = (magnitude(mat[i * n + k]), magnitude(mat[best * n + k]));
                if !cur.is_nan() && (cand > cur || cand.is_nan()) {
                    best = i;
                }
            }
            pivots.push(best as i64);
            if best != k {
                let (top, bottom) = mat.split_at_mut(best * n);
                top[k * n..(k + 1) * n].swap_with_slice(&mut bottom[..n]);
                perm.swap(k, best);
            }
            let pivot = mat[k * n + k];
            let (head, tail) = mat.split_at_mut((k + 1) * n);
            let row_k = &head[k * n + k + 1..(k + 1) * n];
            for row in tail.chunks_exact_mut(n) {
                if pivot != T::default() {
                    row[k] = row[k] / pivot;
                }
                let l = row[k];
                for (c, &u) in row[k + 1..].iter_mut().zip(row_k) {
                    *c = *c - l * u;
                }
            }
        }
        perms.extend(perm.into_iter().map(|i| i as i64));
    }
    let ints = |ty: &TensorType, v: Vec<i64>| Dense::new(ty.clone(), Array::from_scalars(ElementType::S32, v.into_iter().map(|i| Scalar::Int(i as i128)))?);
    Ok(vec![field::store_values(&types[0], x)?, ints(&types[1], pivots)?, ints(&types[2], perms)?])
}
