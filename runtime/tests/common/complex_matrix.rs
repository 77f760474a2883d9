//! Complex matrices as row-major (re, im) pairs, for checking linear-algebra custom calls against
//! their defining identities (A = Q H Qᴴ, A v = λ v, ...).

use apu_compiler::ir::{AttrValue, OpKind};

pub type Z = (f64, f64);
pub fn add(a: Z, b: Z) -> Z {
    (a.0 + b.0, a.1 + b.1)
}
pub fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
pub fn conj(a: Z) -> Z {
    (a.0, -a.1)
}

pub fn custom_call(target: &str, config: Option<&str>) -> OpKind {
    OpKind::CustomCall {
        call_target_name: target.into(),
        has_side_effect: false,
        backend_config: config.map(|s| AttrValue::String(s.into())),
        api_version: 1,
        called_computations: Vec::new(),
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    }
}

pub fn matmul(a: &[Z], b: &[Z], n: usize) -> Vec<Z> {
    let mut c = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for k in 0..n {
            for j in 0..n {
                c[i * n + j] = add(c[i * n + j], mul(a[i * n + k], b[k * n + j]));
            }
        }
    }
    c
}

pub fn adjoint(a: &[Z], n: usize) -> Vec<Z> {
    (0..n * n).map(|k| conj(a[(k % n) * n + k / n])).collect()
}

pub fn assert_near(got: &[Z], want: &[Z], tol: f64, what: &str) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g.0 - w.0).abs() <= tol && (g.1 - w.1).abs() <= tol, "{what}: [{k}] {g:?} vs {w:?}");
    }
}
