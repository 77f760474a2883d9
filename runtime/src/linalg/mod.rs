//! The linear algebra the plan runs in production: `cholesky` and `triangular_solve`
//! ([`cholesky`]), `fft` ([`fft`]), and the custom calls JAX (with apu's lowerings) emits for
//! `Qr` / `ProductOfElementaryHouseholderReflectors` ([`qr`]), `LuDecomposition` ([`lu`]), `Eigh`
//! ([`eigh`], over [`hermitian_eigen`]), `ApuHessenberg` / `ApuTridiagonal` ([`condensed`]),
//! `ApuSchur` ([`schur`], over `schur_iteration`) and `ApuEig` ([`eig`]). Each is written once over
//! f64 or complex f64 ([`field`]) and walks rows.
//!
//! A plan reaches these through its interpreter step (`interp::eval_one_op`, the one door from the
//! executor into the interpreter), and the interpreter calls them for its own runs; they live here,
//! outside the oracle, because nothing independent checks them by comparison. Their tests are
//! property tests of their own (`runtime/tests/interp_{linalg,lu,qr,eigh,schur,condensed,fft}.rs`):
//! reconstruction (Q·R = A, P·A = L·U, V·diag(w)·Vᴴ = A, Z·T·Zᴴ = A), orthogonality, triangular
//! shapes, hand-computed cases and round trips (FFT then IFFT); agreement with LAPACK through JAX
//! on CPU is `tests/e2e/test_linalg.py`'s.

pub mod cholesky;
pub mod condensed;
pub mod eig;
pub mod eigh;
pub mod fft;
pub mod field;
pub mod hermitian_eigen;
pub mod lu;
pub mod qr;
pub mod schur;
mod schur_iteration;

use crate::values::value::Dense;
use apu_compiler::ir::TensorType;
use apu_compiler::Result;

/// Runs a custom call's compile-time `check` on the types of the values it is evaluated on, so the
/// evaluator refuses exactly what compilation refuses (the check gets operand and result types).
pub(crate) fn check_dense<R>(operands: &[&Dense], result_types: &[TensorType], check: impl FnOnce(&[&TensorType], &[&TensorType]) -> Result<R>) -> Result<R> {
    let operand_types: Vec<_> = operands.iter().map(|d| &d.ty).collect();
    let result_types: Vec<_> = result_types.iter().collect();
    check(&operand_types, &result_types)
}
