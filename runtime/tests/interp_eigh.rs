//! The `Eigh` custom call: A v = v diag(w) with v unitary for the Hermitian matrix the named
//! triangle stands for (the other triangle holds junk), eigenvalues of a matrix built from known
//! ones, sorting, batches, every element type, the n ≤ 1 cases, and errors at compile time.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{AttrValue, ElementType::*, OpKind, TensorType, Type};
use apu_runtime::Tensor;
use common::*;

fn eigh_op(config: &str) -> OpKind {
    OpKind::CustomCall {
        call_target_name: "Eigh".into(),
        has_side_effect: false,
        backend_config: Some(AttrValue::String(config.into())),
        api_version: 1,
        called_computations: Vec::new(),
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    }
}

type Z = (f64, f64);

fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn conj(a: Z) -> Z {
    (a.0, -a.1)
}

/// Runs Eigh on `a` ([batch, n, n]) and returns (v, w) as values.
fn run(a: &Tensor, config: &str) -> apu_compiler::Result<(Vec<Z>, Vec<f64>)> {
    let r = a.ty.rank();
    let w_ty = Type::tensor(a.ty.shape[..r - 1].to_vec(), a.ty.elem.real_part());
    let out = run_op_with(eigh_op(config), &[a.clone()], &[Type::Tensor(a.ty.clone()), w_ty], |_| Vec::new())?;
    Ok((to_pairs(&out[0]), to_pairs(&out[1]).into_iter().map(|z| z.0).collect()))
}


/// A Hermitian n×n matrix with entries from a fixed sequence, and the same with junk written into
/// the triangle that is not read.
fn hermitian(n: usize, complex: bool, seed: u64, lower: bool) -> (Vec<Z>, Vec<Z>) {
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
    };
    let mut h = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..=i {
            let z = if i == j { (next(), 0.0) } else { (next(), if complex { next() } else { 0.0 }) };
            h[i * n + j] = z;
            h[j * n + i] = conj(z);
        }
    }
    let mut given = h.clone();
    for i in 0..n {
        for j in 0..n {
            if (lower && j > i) || (!lower && j < i) {
                given[i * n + j] = (99.0, if complex { -7.0 } else { 0.0 });
            }
        }
    }
    (h, given)
}

/// max |A v - v diag(w)| and max |vᴴ v - I| for one matrix.
fn residuals(h: &[Z], v: &[Z], w: &[f64], n: usize) -> (f64, f64) {
    let (mut res, mut orth) = (0.0f64, 0.0f64);
    for i in 0..n {
        for j in 0..n {
            let mut av = (0.0, 0.0);
            let mut vv = (0.0, 0.0);
            for k in 0..n {
                let p = mul(h[i * n + k], v[k * n + j]);
                av = (av.0 + p.0, av.1 + p.1);
                let q = mul(conj(v[k * n + i]), v[k * n + j]);
                vv = (vv.0 + q.0, vv.1 + q.1);
            }
            let d = (av.0 - v[i * n + j].0 * w[j], av.1 - v[i * n + j].1 * w[j]);
            res = res.max(d.0.hypot(d.1));
            let e = (vv.0 - if i == j { 1.0 } else { 0.0 }, vv.1);
            orth = orth.max(e.0.hypot(e.1));
        }
    }
    (res, orth)
}

#[test]
fn eigenpairs_of_each_element_type_from_the_named_triangle() {
    for (elem, tol) in [(F32, 2e-5), (F64, 1e-12), (C64, 2e-5), (C128, 1e-12)] {
        for lower in [true, false] {
            for n in [2usize, 3, 7] {
                let complex = elem.is_complex();
                let (h, given) = hermitian(n, complex, n as u64 + 10 * lower as u64, lower);
                let config = format!("{},1,100,1e-06", lower as u8);
                let (v, w) = run(&pairs_tensor(&[n as i64, n as i64], elem, &given), &config).unwrap();
                // Compare with the matrix as stored (rounded to the element type).
                let h: Vec<Z> = to_pairs(&pairs_tensor(&[n as i64, n as i64], elem, &h));
                let (res, orth) = residuals(&h, &v, &w, n);
                assert!(res < tol * 10.0 && orth < tol * 10.0, "{elem} lower={lower} n={n}: |Av - vw| {res:e}, |vᴴv - I| {orth:e}");
                assert!(w.windows(2).all(|p| p[0] <= p[1]), "{elem} n={n}: eigenvalues ascend: {w:?}");
            }
        }
    }
}

#[test]
fn larger_matrices_of_each_field() {
    for (elem, tol) in [(F64, 1e-12), (C128, 1e-12), (F32, 1e-5), (C64, 1e-5)] {
        let n = 64;
        let (h, given) = hermitian(n, elem.is_complex(), 3, false);
        let (v, w) = run(&pairs_tensor(&[n as i64, n as i64], elem, &given), "0,1,100,1e-06").unwrap();
        let h: Vec<Z> = to_pairs(&pairs_tensor(&[n as i64, n as i64], elem, &h));
        let (res, orth) = residuals(&h, &v, &w, n);
        assert!(res < tol * 10.0 && orth < tol * 10.0, "{elem} n={n}: |Av - vw| {res:e}, |vᴴv - I| {orth:e}");
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{elem}: eigenvalues ascend");
    }
}

#[test]
fn structured_matrices_with_known_spectra() {
    // Already tridiagonal (no reflector has work): the path Laplacian tridiag(-1, 2, -1), whose
    // eigenvalues are 2 - 2cos(kπ/(n+1)).
    let n: usize = 40;
    let lap: Vec<Z> = (0..n * n)
        .map(|k| match (k / n).abs_diff(k % n) {
            0 => (2.0, 0.0),
            1 => (-1.0, 0.0),
            _ => (0.0, 0.0),
        })
        .collect();
    let (v, w) = run(&pairs_tensor(&[n as i64, n as i64], F64, &lap), "1,1,100,1e-06").unwrap();
    for (k, got) in w.iter().enumerate() {
        let want = 2.0 - 2.0 * ((k + 1) as f64 * std::f64::consts::PI / (n + 1) as f64).cos();
        assert!((got - want).abs() < 1e-13, "k={k}: {got} against {want}");
    }
    assert!(residuals(&lap, &v, &w, n).0 < 1e-13);
    // A repeated eigenvalue: I + u uᴴ has 1 (n-1 times) and 1 + |u|²; the vectors of the repeated
    // one must still come out orthonormal. Complex, so the diagonal phase scaling has work.
    let n = 9;
    let u: Vec<Z> = (0..n).map(|i| (0.5 + i as f64 * 0.1, 0.3 - i as f64 * 0.07)).collect();
    let m: Vec<Z> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let p = mul(u[i], conj(u[j]));
            (p.0 + if i == j { 1.0 } else { 0.0 }, p.1)
        })
        .collect();
    let (v, w) = run(&pairs_tensor(&[n as i64, n as i64], C128, &m), "1,1,100,1e-06").unwrap();
    let top = 1.0 + u.iter().map(|z| z.0 * z.0 + z.1 * z.1).sum::<f64>();
    assert!(w[..n - 1].iter().all(|x| (x - 1.0).abs() < 1e-13) && (w[n - 1] - top).abs() < 1e-13, "{w:?}");
    let (res, orth) = residuals(&m, &v, &w, n);
    assert!(res < 1e-13 && orth < 1e-13, "{res:e} {orth:e}");
}

#[test]
fn non_finite_entries_in_the_read_triangle_give_nan() {
    let (h, _) = hermitian(5, false, 4, true);
    let mut spoilt = h.clone();
    spoilt[3 * 5 + 1] = (f64::NAN, 0.0);
    let (v, w) = run(&pairs_tensor(&[5, 5], F32, &spoilt), "1,1,100,1e-06").unwrap();
    assert!(v.iter().all(|z| z.0.is_nan()) && w.iter().all(|x| x.is_nan()), "{w:?}");
    // The same entry in the triangle that is not read changes nothing.
    let (_, clean) = run(&pairs_tensor(&[5, 5], F32, &h), "0,1,100,1e-06").unwrap();
    let (_, unread) = run(&pairs_tensor(&[5, 5], F32, &spoilt), "0,1,100,1e-06").unwrap();
    assert_eq!(clean, unread);
    assert!(unread.iter().all(|x| x.is_finite()));
}

#[test]
fn known_eigenvalues_come_back_sorted_or_in_place() {
    // diag(3, -1, 2) rotated by a Givens rotation in the (0, 2) plane keeps its eigenvalues.
    let (c, s) = (0.6, 0.8);
    let a = [(3.0 * c * c + 2.0 * s * s, 0.0), (0.0, 0.0), ((3.0 - 2.0) * c * s, 0.0), (0.0, 0.0), (-1.0, 0.0), (0.0, 0.0), ((3.0 - 2.0) * c * s, 0.0), (0.0, 0.0), (3.0 * s * s + 2.0 * c * c, 0.0)];
    let (_, w) = run(&pairs_tensor(&[3, 3], F64, &a), "1,1,100,1e-06").unwrap();
    for (got, want) in w.iter().zip([-1.0, 2.0, 3.0]) {
        assert!((got - want).abs() < 1e-13, "{w:?}");
    }
    let (v, w) = run(&pairs_tensor(&[3, 3], F64, &a), "1,0,100,1e-06").unwrap();
    let mut sorted = w.clone();
    sorted.sort_by(f64::total_cmp);
    assert!(sorted.iter().zip([-1.0, 2.0, 3.0]).all(|(g, w)| (g - w).abs() < 1e-13), "{w:?}");
    assert!(residuals(&a, &v, &w, 3).0 < 1e-13, "unsorted pairs still match");
}

#[test]
fn batches_and_the_smallest_sizes() {
    let (h0, _) = hermitian(4, false, 1, true);
    let (h1, _) = hermitian(4, false, 2, true);
    let both: Vec<Z> = h0.iter().chain(&h1).copied().collect();
    let (v, w) = run(&pairs_tensor(&[2, 4, 4], F64, &both), "1,1,100,1e-06").unwrap();
    for (b, h) in [h0, h1].iter().enumerate() {
        let (res, orth) = residuals(h, &v[b * 16..(b + 1) * 16], &w[b * 4..(b + 1) * 4], 4);
        assert!(res < 1e-12 && orth < 1e-12, "batch {b}: {res:e} {orth:e}");
    }
    // n = 1: v is 1, w the real part of the entry; n = 0: empty results.
    let (v, w) = run(&pairs_tensor(&[2, 1, 1], C64, &[(2.5, 0.0), (-4.0, 0.0)]), "1,1,100,1e-06").unwrap();
    assert_eq!((v, w), (vec![(1.0, 0.0), (1.0, 0.0)], vec![2.5, -4.0]));
    let (v, w) = run(&pairs_tensor(&[0, 0], F32, &[]), "1,1,100,1e-06").unwrap();
    assert!(v.is_empty() && w.is_empty());
}

#[test]
fn bad_configs_and_types_are_refused_before_running() {
    let a = pairs_tensor(&[2, 2], F32, &[(1.0, 0.0); 4]);
    for config in ["", "1,1,100", "2,1,100,1e-6", "1,1,many,1e-6"] {
        let e = run(&a, config).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument, "{config:?}: {e}");
        assert!(e.to_string().contains("Eigh"), "{e}");
    }
    let e = run(&pairs_tensor(&[2, 3], F32, &[(1.0, 0.0); 6]), "1,1,100,1e-06").unwrap_err();
    assert!(e.to_string().contains("square"), "{e}");
    let ints = Tensor::from_bytes(TensorType::new(vec![2, 2], S32), &[0u8; 16]).unwrap();
    let e = run_op_with(eigh_op("1,1,100,1e-06"), &[ints], &[Type::tensor(vec![2, 2], S32), Type::tensor(vec![2], S32)], |_| Vec::new()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
}
