//! Smaller ops and less common element types: map, get_dimension_size, transcendental spot
//! checks against std's f64 functions rounded to f32, complex functions, bool arithmetic,
//! f16 conversions.

mod common;

use apu_compiler::ir::{BinaryOp as B, ElementType, ElementType::*, OpKind, TensorType, Type, UnaryOp as U};
use apu_runtime::Tensor;
use common::*;

#[test]
fn map_applies_its_region_elementwise() {
    let x = f32s(&[3], &[1.0, 2.0, 3.0]);
    let y = f32s(&[3], &[10.0, 20.0, 30.0]);
    let s = tt(&[], F32);
    let out = run_op_with(OpKind::Map { dimensions: vec![0] }, &[x, y], &[tt(&[3], F32)], |b| {
        vec![b.region(&[s.clone(), s.clone()], |b, p| {
            let m = b.op(OpKind::Binary(B::Multiply), &[p[0], p[0]], s.clone());
            vec![b.op(OpKind::Binary(B::Add), &[m, p[1]], s.clone())]
        })]
    })
    .unwrap();
    assert_eq!(to_f32(&out[0]), [11.0, 24.0, 39.0]);
}

#[test]
fn get_dimension_size_is_i32() {
    let r = run_op(OpKind::GetDimensionSize { dimension: 1 }, &[f32s(&[2, 7], &[0.0; 14])], tt(&[], S32)).unwrap();
    assert_eq!(to_i32(&r), [7]);
}

#[test]
fn transcendentals_are_f64_rounded_once() {
    let v = [0.3f32, -1.7, 2.5, 1e-4];
    let x = f32s(&[4], &v);
    type Reference = fn(f64) -> f64;
    let cases: [(U, Reference); 8] = [
        (U::Exponential, f64::exp),
        (U::ExponentialMinusOne, f64::exp_m1),
        (U::LogPlusOne, |x| x.ln_1p()),
        (U::Tanh, f64::tanh),
        (U::Sine, f64::sin),
        (U::Cbrt, f64::cbrt),
        (U::Tan, f64::tan),
        (U::Logistic, |x| 1.0 / (1.0 + (-x).exp())),
    ];
    for (op, f) in cases {
        let got = bits_f32(&run_op(OpKind::Unary(op), std::slice::from_ref(&x), tt(&[4], F32)).unwrap());
        let want: Vec<u32> = v.iter().map(|&a| (f(a as f64) as f32).to_bits()).collect();
        assert_eq!(got, want, "{op:?}");
    }
    let a = to_f32(&run_op(OpKind::Binary(B::Atan2), &[f32s(&[2], &[1.0, -1.0]), f32s(&[2], &[-1.0, -1.0])], tt(&[2], F32)).unwrap());
    assert_eq!(a, [(1f64.atan2(-1.0)) as f32, ((-1f64).atan2(-1.0)) as f32]);
}

fn c128(parts: &[f64]) -> Tensor {
    let bytes: Vec<u8> = parts.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(vec![(parts.len() / 2) as i64], C128), &bytes).unwrap()
}

fn c128_parts(t: &Tensor) -> Vec<f64> {
    t.bytes().chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn complex_functions_satisfy_identities() {
    let z = c128(&[3.0, 4.0, -1.0, 0.5, -2.0, 0.0]);
    let un = |op: U, t: &Tensor, elem: ElementType| run_op(OpKind::Unary(op), std::slice::from_ref(t), tt(&[3], elem)).unwrap();
    // sqrt(z)^2 = z, with the principal branch (non-negative real part).
    let s = un(U::Sqrt, &z, C128);
    let sq = c128_parts(&run_op(OpKind::Binary(B::Multiply), &[s.clone(), s.clone()], tt(&[3], C128)).unwrap());
    for (g, w) in sq.iter().zip([3.0, 4.0, -1.0, 0.5, -2.0, 0.0]) {
        assert!((g - w).abs() < 1e-12);
    }
    let sp = c128_parts(&s);
    assert!(sp[0] > 0.0 && (sp[0] - 2.0).abs() < 1e-12 && (sp[1] - 1.0).abs() < 1e-12, "sqrt(3+4i) = 2+i");
    assert!(sp[4].abs() < 1e-12 && (sp[5] - 2f64.sqrt()).abs() < 1e-12, "sqrt(-2) = i√2");
    // exp(log z) = z
    let back = c128_parts(&un(U::Exponential, &un(U::Log, &z, C128), C128));
    for (g, w) in back.iter().zip([3.0, 4.0, -1.0, 0.5, -2.0, 0.0]) {
        assert!((g - w).abs() < 1e-12);
    }
    assert_eq!(to_f64(&un(U::Abs, &z, F64))[0], 5.0);
    assert_eq!(to_f64(&un(U::Real, &z, F64)), [3.0, -1.0, -2.0]);
    assert_eq!(to_f64(&un(U::Imag, &z, F64)), [4.0, 0.5, 0.0]);
    // tanh(z) = (e^{2z} - 1) / (e^{2z} + 1)
    let t = c128_parts(&un(U::Tanh, &z, C128));
    let (re, im) = (-1.0f64, 0.5f64);
    let e2 = ((2.0 * re).exp() * (2.0 * im).cos(), (2.0 * re).exp() * (2.0 * im).sin());
    let (nr, ni, dr, di) = (e2.0 - 1.0, e2.1, e2.0 + 1.0, e2.1);
    let d = dr * dr + di * di;
    assert!((t[2] - (nr * dr + ni * di) / d).abs() < 1e-12 && (t[3] - (ni * dr - nr * di) / d).abs() < 1e-12);
}

#[test]
fn boolean_arithmetic_is_logical() {
    let x = preds(&[4], &[false, false, true, true]);
    let y = preds(&[4], &[false, true, false, true]);
    let op = |k: B| to_bool(&run_op(OpKind::Binary(k), &[x.clone(), y.clone()], tt(&[4], Pred)).unwrap());
    assert_eq!(op(B::Add), [false, true, true, true]);
    assert_eq!(op(B::Multiply), [false, false, false, true]);
    assert_eq!(op(B::Xor), [false, true, true, false]);
    assert_eq!(op(B::Maximum), op(B::Or));
    assert_eq!(op(B::Minimum), op(B::And));
    let n = to_bool(&run_op(OpKind::Unary(U::Not), std::slice::from_ref(&x), tt(&[4], Pred)).unwrap());
    assert_eq!(n, [true, true, false, false]);
}

#[test]
fn f16_conversions_round_and_keep_specials() {
    let x = f32s(&[5], &[1.0 + 2f32.powi(-11), 65520.0, f32::NAN, -0.0, 1e-8]);
    let h = run_op(OpKind::Convert, &[x], Type::tensor(vec![5], F16)).unwrap();
    let bits: Vec<u16> = h.bytes().chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    assert_eq!(bits[0], 0x3c00, "1 + 2^-11 ties to even");
    assert_eq!(bits[1], 0x7c00, "65520 rounds up to inf");
    assert_eq!(bits[2] & 0x7c00, 0x7c00);
    assert_ne!(bits[2] & 0x03ff, 0, "NaN stays NaN");
    assert_eq!(bits[3], 0x8000);
    assert_eq!(bits[4], 0, "1e-8 underflows to +0");
    let c = run_op(OpKind::Convert, &[c128(&[1.5, -2.5])], tt(&[1], C64)).unwrap();
    assert_eq!(c64_parts(&c), [1.5, -2.5]);
}
