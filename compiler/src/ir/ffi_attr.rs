//! The attributes of a typed-FFI custom call (`jax.ffi.ffi_call`), kept with their exact element types:
//! a handler decodes `Attr<int32_t>` only from an i32 scalar, so the generic [`super::AttrValue`]
//! (which widens every integer to i64) cannot carry them.

use super::{ElementType, Literal, TensorType};
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub enum FfiAttr {
    /// A rank-0 literal of the attribute's own type (`true` is a PRED scalar).
    Scalar(Literal),
    /// A rank-1 literal: `dense<[1, 2]> : tensor<2xi64>` or `array<i32: 1, 2>`.
    Array(Literal),
    String(String),
    /// Entries in the order the program wrote them; the call frame sorts by name.
    Dict(Vec<(String, FfiAttr)>),
}

impl FfiAttr {
    /// A scalar of `elem` from its value's low bits (integers and raw float bits alike).
    pub fn scalar_from_bits(elem: ElementType, bits: u64) -> Result<FfiAttr> {
        let width = elem.byte_size();
        if width == 0 || width > 8 || elem.is_complex() {
            return Err(Error::unimplemented(format!("FFI attribute of element type {elem}")));
        }
        let bytes = bits.to_le_bytes()[..width].to_vec();
        Literal::dense(TensorType::new(vec![], elem), bytes).map(FfiAttr::Scalar)
    }

    /// A float scalar of `elem` from its value.
    pub fn float(elem: ElementType, value: f64) -> Result<FfiAttr> {
        let bits = match elem {
            ElementType::F64 => value.to_bits(),
            ElementType::F32 => u64::from((value as f32).to_bits()),
            ElementType::F16 => u64::from(super::halfs::f16_from_f64(value).to_bits()),
            ElementType::BF16 => u64::from(super::halfs::bf16_from_f64(value).to_bits()),
            other => return Err(Error::unimplemented(format!("FFI float attribute of element type {other}"))),
        };
        FfiAttr::scalar_from_bits(elem, bits)
    }

    pub fn bool(value: bool) -> FfiAttr {
        FfiAttr::Scalar(Literal { ty: TensorType::new(vec![], ElementType::Pred), bytes: vec![u8::from(value)].into(), splat: false })
    }

    /// An array attribute from a dense literal of at most one dimension.
    pub fn array(literal: Literal) -> Result<FfiAttr> {
        if literal.ty.shape.len() > 1 {
            return Err(Error::unimplemented(format!("FFI array attribute of type {} (only 1-D arrays)", literal.ty)));
        }
        let dense = literal.to_dense_bytes();
        let n = literal.ty.num_elements() as i64;
        Literal::dense(TensorType::new(vec![n], literal.ty.elem), dense).map(FfiAttr::Array)
    }
}
