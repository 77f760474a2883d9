//! Elementwise semantics: integer wrap-around, division by zero and overflow, shifts past the bit
//! width, NaN rules of maximum/minimum, comparisons (incl. TOTALORDER), conversions with
//! saturation, bitcasts, reduce_precision, select/clamp, complex arithmetic, and the agreement of
//! `check_supported` with what running reports.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{BinaryOp as B, ComparisonDirection as D, ComparisonType as CT, ElementType, ElementType::*, OpKind, TensorType, Type, UnaryOp as U};
use apu_runtime::Tensor;
use common::*;

fn bin(op: B, x: Tensor, y: Tensor) -> Tensor {
    let ty = Type::Tensor(x.ty.clone());
    let ty = match (op, x.ty.elem) {
        (B::Complex, F32) => Type::tensor(x.ty.shape.clone(), C64),
        _ => ty,
    };
    run_op(OpKind::Binary(op), &[x, y], ty).unwrap()
}

fn un(op: U, x: Tensor, elem: ElementType) -> Tensor {
    let ty = Type::tensor(x.ty.shape.clone(), elem);
    run_op(OpKind::Unary(op), &[x], ty).unwrap()
}

#[test]
fn integer_division_by_zero_and_overflow() {
    let x = i8s(&[5], &[7, -7, -128, 5, 0]);
    let y = i8s(&[5], &[2, 2, -1, 0, 0]);
    assert_eq!(to_i8(&bin(B::Divide, x.clone(), y.clone())), [3, -3, -128, -1, -1]);
    assert_eq!(to_i8(&bin(B::Remainder, x, y)), [1, -1, 0, 5, 0]);
    // Unsigned: x / 0 is all ones.
    assert_eq!(bin(B::Divide, u8s(&[2], &[9, 200]), u8s(&[2], &[0, 7])).bytes(), [255, 28]);
}

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(to_i8(&bin(B::Add, i8s(&[2], &[127, -128]), i8s(&[2], &[1, -1]))), [-128, 127]);
    assert_eq!(to_i8(&bin(B::Multiply, i8s(&[2], &[16, -128]), i8s(&[2], &[16, -1]))), [0, -128]);
    let big = (1u64 << 63) + 1;
    assert_eq!(to_u64(&bin(B::Multiply, u64s(&[1], &[big]), u64s(&[1], &[3]))), [big.wrapping_mul(3)]);
    assert_eq!(to_u64(&bin(B::Add, u64s(&[1], &[u64::MAX]), u64s(&[1], &[2]))), [1]);
    assert_eq!(to_i8(&un(U::Negate, i8s(&[2], &[-128, 5]), S8)), [-128, -5]);
    assert_eq!(to_i8(&un(U::Abs, i8s(&[2], &[-128, -5]), S8)), [-128, 5]);
    assert_eq!(to_i32(&bin(B::Power, i32s(&[4], &[3, 2, -1, 5]), i32s(&[4], &[4, 31, -3, -1]))), [81, i32::MIN, -1, 0]);
}

#[test]
fn shifts_past_the_bit_width() {
    let x = i8s(&[4], &[1, 1, 1, 1]);
    assert_eq!(to_i8(&bin(B::ShiftLeft, x, i8s(&[4], &[1, 7, 8, -56]))), [2, -128, 0, 0]);
    let x = i8s(&[4], &[-128, -128, -128, 64]);
    assert_eq!(to_i8(&bin(B::ShiftRightArithmetic, x.clone(), i8s(&[4], &[1, 7, 9, 9]))), [-64, -1, -1, 0]);
    assert_eq!(to_i8(&bin(B::ShiftRightLogical, x, i8s(&[4], &[1, 7, 8, 1]))), [64, 1, 0, 32]);
}

#[test]
fn bit_counting() {
    let x = i8s(&[4], &[0, -1, 1, 0x30]);
    assert_eq!(to_i8(&un(U::PopulationCount, x.clone(), S8)), [0, 8, 1, 2]);
    assert_eq!(to_i8(&un(U::CountLeadingZeros, x.clone(), S8)), [8, 0, 7, 2]);
    assert_eq!(to_i8(&un(U::Not, x, S8)), [-1, 0, -2, !0x30]);
}

#[test]
fn float_max_min_propagate_nan_and_order_zeros() {
    let x = f32s(&[4], &[f32::NAN, 1.0, -0.0, 0.0]);
    let y = f32s(&[4], &[1.0, f32::NAN, 0.0, -0.0]);
    let mx = to_f32(&bin(B::Maximum, x.clone(), y.clone()));
    assert!(mx[0].is_nan() && mx[1].is_nan());
    assert_eq!([mx[2].to_bits(), mx[3].to_bits()], [0, 0], "max(-0, +0) is +0");
    let mn = to_f32(&bin(B::Minimum, x, y));
    assert!(mn[0].is_nan() && mn[1].is_nan());
    assert_eq!([mn[2].to_bits(), mn[3].to_bits()], [0x8000_0000; 2], "min(-0, +0) is -0");
}

#[test]
fn float_remainder_follows_dividend_sign() {
    let r = to_f32(&bin(B::Remainder, f32s(&[3], &[5.5, -5.5, 1.0]), f32s(&[3], &[2.0, 2.0, 0.0])));
    assert_eq!(&r[..2], [1.5, -1.5]);
    assert!(r[2].is_nan());
}

fn compare(dir: D, ty: CT, x: Tensor, y: Tensor) -> Vec<bool> {
    let shape = x.ty.shape.clone();
    to_bool(&run_op(OpKind::Compare { direction: dir, compare_type: Some(ty) }, &[x, y], Type::tensor(shape, Pred)).unwrap())
}

#[test]
fn compare_float_and_total_order() {
    let neg_nan = f32::from_bits(0xFFC0_0000);
    let x = f32s(&[5], &[-0.0, f32::NAN, neg_nan, f32::NEG_INFINITY, 1.0]);
    let y = f32s(&[5], &[0.0, f32::NAN, f32::NEG_INFINITY, -0.0, f32::NAN]);
    assert_eq!(compare(D::Eq, CT::Float, x.clone(), y.clone()), [true, false, false, false, false]);
    assert_eq!(compare(D::Ne, CT::Float, x.clone(), y.clone()), [false, true, true, true, true]);
    assert_eq!(compare(D::Lt, CT::Float, x.clone(), y.clone()), [false, false, false, true, false]);
    assert_eq!(compare(D::Eq, CT::TotalOrder, x.clone(), y.clone()), [false, true, false, false, false]);
    // -NaN < -inf < -0 < +0 < 1 < +NaN
    assert_eq!(compare(D::Lt, CT::TotalOrder, x, y), [true, false, true, true, true]);
}

#[test]
fn compare_unsigned_and_signed() {
    assert_eq!(compare(D::Lt, CT::Unsigned, u8s(&[2], &[200, 1]), u8s(&[2], &[100, 2])), [false, true]);
    assert_eq!(compare(D::Lt, CT::Signed, i8s(&[2], &[-56, 1]), i8s(&[2], &[100, 2])), [true, true]);
}

fn convert(x: Tensor, elem: ElementType) -> Tensor {
    let shape = x.ty.shape.clone();
    run_op(OpKind::Convert, &[x], Type::tensor(shape, elem)).unwrap()
}

#[test]
fn convert_float_to_int_truncates_saturates_and_zeroes_nan() {
    let x = f32s(&[7], &[f32::NAN, 300.0, -300.0, 2.9, -2.9, f32::INFINITY, -0.5]);
    assert_eq!(to_i8(&convert(x.clone(), S8)), [0, 127, -128, 2, -2, 127, 0]);
    assert_eq!(convert(x, U8).bytes(), [0, 255, 0, 2, 0, 255, 0]);
    assert_eq!(to_i8(&convert(i32s(&[3], &[300, -129, 127]), S8)), [44, 127, 127]);
    assert_eq!(convert(i32s(&[2], &[-1, 256]), U8).bytes(), [255, 0]);
}

#[test]
fn convert_bool_float_complex() {
    assert_eq!(to_bool(&convert(f32s(&[4], &[0.0, -0.0, f32::NAN, 2.0]), Pred)), [false, false, true, true]);
    assert_eq!(to_f32(&convert(preds(&[2], &[true, false]), F32)), [1.0, 0.0]);
    // f64 → f32 rounds to nearest even.
    let v = 1.0f64 + 2f64.powi(-24);
    assert_eq!(to_f32(&convert(f64s(&[2], &[v, 1.0 + 3.0 * 2f64.powi(-24)]), F32)), [1.0, 1.0 + 2f32.powi(-22)]);
    let c = bin(B::Complex, f32s(&[1], &[3.0]), f32s(&[1], &[4.0]));
    assert_eq!(to_f32(&convert(c, F32)), [3.0]);
    // i64 → f32 rounds once.
    let big = (1i64 << 40) + (1 << 16) + 1;
    let t = Tensor::from_bytes(TensorType::new(vec![1], S64), &big.to_le_bytes()).unwrap();
    assert_eq!(to_f32(&convert(t, F32)), [big as f32]);
}

#[test]
fn bitcast_convert_reinterprets_little_endian_bytes() {
    let x = f32s(&[2], &[1.0, -2.0]);
    let u = run_op(OpKind::BitcastConvert, std::slice::from_ref(&x), Type::tensor(vec![2], U32)).unwrap();
    assert_eq!(to_u32(&u), [0x3f80_0000, 0xc000_0000]);
    let b = run_op(OpKind::BitcastConvert, &[x], Type::tensor(vec![2, 4], U8)).unwrap();
    assert_eq!(b.bytes(), [0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
}

#[test]
fn bitcast_convert_packs_sub_byte_integers_lowest_element_first() {
    // 0x3f80_0000 (1.0f32) as eight u4 nibbles, least significant first.
    let x = f32s(&[], &[1.0]);
    let nibbles = run_op(OpKind::BitcastConvert, &[x], Type::tensor(vec![8], U4)).unwrap();
    assert_eq!(nibbles.bytes(), [0, 0, 0, 0, 0, 8, 15, 3]);
    // And back, through signed i4 (storage re-extends 15 to -1 and 8 to -8; the bits are the same).
    let s4 = Tensor::from_bytes(TensorType::new(vec![8], S4), &[0, 0, 0, 0, 0, 0xf8, 0xff, 3]).unwrap();
    let back = run_op(OpKind::BitcastConvert, &[s4], Type::tensor(vec![], F32)).unwrap();
    assert_eq!(to_f32(&back), [1.0]);
    // Two i4 per i8: [1, -2] -> 0xe1.
    let pair = Tensor::from_bytes(TensorType::new(vec![1, 2], S4), &[1, 0xfe]).unwrap();
    let byte = run_op(OpKind::BitcastConvert, &[pair], Type::tensor(vec![1], S8)).unwrap();
    assert_eq!(byte.bytes(), [0xe1]);
}

#[test]
fn reduce_precision_matches_bf16_and_f16_rounding() {
    let vals: Vec<f32> = vec![1.0 + 2f32.powi(-8), 1.0 + 3.0 * 2f32.powi(-8), 3.3, -2.2, 1e30, -1e-30, 65504.0, 70000.0, 1e-5];
    let x = f32s(&[vals.len() as i64], &vals);
    let bf = to_f32(&run_op(OpKind::ReducePrecision { exponent_bits: 8, mantissa_bits: 7 }, std::slice::from_ref(&x), Type::tensor(vec![vals.len() as i64], F32)).unwrap());
    let want: Vec<f32> = vals.iter().map(|&v| half::bf16::from_f32(v).to_f32()).collect();
    assert_eq!(bf, want);
    let h = to_f32(&run_op(OpKind::ReducePrecision { exponent_bits: 5, mantissa_bits: 10 }, &[x], Type::tensor(vec![vals.len() as i64], F32)).unwrap());
    // Normal f16 values round like f16; overflow goes to inf; values below f16's normal range
    // (1e-30, 1e-5) flush to zero, unlike a real f16 (which has subnormals).
    let want: Vec<f32> = vals
        .iter()
        .map(|&v| if v.abs() < 6.1035156e-5 { 0.0f32.copysign(v) } else { half::f16::from_f32(v).to_f32() })
        .collect();
    assert_eq!(h, want);
    assert_eq!(h[7], f32::INFINITY);
}

#[test]
fn select_with_scalar_predicate_and_clamp_with_scalar_bounds() {
    let a = f32s(&[3], &[1.0, 2.0, 3.0]);
    let b = f32s(&[3], &[4.0, 5.0, 6.0]);
    let r = run_op(OpKind::Select, &[preds(&[], &[false]), a.clone(), b.clone()], Type::tensor(vec![3], F32)).unwrap();
    assert_eq!(to_f32(&r), [4.0, 5.0, 6.0]);
    let r = run_op(OpKind::Select, &[preds(&[3], &[true, false, true]), a, b], Type::tensor(vec![3], F32)).unwrap();
    assert_eq!(to_f32(&r), [1.0, 5.0, 3.0]);
    let x = f32s(&[4], &[-5.0, 0.5, 9.0, f32::NAN]);
    let r = to_f32(&run_op(OpKind::Clamp, &[f32s(&[], &[0.0]), x, f32s(&[], &[1.0])], Type::tensor(vec![4], F32)).unwrap());
    assert_eq!(&r[..3], [0.0, 0.5, 1.0]);
    assert!(r[3].is_nan());
}

#[test]
fn complex_arithmetic() {
    let z = bin(B::Complex, f32s(&[2], &[1.0, 3.0]), f32s(&[2], &[2.0, -4.0]));
    let w = bin(B::Complex, f32s(&[2], &[3.0, 0.0]), f32s(&[2], &[-1.0, 2.0]));
    // (1+2i)(3-i) = 5+5i ; (3-4i)(2i) = 8+6i
    assert_eq!(c64_parts(&bin(B::Multiply, z.clone(), w.clone())), [5.0, 5.0, 8.0, 6.0]);
    // (5+5i)/(3-i) = 1+2i
    let p = bin(B::Multiply, z.clone(), w.clone());
    assert_close(&c64_parts(&bin(B::Divide, p, w)), &c64_parts(&z), 1e-6, 1e-6);
    assert_eq!(to_f32(&un(U::Abs, z.clone(), F32))[1], 5.0);
    let e = c64_parts(&un(U::Exponential, z, C64));
    let (re, im) = (1f32.exp() * 2f32.cos(), 1f32.exp() * 2f32.sin());
    assert_close(&e[..2], &[re, im], 1e-6, 1e-6);
}

#[test]
fn half_precision_rounds_once() {
    let one = half::bf16::from_f32(1.0);
    let tiny = half::bf16::from_f32(2f32.powi(-8));
    let t = |v: half::bf16| Tensor::from_bytes(TensorType::new(vec![1], BF16), &v.to_le_bytes()).unwrap();
    let r = bin(B::Add, t(one), t(tiny));
    assert_eq!(r.bytes(), one.to_le_bytes(), "1 + 2^-8 ties to even in bf16");
    let h = |v: f32| Tensor::from_bytes(TensorType::new(vec![1], F16), &half::f16::from_f32(v).to_le_bytes()).unwrap();
    let r = bin(B::Multiply, h(300.0), h(300.0));
    assert_eq!(r.bytes(), half::f16::INFINITY.to_le_bytes());
}

#[test]
fn unary_float_rules() {
    let x = f32s(&[5], &[-0.0, 2.5, -2.5, f32::NAN, 0.5]);
    let s = to_f32(&un(U::Sign, x.clone(), F32));
    assert_eq!(s[0].to_bits(), 0x8000_0000);
    assert_eq!(&s[1..3], [1.0, -1.0]);
    assert!(s[3].is_nan());
    assert_eq!(&to_f32(&un(U::RoundNearestEven, x.clone(), F32))[1..3], [2.0, -2.0]);
    assert_eq!(&to_f32(&un(U::RoundNearestAfz, x.clone(), F32))[1..3], [3.0, -3.0]);
    assert_eq!(to_bool(&un(U::IsFinite, f32s(&[3], &[1.0, f32::INFINITY, f32::NAN]), Pred)), [true, false, false]);
    assert_close(&to_f32(&un(U::Logistic, f32s(&[1], &[0.0]), F32)), &[0.5], 0.0, 0.0);
}

/// Every unary/binary/compare op on every element type: `check_supported` accepts exactly what
/// running accepts (the rest is UNIMPLEMENTED, at both times, with the same message).
#[test]
fn check_supported_agrees_with_running() {
    let elems = [Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128, S4, F8E4M3FN];
    let unary = [U::Abs, U::Cbrt, U::Ceil, U::Cosine, U::CountLeadingZeros, U::Exponential, U::ExponentialMinusOne, U::Floor, U::Imag, U::IsFinite, U::Log, U::LogPlusOne, U::Logistic, U::Negate, U::Not, U::PopulationCount, U::Real, U::RoundNearestAfz, U::RoundNearestEven, U::Rsqrt, U::Sign, U::Sine, U::Sqrt, U::Tan, U::Tanh];
    let binary = [B::Add, B::Subtract, B::Multiply, B::Divide, B::Remainder, B::Power, B::Maximum, B::Minimum, B::And, B::Or, B::Xor, B::ShiftLeft, B::ShiftRightArithmetic, B::ShiftRightLogical, B::Atan2, B::Complex];
    let mut checked = 0;
    for elem in elems {
        let x = Tensor::zeroed(TensorType::new(vec![2], elem));
        let mut agree = |kind: OpKind, inputs: Vec<Tensor>, result: ElementType| {
            let mut b = FnBuilder::new("main");
            let ps: Vec<_> = inputs.iter().map(|t| b.param(Type::Tensor(t.ty.clone()))).collect();
            let r = b.op(kind.clone(), &ps, Type::tensor(vec![2], result));
            // Combinations the spec forbids (e.g. `not` on floats) stop at the validator.
            let Ok(m) = try_module(vec![b.finish(&[r])]) else {
                checked += 1;
                return;
            };
            let at_compile = apu_runtime::interp::check_supported(&m);
            let at_run = apu_runtime::interp::run(&m, &inputs);
            match (&at_compile, &at_run) {
                (Ok(()), Ok(_)) => {}
                (Err(c), Err(r)) => {
                    assert_eq!(c.kind, ErrorKind::Unimplemented, "{kind:?} on {elem}: {c}");
                    assert_eq!(c.message, r.message, "{kind:?} on {elem}");
                }
                _ => panic!("{kind:?} on {elem}: check_supported {at_compile:?} but run {:?}", at_run.map(|_| ())),
            }
            checked += 1;
        };
        for op in unary {
            let out = apu_runtime::interp::elementwise::unary_result_elem(op, elem);
            agree(OpKind::Unary(op), vec![x.clone()], out);
        }
        for op in binary {
            let out = apu_runtime::interp::elementwise::binary_result_elem(op, elem);
            agree(OpKind::Binary(op), vec![x.clone(), x.clone()], out);
        }
        agree(OpKind::Compare { direction: D::Lt, compare_type: None }, vec![x.clone(), x.clone()], Pred);
    }
    assert_eq!(checked, 17 * (25 + 16 + 1));
}

fn sub_byte(elem: ElementType, bytes: &[u8]) -> Tensor {
    Tensor::from_bytes(TensorType::new(vec![bytes.len() as i64], elem), bytes).unwrap()
}

#[test]
fn sub_byte_integers_wrap_and_saturate_at_their_width() {
    // S4 is stored sign-extended, one per byte.
    let x = sub_byte(S4, &[7, (-8i8) as u8, 3]);
    let y = sub_byte(S4, &[1, (-1i8) as u8, 4]);
    assert_eq!(to_i8(&bin(B::Add, x.clone(), y.clone())), [-8, 7, 7]);
    assert_eq!(to_i8(&bin(B::Multiply, x, y)), [7, -8, -4]);
    assert_eq!(bin(B::Add, sub_byte(U4, &[15, 9]), sub_byte(U4, &[1, 9])).bytes(), [0, 2]);
    assert_eq!(bin(B::Add, sub_byte(U2, &[3]), sub_byte(U2, &[2])).bytes(), [1]);
    assert_eq!(to_i8(&convert(f32s(&[3], &[9.7, -9.7, -3.5]), S4)), [7, -8, -3]);
    assert_eq!(to_i8(&un(U::PopulationCount, sub_byte(S4, &[(-1i8) as u8]), S4)), [4]);
    assert_eq!(un(U::CountLeadingZeros, sub_byte(U4, &[1, 0]), U4).bytes(), [3, 4]);
    // A byte with stray high bits reads as its 4-bit value.
    assert_eq!(to_i8(&un(U::Negate, sub_byte(S4, &[0x0F]), S4)), [1]);
    assert_eq!(compare(D::Lt, CT::Unsigned, sub_byte(U4, &[15]), sub_byte(U4, &[2])), [false]);
}

#[test]
fn complex_maximum_and_minimum_are_lexicographic() {
    let z = bin(B::Complex, f32s(&[2], &[1.0, 2.0]), f32s(&[2], &[5.0, -1.0]));
    let w = bin(B::Complex, f32s(&[2], &[1.0, 1.0]), f32s(&[2], &[6.0, 9.0]));
    assert_eq!(c64_parts(&bin(B::Maximum, z.clone(), w.clone())), [1.0, 6.0, 2.0, -1.0]);
    assert_eq!(c64_parts(&bin(B::Minimum, z, w)), [1.0, 5.0, 1.0, 9.0]);
}
