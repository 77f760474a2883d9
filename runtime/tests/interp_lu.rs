//! `custom_call @LuDecomposition` (LU with partial pivoting, JAX's TPU target): P·A = L·U over shapes,
//! batches and element types, the pivot rule (the first largest magnitude, |re| + |im| for complex,
//! a NaN winning), a zero pivot left undivided, and the pivots and permutation agreeing.

mod common;

use apu_compiler::ir::{ElementType, ElementType::*, OpKind};
use apu_runtime::Tensor;
use common::*;

type Z = (f64, f64);

fn lu(a: &Tensor) -> (Vec<Z>, Vec<i32>, Vec<i32>) {
    let r = a.ty.shape.len();
    let (m, n) = (a.ty.shape[r - 2], a.ty.shape[r - 1]);
    let batch = &a.ty.shape[..r - 2];
    let with = |len: i64| {
        let mut s = batch.to_vec();
        s.push(len);
        tt(&s, S32)
    };
    let kind = OpKind::CustomCall {
        call_target_name: "LuDecomposition".into(),
        has_side_effect: false,
        backend_config: None,
        api_version: 1,
        called_computations: Vec::new(),
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    };
    let out = run_op_with(kind, &[a.clone()], &[tt(&a.ty.shape, a.ty.elem), with(m.min(n)), with(m)], |_| Vec::new()).unwrap();
    (to_pairs(&out[0]), to_i32(&out[1]), to_i32(&out[2]))
}

fn entry(seed: usize, complex: bool) -> Z {
    let x = ((seed * 7919 + 13) % 101) as f64 / 50.0 - 1.0;
    let y = ((seed * 104729 + 7) % 89) as f64 / 44.0 - 1.0;
    (x, if complex { y } else { 0.0 })
}

fn check(batch: &[i64], m: usize, n: usize, elem: ElementType) {
    let count: usize = batch.iter().map(|&d| d as usize).product();
    let mut shape = batch.to_vec();
    shape.extend([m as i64, n as i64]);
    let a = pairs_tensor(&shape, elem, &(0..count * m * n).map(|i| entry(i, elem.is_complex())).collect::<Vec<_>>());
    let av = to_pairs(&a);
    let (packed, pivots, perm) = lu(&a);
    let (p, what) = (m.min(n), format!("{batch:?} {m}x{n} {elem}"));
    let tol = if matches!(elem, F32 | C64) { 1e-5 } else { 1e-12 } * (m.max(n).max(1) as f64);
    for b in 0..count {
        let x = &packed[b * m * n..(b + 1) * m * n];
        let (piv, perm) = (&pivots[b * p..(b + 1) * p], &perm[b * m..(b + 1) * m]);
        // The permutation is the pivots' row swaps applied to 0..m.
        let mut rows: Vec<i32> = (0..m as i32).collect();
        for (k, &i) in piv.iter().enumerate() {
            assert!(i as usize >= k && (i as usize) < m, "{what}: pivot {i} at step {k}");
            rows.swap(k, i as usize);
        }
        assert_eq!(rows, perm, "{what}: permutation");
        // L (unit diagonal) · U = the rows of A in the permutation's order.
        for i in 0..m {
            for j in 0..n {
                let mut s = (0.0, 0.0);
                for k in 0..=i.min(j).min(p.saturating_sub(1)) {
                    let l = if k == i { (1.0, 0.0) } else if k < i { x[i * n + k] } else { (0.0, 0.0) };
                    let u = if k <= j { x[k * n + j] } else { (0.0, 0.0) };
                    s = (s.0 + l.0 * u.0 - l.1 * u.1, s.1 + l.0 * u.1 + l.1 * u.0);
                }
                if p == 0 {
                    continue;
                }
                let want = av[b * m * n + perm[i] as usize * n + j];
                assert!((s.0 - want.0).abs() <= tol && (s.1 - want.1).abs() <= tol, "{what}: (LU)[{i},{j}] = {s:?}, (PA) = {want:?}");
            }
        }
        // Partial pivoting: every multiplier has modulus at most 1 (complex: √2, since the search
        // compares |re| + |im|, which is within √2 of the modulus).
        let bound = if elem.is_complex() { 2f64.sqrt() } else { 1.0 };
        for i in 0..m {
            for k in 0..i.min(p) {
                let l = x[i * n + k];
                assert!(l.0.hypot(l.1) <= bound + 1e-6, "{what}: multiplier ({i},{k}) = {l:?}");
            }
        }
    }
}

#[test]
fn lu_rebuilds_the_permuted_input() {
    for elem in [F32, F64, C64, C128] {
        for (batch, m, n) in [(&[][..], 1, 1), (&[][..], 4, 4), (&[][..], 6, 3), (&[][..], 3, 6), (&[2][..], 5, 5), (&[2, 1][..], 7, 4), (&[][..], 0, 3), (&[][..], 3, 0)] {
            check(batch, m, n, elem);
        }
    }
}

#[test]
fn pivots_take_the_first_largest_magnitude_and_a_nan() {
    // Column 0 magnitudes 1, 3, 3: the first 3 (row 1) is the pivot. Complex magnitudes are
    // |re| + |im|: (2, 2) outweighs (3, 0) although its modulus is smaller than 3.
    let (_, piv, _) = lu(&f64s(&[3, 2], &[1.0, 5.0, -3.0, 1.0, 3.0, 2.0]));
    assert_eq!(piv[0], 1);
    let (_, piv, _) = lu(&pairs_tensor(&[2, 1], C128, &[(3.0, 0.0), (2.0, 2.0)]));
    assert_eq!(piv, vec![1]);
    // A NaN wins the pivot search, as in JAX's argmax.
    let (_, piv, _) = lu(&f64s(&[3, 1], &[1.0, f64::NAN, 7.0]));
    assert_eq!(piv, vec![1]);
}

#[test]
fn a_zero_pivot_leaves_its_column_undivided() {
    // Column 0 is zero: no division (no NaN), the rank-1 update subtracts zeros.
    let (x, piv, perm) = lu(&f64s(&[2, 2], &[0.0, 1.0, 0.0, 2.0]));
    assert_eq!((piv, perm), (vec![0, 1], vec![0, 1]));
    assert_eq!(x.iter().map(|z| z.0).collect::<Vec<_>>(), vec![0.0, 1.0, 0.0, 2.0]);
}
