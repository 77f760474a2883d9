//! The `Qr` (geqrf) and `ProductOfElementaryHouseholderReflectors` (orgqr) custom calls: a
//! hand-computed case, LAPACK's packed layout, and Q R = A with Q orthonormal and R upper
//! triangular over shapes, batches and element types.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{ElementType, ElementType::*, OpKind};
use apu_runtime::Tensor;
use common::*;

fn custom_call(target: &str) -> OpKind {
    OpKind::CustomCall {
        call_target_name: target.into(),
        has_side_effect: false,
        backend_config: None,
        api_version: 1,
        called_computations: Vec::new(),
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    }
}

fn geqrf(a: &Tensor) -> apu_compiler::Result<(Tensor, Tensor)> {
    let r = a.ty.shape.len();
    let mut taus_shape = a.ty.shape[..r - 2].to_vec();
    taus_shape.push(a.ty.shape[r - 2].min(a.ty.shape[r - 1]));
    let mut out =
        run_op_with(custom_call("Qr"), &[a.clone()], &[tt(&a.ty.shape, a.ty.elem), tt(&taus_shape, a.ty.elem)], |_| Vec::new())?;
    let taus = out.remove(1);
    Ok((out.remove(0), taus))
}

fn orgqr(a: &Tensor, taus: &Tensor) -> apu_compiler::Result<Tensor> {
    run_op(custom_call("ProductOfElementaryHouseholderReflectors"), &[a.clone(), taus.clone()], tt(&a.ty.shape, a.ty.elem))
}

type Z = (f64, f64);
fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn conj(a: Z) -> Z {
    (a.0, -a.1)
}
fn close(a: Z, b: Z, tol: f64) -> bool {
    (a.0 - b.0).abs() <= tol && (a.1 - b.1).abs() <= tol
}

/// A deterministic, well-conditioned-enough test matrix entry.
fn entry(seed: usize, complex: bool) -> Z {
    let x = ((seed * 7919 + 13) % 101) as f64 / 50.0 - 1.0;
    let y = ((seed * 104729 + 7) % 89) as f64 / 44.0 - 1.0;
    (x, if complex { y } else { 0.0 })
}

/// Runs Qr then the Householder product on each matrix of a batch and checks every property.
fn check_qr(batch: &[i64], m: usize, n: usize, elem: ElementType) {
    let complex = elem.is_complex();
    let tol = if matches!(elem, F32 | C64) { 2e-5 } else { 1e-12 };
    let count: usize = batch.iter().map(|&d| d as usize).product();
    let a_vals: Vec<Z> = (0..count * m * n).map(|i| entry(i, complex)).collect();
    let mut shape = batch.to_vec();
    shape.extend([m as i64, n as i64]);
    let a = pairs_tensor(&shape, elem, &a_vals);
    let a_vals = to_pairs(&a); // as rounded to `elem`
    let (packed, taus) = geqrf(&a).unwrap();
    let (packed, taus) = (to_pairs(&packed), to_pairs(&taus));
    let (p, what) = (m.min(n), format!("{batch:?} {m}x{n} {elem}"));
    assert_eq!(taus.len(), count * p, "{what}");
    for b in 0..count {
        let x = &packed[b * m * n..(b + 1) * m * n];
        // Q's input: the first min(m, n) columns of the packed matrix (JAX slices the same way).
        let mut qin = vec![(0.0, 0.0); m * p];
        for i in 0..m {
            for j in 0..p {
                qin[i * p + j] = x[i * n + j];
            }
        }
        let t = &taus[b * p..(b + 1) * p];
        let q = to_pairs(&orgqr(&pairs_tensor(&[m as i64, p as i64], elem, &qin), &pairs_tensor(&[p as i64], elem, t)).unwrap());
        let r = |i: usize, j: usize| if j >= i { x[i * n + j] } else { (0.0, 0.0) };
        for i in 0..m {
            for j in 0..n {
                let mut s = (0.0, 0.0);
                for k in 0..p {
                    let t = mul(q[i * p + k], r(k, j));
                    s = (s.0 + t.0, s.1 + t.1);
                }
                assert!(close(s, a_vals[b * m * n + i * n + j], tol * 10.0), "{what}: (QR)[{i},{j}] = {s:?}, A = {:?}", a_vals[b * m * n + i * n + j]);
            }
        }
        for i in 0..p {
            for j in 0..p {
                let mut s = (0.0, 0.0);
                for k in 0..m {
                    let t = mul(conj(q[k * p + i]), q[k * p + j]);
                    s = (s.0 + t.0, s.1 + t.1);
                }
                let want = if i == j { (1.0, 0.0) } else { (0.0, 0.0) };
                assert!(close(s, want, tol * 10.0), "{what}: (QᴴQ)[{i},{j}] = {s:?}");
            }
            // LAPACK's R has a real diagonal, also for complex input.
            assert_eq!(x[i * n + i].1, 0.0, "{what}: R[{i},{i}] is not real");
        }
    }
}

#[test]
fn hand_computed_2x2_matches_lapack_layout() {
    // Column 0 = (3, 4): norm 5, beta = -5 (sign opposite to alpha = 3), tau = (beta - alpha) /
    // beta = 1.6, v = (1, 4 / (alpha - beta)) = (1, 0.5). H = I - 1.6 v vᵀ maps column 1 = (1, 2)
    // to (-2.2, 0.4); the last column has no tail and a real head, so tau = 0 there.
    let a = pairs_tensor(&[2, 2], F64, &[(3.0, 0.0), (1.0, 0.0), (4.0, 0.0), (2.0, 0.0)]);
    let (packed, taus) = geqrf(&a).unwrap();
    let (packed, taus) = (to_f64(&packed), to_f64(&taus));
    let want = [-5.0, -2.2, 0.5, 0.4];
    for (g, w) in packed.iter().zip(want) {
        assert!((g - w).abs() < 1e-14, "{packed:?}");
    }
    assert!((taus[0] - 1.6).abs() < 1e-14 && taus[1] == 0.0, "{taus:?}");
    // Q = I - 1.6 v vᵀ = [[-0.6, -0.8], [-0.8, 0.6]].
    let q = to_f64(&orgqr(&f64s(&[2, 2], &packed), &f64s(&[2], &taus)).unwrap());
    for (g, w) in q.iter().zip([-0.6, -0.8, -0.8, 0.6]) {
        assert!((g - w).abs() < 1e-14, "{q:?}");
    }
}

#[test]
fn complex_2x2_matches_lapack_zgeqrf() {
    // Reference values from LAPACK zgeqrf (numpy.linalg.qr(mode="raw")) for [[1+i, 2], [3-i, i]].
    // The last column has no tail but a complex head, so it still gets a reflector (tau ≠ 0)
    // that makes R's diagonal real.
    let a = pairs_tensor(&[2, 2], C128, &[(1.0, 1.0), (2.0, 0.0), (3.0, -1.0), (0.0, 1.0)]);
    let (packed, taus) = geqrf(&a).unwrap();
    let want_packed = [(-3.46410162, 0.0), (-0.28867513, -0.28867513), (0.5921342, -0.35665277), (2.19848433, 0.0)];
    let want_taus = [(1.28867513, 0.28867513), (1.66325677, -0.74839192)];
    for (g, w) in to_pairs(&packed).into_iter().zip(want_packed) {
        assert!(close(g, w, 1e-7), "packed {g:?} vs {w:?}");
    }
    for (g, w) in to_pairs(&taus).into_iter().zip(want_taus) {
        assert!(close(g, w, 1e-7), "tau {g:?} vs {w:?}");
    }
}

#[test]
fn qr_reconstructs_real_matrices() {
    for elem in [F64, F32] {
        for (m, n) in [(1, 1), (3, 3), (5, 3), (3, 5), (6, 1), (1, 4)] {
            check_qr(&[], m, n, elem);
        }
        check_qr(&[2, 3], 4, 2, elem);
    }
}

#[test]
fn qr_reconstructs_complex_matrices() {
    for elem in [C128, C64] {
        for (m, n) in [(2, 2), (4, 3), (3, 4)] {
            check_qr(&[], m, n, elem);
        }
        check_qr(&[2], 3, 3, elem);
    }
}

#[test]
fn full_q_from_padded_reflectors_is_orthonormal_and_extends_reduced_q() {
    // mode="complete" for m > n: JAX pads the packed m×n matrix to m×m and keeps n taus.
    let (m, n) = (4, 2);
    let a = pairs_tensor(&[4, 2], F64, &(0..8).map(|i| entry(i, false)).collect::<Vec<_>>());
    let (packed, taus) = geqrf(&a).unwrap();
    let x = to_f64(&packed);
    let mut full = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..n {
            full[i * m + j] = x[i * n + j];
        }
    }
    let q_full = to_f64(&orgqr(&f64s(&[4, 4], &full), &taus).unwrap());
    let q_reduced = to_f64(&orgqr(&packed, &taus).unwrap());
    for i in 0..m {
        for j in 0..m {
            let s: f64 = (0..m).map(|k| q_full[k * m + i] * q_full[k * m + j]).sum();
            assert!((s - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "QᵀQ[{i},{j}] = {s}");
        }
        for j in 0..n {
            assert!((q_full[i * m + j] - q_reduced[i * n + j]).abs() < 1e-12);
        }
    }
    // No reflectors at all: Q is the identity's first columns.
    let q = to_f64(&orgqr(&f64s(&[3, 2], &[9.0; 6]), &f64s(&[0], &[])).unwrap());
    assert_eq!(q, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn zero_size_operands() {
    for shape in [[0i64, 3, 2], [2, 3, 0], [2, 0, 3]] {
        let a = pairs_tensor(&shape, F32, &[]);
        let (packed, taus) = geqrf(&a).unwrap();
        assert_eq!(packed.ty.shape, shape);
        assert_eq!(taus.ty.shape, [shape[0], shape[1].min(shape[2])]);
    }
    let q = orgqr(&pairs_tensor(&[2, 3, 0], F64, &[]), &pairs_tensor(&[2, 0], F64, &[])).unwrap();
    assert_eq!(q.ty.shape, [2, 3, 0]);
}

#[test]
fn bad_types_and_shapes_are_refused_before_running() {
    let ints = i32s(&[2, 2], &[1, 2, 3, 4]);
    let e = run_op_with(custom_call("Qr"), &[ints], &[tt(&[2, 2], S32), tt(&[2], S32)], |_| Vec::new()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
    let a = f64s(&[3, 2], &[1.0; 6]);
    let e = run_op_with(custom_call("Qr"), &[a.clone()], &[tt(&[3, 2], F64), tt(&[3], F64)], |_| Vec::new()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument, "{e}");
    // orgqr needs rows ≥ columns ≥ reflectors.
    let wide = f64s(&[2, 3], &[1.0; 6]);
    let e = orgqr(&wide, &f64s(&[2], &[0.0; 2])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument, "{e}");
    let e = orgqr(&a, &f64s(&[3], &[0.0; 3])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument, "{e}");
}
