//! `next_after(x, y)`: the float next to x in the direction of y, as C's `nextafter`. Computed on
//! the bit pattern in the operand's own type (no widening: stepping the bits of a wider type would
//! step by the wrong amount): IEEE floats are sign-magnitude, so moving away from zero is +1 on
//! the bits and moving toward zero is -1.

use super::Builder;
use crate::ir::*;
use crate::{Error, Result};

/// Emits next_after(x, y); both operands and the result have `result_ty`.
pub fn next_after(b: &mut Builder, x: ValueId, y: ValueId, result_ty: &Type) -> Result<ValueId> {
    let ty = b.ty(x);
    if b.ty(y) != ty || &ty != result_ty {
        return Err(Error::invalid(format!(
            "next_after takes two operands of one type and gives that type, got {ty}, {} -> {result_ty}",
            b.ty(y)
        )));
    }
    let Some(tt) = ty.as_tensor().cloned() else {
        return Err(Error::invalid(format!("next_after expects tensors, got {ty}")));
    };
    let int_elem = match tt.elem {
        ElementType::F16 | ElementType::BF16 => ElementType::S16,
        ElementType::F32 => ElementType::S32,
        ElementType::F64 => ElementType::S64,
        e => return Err(Error::unimplemented(format!("next_after on {e} (apu expands it for f16, bf16, f32, f64)"))),
    };
    let int_ty = TensorType::new(tt.shape.clone(), int_elem);
    let pred = TensorType::new(tt.shape.clone(), ElementType::Pred);
    let bits_of = |b: &mut Builder, v| b.op(OpKind::BitcastConvert, vec![v], Type::Tensor(int_ty.clone()));

    // General case: step the bits; toward zero exactly when "y is above x" differs from "x is positive".
    let xi = bits_of(b, x);
    let one = int_splat(b, 1, &int_ty)?;
    let up = b.bin(BinaryOp::Add, xi, one);
    let down = b.bin(BinaryOp::Subtract, xi, one);
    let below_y = b.compare(ComparisonDirection::Lt, x, y, &pred);
    let zero = b.splat(0.0, &tt)?;
    let positive = b.compare(ComparisonDirection::Gt, x, zero, &pred);
    let toward_zero = b.bin(BinaryOp::Xor, below_y, positive);
    let stepped = b.select(toward_zero, down, up);
    let general = b.op(OpKind::BitcastConvert, vec![stepped], ty.clone());

    // x = ±0: the smallest subnormal, with y's sign.
    let sign_mask = int_splat(b, i64::MIN >> (64 - 8 * int_elem.byte_size()), &int_ty)?;
    let yi = bits_of(b, y);
    let y_sign = b.bin(BinaryOp::And, yi, sign_mask);
    let tiny_bits = b.bin(BinaryOp::Or, y_sign, one);
    let tiny = b.op(OpKind::BitcastConvert, vec![tiny_bits], ty.clone());
    let x_zero = b.compare(ComparisonDirection::Eq, x, zero, &pred);
    let r = b.select(x_zero, tiny, general);

    // x == y gives y (so next_after(-0, +0) is +0); a NaN operand gives NaN.
    let same = b.compare(ComparisonDirection::Eq, x, y, &pred);
    let r = b.select(same, y, r);
    let x_nan = b.compare(ComparisonDirection::Ne, x, x, &pred);
    let y_nan = b.compare(ComparisonDirection::Ne, y, y, &pred);
    let nan = b.bin(BinaryOp::Or, x_nan, y_nan);
    let sum = b.bin(BinaryOp::Add, x, y);
    Ok(b.select(nan, sum, r))
}

/// A constant of integer tensor type `ty` whose every element is `v` (truncated to the width).
fn int_splat(b: &mut Builder, v: i64, ty: &TensorType) -> Result<ValueId> {
    let bytes = v.to_le_bytes()[..ty.elem.byte_size()].to_vec();
    let lit = Literal::splat(ty.clone(), bytes)?;
    Ok(b.op(OpKind::Constant(lit), vec![], Type::Tensor(ty.clone())))
}
