//! Typed-FFI custom calls (`jax.ffi.ffi_call`) as plan steps: the executor builds an XLA FFI call frame
//! from the step's slots and attributes and calls the handler registered under `target` for platform apu.

use super::SlotId;
use crate::ir::{FfiAttr, Op, OpKind};

/// XLA's `CustomCallApiVersion` for the typed FFI (`API_VERSION_TYPED_FFI`).
pub const TYPED_FFI_API_VERSION: i32 = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct FfiCallKernel {
    pub target: String,
    pub attributes: Vec<(String, FfiAttr)>,
    pub inputs: Vec<SlotId>,
    pub outputs: Vec<SlotId>,
}

/// The target and attributes of a typed-FFI custom call, None for any other op. JAX marks its FFI calls
/// by writing the attributes as a dictionary (`mhlo.backend_config`) and keeps api_version 1 in
/// StableHLO; an HLO-level producer says api_version 4 instead.
pub fn typed_ffi_call(op: &Op) -> Option<(&str, &[(String, FfiAttr)])> {
    match &op.kind {
        OpKind::CustomCall { call_target_name, ffi_attributes: Some(attrs), .. } => Some((call_target_name, attrs)),
        OpKind::CustomCall { call_target_name, api_version: TYPED_FFI_API_VERSION, .. } => Some((call_target_name, &[])),
        _ => None,
    }
}
