//! `PJRT_Buffer`: a handle on a runtime [`DeviceBuffer`], plus the client functions that create
//! buffers from host memory. Host data is always copied (apu's device memory is host memory, but
//! copying keeps ownership simple and makes every host-buffer semantics safe), and the copy is
//! finished before `BufferFromHostBuffer` returns, so `done_with_host_buffer` is already complete.

use super::client::{client, ClientState};
use super::api_error::{code_from_raw, ApiError};
use super::event::EventHandle;
use super::guard::{args_min_size, entry, handle, slice, ApiResult};
use super::host_layout::layout_byte_strides;
use super::memory::memory;
#[cfg(test)]
use super::types::pjrt_type;
use super::types::storage_type;
use apu_compiler::ir::TensorType;
use apu_pjrt_api::*;
use apu_runtime::layout::{byte_extent, gather_strided_into, scatter_strided};
use apu_runtime::client::MemoryKind;
use apu_runtime::{AlignedBytes, DeviceBuffer, Event, Tensor};
use std::os::raw::c_void;
use std::sync::Arc;

pub(crate) struct BufferHandle {
    pub client: Arc<ClientState>,
    pub buffer: Arc<DeviceBuffer>,
    /// The element type as the caller knows it; differs from the stored type only for
    /// storage-only narrow types (see `types::storage_type`).
    pub pjrt_type: PJRT_Buffer_Type,
    dims: Vec<i64>,
    /// Descending `minor_to_major` (row-major), for `PJRT_Buffer_GetMemoryLayout`.
    minor_to_major: Vec<i64>,
}

impl BufferHandle {
    /// A handle reporting the stored element type (tests; Execute reports the executable's types).
    #[cfg(test)]
    pub fn into_raw(client: Arc<ClientState>, buffer: Arc<DeviceBuffer>) -> *mut PJRT_Buffer {
        let ty = pjrt_type(buffer.ty().elem);
        Self::into_raw_as(client, buffer, ty)
    }

    /// A new caller-owned `PJRT_Buffer*` reporting `pjrt_type` as its element type (a storage-only
    /// narrow type, or TOKEN for a token); its contents count in the device's memory statistics.
    pub fn into_raw_as(
        client: Arc<ClientState>,
        buffer: Arc<DeviceBuffer>,
        pjrt_type: PJRT_Buffer_Type,
    ) -> *mut PJRT_Buffer {
        buffer.track(client.device(buffer.device()).memory_stats.clone());
        // A token is stored as an empty `pred[0]` and shown with no dimensions, as XLA shows tokens.
        let dims = if pjrt_type == PJRT_Buffer_Type_TOKEN { Vec::new() } else { buffer.ty().shape.clone() };
        let minor_to_major = (0..dims.len() as i64).rev().collect();
        Box::into_raw(Box::new(BufferHandle {
            client,
            buffer,
            pjrt_type,
            dims,
            minor_to_major,
        })) as *mut PJRT_Buffer
    }
}

/// Borrows a buffer from its handle.
///
/// # Safety
/// `raw` must be NULL or a live buffer handle.
pub(crate) unsafe fn buffer<'a>(
    raw: *const PJRT_Buffer,
    what: &str,
) -> ApiResult<&'a BufferHandle> {
    unsafe { handle(raw, what) }
}

/// Reads the (dims, element type) pair of a buffer-creating call.
unsafe fn tensor_type(
    dims: *const i64,
    num_dims: usize,
    ty: PJRT_Buffer_Type,
) -> ApiResult<TensorType> {
    let shape = unsafe { slice(dims, num_dims, "dims")? }.to_vec();
    if let Some(d) = shape.iter().find(|&&d| d < 0) {
        return Err(ApiError::invalid_argument(format!(
            "negative dimension {d} in shape {shape:?}"
        )));
    }
    let tt = TensorType::new(shape, storage_type(ty)?);
    tt.shape
        .iter()
        .try_fold(tt.elem.byte_size() as u64, |acc, &d| {
            acc.checked_mul(d as u64)
        })
        .filter(|&n| n <= isize::MAX as u64)
        .ok_or_else(|| ApiError::invalid_argument(format!("buffer of type {tt} is too large")))?;
    Ok(tt)
}

/// Only the default (dense row-major) device layout exists on apu.
unsafe fn check_device_layout(
    layout: *const PJRT_Buffer_MemoryLayout,
    ty: &TensorType,
) -> ApiResult<()> {
    if layout.is_null() {
        return Ok(());
    }
    let strides = unsafe { layout_byte_strides(layout, &ty.shape, ty.elem.byte_size())? };
    if strides != apu_runtime::layout::dense_byte_strides(&ty.shape, ty.elem.byte_size())
        && ty.num_elements() > 1
    {
        return Err(ApiError::unimplemented(format!(
            "device layout with byte strides {strides:?} for {ty}: apu buffers are always dense row-major"
        )));
    }
    Ok(())
}

/// Copies a strided host array into a dense tensor, once: straight into the tensor's storage.
///
/// # Safety
/// `data` must be valid for every byte the (shape, strides) pair addresses.
unsafe fn copy_from_host(data: *const c_void, ty: TensorType, byte_strides: &[i64]) -> ApiResult<Tensor> {
    let elem = ty.elem.byte_size();
    // The extent is checked (overflow, strides against the rank) before any memory is allocated.
    let Some((low, high)) = byte_extent(&ty.shape, byte_strides, elem)? else {
        return Ok(Tensor::zeroed(ty));
    };
    // `tensor_type` has checked that the byte size fits the address space.
    let Some(mut bytes) = AlignedBytes::try_zeroed(ty.byte_size()) else {
        return Err(ApiError::new(
            apu_runtime::Code::ResourceExhausted,
            format!("cannot allocate a {ty} buffer: larger than the address space or than free memory"),
        ));
    };
    if data.is_null() {
        return Err(ApiError::invalid_argument(format!(
            "`data` is NULL for a non-empty {ty} buffer"
        )));
    }
    // SAFETY: the caller promises the addressed range is readable; `low` <= 0 <= `high`.
    let src = unsafe {
        std::slice::from_raw_parts(
            (data as *const u8).offset(low as isize),
            (high - low) as usize,
        )
    };
    gather_strided_into(src, (-low) as usize, &ty.shape, byte_strides, elem, bytes.as_mut_slice())?;
    Ok(Tensor { ty, data: Arc::new(bytes) })
}

args_min_size! {
    PJRT_Client_BufferFromHostBuffer_Args => buffer,
    PJRT_Client_CreateUninitializedBuffer_Args => buffer,
    PJRT_Client_CreateErrorBuffer_Args => buffer,
    PJRT_Buffer_Destroy_Args => buffer,
    PJRT_Buffer_ElementType_Args => type_,
    PJRT_Buffer_Dimensions_Args => num_dims,
    PJRT_Buffer_UnpaddedDimensions_Args => num_dims,
    PJRT_Buffer_DynamicDimensionIndices_Args => num_dynamic_dims,
    PJRT_Buffer_GetMemoryLayout_Args => layout,
    PJRT_Buffer_OnDeviceSizeInBytes_Args => on_device_size_in_bytes,
    PJRT_Buffer_Device_Args => device,
    PJRT_Buffer_Memory_Args => memory,
    PJRT_Buffer_Delete_Args => buffer,
    PJRT_Buffer_IsDeleted_Args => is_deleted,
    PJRT_Buffer_CopyToDevice_Args => dst_buffer,
    PJRT_Buffer_CopyToMemory_Args => dst_buffer,
    PJRT_Buffer_ToHostBuffer_Args => event,
    PJRT_Buffer_CopyRawToHost_Args => event,
    PJRT_Buffer_IsOnCpu_Args => is_on_cpu,
    PJRT_Buffer_ReadyEvent_Args => event,
    PJRT_Buffer_UnsafePointer_Args => buffer_pointer,
    PJRT_Buffer_IncreaseExternalReferenceCount_Args => buffer,
    PJRT_Buffer_DecreaseExternalReferenceCount_Args => buffer,
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args => device_memory_ptr,
}

pub(crate) unsafe extern "C" fn client_buffer_from_host_buffer(
    args: *mut PJRT_Client_BufferFromHostBuffer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_BufferFromHostBuffer", args, |a| {
        let c = unsafe { client(a.client)? };
        if a.host_buffer_semantics == PJRT_HostBufferSemantics_kMutableZeroCopy {
            // The caller would expect later writes to its memory to show up on the device; apu
            // copies, so it cannot honour that.
            return Err(ApiError::unimplemented(
                "PJRT_Client_BufferFromHostBuffer: kMutableZeroCopy is not supported; apu copies host data",
            ));
        }
        let ty = unsafe { tensor_type(a.dims, a.num_dims, a.type_)? };
        let (device, kind) = c.state.target_place(a.device, a.memory)?;
        unsafe { check_device_layout(a.device_layout, &ty)? };
        let elem = ty.elem.byte_size();
        let strides = if a.byte_strides.is_null() || a.num_byte_strides == 0 && !ty.shape.is_empty()
        {
            apu_runtime::layout::dense_byte_strides(&ty.shape, elem)
        } else {
            unsafe { slice(a.byte_strides, a.num_byte_strides, "byte_strides")? }.to_vec()
        };
        // Every host-buffer semantics is honoured by copying now: the host memory is not needed
        // after this call, so `done_with_host_buffer` is complete already.
        let tensor = unsafe { copy_from_host(a.data, ty, &strides)? };
        tracing::debug!(
            "PJRT_Client_BufferFromHostBuffer: {}, byte strides {strides:?}, first bytes {:02x?}",
            tensor.ty,
            &tensor.bytes()[..tensor.bytes().len().min(16)]
        );
        let buf = DeviceBuffer::ready_in(tensor, device, kind);
        a.done_with_host_buffer = EventHandle::into_raw(Event::ready());
        a.buffer = BufferHandle::into_raw_as(c.state.clone(), buf, a.type_);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_create_uninitialized_buffer(
    args: *mut PJRT_Client_CreateUninitializedBuffer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_CreateUninitializedBuffer", args, |a| {
        let c = unsafe { client(a.client)? };
        let ty = unsafe { tensor_type(a.shape_dims, a.shape_num_dims, a.shape_element_type)? };
        unsafe { check_device_layout(a.shape_layout, &ty)? };
        let (device, kind) = c.state.target_place(a.device, a.memory)?;
        // Zero-filled: "uninitialized" contents are unspecified, and zeros are the safest choice.
        a.buffer = BufferHandle::into_raw_as(
            c.state.clone(),
            DeviceBuffer::ready_in(Tensor::zeroed(ty), device, kind),
            a.shape_element_type,
        );
        Ok(())
    })
}

/// A buffer that carries an error instead of data: its ready event fails with it, and so does
/// every program that consumes it.
pub(crate) unsafe extern "C" fn client_create_error_buffer(
    args: *mut PJRT_Client_CreateErrorBuffer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_CreateErrorBuffer", args, |a| {
        let c = unsafe { client(a.client)? };
        let ty = unsafe { tensor_type(a.shape_dims, a.shape_num_dims, a.shape_element_type)? };
        let (device, kind) = c.state.target_place(std::ptr::null(), a.memory)?;
        let message = unsafe {
            super::guard::string_arg(a.error_message, a.error_message_size, "error_message")?
        };
        let promise = DeviceBuffer::pending_in(ty, device, kind);
        let buffer = promise.buffer().clone();
        promise.fulfill(Err(apu_runtime::Error::new(code_from_raw(a.error_code), message)));
        a.buffer = BufferHandle::into_raw_as(c.state.clone(), buffer, a.shape_element_type);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_destroy(
    args: *mut PJRT_Buffer_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_Destroy", args, |a| {
        if !a.buffer.is_null() {
            drop(unsafe { Box::from_raw(a.buffer as *mut BufferHandle) });
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_element_type(
    args: *mut PJRT_Buffer_ElementType_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_ElementType", args, |a| {
        a.type_ = unsafe { buffer(a.buffer, "buffer")? }.pjrt_type;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_dimensions(
    args: *mut PJRT_Buffer_Dimensions_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_Dimensions", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        a.dims = b.dims.as_ptr();
        a.num_dims = b.dims.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_unpadded_dimensions(
    args: *mut PJRT_Buffer_UnpaddedDimensions_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_UnpaddedDimensions", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        a.unpadded_dims = b.dims.as_ptr();
        a.num_dims = b.dims.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_dynamic_dimension_indices(
    args: *mut PJRT_Buffer_DynamicDimensionIndices_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_DynamicDimensionIndices", args, |a| {
        unsafe { buffer(a.buffer, "buffer")? };
        // Shapes are static: no dynamic dimensions.
        a.dynamic_dim_indices = std::ptr::NonNull::<usize>::dangling().as_ptr();
        a.num_dynamic_dims = 0;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_get_memory_layout(
    args: *mut PJRT_Buffer_GetMemoryLayout_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_GetMemoryLayout", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        // SAFETY: all-zero is a valid layout; the tiled member is filled in below.
        let mut layout: PJRT_Buffer_MemoryLayout = unsafe { std::mem::zeroed() };
        layout.struct_size = std::mem::size_of::<PJRT_Buffer_MemoryLayout>();
        layout.type_ = PJRT_Buffer_MemoryLayout_Type_Tiled;
        let tiled = unsafe { &mut layout.__bindgen_anon_1.tiled };
        tiled.struct_size = std::mem::size_of::<PJRT_Buffer_MemoryLayout_Tiled>();
        tiled.minor_to_major = b.minor_to_major.as_ptr();
        tiled.minor_to_major_size = b.minor_to_major.len();
        tiled.num_tiles = 0;
        a.layout = layout;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_on_device_size_in_bytes(
    args: *mut PJRT_Buffer_OnDeviceSizeInBytes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_OnDeviceSizeInBytes", args, |a| {
        a.on_device_size_in_bytes = unsafe { buffer(a.buffer, "buffer")? }
            .buffer
            .ty()
            .byte_size();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_device(
    args: *mut PJRT_Buffer_Device_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_Device", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        a.device = b.client.devices[b.buffer.device()].as_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_memory(
    args: *mut PJRT_Buffer_Memory_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_Memory", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        a.memory = b.client.memory_of(b.buffer.device(), b.buffer.memory());
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_delete(
    args: *mut PJRT_Buffer_Delete_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_Delete", args, |a| {
        unsafe { buffer(a.buffer, "buffer")? }.buffer.delete();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_is_deleted(
    args: *mut PJRT_Buffer_IsDeleted_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_IsDeleted", args, |a| {
        a.is_deleted = unsafe { buffer(a.buffer, "buffer")? }.buffer.is_deleted();
        Ok(())
    })
}

/// A new buffer in `device`'s memory of `kind` with the contents of `src` once they are ready.
/// Tensors are immutable, so the copy shares the bytes (every memory kind is host memory).
fn copy_to(src: &BufferHandle, device: usize, kind: MemoryKind) -> ApiResult<*mut PJRT_Buffer> {
    if src.buffer.is_deleted() {
        return Err(ApiError::invalid_argument(
            "cannot copy a deleted or donated buffer",
        ));
    }
    let promise = DeviceBuffer::pending_in(src.buffer.ty().clone(), device, kind);
    let dst = promise.buffer().clone();
    let source = src.buffer.clone();
    src.buffer.ready_event().on_ready(move |outcome| {
        promise.fulfill(
            outcome
                .clone()
                .and_then(|()| source.contents_for_consumer()),
        );
    });
    Ok(BufferHandle::into_raw_as(
        src.client.clone(),
        dst,
        src.pjrt_type,
    ))
}

pub(crate) unsafe extern "C" fn buffer_copy_to_device(
    args: *mut PJRT_Buffer_CopyToDevice_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_CopyToDevice", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        // To the device's default memory, as XLA's clients do.
        let device = b.client.device_index(a.dst_device)?;
        a.dst_buffer = copy_to(b, device, MemoryKind::Device)?;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_copy_to_memory(
    args: *mut PJRT_Buffer_CopyToMemory_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_CopyToMemory", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        unsafe { memory(a.dst_memory)? };
        let (device, kind) = b.client.memory_place(a.dst_memory)?;
        a.dst_buffer = copy_to(b, device, kind)?;
        Ok(())
    })
}

/// A caller's destination pointer, moved to the thread that completes the copy. The caller keeps
/// the memory valid until the returned event fires.
struct HostDestination(*mut u8, usize);
// SAFETY: see above; only one thread writes, once.
unsafe impl Send for HostDestination {}

impl HostDestination {
    /// # Safety
    /// The caller's memory must still be valid (it is until the transfer event fires).
    #[allow(clippy::mut_from_ref)]
    unsafe fn bytes(&self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}

pub(crate) unsafe extern "C" fn buffer_to_host_buffer(
    args: *mut PJRT_Buffer_ToHostBuffer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_ToHostBuffer", args, |a| {
        let b = unsafe { buffer(a.src, "src")? };
        let ty = b.buffer.ty().clone();
        let elem = ty.elem.byte_size();
        let strides = unsafe { layout_byte_strides(a.host_layout, &ty.shape, elem)? };
        let extent = byte_extent(&ty.shape, &strides, elem)?;
        if extent.is_some_and(|(low, _)| low < 0) {
            return Err(ApiError::unimplemented(
                "host layouts with negative byte strides are not supported",
            ));
        }
        let needed = extent.map_or(0, |(_, high)| high as usize);
        tracing::debug!(
            "PJRT_Buffer_ToHostBuffer: {ty}, host layout {}, byte strides {strides:?}, {needed} of {} bytes",
            if a.host_layout.is_null() { "none" } else { "given" },
            a.dst_size
        );
        if a.dst.is_null() {
            // Size query: no copy and no event.
            a.dst_size = needed;
            a.event = std::ptr::null_mut();
            return Ok(());
        }
        if a.dst_size < needed {
            return Err(ApiError::invalid_argument(format!(
                "PJRT_Buffer_ToHostBuffer: destination has {} bytes, {ty} in this layout needs {needed}",
                a.dst_size
            )));
        }
        if b.buffer.is_deleted() {
            return Err(ApiError::invalid_argument(
                "PJRT_Buffer_ToHostBuffer: the buffer was deleted or donated",
            ));
        }
        let done = Event::new();
        let event = done.clone();
        let dst = HostDestination(a.dst as *mut u8, a.dst_size);
        let source = b.buffer.clone();
        b.buffer.ready_event().on_ready(move |outcome| {
            let result = outcome.clone().and_then(|()| {
                let tensor = source.contents_for_consumer()?;
                // SAFETY: the caller keeps `dst_size` bytes at `dst` writable until `event` fires.
                let out = unsafe { dst.bytes() };
                Ok(scatter_strided(tensor.bytes(), out, 0, &tensor.ty.shape, &strides, elem)?)
            });
            if let Err(e) = &result {
                // The caller may only watch the event; say it here too, so a failed copy is never silent.
                tracing::warn!("PJRT_Buffer_ToHostBuffer of {} failed: {e}", source.ty());
            }
            let _ = event.set(result);
        });
        a.event = EventHandle::into_raw(done);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_copy_raw_to_host(
    args: *mut PJRT_Buffer_CopyRawToHost_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_CopyRawToHost", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        let total = b.buffer.ty().byte_size();
        let (offset, size) = match (usize::try_from(a.offset), usize::try_from(a.transfer_size)) {
            (Ok(o), Ok(s)) if o.checked_add(s).is_some_and(|end| end <= total) => (o, s),
            _ => {
                return Err(ApiError::invalid_argument(format!(
                    "PJRT_Buffer_CopyRawToHost: range offset {} size {} is outside the {total}-byte buffer",
                    a.offset, a.transfer_size
                )))
            }
        };
        if a.dst.is_null() && size > 0 {
            return Err(ApiError::invalid_argument(
                "PJRT_Buffer_CopyRawToHost: `dst` is NULL",
            ));
        }
        let done = Event::new();
        let event = done.clone();
        let dst = HostDestination(a.dst as *mut u8, size);
        let source = b.buffer.clone();
        b.buffer.ready_event().on_ready(move |outcome| {
            let result = outcome.clone().and_then(|()| {
                let tensor = source.contents_for_consumer()?;
                if size > 0 {
                    // SAFETY: the caller keeps `size` bytes at `dst` writable until `event` fires.
                    let out = unsafe { dst.bytes() };
                    out.copy_from_slice(&tensor.bytes()[offset..offset + size]);
                }
                Ok(())
            });
            let _ = event.set(result);
        });
        a.event = EventHandle::into_raw(done);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_is_on_cpu(
    args: *mut PJRT_Buffer_IsOnCpu_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_IsOnCpu", args, |a| {
        unsafe { buffer(a.buffer, "buffer")? };
        // apu memory is host memory, but answering false keeps frameworks on the copying path
        // (ToHostBuffer), which needs no pinning of device memory by external references.
        a.is_on_cpu = false;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_ready_event(
    args: *mut PJRT_Buffer_ReadyEvent_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_ReadyEvent", args, |a| {
        let b = unsafe { buffer(a.buffer, "buffer")? };
        a.event = EventHandle::into_raw(b.buffer.ready_event().clone());
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_unsafe_pointer(
    args: *mut PJRT_Buffer_UnsafePointer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_UnsafePointer", args, |a| {
        a.buffer_pointer = unsafe { buffer(a.buffer, "buffer")? }
            .buffer
            .data_pointer()? as usize;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_increase_external_reference_count(
    args: *mut PJRT_Buffer_IncreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_IncreaseExternalReferenceCount", args, |a| {
        unsafe { buffer(a.buffer, "buffer")? }
            .buffer
            .increase_external_refs()
            .map_err(ApiError::from)
    })
}

pub(crate) unsafe extern "C" fn buffer_decrease_external_reference_count(
    args: *mut PJRT_Buffer_DecreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_DecreaseExternalReferenceCount", args, |a| {
        unsafe { buffer(a.buffer, "buffer")? }
            .buffer
            .decrease_external_refs()
            .map_err(ApiError::from)
    })
}

pub(crate) unsafe extern "C" fn buffer_opaque_device_memory_data_pointer(
    args: *mut PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Buffer_OpaqueDeviceMemoryDataPointer", args, |a| {
        a.device_memory_ptr = unsafe { buffer(a.buffer, "buffer")? }
            .buffer
            .data_pointer()? as *mut c_void;
        Ok(())
    })
}
