//! `ApuHessenberg` (gehrd) and `ApuTridiagonal` (sytrd / hetrd): over shapes, batches and element
//! types, the reflectors rebuild the input (A = Q H Qᴴ, A = Q T Qᴴ from the triangle read), H is
//! upper Hessenberg, T's diagonal and off-diagonal are real, and tridiagonal hands back the other
//! triangle unchanged. Exact agreement with LAPACK is checked against CPU in
//! `tests/e2e/test_linalg.py`.

mod common;

use apu_compiler::ir::{ElementType, ElementType::*};
use apu_runtime::Tensor;
use common::complex_matrix::*;
use common::*;

fn entry(seed: usize, complex: bool) -> Z {
    let x = ((seed * 7919 + 13) % 101) as f64 / 50.0 - 1.0;
    let y = ((seed * 104729 + 7) % 89) as f64 / 44.0 - 1.0;
    (x, if complex { y } else { 0.0 })
}



/// `I - tau v vᴴ` for a reflector over all n rows.
fn reflector(v: &[Z], tau: Z) -> Vec<Z> {
    let n = v.len();
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let t = mul(tau, mul(v[i], conj(v[j])));
            (if i == j { 1.0 } else { 0.0 } - t.0, -t.1)
        })
        .collect()
}


fn tolerance(elem: ElementType) -> f64 {
    if matches!(elem, F32 | C64) {
        1e-4
    } else {
        1e-11
    }
}

fn input(batch: &[i64], n: usize, elem: ElementType) -> (Tensor, Vec<Z>) {
    let count: usize = batch.iter().map(|&d| d as usize).product();
    let mut shape = batch.to_vec();
    shape.extend([n as i64, n as i64]);
    let a = pairs_tensor(&shape, elem, &(0..count * n * n).map(|i| entry(i, elem.is_complex())).collect::<Vec<_>>());
    let vals = to_pairs(&a);
    (a, vals)
}

fn check_hessenberg(batch: &[i64], n: usize, elem: ElementType) {
    let (a, vals) = input(batch, n, elem);
    let mut taus_shape = batch.to_vec();
    taus_shape.push(n as i64 - 1);
    let out = run_op_with(custom_call("ApuHessenberg", None), &[a.clone()], &[tt(&a.ty.shape, elem), tt(&taus_shape, elem)], |_| Vec::new()).unwrap();
    let (packed, taus) = (to_pairs(&out[0]), to_pairs(&out[1]));
    let what = format!("hessenberg {batch:?} {n} {elem}");
    for b in 0..vals.len() / (n * n) {
        let x = &packed[b * n * n..(b + 1) * n * n];
        let h: Vec<Z> = (0..n * n).map(|k| if k / n > k % n + 1 { (0.0, 0.0) } else { x[k] }).collect();
        // Q = H_0 H_1 … H_{n-2}; v_i is 1 in row i+1 and column i of the packed matrix below.
        let mut q: Vec<Z> = (0..n * n).map(|k| if k / n == k % n { (1.0, 0.0) } else { (0.0, 0.0) }).collect();
        for i in 0..n.saturating_sub(1) {
            let v: Vec<Z> = (0..n).map(|r| if r == i + 1 { (1.0, 0.0) } else if r > i + 1 { x[r * n + i] } else { (0.0, 0.0) }).collect();
            q = matmul(&q, &reflector(&v, taus[b * (n - 1) + i]), n);
        }
        let rebuilt = matmul(&matmul(&q, &h, n), &adjoint(&q, n), n);
        assert_near(&rebuilt, &vals[b * n * n..(b + 1) * n * n], tolerance(elem) * n as f64, &what);
    }
}

fn check_tridiagonal(batch: &[i64], n: usize, elem: ElementType, lower: bool) {
    let (a, vals) = input(batch, n, elem);
    let real = elem.real_part();
    let vec_of = |len: usize, e: ElementType| {
        let mut s = batch.to_vec();
        s.push(len as i64);
        tt(&s, e)
    };
    let config = if lower { "lower" } else { "upper" };
    let results = [tt(&a.ty.shape, elem), vec_of(n, real), vec_of(n - 1, real), vec_of(n - 1, elem)];
    let out = run_op_with(custom_call("ApuTridiagonal", Some(config)), &[a.clone()], &results, |_| Vec::new()).unwrap();
    let (packed, d, e, taus) = (to_pairs(&out[0]), to_pairs(&out[1]), to_pairs(&out[2]), to_pairs(&out[3]));
    let what = format!("tridiagonal {config} {batch:?} {n} {elem}");
    for b in 0..vals.len() / (n * n) {
        let (x, av) = (&packed[b * n * n..(b + 1) * n * n], &vals[b * n * n..(b + 1) * n * n]);
        let (d, e, taus) = (&d[b * n..(b + 1) * n], &e[b * (n - 1)..(b + 1) * (n - 1)], &taus[b * (n - 1)..(b + 1) * (n - 1)]);
        // The Hermitian matrix the triangle read defines (real diagonal).
        let herm: Vec<Z> = (0..n * n)
            .map(|k| {
                let (r, c) = (k / n, k % n);
                let z = if (r >= c) == lower { av[k] } else { conj(av[c * n + r]) };
                if r == c { (z.0, 0.0) } else { z }
            })
            .collect();
        let mut t = vec![(0.0, 0.0); n * n];
        for i in 0..n {
            t[i * n + i] = d[i];
            assert_eq!(x[i * n + i], d[i], "{what}: packed diagonal");
        }
        for i in 0..n - 1 {
            t[(i + 1) * n + i] = e[i];
            t[i * n + i + 1] = e[i];
            let stored = if lower { x[(i + 1) * n + i] } else { x[i * n + i + 1] };
            assert_eq!(stored, e[i], "{what}: packed off-diagonal");
        }
        // Lower: Q = H_0 … H_{n-2}, v_i is 1 in row i+1 and column i below. Upper: Q = H_{n-2} … H_0,
        // v_i is 1 in row i and column i+1 above.
        let mut q: Vec<Z> = (0..n * n).map(|k| if k / n == k % n { (1.0, 0.0) } else { (0.0, 0.0) }).collect();
        let order: Vec<usize> = if lower { (0..n - 1).collect() } else { (0..n - 1).rev().collect() };
        for i in order {
            let v: Vec<Z> = (0..n)
                .map(|r| match (lower, r.cmp(&(i + usize::from(lower)))) {
                    (_, std::cmp::Ordering::Equal) => (1.0, 0.0),
                    (true, std::cmp::Ordering::Greater) => x[r * n + i],
                    (false, std::cmp::Ordering::Less) => x[r * n + i + 1],
                    _ => (0.0, 0.0),
                })
                .collect();
            q = matmul(&q, &reflector(&v, taus[i]), n);
        }
        let rebuilt = matmul(&matmul(&q, &t, n), &adjoint(&q, n), n);
        assert_near(&rebuilt, &herm, tolerance(elem) * n as f64, &what);
        for r in 0..n {
            for c in 0..n {
                if r != c && (r > c) != lower {
                    assert_eq!(x[r * n + c], av[r * n + c], "{what}: the triangle not read changed at ({r}, {c})");
                }
            }
        }
    }
}

#[test]
fn hessenberg_rebuilds_the_input() {
    for elem in [F32, F64, C64, C128] {
        for (batch, n) in [(&[][..], 1), (&[][..], 2), (&[][..], 3), (&[][..], 7), (&[2][..], 5), (&[2, 1][..], 4)] {
            check_hessenberg(batch, n, elem);
        }
    }
}

#[test]
fn tridiagonal_rebuilds_the_triangle_it_reads() {
    for elem in [F32, F64, C64, C128] {
        for lower in [true, false] {
            for (batch, n) in [(&[][..], 1), (&[][..], 2), (&[][..], 3), (&[][..], 8), (&[3][..], 5)] {
                check_tridiagonal(batch, n, elem, lower);
            }
        }
    }
}

#[test]
fn hand_computed_3x3_hessenberg_matches_lapack() {
    // Column 0 below the diagonal is (3, 4): beta = -5, tau = (beta - alpha) / beta = 1.6 and
    // v = (1, 4 / (3 + 5)) = (1, 0.5), as LAPACK's dlarfg; the last reflector has no tail: tau 0.
    let a = f64s(&[3, 3], &[1.0, 2.0, 3.0, 3.0, 1.0, 0.0, 4.0, 0.0, 1.0]);
    let out = run_op_with(custom_call("ApuHessenberg", None), &[a], &[tt(&[3, 3], F64), tt(&[2], F64)], |_| Vec::new()).unwrap();
    let (packed, taus) = (to_f64(&out[0]), to_f64(&out[1]));
    assert!((taus[0] - 1.6).abs() < 1e-14 && taus[1] == 0.0, "{taus:?}");
    assert!((packed[3] + 5.0).abs() < 1e-14 && (packed[6] - 0.5).abs() < 1e-14, "{packed:?}");
}

#[test]
fn bad_configs_and_shapes_are_named_errors() {
    let a = f32s(&[2, 3], &[0.0; 6]);
    let err = run_op_with(custom_call("ApuHessenberg", None), &[a], &[tt(&[2, 3], F32), tt(&[2], F32)], |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("square"), "{err}");
    let b = f32s(&[2, 2], &[0.0; 4]);
    let results = [tt(&[2, 2], F32), tt(&[2], F32), tt(&[1], F32), tt(&[1], F32)];
    let err = run_op_with(custom_call("ApuTridiagonal", Some("both")), &[b], &results, |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("\"lower\" or \"upper\""), "{err}");
}
