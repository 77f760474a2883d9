//! Moving tensors between TensorFlow's kernel context and apu's runtime tensors.
//!
//! In PluggableDevice mode a tensor's data pointer is the `opaque` our allocator returned (64-byte
//! aligned host memory, `pd/memory.rs`), and host-memory arguments live in TensorFlow's CPU memory:
//! both are readable and writable directly, so kernels run on them in place (decision 76): inputs
//! are viewed, not copied ([`Inputs::read`]), and outputs are allocated before the program runs so
//! that it writes into them ([`allocate_output`]).

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

/// The inputs of one kernel call as runtime tensors viewing TensorFlow's buffers, and the TensorFlow
/// handles that keep those buffers alive until this value is dropped (after the program ran).
pub struct Inputs {
    api: &'static TfApi,
    handles: Vec<*mut c::TF_Tensor>,
    pub tensors: Vec<Tensor>,
}

impl Inputs {
    /// Views inputs `0..n` of `ctx` (copying only a buffer that is not 64-byte aligned, as the
    /// kernels need).
    ///
    /// # Safety
    /// `ctx` is the live context of the running kernel, and the result is dropped before the kernel
    /// returns (TensorFlow frees or reuses the buffers after that).
    pub unsafe fn read(api: &'static TfApi, ctx: *mut c::TF_OpKernelContext, n: i32) -> Result<Inputs> {
        let mut inputs = Inputs { api, handles: Vec::with_capacity(n.max(0) as usize), tensors: Vec::with_capacity(n.max(0) as usize) };
        for i in 0..n {
            let status = OwnedStatus::new(api);
            let mut t: *mut c::TF_Tensor = std::ptr::null_mut();
            (api.get_input.unwrap())(ctx, i, &mut t, status.raw);
            check(&status, || format!("reading input {i}"))?;
            if t.is_null() {
                return Err(Error::internal(format!("input {i} is missing")));
            }
            inputs.handles.push(t);
            let (ty, data) = describe(api, t, i)?;
            let len = ty.byte_size();
            // SAFETY: `data` holds `len` bytes of a tensor TensorFlow keeps alive while `t` (kept in
            // `handles` until drop) and the kernel's context live; the executor does not write
            // arguments that the caller still holds (`tensors` holds them through the run).
            // An empty tensor's data pointer may be null; a view is refused unless 64-byte aligned
            // (then the bytes are copied).
            let tensor = if len == 0 {
                Tensor::from_bytes(ty, &[])?
            } else {
                match apu_runtime::AlignedBytes::external(data, len) {
                    Some(bytes) => Tensor { ty, data: std::sync::Arc::new(bytes) },
                    None => Tensor::from_bytes(ty, std::slice::from_raw_parts(data, len))?,
                }
            };
            inputs.tensors.push(tensor);
        }
        Ok(inputs)
    }
}

impl Drop for Inputs {
    fn drop(&mut self) {
        // The views go first, then the handles that keep their buffers alive.
        self.tensors.clear();
        for &t in &self.handles {
            // SAFETY: each handle came from TF_GetInput and is deleted once.
            unsafe { (self.api.delete_tensor.unwrap())(t) };
        }
    }
}

/// The runtime type and the data pointer of TensorFlow tensor `t` (input `i`).
unsafe fn describe(api: &'static TfApi, t: *mut c::TF_Tensor, i: i32) -> Result<(TensorType, *mut u8)> {
    let dtype = (api.tensor_type.unwrap())(t);
    let elem = from_tf_dtype(dtype).ok_or_else(|| Error::unimplemented(format!("input {i} has TensorFlow dtype {dtype}")))?;
    let rank = (api.num_dims.unwrap())(t);
    let shape: Vec<i64> = (0..rank).map(|d| (api.dim.unwrap())(t, d)).collect();
    let ty = TensorType::new(shape, elem);
    let len = (api.tensor_byte_size.unwrap())(t);
    if len != ty.byte_size() {
        return Err(Error::internal(format!("input {i}: {ty} should have {} bytes, TensorFlow says {len}", ty.byte_size())));
    }
    let data = (api.tensor_data.unwrap())(t) as *mut u8;
    if len > 0 && (data.is_null() || (data as usize) & 1 == 1) {
        return Err(Error::internal(format!("input {i} has no host-addressable data (is this a PJRT tensor?)")));
    }
    Ok((ty, data))
}

/// Allocates output `i` of type `ty` and returns a view of its memory for the program to write
/// (`None` for an empty or misaligned buffer: the caller copies then, [`copy_into`]).
///
/// # Safety
/// `ctx` is the live context of the running kernel; the view is used only before the kernel returns.
pub unsafe fn allocate_output(
    api: &'static TfApi,
    ctx: *mut c::TF_OpKernelContext,
    i: i32,
    ty: &TensorType,
) -> Result<(*mut u8, Option<apu_runtime::AlignedBytes>)> {
    let dtype = to_tf_dtype(ty.elem).ok_or_else(|| Error::unimplemented(format!("output element type {}", ty.elem)))?;
    let status = OwnedStatus::new(api);
    let len = ty.byte_size();
    let t = (api.allocate_output.unwrap())(ctx, i, dtype, ty.shape.as_ptr(), ty.rank() as i32, len, status.raw);
    check(&status, || format!("allocating output {i} ({ty})"))?;
    if t.is_null() {
        return Err(Error::internal(format!("TensorFlow returned no tensor for output {i}")));
    }
    let data = (api.tensor_data.unwrap())(t) as *mut u8;
    // The context holds the output; our handle is not needed for the data to stay valid.
    (api.delete_tensor.unwrap())(t);
    if len > 0 && data.is_null() {
        return Err(Error::internal(format!("output {i} has no data")));
    }
    let view = if len == 0 { None } else { apu_runtime::AlignedBytes::external(data, len) };
    Ok((data, view))
}

/// Copies a result into output memory `data` from [`allocate_output`], unless the program already
/// wrote it there.
///
/// # Safety
/// `data` is that output's memory, `value.ty.byte_size()` bytes long.
pub unsafe fn copy_into(data: *mut u8, value: &Tensor) {
    let len = value.ty.byte_size();
    if len > 0 && value.bytes().as_ptr() != data as *const u8 {
        std::ptr::copy_nonoverlapping(value.bytes().as_ptr(), data, len);
    }
}

/// Allocates output `i` with the tensor's shape and type and copies its bytes in (for a program
/// whose result types are known only after the run: the interpreter's).
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
