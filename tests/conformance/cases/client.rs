//! Client creation, platform identity, devices and memory spaces.
use super::api::{named_values, Value};
use crate::conformance::handles::{copy_list, Client};
use crate::conformance::plugin::{bytes_to_string, Plugin};
use crate::conformance::runner::CaseResult;
use crate::{pjrt_args, pjrt_call};
use anyhow::{bail, ensure, Context};
use apu_pjrt_api::*;

pub fn client_create_destroy(plugin: &Plugin) -> CaseResult {
    let first = Client::create(plugin).context("first client")?;
    let second = Client::create(plugin).context("second client while the first is alive")?;
    ensure!(first.raw != second.raw, "two clients share one handle");
    drop(second);
    ensure!(!first.devices()?.is_empty(), "first client lost its devices after the second was destroyed");
    // Destroying NULL is allowed.
    let mut args = pjrt_args!(PJRT_Client_Destroy_Args {});
    pjrt_call!(plugin, PJRT_Client_Destroy, &mut args).context("PJRT_Client_Destroy(NULL)")?;
    Ok(())
}

pub fn platform_name_and_version(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let name = client.platform_name()?;
    ensure!(!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
        "platform name {name:?} should be a short lower-case identifier");
    client.platform_version()?; // any text, but the call must work
    ensure!(client.process_index()? == 0, "process index of a single-process client");
    Ok(())
}

pub fn apu_platform_name(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let name = client.platform_name()?;
    ensure!(name == "apu", "platform name {name:?}");
    Ok(())
}

fn description(plugin: &Plugin, device: *mut PJRT_Device) -> anyhow::Result<*mut PJRT_DeviceDescription> {
    let mut args = pjrt_args!(PJRT_Device_GetDescription_Args { device: device });
    pjrt_call!(plugin, PJRT_Device_GetDescription, &mut args)?;
    ensure!(!args.device_description.is_null(), "NULL device description");
    Ok(args.device_description)
}

macro_rules! string_query {
    ($plugin:expr, $slot:ident, $args_ty:ident, $field:ident = $handle:expr, $out:ident, $out_size:ident) => {{
        let mut args = pjrt_args!($args_ty { $field: $handle });
        pjrt_call!($plugin, $slot, &mut args)?;
        unsafe { bytes_to_string(args.$out, args.$out_size) }
    }};
}

pub fn memory_kind(plugin: &Plugin, memory: *mut PJRT_Memory) -> anyhow::Result<String> {
    Ok(string_query!(plugin, PJRT_Memory_Kind, PJRT_Memory_Kind_Args, memory = memory, kind, kind_size))
}

/// Every device is consistent with its description, its memories and the client's lists.
pub fn devices_and_memories(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let devices = client.devices()?;
    let addressable = client.addressable_devices()?;
    let client_memories = client.addressable_memories()?;
    ensure!(!devices.is_empty(), "no devices");
    ensure!(!addressable.is_empty(), "no addressable devices");
    ensure!(addressable.iter().all(|d| devices.contains(d)), "addressable devices must be a subset of devices");
    ensure!(!client_memories.is_empty(), "no addressable memories");

    for &device in &addressable {
        let desc = description(plugin, device)?;
        let mut id_args = pjrt_args!(PJRT_DeviceDescription_Id_Args { device_description: desc });
        pjrt_call!(plugin, PJRT_DeviceDescription_Id, &mut id_args)?;
        let id = id_args.id;
        ensure!(id >= 0, "negative device id {id}");
        ensure!(client.lookup_device(id)? == device, "LookupDevice({id}) returned another device");

        let mut pi = pjrt_args!(PJRT_DeviceDescription_ProcessIndex_Args { device_description: desc });
        pjrt_call!(plugin, PJRT_DeviceDescription_ProcessIndex, &mut pi)?;
        ensure!(pi.process_index == 0, "device {id} process index {}", pi.process_index);

        let mut addr = pjrt_args!(PJRT_Device_IsAddressable_Args { device: device });
        pjrt_call!(plugin, PJRT_Device_IsAddressable, &mut addr)?;
        ensure!(addr.is_addressable, "addressable device {id} says it is not addressable");

        let mut hw = pjrt_args!(PJRT_Device_LocalHardwareId_Args { device: device });
        pjrt_call!(plugin, PJRT_Device_LocalHardwareId, &mut hw)?;
        ensure!(hw.local_hardware_id >= 0, "device {id} local hardware id {}", hw.local_hardware_id);
        ensure!(client.lookup_addressable_device(hw.local_hardware_id)? == device,
            "LookupAddressableDevice({}) returned another device", hw.local_hardware_id);

        let kind = string_query!(plugin, PJRT_DeviceDescription_Kind, PJRT_DeviceDescription_Kind_Args,
            device_description = desc, device_kind, device_kind_size);
        let text = string_query!(plugin, PJRT_DeviceDescription_ToString, PJRT_DeviceDescription_ToString_Args,
            device_description = desc, to_string, to_string_size);
        let debug = string_query!(plugin, PJRT_DeviceDescription_DebugString, PJRT_DeviceDescription_DebugString_Args,
            device_description = desc, debug_string, debug_string_size);
        ensure!(!kind.is_empty() && !text.is_empty() && !debug.is_empty(), "device {id}: empty kind/ToString/DebugString");

        let mut attrs = pjrt_args!(PJRT_DeviceDescription_Attributes_Args { device_description: desc });
        pjrt_call!(plugin, PJRT_DeviceDescription_Attributes, &mut attrs)?;
        for (name, value) in named_values(attrs.attributes, attrs.num_attributes)? {
            // jaxlib aborts on Float or Bool device attributes.
            if matches!(value, Value::Float(_) | Value::Bool(_)) {
                bail!("device attribute {name:?} has type {value:?}; only String/Int64/Int64List are allowed");
            }
        }

        let mut mems = pjrt_args!(PJRT_Device_AddressableMemories_Args { device: device });
        pjrt_call!(plugin, PJRT_Device_AddressableMemories, &mut mems)?;
        let device_memories = unsafe { copy_list(mems.memories, mems.num_memories) };
        ensure!(!device_memories.is_empty(), "device {id} has no memories");
        for &memory in &device_memories {
            ensure!(client_memories.contains(&memory), "device {id} reports a memory the client does not list");
            let mut by = pjrt_args!(PJRT_Memory_AddressableByDevices_Args { memory: memory });
            pjrt_call!(plugin, PJRT_Memory_AddressableByDevices, &mut by)?;
            let users = unsafe { copy_list(by.devices, by.num_devices) };
            ensure!(users.contains(&device), "memory of device {id} does not list the device");
            let text = string_query!(plugin, PJRT_Memory_ToString, PJRT_Memory_ToString_Args, memory = memory, to_string, to_string_size);
            ensure!(!text.is_empty(), "empty Memory_ToString");
            ensure!(!memory_kind(plugin, memory)?.is_empty(), "empty memory kind");
        }
        let mut default = pjrt_args!(PJRT_Device_DefaultMemory_Args { device: device });
        pjrt_call!(plugin, PJRT_Device_DefaultMemory, &mut default)?;
        ensure!(device_memories.contains(&default.memory), "default memory of device {id} is not among its memories");
        let kind = memory_kind(plugin, default.memory)?;
        ensure!(kind == "device", "default memory kind of device {id} is {kind:?}, JAX expects \"device\"");
    }
    Ok(())
}

/// Unknown device ids are INVALID_ARGUMENT (upstream LookupDeviceNegativeId/OutOfRangeId).
pub fn lookup_unknown_device(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    for id in [-1, 1 << 20] {
        match client.lookup_device(id) {
            Ok(d) => bail!("LookupDevice({id}) returned {d:?}"),
            Err(e) => ensure!(e.code == PJRT_Error_Code_INVALID_ARGUMENT, "LookupDevice({id}): {e}"),
        }
    }
    Ok(())
}

/// Default device assignment for one replica and one partition, and the too-small buffer error
/// (upstream GetDefaultDeviceAssignment tests).
pub fn default_device_assignment(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let mut assignment = [-1i32; 1];
    let mut args = pjrt_args!(PJRT_Client_DefaultDeviceAssignment_Args {
        client: client.raw,
        num_replicas: 1,
        num_partitions: 1,
        default_assignment_size: 1,
        default_assignment: assignment.as_mut_ptr(),
    });
    pjrt_call!(plugin, PJRT_Client_DefaultDeviceAssignment, &mut args)?;
    let id = assignment[0];
    ensure!(client.lookup_device(id).is_ok(), "assigned device id {id} is not a device");
    let mut small = pjrt_args!(PJRT_Client_DefaultDeviceAssignment_Args {
        client: client.raw,
        num_replicas: 1,
        num_partitions: 1,
        default_assignment_size: 0,
        default_assignment: assignment.as_mut_ptr(),
    });
    match pjrt_call!(plugin, PJRT_Client_DefaultDeviceAssignment, &mut small) {
        Ok(()) => bail!("an assignment buffer of size 0 was accepted for 1 replica x 1 partition"),
        Err(e) => ensure!(e.code == PJRT_Error_Code_FAILED_PRECONDITION, "{e}"),
    }
    Ok(())
}
