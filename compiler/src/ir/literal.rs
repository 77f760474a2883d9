//! Dense constants. A splat keeps one element, so `dense<0.0> : tensor<4096x4096xf32>` stays 4 bytes.

use super::types::TensorType;
use std::sync::Arc;

/// A constant tensor in apu's dense storage format (see [`super::ElementType`]): little-endian,
/// row-major, `Pred` as one byte 0/1, sub-byte integers one per byte, complex as (re, im).
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub ty: TensorType,
    /// Either exactly one element (`splat`) or `ty.byte_size()` bytes.
    pub bytes: Arc<[u8]>,
    pub splat: bool,
}

impl Literal {
    /// A literal holding every element; checks that the byte count matches the type.
    pub fn dense(ty: TensorType, bytes: Vec<u8>) -> crate::Result<Self> {
        if bytes.len() != ty.byte_size() {
            return Err(crate::Error::invalid(format!(
                "constant of type {ty} needs {} bytes, got {}",
                ty.byte_size(),
                bytes.len()
            )));
        }
        Ok(Literal { ty, bytes: bytes.into(), splat: false })
    }

    /// A literal whose every element equals `element` (one element's bytes).
    pub fn splat(ty: TensorType, element: Vec<u8>) -> crate::Result<Self> {
        if element.len() != ty.elem.byte_size() {
            return Err(crate::Error::invalid(format!(
                "splat constant of type {ty} needs {} bytes per element, got {}",
                ty.elem.byte_size(),
                element.len()
            )));
        }
        Ok(Literal { ty, bytes: element.into(), splat: true })
    }

    /// All elements, expanding a splat.
    pub fn to_dense_bytes(&self) -> Vec<u8> {
        if self.splat {
            let n = self.ty.num_elements();
            let mut out = Vec::with_capacity(n * self.bytes.len());
            for _ in 0..n {
                out.extend_from_slice(&self.bytes);
            }
            out
        } else {
            self.bytes.to_vec()
        }
    }
}
