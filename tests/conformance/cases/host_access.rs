//! Zero-copy host access (used by jaxlib when Buffer_IsOnCpu is true) and device sizes.
use super::buffers::row_major;
use crate::conformance::handles::Client;
use crate::conformance::plugin::Plugin;
use crate::conformance::runner::{CaseResult, Skip};
use crate::{pjrt_args, pjrt_call};
use anyhow::{bail, ensure};
use apu_pjrt_api::*;

/// When a buffer says it is on the CPU, jaxlib views its memory directly: the external
/// reference count and the data pointer must work and show the buffer's bytes.
pub fn is_on_cpu_direct_access(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let bytes = row_major(PJRT_Buffer_Type_S32, 2, 3);
    let buffer = client.upload(&bytes, PJRT_Buffer_Type_S32, &[2, 3])?;
    let mut on_cpu = pjrt_args!(PJRT_Buffer_IsOnCpu_Args { buffer: buffer.raw });
    pjrt_call!(plugin, PJRT_Buffer_IsOnCpu, &mut on_cpu)?;
    if !on_cpu.is_on_cpu {
        return Err(Skip("Buffer_IsOnCpu is false: jaxlib copies through ToHostBuffer instead".into()).into());
    }
    let mut increase = pjrt_args!(PJRT_Buffer_IncreaseExternalReferenceCount_Args { buffer: buffer.raw });
    pjrt_call!(plugin, PJRT_Buffer_IncreaseExternalReferenceCount, &mut increase)?;
    let mut pointer = pjrt_args!(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args { buffer: buffer.raw });
    pjrt_call!(plugin, PJRT_Buffer_OpaqueDeviceMemoryDataPointer, &mut pointer)?;
    ensure!(!pointer.device_memory_ptr.is_null(), "OpaqueDeviceMemoryDataPointer is NULL");
    let seen = unsafe { std::slice::from_raw_parts(pointer.device_memory_ptr as *const u8, bytes.len()) };
    ensure!(seen == bytes.as_slice(), "device memory does not hold the buffer's row-major bytes");
    let mut decrease = pjrt_args!(PJRT_Buffer_DecreaseExternalReferenceCount_Args { buffer: buffer.raw });
    pjrt_call!(plugin, PJRT_Buffer_DecreaseExternalReferenceCount, &mut decrease)?;
    // One decrease too many is INVALID_ARGUMENT (upstream DecreaseReferenceCountReturnsError).
    match pjrt_call!(plugin, PJRT_Buffer_DecreaseExternalReferenceCount, &mut decrease) {
        Ok(()) => bail!("decreasing a zero external reference count succeeded"),
        Err(e) => ensure!(e.code == PJRT_Error_Code_INVALID_ARGUMENT, "{e}"),
    }
    Ok(())
}

/// OnDeviceSizeInBytes may be UNIMPLEMENTED (jaxlib tolerates it); when implemented it must
/// cover the data.
pub fn on_device_size(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let buffer = client.upload(&row_major(PJRT_Buffer_Type_F64, 2, 3), PJRT_Buffer_Type_F64, &[2, 3])?;
    let mut args = pjrt_args!(PJRT_Buffer_OnDeviceSizeInBytes_Args { buffer: buffer.raw });
    match pjrt_call!(plugin, PJRT_Buffer_OnDeviceSizeInBytes, &mut args) {
        Ok(()) => ensure!(args.on_device_size_in_bytes >= 48, "on-device size {} < 48", args.on_device_size_in_bytes),
        Err(e) if e.code == PJRT_Error_Code_UNIMPLEMENTED => {}
        Err(e) => return Err(e.into()),
    }
    Ok(())
}
