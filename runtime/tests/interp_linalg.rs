//! cholesky and triangular_solve, checked by multiplying the results back.

mod common;

use apu_compiler::ir::{ElementType::*, OpKind, Transpose};
use common::*;

const N: usize = 3;

/// A = M Mᵀ + 3 I for a fixed M: symmetric positive definite.
fn spd() -> Vec<f64> {
    let m = [1.0, 2.0, 0.5, -1.0, 0.0, 1.5, 0.25, -0.5, 2.0];
    let mut a = vec![0.0; 9];
    for i in 0..N {
        for j in 0..N {
            a[i * N + j] = (0..N).map(|k| m[i * N + k] * m[j * N + k]).sum::<f64>() + if i == j { 3.0 } else { 0.0 };
        }
    }
    a
}

fn cholesky(a: &[f64], lower: bool) -> Vec<f64> {
    to_f64(&run_op(OpKind::Cholesky { lower }, &[f64s(&[3, 3], a)], tt(&[3, 3], F64)).unwrap())
}

#[test]
fn cholesky_factors_multiply_back() {
    let a = spd();
    let l = cholesky(&a, true);
    let u = cholesky(&a, false);
    for i in 0..N {
        for j in 0..N {
            let llt: f64 = (0..N).map(|k| l[i * N + k] * l[j * N + k]).sum();
            let utu: f64 = (0..N).map(|k| u[k * N + i] * u[k * N + j]).sum();
            assert!((llt - a[i * N + j]).abs() < 1e-12 && (utu - a[i * N + j]).abs() < 1e-12);
            if j > i {
                assert_eq!(l[i * N + j], 0.0);
                assert_eq!(u[j * N + i], 0.0);
            }
        }
    }
    // Only the named triangle is read: garbage in the other one changes nothing.
    let mut b = a.clone();
    b[1] = 1e9;
    assert_eq!(cholesky(&b, true), l);
}

#[test]
fn cholesky_of_indefinite_matrix_is_nan() {
    let l = cholesky(&[1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0], true);
    assert_eq!(l[0], 1.0);
    assert!(l[4].is_nan());
}

#[test]
fn triangular_solve_all_variants() {
    let a = [2.0, 7.0, -3.0, 0.5, 4.0, 9.0, -1.0, 1.5, 3.0];
    let b = [1.0, 2.0, -1.0, 0.5, 3.0, -2.0];
    for left in [true, false] {
        let (bs, bshape): (&[f64], [i64; 2]) = if left { (&b, [3, 2]) } else { (&b, [2, 3]) };
        for lower in [true, false] {
            for unit in [true, false] {
                for tr in [Transpose::NoTranspose, Transpose::Transpose, Transpose::Adjoint] {
                    let kind = OpKind::TriangularSolve { left_side: left, lower, unit_diagonal: unit, transpose_a: tr };
                    let x = to_f64(&run_op(kind, &[f64s(&[3, 3], &a), f64s(&bshape, bs)], tt(&bshape, F64)).unwrap());
                    let t = |i: usize, j: usize| {
                        if i == j && unit {
                            1.0
                        } else if (lower && j <= i) || (!lower && j >= i) {
                            a[i * 3 + j]
                        } else {
                            0.0
                        }
                    };
                    let op = |i: usize, j: usize| if tr == Transpose::NoTranspose { t(i, j) } else { t(j, i) };
                    let (rows, cols) = (bshape[0] as usize, bshape[1] as usize);
                    for r in 0..rows {
                        for c in 0..cols {
                            let got: f64 = if left {
                                (0..3).map(|k| op(r, k) * x[k * cols + c]).sum()
                            } else {
                                (0..3).map(|k| x[r * cols + k] * op(k, c)).sum()
                            };
                            assert!((got - bs[r * cols + c]).abs() < 1e-9, "left {left} lower {lower} unit {unit} {tr:?}");
                        }
                    }
                }
            }
        }
    }
}
