//! Moving tensors between TensorFlow's kernel context and apu's runtime tensors.
//!
//! In PluggableDevice mode a tensor's data pointer is the `opaque` our allocator returned: host memory,
//! readable and writable directly.

use crate::tf::symbols::{OwnedStatus, TfApi};
use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::{Error, Result};
use apu_pjrt_api::tf as c;
use apu_runtime::Tensor;

/// TensorFlow's element type for an IR element type (those apu kernels produce).
pub fn to_tf_dtype(e: ElementType) -> Option<c::TF_DataType> {
    Some(match e {
        ElementType::F32 => c::TF_DataType_TF_FLOAT,
        ElementType::F64 => c::TF_DataType_TF_DOUBLE,
        ElementType::S32 => c::TF_DataType_TF_INT32,
        ElementType::S64 => c::TF_DataType_TF_INT64,
        ElementType::S8 => c::TF_DataType_TF_INT8,
        ElementType::S16 => c::TF_DataType_TF_INT16,
        ElementType::U8 => c::TF_DataType_TF_UINT8,
        ElementType::U16 => c::TF_DataType_TF_UINT16,
        ElementType::U32 => c::TF_DataType_TF_UINT32,
        ElementType::U64 => c::TF_DataType_TF_UINT64,
        ElementType::Pred => c::TF_DataType_TF_BOOL,
        ElementType::F16 => c::TF_DataType_TF_HALF,
        ElementType::BF16 => c::TF_DataType_TF_BFLOAT16,
        ElementType::C64 => c::TF_DataType_TF_COMPLEX64,
        ElementType::C128 => c::TF_DataType_TF_COMPLEX128,
        _ => return None,
    })
}

pub fn from_tf_dtype(t: c::TF_DataType) -> Option<ElementType> {
    ElementType::ALL.into_iter().find(|&e| to_tf_dtype(e) == Some(t))
}

fn check(status: &OwnedStatus, what: impl FnOnce() -> String) -> Result<()> {
    if status.is_ok() {
        Ok(())
    } else {
        Err(Error::internal(format!("{}: {}", what(), status.message())))
    }
}

/// Copies input `i` of the kernel context into a runtime tensor.
///
/// # Safety
/// `ctx` is the live context of the running kernel.
pub unsafe fn read_input(api: &'static TfApi, ctx: *mut c::TF_OpKernelContext, i: i32) -> Result<Tensor> {
    let status = OwnedStatus::new(api);
    let mut t: *mut c::TF_Tensor = std::ptr::null_mut();
    (api.get_input.unwrap())(ctx, i, &mut t, status.raw);
    check(&status, || format!("reading input {i}"))?;
    if t.is_null() {
        return Err(Error::internal(format!("input {i} is missing")));
    }
    let result = (|| {
        let dtype = (api.tensor_type.unwrap())(t);
        let elem = from_tf_dtype(dtype).ok_or_else(|| Error::unimplemented(format!("input {i} has TensorFlow dtype {dtype}")))?;
        let rank = (api.num_dims.unwrap())(t);
        let shape: Vec<i64> = (0..rank).map(|d| (api.dim.unwrap())(t, d)).collect();
        let ty = TensorType::new(shape, elem);
        let len = (api.tensor_byte_size.unwrap())(t);
        if len != ty.byte_size() {
            return Err(Error::internal(format!("input {i}: {ty} should have {} bytes, TensorFlow says {len}", ty.byte_size())));
        }
        let data = (api.tensor_data.unwrap())(t) as *const u8;
        if len > 0 && (data.is_null() || (data as usize) & 1 == 1) {
            return Err(Error::internal(format!("input {i} has no host-addressable data (is this a PJRT tensor?)")));
        }
        let bytes = if len == 0 { &[][..] } else { std::slice::from_raw_parts(data, len) };
        Tensor::from_bytes(ty, bytes)
    })();
    (api.delete_tensor.unwrap())(t);
    result
}

/// Allocates output `i` with the tensor's shape and type and copies its bytes in.
///
/// # Safety
/// `ctx` is the live context of the running kernel.
pub unsafe fn write_output(api: &'static TfApi, ctx: *mut c::TF_OpKernelContext, i: i32, value: &Tensor) -> Result<()> {
    let dtype = to_tf_dtype(value.ty.elem).ok_or_else(|| Error::unimplemented(format!("output element type {}", value.ty.elem)))?;
    let status = OwnedStatus::new(api);
    let len = value.ty.byte_size();
    let t = (api.allocate_output.unwrap())(ctx, i, dtype, value.ty.shape.as_ptr(), value.ty.rank() as i32, len, status.raw);
    check(&status, || format!("allocating output {i} ({})", value.ty))?;
    if t.is_null() {
        return Err(Error::internal(format!("TensorFlow returned no tensor for output {i}")));
    }
    let data = (api.tensor_data.unwrap())(t) as *mut u8;
    let result = if len > 0 && data.is_null() {
        Err(Error::internal(format!("output {i} has no data")))
    } else {
        if len > 0 {
            std::ptr::copy_nonoverlapping(value.bytes().as_ptr(), data, len);
        }
        Ok(())
    };
    (api.delete_tensor.unwrap())(t);
    result
}
