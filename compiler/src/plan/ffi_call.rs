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
    /// (result, operand) pairs: the result buffer starts as a copy of the operand (`input_output_aliases`).
    pub aliases: Vec<(usize, usize)>,
    /// Minor-to-major layouts the handler sees its operands and results in (empty: row-major).
    pub operand_layouts: Vec<Vec<i64>>,
    pub result_layouts: Vec<Vec<i64>>,
}

/// What a typed-FFI custom call names: its target, attributes and aliased (result, operand) pairs.
pub struct TypedFfiCall<'a> {
    pub target: &'a str,
    pub attributes: &'a [(String, FfiAttr)],
    pub aliases: &'a [(usize, usize)],
    pub operand_layouts: &'a [Vec<i64>],
    pub result_layouts: &'a [Vec<i64>],
}

/// The target and attributes of a typed-FFI custom call, None for any other op. JAX marks its FFI calls
/// by writing the attributes as a dictionary (`mhlo.backend_config`) and keeps api_version 1 in
/// StableHLO; an HLO-level producer says api_version 4 instead.
pub fn typed_ffi_call(op: &Op) -> Option<TypedFfiCall<'_>> {
    let OpKind::CustomCall {
        call_target_name, ffi_attributes, api_version, output_operand_aliases, operand_layouts, result_layouts, ..
    } = &op.kind
    else {
        return None;
    };
    let attributes: &[(String, FfiAttr)] = match ffi_attributes {
        Some(a) => a,
        None if *api_version == TYPED_FFI_API_VERSION => &[],
        None => return None,
    };
    Some(TypedFfiCall { target: call_target_name, attributes, aliases: output_operand_aliases, operand_layouts, result_layouts })
}
