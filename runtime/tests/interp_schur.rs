//! `ApuSchur` and `ApuEig` against their definitions, over sizes, batches and the four element
//! types, on random matrices and on ones that are hard for the iteration (rotations, repeated and
//! clustered eigenvalues, zero and triangular matrices, a companion matrix with known roots):
//!
//! - Schur: Z unitary, Z T Zᴴ = A, T upper triangular (complex) or quasi-triangular with
//!   standardized 2×2 blocks (real: equal diagonal, off-diagonal entries of opposite signs);
//! - eig: A vr = vr diag(w) and vlᴴ A = diag(w) vlᴴ, unit columns whose largest entry is real and
//!   positive; a real matrix's eigenvalues exactly real or exact conjugate pairs, with real and
//!   conjugate eigenvectors to match; `w` independent of which vectors are asked for;
//! - NaN in, NaN out; named errors for bad configs and shapes.
//!
//! Agreement with LAPACK through JAX is checked against CPU in `tests/e2e/test_linalg.py`.

mod common;

use apu_compiler::ir::{ElementType, ElementType::*};
use apu_runtime::Tensor;
use common::complex_matrix::*;
use common::*;

fn complex_of(elem: ElementType) -> ElementType {
    if matches!(elem, F32 | C64) {
        C64
    } else {
        C128
    }
}

fn tolerance(elem: ElementType) -> f64 {
    if matches!(elem, F32 | C64) {
        2e-5
    } else {
        1e-12
    }
}

/// Test matrices of size n (row-major pairs; imaginary parts dropped for real types).
fn matrices(n: usize, complex: bool) -> Vec<(String, Vec<Z>)> {
    let at = |r: usize, c: usize| r * n + c;
    let random = |seed: usize| -> Vec<Z> {
        (0..n * n)
            .map(|k| {
                let x = (((k + seed) * 7919 + 13) % 101) as f64 / 50.0 - 1.0;
                let y = (((k + seed) * 104729 + 7) % 89) as f64 / 44.0 - 1.0;
                (x, if complex { y } else { 0.0 })
            })
            .collect()
    };
    let mut out = vec![("random".to_string(), random(0)), ("random 2".to_string(), random(17)), ("zero".to_string(), vec![(0.0, 0.0); n * n])];
    // Block rotations: eigenvalues ±i repeated.
    let mut rot = vec![(0.0, 0.0); n * n];
    for b in (0..n.saturating_sub(1)).step_by(2) {
        rot[at(b, b + 1)] = (-1.0, 0.0);
        rot[at(b + 1, b)] = (1.0, 0.0);
    }
    out.push(("rotations".into(), rot));
    // Upper triangular with a repeated diagonal (a Jordan-like block): defective.
    out.push(("jordan".into(), (0..n * n).map(|k| if k / n == k % n { (2.0, 0.0) } else if k / n < k % n { (1.0, 0.0) } else { (0.0, 0.0) }).collect()));
    // The companion matrix of (x - 1)(x - 2)…(x - n): known, real, well-separated roots.
    let mut coeffs = vec![1.0];
    for r in 1..=n {
        let mut next = vec![0.0; coeffs.len() + 1];
        for (i, &c) in coeffs.iter().enumerate() {
            next[i] += c;
            next[i + 1] -= c * r as f64;
        }
        coeffs = next;
    }
    let mut comp = vec![(0.0, 0.0); n * n];
    for c in 0..n {
        comp[at(0, c)] = (-coeffs[c + 1], 0.0);
        if c + 1 < n {
            comp[at(c + 1, c)] = (1.0, 0.0);
        }
    }
    out.push(("companion".into(), comp));
    out
}

fn run_schur(a: &Tensor, vectors: bool) -> Vec<Tensor> {
    let results: Vec<_> = (0..1 + vectors as usize).map(|_| tt(&a.ty.shape, a.ty.elem)).collect();
    let config = if vectors { "vectors" } else { "no_vectors" };
    run_op_with(custom_call("ApuSchur", Some(config)), &[a.clone()], &results, |_| Vec::new()).unwrap()
}

fn run_eig(a: &Tensor, left: bool, right: bool) -> Vec<Tensor> {
    let r = a.ty.shape.len();
    let c = complex_of(a.ty.elem);
    let mut results = vec![tt(&a.ty.shape[..r - 1], c)];
    results.extend((0..left as usize + right as usize).map(|_| tt(&a.ty.shape, c)));
    let config = format!("{},{}", left as u8, right as u8);
    run_op_with(custom_call("ApuEig", Some(&config)), &[a.clone()], &results, |_| Vec::new()).unwrap()
}

fn identity(n: usize) -> Vec<Z> {
    (0..n * n).map(|k| if k / n == k % n { (1.0, 0.0) } else { (0.0, 0.0) }).collect()
}

fn check_schur_one(a: &[Z], t: &[Z], z: &[Z], n: usize, elem: ElementType, what: &str) {
    let size = a.iter().map(|&(x, y)| x.hypot(y)).fold(1.0, f64::max);
    let tol = tolerance(elem) * (n as f64).max(4.0) * 4.0;
    assert_near(&matmul(&adjoint(z, n), z, n), &identity(n), tol, &format!("{what}: Zᴴ Z = I"));
    assert_near(&matmul(&matmul(z, t, n), &adjoint(z, n), n), a, tol * 8.0 * size, &format!("{what}: Z T Zᴴ = A"));
    for r in 0..n {
        for c in 0..r {
            let below = t[r * n + c];
            if elem.is_complex() || r > c + 1 {
                assert_eq!(below, (0.0, 0.0), "{what}: T[{r}][{c}] must be zero");
            }
        }
    }
    if !elem.is_complex() {
        for r in 1..n {
            if t[r * n + r - 1] != (0.0, 0.0) {
                let (a, b, c, d) = (t[(r - 1) * n + r - 1].0, t[(r - 1) * n + r].0, t[r * n + r - 1].0, t[r * n + r].0);
                assert!(r < 2 || t[(r - 1) * n + r - 2] == (0.0, 0.0), "{what}: two consecutive subdiagonal entries at {r}");
                assert!(a == d && b * c < 0.0, "{what}: 2×2 block at {r} is not standardized: {a} {b} {c} {d}");
            }
        }
    }
}

#[test]
fn schur_rebuilds_the_input_with_the_right_structure() {
    for elem in [F32, F64, C64, C128] {
        for n in [1, 2, 3, 4, 7, 12, 25] {
            for (name, m) in matrices(n, elem.is_complex()) {
                let a = pairs_tensor(&[n as i64, n as i64], elem, &m);
                let vals = to_pairs(&a);
                let out = run_schur(&a, true);
                let (t, z) = (to_pairs(&out[0]), to_pairs(&out[1]));
                check_schur_one(&vals, &t, &z, n, elem, &format!("schur {name} {n} {elem}"));
                // Without vectors T is the same.
                assert_eq!(to_pairs(&run_schur(&a, false)[0]), t, "schur {name} {n} {elem}: T without vectors");
            }
        }
    }
}

#[test]
fn schur_batches_are_independent() {
    for elem in [F32, C128] {
        let n = 5;
        let mats = matrices(n, elem.is_complex());
        let all: Vec<Z> = mats.iter().take(4).flat_map(|(_, m)| m.clone()).collect();
        let a = pairs_tensor(&[2, 2, n as i64, n as i64], elem, &all);
        let out = run_schur(&a, true);
        for (b, (_, m)) in mats.iter().take(4).enumerate() {
            let single = run_schur(&pairs_tensor(&[n as i64, n as i64], elem, m), true);
            let span = b * n * n..(b + 1) * n * n;
            assert_eq!(to_pairs(&out[0])[span.clone()], to_pairs(&single[0])[..], "batch {b} {elem}: T");
            assert_eq!(to_pairs(&out[1])[span], to_pairs(&single[1])[..], "batch {b} {elem}: Z");
        }
    }
}

fn check_eig_one(a: &[Z], w: &[Z], vl: &[Z], vr: &[Z], n: usize, elem: ElementType, what: &str) {
    let scale = a.iter().map(|&(x, y)| x.hypot(y)).fold(1.0, f64::max) * n as f64;
    let tol = tolerance(elem) * scale * 10.0;
    for (name, v, left) in [("vr", vr, false), ("vl", vl, true)] {
        for c in 0..n {
            let col: Vec<Z> = (0..n).map(|r| v[r * n + c]).collect();
            let norm: f64 = col.iter().map(|&(x, y)| x * x + y * y).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "{what}: {name}[:, {c}] has norm {norm}");
            // The largest entry (one of them, up to rounding to the element type) is real and positive.
            let biggest = col.iter().map(|z| z.0.hypot(z.1)).fold(0.0, f64::max);
            let real_vector = !elem.is_complex() && w[c].1 == 0.0;
            if !real_vector {
                let pinned = col.iter().any(|z| z.1 == 0.0 && z.0 >= biggest * (1.0 - 1e-5));
                assert!(pinned, "{what}: {name}[:, {c}] = {col:?} has no real positive largest entry");
            }
            // A v = λ v, or vᴴ A = λ vᴴ, i.e. Aᴴ v = conj(λ) v.
            let lambda = if left { conj(w[c]) } else { w[c] };
            for r in 0..n {
                let av = (0..n).fold((0.0, 0.0), |s, k| add(s, mul(if left { conj(a[k * n + r]) } else { a[r * n + k] }, col[k])));
                let lv = mul(lambda, col[r]);
                assert!((av.0 - lv.0).abs() <= tol && (av.1 - lv.1).abs() <= tol, "{what}: {name} residual at ({r}, {c}): {av:?} vs {lv:?}");
            }
        }
    }
    if !elem.is_complex() {
        let mut c = 0;
        while c < n {
            if w[c].1 == 0.0 {
                for v in [vl, vr] {
                    assert!((0..n).all(|r| v[r * n + c].1 == 0.0), "{what}: real eigenvalue {c} has a complex eigenvector");
                }
                c += 1;
            } else {
                assert!(c + 1 < n && w[c + 1] == conj(w[c]) && w[c].1 > 0.0, "{what}: eigenvalues {c}, {} are not a conjugate pair: {:?}", c + 1, &w[c..]);
                for v in [vl, vr] {
                    assert!((0..n).all(|r| v[r * n + c + 1] == conj(v[r * n + c])), "{what}: pair {c} has eigenvectors that are not conjugate");
                }
                c += 2;
            }
        }
    }
}

#[test]
fn eig_satisfies_the_definition_with_geev_normalization() {
    for elem in [F32, F64, C64, C128] {
        for n in [1, 2, 3, 4, 7, 12, 25] {
            for (name, m) in matrices(n, elem.is_complex()) {
                if name == "jordan" || (name == "rotations" && n > 2) {
                    continue; // defective or repeated: eigenvectors are not determined (checked below)
                }
                let a = pairs_tensor(&[n as i64, n as i64], elem, &m);
                let vals = to_pairs(&a);
                let out = run_eig(&a, true, true);
                let (w, vl, vr) = (to_pairs(&out[0]), to_pairs(&out[1]), to_pairs(&out[2]));
                let what = format!("eig {name} {n} {elem}");
                check_eig_one(&vals, &w, &vl, &vr, n, elem, &what);
                for (left, right) in [(false, false), (true, false), (false, true)] {
                    assert_eq!(to_pairs(&run_eig(&a, left, right)[0]), w, "{what}: w with vectors {left} {right}");
                }
            }
        }
    }
}

#[test]
fn eig_finds_known_eigenvalues() {
    for elem in [F32, F64, C64, C128] {
        let n = 6;
        let m = matrices(n, false).into_iter().find(|(name, _)| name == "companion").unwrap().1;
        let w = to_pairs(&run_eig(&pairs_tensor(&[6, 6], elem, &m), false, false)[0]);
        let mut re: Vec<f64> = w.iter().map(|z| z.0).collect();
        re.sort_by(f64::total_cmp);
        for (k, (&got, z)) in re.iter().zip(&w).enumerate() {
            assert!((got - (k + 1) as f64).abs() < 1e3 * tolerance(elem) && z.1.abs() < 1e3 * tolerance(elem), "{elem}: {w:?}");
        }
        // Rotations: ±i, each pair exactly conjugate for real types.
        let rot = matrices(4, false).into_iter().find(|(name, _)| name == "rotations").unwrap().1;
        let w = to_pairs(&run_eig(&pairs_tensor(&[4, 4], elem, &rot), false, false)[0]);
        for z in &w {
            assert!(z.0.abs() < 1e-12 && (z.1.abs() - 1.0).abs() < 1e-12, "{elem}: rotation eigenvalues {w:?}");
        }
        // A defective (Jordan-like) matrix still gives its eigenvalue and finite unit vectors.
        let jordan = matrices(5, false).into_iter().find(|(name, _)| name == "jordan").unwrap().1;
        let out = run_eig(&pairs_tensor(&[5, 5], elem, &jordan), true, true);
        assert!(to_pairs(&out[0]).iter().all(|&z| z == (2.0, 0.0)), "{elem}: jordan eigenvalues");
        for v in [&out[1], &out[2]] {
            assert!(to_pairs(v).iter().all(|z| z.0.is_finite() && z.1.is_finite()), "{elem}: jordan eigenvectors must be finite");
        }
    }
}

#[test]
fn non_finite_matrices_give_nan_everywhere() {
    for elem in [F32, F64, C64, C128] {
        for bad in [f64::NAN, f64::INFINITY] {
            let mut m = vec![(1.0, 0.0); 9];
            m[4] = (bad, 0.0);
            // The second matrix of the batch is fine and must stay so.
            m.extend(identity(3));
            let a = pairs_tensor(&[2, 3, 3], elem, &m);
            for out in [run_schur(&a, true), run_eig(&a, true, true)] {
                for t in &out {
                    let vals = to_pairs(t);
                    let per = vals.len() / 2;
                    assert!(vals[..per].iter().all(|z| z.0.is_nan() || z.1.is_nan()), "{elem} {bad}: the bad matrix's result must be NaN");
                    assert!(vals[per..].iter().all(|z| z.0.is_finite() && z.1.is_finite()), "{elem} {bad}: the good matrix's result must be finite");
                }
            }
        }
    }
}

#[test]
fn bad_configs_and_shapes_are_named_errors() {
    let a = f64s(&[3, 3], &[1.0; 9]);
    let err = run_op_with(custom_call("ApuSchur", Some("sorted")), &[a.clone()], &[tt(&[3, 3], F64)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("ApuSchur") && err.to_string().contains("backend_config"), "{err}");
    let err = run_op_with(custom_call("ApuEig", Some("1")), &[a.clone()], &[tt(&[3], C128)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("ApuEig") && err.to_string().contains("backend_config"), "{err}");
    // w must be complex.
    let err = run_op_with(custom_call("ApuEig", Some("0,0")), &[a], &[tt(&[3], F64)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("do not fit"), "{err}");
    let rect = f64s(&[2, 3], &[1.0; 6]);
    let err = run_op_with(custom_call("ApuSchur", Some("vectors")), &[rect], &[tt(&[2, 3], F64), tt(&[2, 3], F64)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("square"), "{err}");
    let ints = i32s(&[2, 2], &[1, 2, 3, 4]);
    let err = run_op_with(custom_call("ApuEig", Some("0,0")), &[ints], &[tt(&[2], C64)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("UNIMPLEMENTED") || err.to_string().to_lowercase().contains("unimplemented"), "{err}");
}

