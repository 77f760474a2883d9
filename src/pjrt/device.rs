//! `PJRT_Device` and `PJRT_DeviceDescription`: the C views of a client's devices. A view owns its
//! description (the `PJRT_DeviceDescription*` points into it); the work queue and the memory
//! accounting belong to the model's device.

use super::api_error::ApiError;
use super::attributes::{AttrValue, NamedValues};
use super::guard::{args_min_size, entry, handle, PtrList};
use apu_pjrt_api::*;
use apu_runtime::client::DEVICE_KIND;
use apu_runtime::MemoryStats;
use std::os::raw::c_char;
use std::sync::Arc;

pub(crate) struct DeviceDescription {
    pub id: i32,
    pub process_index: i32,
    pub debug_string: String,
    pub to_string: String,
    pub attributes: NamedValues,
}

pub(crate) struct Device {
    pub index: usize,
    pub description: DeviceDescription,
    /// This device's memories (one per kind, the default first); filled in by the client after creation
    /// because memories and devices point at each other.
    pub memories: PtrList<PJRT_Memory>,
    /// Bytes held by the live buffers of this device (the model device's accounting).
    pub memory_stats: Arc<MemoryStats>,
}

impl Device {
    /// The C view of a device of the model.
    pub fn new(d: &apu_runtime::client::Device) -> Self {
        Device {
            index: d.index,
            description: DeviceDescription {
                id: d.id,
                process_index: d.process_index,
                debug_string: d.debug_string.clone(),
                to_string: d.to_string.clone(),
                attributes: NamedValues::new(vec![
                    ("coords".into(), AttrValue::IntList(d.coords.clone())),
                    ("core_on_chip".into(), AttrValue::Int(0)),
                    ("device_vendor".into(), AttrValue::Str("apu".into())),
                ]),
            },
            memories: PtrList(Vec::new()),
            memory_stats: d.memory_stats.clone(),
        }
    }

    pub fn as_raw(&self) -> *mut PJRT_Device {
        self as *const Device as *mut PJRT_Device
    }

    pub fn description_raw(&self) -> *mut PJRT_DeviceDescription {
        &self.description as *const DeviceDescription as *mut PJRT_DeviceDescription
    }

    pub fn default_memory(&self) -> *mut PJRT_Memory {
        self.memories.0[0]
    }
}

/// Borrows a device from its handle.
///
/// # Safety
/// `raw` must be NULL or a device of a live client.
pub(crate) unsafe fn device<'a>(raw: *const PJRT_Device) -> Result<&'a Device, ApiError> {
    unsafe { handle(raw, "device") }
}

unsafe fn description<'a>(
    raw: *const PJRT_DeviceDescription,
) -> Result<&'a DeviceDescription, ApiError> {
    unsafe { handle(raw, "device_description") }
}

fn out_str(s: &str) -> (*const c_char, usize) {
    (s.as_ptr() as *const c_char, s.len())
}

args_min_size! {
    PJRT_DeviceDescription_Id_Args => id,
    PJRT_DeviceDescription_ProcessIndex_Args => process_index,
    PJRT_DeviceDescription_Attributes_Args => attributes,
    PJRT_DeviceDescription_Kind_Args => device_kind_size,
    PJRT_DeviceDescription_DebugString_Args => debug_string_size,
    PJRT_DeviceDescription_ToString_Args => to_string_size,
    PJRT_Device_GetDescription_Args => device_description,
    PJRT_Device_IsAddressable_Args => is_addressable,
    PJRT_Device_LocalHardwareId_Args => local_hardware_id,
    PJRT_Device_AddressableMemories_Args => num_memories,
    PJRT_Device_DefaultMemory_Args => memory,
    PJRT_Device_MemoryStats_Args => bytes_in_use,
}

pub(crate) unsafe extern "C" fn description_id(
    args: *mut PJRT_DeviceDescription_Id_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_Id", args, |a| {
        a.id = unsafe { description(a.device_description)? }.id;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn description_process_index(
    args: *mut PJRT_DeviceDescription_ProcessIndex_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_ProcessIndex", args, |a| {
        a.process_index = unsafe { description(a.device_description)? }.process_index;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn description_attributes(
    args: *mut PJRT_DeviceDescription_Attributes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_Attributes", args, |a| {
        let d = unsafe { description(a.device_description)? };
        a.attributes = d.attributes.as_ptr();
        a.num_attributes = d.attributes.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn description_kind(
    args: *mut PJRT_DeviceDescription_Kind_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_Kind", args, |a| {
        unsafe { description(a.device_description)? };
        (a.device_kind, a.device_kind_size) = out_str(DEVICE_KIND);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn description_debug_string(
    args: *mut PJRT_DeviceDescription_DebugString_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_DebugString", args, |a| {
        let d = unsafe { description(a.device_description)? };
        (a.debug_string, a.debug_string_size) = out_str(&d.debug_string);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn description_to_string(
    args: *mut PJRT_DeviceDescription_ToString_Args,
) -> *mut PJRT_Error {
    entry("PJRT_DeviceDescription_ToString", args, |a| {
        let d = unsafe { description(a.device_description)? };
        (a.to_string, a.to_string_size) = out_str(&d.to_string);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn device_get_description(
    args: *mut PJRT_Device_GetDescription_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_GetDescription", args, |a| {
        a.device_description = unsafe { device(a.device)? }.description_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn device_is_addressable(
    args: *mut PJRT_Device_IsAddressable_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_IsAddressable", args, |a| {
        unsafe { device(a.device)? };
        // Single process: every device is local.
        a.is_addressable = true;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn device_local_hardware_id(
    args: *mut PJRT_Device_LocalHardwareId_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_LocalHardwareId", args, |a| {
        a.local_hardware_id = unsafe { device(a.device)? }.index as i32;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn device_addressable_memories(
    args: *mut PJRT_Device_AddressableMemories_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_AddressableMemories", args, |a| {
        let d = unsafe { device(a.device)? };
        a.memories = d.memories.as_ptr();
        a.num_memories = d.memories.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn device_default_memory(
    args: *mut PJRT_Device_DefaultMemory_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_DefaultMemory", args, |a| {
        a.memory = unsafe { device(a.device)? }.default_memory();
        Ok(())
    })
}

/// Bytes held by live buffers on the device (logical sizes; copies sharing bytes count twice).
/// There is no memory limit, so the limit and pool fields stay unset.
pub(crate) unsafe extern "C" fn device_memory_stats(
    args: *mut PJRT_Device_MemoryStats_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_MemoryStats", args, |a| {
        let s = unsafe { device(a.device)? }.memory_stats.snapshot();
        // Callers do not zero the struct: every output, including each `_is_set`, is written.
        a.bytes_limit = 0;
        a.bytes_limit_is_set = false;
        a.bytes_reserved = 0;
        a.bytes_reserved_is_set = false;
        a.peak_bytes_reserved = 0;
        a.peak_bytes_reserved_is_set = false;
        a.bytes_reservable_limit = 0;
        a.bytes_reservable_limit_is_set = false;
        a.largest_free_block_bytes = 0;
        a.largest_free_block_bytes_is_set = false;
        a.pool_bytes = 0;
        a.pool_bytes_is_set = false;
        a.peak_pool_bytes = 0;
        a.peak_pool_bytes_is_set = false;
        a.bytes_in_use = s.bytes_in_use;
        a.peak_bytes_in_use = s.peak_bytes_in_use;
        a.peak_bytes_in_use_is_set = true;
        a.num_allocs = s.num_allocs;
        a.num_allocs_is_set = true;
        a.largest_alloc_size = s.largest_alloc_size;
        a.largest_alloc_size_is_set = true;
        Ok(())
    })
}

args_min_size! {
    PJRT_Device_GetAttributes_Args => attributes_deleter,
    PJRT_Device_ClearMemoryStats_Args => device,
}

unsafe extern "C" fn keep_device_attributes(_: *mut PJRT_Device_Attributes) {
    // The attributes belong to the device; nothing to free.
}

/// Same attributes as the description. JAX aborts if this fails, so it only fails on NULL.
pub(crate) unsafe extern "C" fn device_get_attributes(
    args: *mut PJRT_Device_GetAttributes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_GetAttributes", args, |a| {
        let d = unsafe { device(a.device)? };
        a.attributes = d.description.attributes.as_ptr();
        a.num_attributes = d.description.attributes.len();
        a.device_attributes = std::ptr::null_mut();
        a.attributes_deleter = Some(keep_device_attributes);
        Ok(())
    })
}

/// Restarts the peak and allocation counters.
pub(crate) unsafe extern "C" fn device_clear_memory_stats(
    args: *mut PJRT_Device_ClearMemoryStats_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Device_ClearMemoryStats", args, |a| {
        unsafe { device(a.device)? }.memory_stats.clear();
        Ok(())
    })
}
