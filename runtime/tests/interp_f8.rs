//! Narrow floats (8, 6 and 4 bits): conversion from f32 and back, against the codes and values ml_dtypes 0.5
//! produces (`np.array(vals, np.float32).astype(ml_dtypes.float8_*).view(np.uint8)` and the
//! reverse), covering rounding ties, subnormals, overflow to inf or NaN, and negative zero.

#![allow(clippy::excessive_precision)] // exact binary fractions, printed in full

mod common;

use apu_compiler::ir::{BinaryOp, ElementType, ElementType::*, OpKind};
use common::*;

const VALS: [f32; 27] = [
    0.0, -0.0, 1.0, -1.5, 0.1, 3.3, 1e-3, 2e-5, 448.0, 464.0, 465.0, 480.0, 57344.0, 61440.0, 1e6, -1e6,
    f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.0625, 1.0625, 1.1875, 240.0, 15.5, 31.0, 0.001953125, 0.0009765625,
];

fn encode(elem: ElementType) -> Vec<u8> {
    let n = VALS.len() as i64;
    let f8 = run_op(OpKind::Convert, &[f32s(&[n], &VALS)], tt(&[n], elem)).unwrap();
    run_op(OpKind::BitcastConvert, &[f8], tt(&[n], U8)).unwrap().bytes().to_vec()
}

fn decode(elem: ElementType, codes: &[u8]) -> Vec<f32> {
    let n = codes.len() as i64;
    let f8 = run_op(OpKind::BitcastConvert, &[u8s(&[n], codes)], tt(&[n], elem)).unwrap();
    to_f32(&run_op(OpKind::Convert, &[f8], tt(&[n], F32)).unwrap())
}

const CODES: [u8; 13] = [0, 1, 7, 8, 0x38, 0x7b, 0x7c, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff];

fn check_decode(elem: ElementType, want: [f32; 13]) {
    let got = decode(elem, &CODES);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "{elem} code {:#x}: got {g}", CODES[i]);
        } else {
            assert_eq!(g.to_bits(), w.to_bits(), "{elem} code {:#x}", CODES[i]);
        }
    }
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

#[test]
fn f8e5m2() {
    assert_eq!(encode(F8E5M2), [0, 128, 60, 190, 46, 67, 20, 1, 95, 95, 95, 96, 123, 124, 124, 252, 124, 252, 126, 44, 60, 61, 92, 76, 80, 24, 20]);
    check_decode(F8E5M2, [0.0, 1.52587890625e-05, 0.0001068115234375, 0.0001220703125, 0.5, 57344.0, INF, NAN, NAN, -0.0, -1.52587890625e-05, NAN, NAN]);
}

#[test]
fn f8e4m3fn() {
    assert_eq!(encode(F8E4M3FN), [0, 128, 56, 188, 29, 69, 1, 0, 126, 126, 127, 127, 127, 127, 127, 255, 127, 255, 127, 24, 56, 58, 119, 88, 96, 1, 0]);
    check_decode(F8E4M3FN, [0.0, 0.001953125, 0.013671875, 0.015625, 1.0, 352.0, 384.0, 448.0, NAN, -0.0, -0.001953125, -448.0, NAN]);
}

#[test]
fn f8e4m3() {
    assert_eq!(encode(F8E4M3), [0, 128, 56, 188, 29, 69, 1, 0, 120, 120, 120, 120, 120, 120, 120, 248, 120, 248, 124, 24, 56, 58, 119, 88, 96, 1, 0]);
    check_decode(F8E4M3, [0.0, 0.001953125, 0.013671875, 0.015625, 1.0, NAN, NAN, NAN, NAN, -0.0, -0.001953125, NAN, NAN]);
}

#[test]
fn f8e4m3fnuz() {
    assert_eq!(encode(F8E4M3FNUZ), [0, 0, 64, 196, 37, 77, 1, 0, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 32, 64, 66, 127, 96, 104, 2, 1]);
    check_decode(F8E4M3FNUZ, [0.0, 0.0009765625, 0.0068359375, 0.0078125, 0.5, 176.0, 192.0, 224.0, 240.0, NAN, -0.0009765625, -224.0, -240.0]);
}

#[test]
fn f8e5m2fnuz() {
    assert_eq!(encode(F8E5M2FNUZ), [0, 0, 64, 194, 50, 71, 24, 3, 99, 99, 99, 100, 127, 128, 128, 128, 128, 128, 128, 48, 64, 65, 96, 80, 84, 28, 24]);
    check_decode(F8E5M2FNUZ, [0.0, 7.62939453125e-06, 5.340576171875e-05, 6.103515625e-05, 0.25, 28672.0, 32768.0, 49152.0, 57344.0, NAN, -7.62939453125e-06, -49152.0, -57344.0]);
}

#[test]
fn f8e4m3b11fnuz() {
    assert_eq!(encode(F8E4M3B11FNUZ), [0, 0, 88, 220, 61, 101, 8, 0, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 56, 88, 90, 128, 120, 128, 16, 8]);
    check_decode(F8E4M3B11FNUZ, [0.0, 0.0001220703125, 0.0008544921875, 0.0009765625, 0.0625, 22.0, 24.0, 28.0, 30.0, NAN, -0.0001220703125, -28.0, -30.0]);
}

#[test]
fn f8e3m4() {
    assert_eq!(encode(F8E3M4), [0, 128, 48, 184, 6, 74, 0, 0, 112, 112, 112, 112, 112, 112, 112, 240, 112, 240, 120, 4, 49, 51, 112, 111, 112, 0, 0]);
    check_decode(F8E3M4, [0.0, 0.015625, 0.109375, 0.125, 1.5, NAN, NAN, NAN, NAN, -0.0, -0.015625, NAN, NAN]);
}

#[test]
fn f8_arithmetic_rounds_every_result() {
    // 1 + 0.0625 is between e4m3fn neighbours 1.0 and 1.125: a tie, to even (1.0).
    let one = run_op(OpKind::Convert, &[f32s(&[1], &[1.0])], tt(&[1], F8E4M3FN)).unwrap();
    let small = run_op(OpKind::Convert, &[f32s(&[1], &[0.0625])], tt(&[1], F8E4M3FN)).unwrap();
    let sum = run_op(OpKind::Binary(BinaryOp::Add), &[one, small], tt(&[1], F8E4M3FN)).unwrap();
    assert_eq!(sum.bytes(), [56]);
}

/// The 6- and 4-bit floats and `F8E8M0FNU`, against ml_dtypes 0.6.0 (the codes of `VALS`, and the
/// values of a few canonical codes). Read from the converted tensor's storage bytes: one per byte,
/// in the low bits.
fn encode_narrow(elem: ElementType) -> Vec<u8> {
    let n = VALS.len() as i64;
    run_op(OpKind::Convert, &[f32s(&[n], &VALS)], tt(&[n], elem)).unwrap().bytes().to_vec()
}

fn check_decode_narrow(elem: ElementType, codes: &[u8], want: &[f32]) {
    let n = codes.len() as i64;
    let t = apu_runtime::Tensor::from_bytes(apu_compiler::ir::TensorType::new(vec![n], elem), codes).unwrap();
    let got = to_f32(&run_op(OpKind::Convert, &[t], tt(&[n], F32)).unwrap());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "{elem} code {:#x}: got {g}", codes[i]);
        } else {
            assert_eq!(g.to_bits(), w.to_bits(), "{elem} code {:#x}", codes[i]);
        }
    }
}

#[test]
fn f8e8m0fnu() {
    // No zero, no sign: 0, negatives, infinities and NaN all become NaN (0xFF); 1.5 * 2^k rounds up.
    assert_eq!(encode_narrow(F8E8M0FNU), [255, 255, 127, 255, 124, 129, 117, 111, 136, 136, 136, 136, 143, 143, 147, 255, 255, 255, 255, 123, 127, 127, 135, 131, 132, 118, 117]);
    check_decode_narrow(
        F8E8M0FNU,
        &[0, 1, 7, 8, 0x38, 0x7b, 0x7c, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff],
        &[5.877471754111438e-39, 1.1754943508222875e-38, 7.52316384526264e-37, 1.504632769052528e-36, 4.235164736271502e-22, 0.0625, 0.125, 0.5, 1.0, 2.0, 4.0, 1.7014118346046923e+38, NAN],
    );
}

#[test]
fn f6e2m3fn() {
    // Every code finite: overflow and infinities saturate, NaN becomes -0.
    assert_eq!(encode_narrow(F6E2M3FN), [0, 32, 8, 44, 1, 21, 0, 0, 31, 31, 31, 31, 31, 31, 31, 63, 31, 63, 32, 0, 8, 10, 31, 31, 31, 0, 0]);
    check_decode_narrow(F6E2M3FN, &[0, 1, 7, 8, 0x1f, 0x20, 0x21, 0x3f], &[0.0, 0.125, 0.875, 1.0, 7.5, -0.0, -0.125, -7.5]);
}

#[test]
fn f6e3m2fn() {
    assert_eq!(encode_narrow(F6E3M2FN), [0, 32, 12, 46, 2, 19, 0, 0, 31, 31, 31, 31, 31, 31, 31, 63, 31, 63, 32, 1, 12, 13, 31, 28, 31, 0, 0]);
    check_decode_narrow(F6E3M2FN, &[0, 1, 7, 8, 0x1f, 0x20, 0x21, 0x3f], &[0.0, 0.0625, 0.4375, 0.5, 28.0, -0.0, -0.0625, -28.0]);
}

#[test]
fn f4e2m1fn() {
    assert_eq!(encode_narrow(F4E2M1FN), [0, 8, 2, 11, 0, 5, 0, 0, 7, 7, 7, 7, 7, 7, 7, 15, 7, 15, 8, 0, 2, 2, 7, 7, 7, 0, 0]);
    check_decode_narrow(F4E2M1FN, &[0, 1, 7, 8, 9, 0xf], &[0.0, 0.5, 6.0, -0.0, -0.5, -6.0]);
}

#[test]
fn f4_arithmetic_rounds_every_result() {
    // 1.5 + 1.5 = 3 is exact (code 5); 3 + 1.5 = 4.5 is a tie between 4 (code 6) and 6 (code 7): to
    // even, 4. 1.5 * 1.5 = 2.25 rounds to 2 (code 4); 3 * 1.5 = 4.5 to 4 again.
    let x = run_op(OpKind::Convert, &[f32s(&[2], &[1.5, 3.0])], tt(&[2], F4E2M1FN)).unwrap();
    let y = run_op(OpKind::Convert, &[f32s(&[2], &[1.5, 1.5])], tt(&[2], F4E2M1FN)).unwrap();
    let sum = run_op(OpKind::Binary(BinaryOp::Add), &[x.clone(), y.clone()], tt(&[2], F4E2M1FN)).unwrap();
    assert_eq!(sum.bytes(), [5, 6]);
    let product = run_op(OpKind::Binary(BinaryOp::Multiply), &[x, y], tt(&[2], F4E2M1FN)).unwrap();
    assert_eq!(product.bytes(), [4, 6]);
}
