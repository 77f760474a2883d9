//! `xla.LiteralProto` → IR literals in apu's dense storage (little-endian, row-major, `Pred` one
//! byte, sub-byte integers one per byte sign- or zero-extended, complex as (re, im)).

use super::proto::LiteralProto;
use crate::ir::{ElementType, Literal, TensorType};
use crate::{Error, Result};

/// Reads the elements of an array literal of type `ty`. The element count of the proto field
/// must match the type exactly.
pub fn to_literal(proto: &LiteralProto, ty: &TensorType) -> Result<Literal> {
    let n = ty.num_elements();
    let bytes = match ty.elem {
        ElementType::Pred => {
            check_count(ty, "preds", proto.preds.len(), n)?;
            proto.preds.iter().map(|&b| b as u8).collect()
        }
        ElementType::S32 => scalars(ty, "s32s", &proto.s32s, n, |v: &i32| v.to_le_bytes().to_vec())?,
        ElementType::S64 => scalars(ty, "s64s", &proto.s64s, n, |v: &i64| v.to_le_bytes().to_vec())?,
        ElementType::U32 => scalars(ty, "u32s", &proto.u32s, n, |v: &u32| v.to_le_bytes().to_vec())?,
        ElementType::U64 => scalars(ty, "u64s", &proto.u64s, n, |v: &u64| v.to_le_bytes().to_vec())?,
        ElementType::F32 => scalars(ty, "f32s", &proto.f32s, n, |v: &f32| v.to_le_bytes().to_vec())?,
        ElementType::F64 => scalars(ty, "f64s", &proto.f64s, n, |v: &f64| v.to_le_bytes().to_vec())?,
        ElementType::C64 => scalars(ty, "c64s", &proto.c64s, 2 * n, |v: &f32| v.to_le_bytes().to_vec())?,
        ElementType::C128 => scalars(ty, "c128s", &proto.c128s, 2 * n, |v: &f64| v.to_le_bytes().to_vec())?,
        // 16-bit types travel as little-endian byte strings, 8-bit ones as one byte each.
        ElementType::S16 => raw(ty, "s16s", &proto.s16s, n)?,
        ElementType::U16 => raw(ty, "u16s", &proto.u16s, n)?,
        ElementType::F16 => raw(ty, "f16s", &proto.f16s, n)?,
        ElementType::BF16 => raw(ty, "bf16s", &proto.bf16s, n)?,
        ElementType::S8 => raw(ty, "s8s", &proto.s8s, n)?,
        ElementType::U8 => raw(ty, "u8s", &proto.u8s, n)?,
        ElementType::F8E5M2 => raw(ty, "f8e5m2s", &proto.f8e5m2s, n)?,
        ElementType::F8E4M3FN => raw(ty, "f8e4m3fns", &proto.f8e4m3fns, n)?,
        ElementType::F8E4M3B11FNUZ => raw(ty, "f8e4m3b11fnuzs", &proto.f8e4m3b11fnuzs, n)?,
        ElementType::F8E5M2FNUZ => raw(ty, "f8e5m2fnuzs", &proto.f8e5m2fnuzs, n)?,
        ElementType::F8E4M3FNUZ => raw(ty, "f8e4m3fnuzs", &proto.f8e4m3fnuzs, n)?,
        ElementType::F8E4M3 => raw(ty, "f8e4m3s", &proto.f8e4m3s, n)?,
        ElementType::F8E3M4 => raw(ty, "f8e3m4s", &proto.f8e3m4s, n)?,
        ElementType::F8E8M0FNU => raw(ty, "f8e8m0fnus", &proto.f8e8m0fnus, n)?,
        // Sub-byte floats: one element per byte, in the low bits.
        ElementType::F6E2M3FN => sub_byte(ty, "f6e2m3fns", &proto.f6e2m3fns, n, 6, false)?,
        ElementType::F6E3M2FN => sub_byte(ty, "f6e3m2fns", &proto.f6e3m2fns, n, 6, false)?,
        ElementType::F4E2M1FN => sub_byte(ty, "f4e2m1fns", &proto.f4e2m1fns, n, 4, false)?,
        // Sub-byte integers: one element per byte; normalise the unused high bits.
        ElementType::S4 => sub_byte(ty, "s4s", &proto.s4s, n, 4, true)?,
        ElementType::U4 => sub_byte(ty, "u4s", &proto.u4s, n, 4, false)?,
        ElementType::S2 => sub_byte(ty, "s2s", &proto.s2s, n, 2, true)?,
        ElementType::U2 => sub_byte(ty, "u2s", &proto.u2s, n, 2, false)?,
    };
    Literal::dense(ty.clone(), bytes)
}

fn check_count(ty: &TensorType, field: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::invalid(format!("constant of type {ty}: field {field} holds {got} values, expected {want}")))
    }
}

fn scalars<T>(ty: &TensorType, field: &str, values: &[T], want: usize, le: impl Fn(&T) -> Vec<u8>) -> Result<Vec<u8>> {
    check_count(ty, field, values.len(), want)?;
    Ok(values.iter().flat_map(le).collect())
}

fn raw(ty: &TensorType, field: &str, bytes: &[u8], n: usize) -> Result<Vec<u8>> {
    let want = n * ty.elem.byte_size();
    if bytes.len() != want {
        return Err(Error::invalid(format!(
            "constant of type {ty}: field {field} holds {} bytes, expected {want}",
            bytes.len()
        )));
    }
    Ok(bytes.to_vec())
}

fn sub_byte(ty: &TensorType, field: &str, bytes: &[u8], n: usize, bits: u32, signed: bool) -> Result<Vec<u8>> {
    let bytes = raw(ty, field, bytes, n)?;
    let shift = 8 - bits;
    Ok(bytes
        .into_iter()
        .map(|b| if signed { (((b << shift) as i8) >> shift) as u8 } else { b & (0xff >> shift) })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_s32_pred_and_s4() {
        let ty = TensorType::new(vec![2], ElementType::F32);
        let lit = to_literal(&LiteralProto { f32s: vec![1.5, -2.0], ..Default::default() }, &ty).unwrap();
        assert_eq!(&*lit.bytes, &[1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat()[..]);

        let ty = TensorType::new(vec![3], ElementType::Pred);
        let lit = to_literal(&LiteralProto { preds: vec![true, false, true], ..Default::default() }, &ty).unwrap();
        assert_eq!(&*lit.bytes, &[1, 0, 1]);

        let ty = TensorType::new(vec![2], ElementType::S4);
        let lit = to_literal(&LiteralProto { s4s: vec![0x0f, 0x07], ..Default::default() }, &ty).unwrap();
        assert_eq!(&*lit.bytes, &[0xff, 0x07], "s4 0xf is -1, sign-extended");

        let ty = TensorType::new(vec![1], ElementType::C64);
        let lit = to_literal(&LiteralProto { c64s: vec![1.0, 2.0], ..Default::default() }, &ty).unwrap();
        assert_eq!(lit.bytes.len(), 8);
    }

    #[test]
    fn count_mismatch_is_an_error() {
        let ty = TensorType::new(vec![3], ElementType::S32);
        let err = to_literal(&LiteralProto { s32s: vec![1, 2], ..Default::default() }, &ty).unwrap_err();
        assert!(err.to_string().contains("s32s holds 2 values, expected 3"), "{err}");
        let ty = TensorType::new(vec![2], ElementType::BF16);
        assert!(to_literal(&LiteralProto { bf16s: vec![0; 3], ..Default::default() }, &ty).is_err());
    }
}
