//! `PJRT_Client`: the C view of a model client ([`apu_runtime::client::Client`]). The view owns the
//! device, memory and topology objects whose pointers the C API hands out; everything that must
//! outlive the handle (buffers, executables) holds the shared [`ClientState`].

use super::api_error::ApiError;
use super::attributes::{read_options, OptionValue};
use super::device::Device;
use super::guard::{args_min_size, entry, handle, slice, ApiResult, PtrList};
use super::memory::Memory;
use super::topology::{Topology, PLATFORM_NAME, PLATFORM_VERSION};
use apu_pjrt_api::*;
use apu_runtime::client as model;
use apu_runtime::client::MemoryKind;
use std::os::raw::c_char;
use std::sync::Arc;

// Devices and memories are boxed so that the pointers handed out stay valid by construction,
// independently of how the vectors are built.
#[allow(clippy::vec_box)]
pub(crate) struct ClientState {
    pub model: Arc<model::Client>,
    pub devices: Vec<Box<Device>>,
    pub memories: Vec<Box<Memory>>,
    pub device_ptrs: PtrList<PJRT_Device>,
    pub memory_ptrs: PtrList<PJRT_Memory>,
    pub topology: Box<Topology>,
}

impl ClientState {
    #[allow(clippy::vec_box)]
    pub fn new(num_devices: usize) -> Arc<Self> {
        let model = model::Client::new(num_devices);
        let mut devices: Vec<Box<Device>> = model.devices().iter().map(|d| Box::new(Device::new(d))).collect();
        let mut memories: Vec<Box<Memory>> =
            model.devices().iter().flat_map(|d| d.memories.iter().map(|m| Box::new(Memory::new(m)))).collect();
        // Boxes do not move, so these pointers stay valid for the life of the state. Each device's
        // memories are consecutive, in the model's order (its default memory first).
        for (d, ms) in devices.iter_mut().zip(memories.chunks_mut(MemoryKind::ALL.len())) {
            d.memories = PtrList(ms.iter().map(|m| m.as_raw()).collect());
            for m in ms {
                m.devices = PtrList(vec![d.as_raw()]);
            }
        }
        let device_ptrs = PtrList(devices.iter().map(|d| d.as_raw()).collect());
        let memory_ptrs = PtrList(memories.iter().map(|m| m.as_raw()).collect());
        let topology = Box::new(Topology::new(
            model.topology(),
            devices.iter().map(|d| d.description_raw()).collect(),
        ));
        Arc::new(ClientState {
            model,
            devices,
            memories,
            device_ptrs,
            memory_ptrs,
            topology,
        })
    }

    /// The model's device `index` (its work queue, its memory accounting).
    pub fn device(&self, index: usize) -> &model::Device {
        self.model.device(index)
    }

    /// The index of the device a pointer designates, checking that it belongs to this client.
    pub fn device_index(&self, raw: *const PJRT_Device) -> ApiResult<usize> {
        self.devices
            .iter()
            .position(|d| std::ptr::eq(d.as_raw(), raw))
            .ok_or_else(|| ApiError::invalid_argument("the device does not belong to this client"))
    }

    /// The (device index, kind) of the memory a pointer designates, checking that it belongs to
    /// this client.
    pub fn memory_place(&self, raw: *const PJRT_Memory) -> ApiResult<(usize, MemoryKind)> {
        self.memories
            .iter()
            .find(|m| std::ptr::eq(m.as_raw(), raw))
            .map(|m| (m.device_index, m.kind))
            .ok_or_else(|| ApiError::invalid_argument("the memory does not belong to this client"))
    }

    /// The C view of device `device`'s memory of `kind`.
    pub fn memory_of(&self, device: usize, kind: MemoryKind) -> *mut PJRT_Memory {
        self.devices[device].memories.0[kind.position()]
    }

    /// Resolves the (device, memory) pair of a buffer-creating call to where the buffer goes: the
    /// memory's device and kind, or the device's default memory when no memory is given.
    pub fn target_place(
        &self,
        device: *const PJRT_Device,
        memory: *const PJRT_Memory,
    ) -> ApiResult<(usize, MemoryKind)> {
        match (device.is_null(), memory.is_null()) {
            (_, false) => {
                let place = self.memory_place(memory)?;
                if !device.is_null() && self.device_index(device)? != place.0 {
                    return Err(ApiError::invalid_argument(
                        "`device` and `memory` designate different devices",
                    ));
                }
                Ok(place)
            }
            (false, true) => Ok((self.device_index(device)?, MemoryKind::Device)),
            (true, true) => Err(ApiError::invalid_argument(
                "neither `device` nor `memory` is set",
            )),
        }
    }
}

pub(crate) struct Client {
    pub state: Arc<ClientState>,
}

/// Borrows a client from its handle.
///
/// # Safety
/// `raw` must be NULL or a live client.
pub(crate) unsafe fn client<'a>(raw: *const PJRT_Client) -> ApiResult<&'a Client> {
    unsafe { handle(raw, "client") }
}

/// The number of devices requested through create options, the `APU_NUM_DEVICES` environment
/// variable, or 1 (the model decides; this reads the options).
fn requested_device_count(options: &[(String, OptionValue)]) -> ApiResult<usize> {
    let mut count: Option<(i64, String)> = None;
    for (name, value) in options {
        match name.as_str() {
            "num_devices" | "device_count" => {
                let n = match value {
                    OptionValue::Int(n) => *n,
                    OptionValue::Str(s) => s.trim().parse::<i64>().map_err(|_| {
                        ApiError::invalid_argument(format!(
                            "create option {name}={s:?} is not an integer"
                        ))
                    })?,
                    other => {
                        return Err(ApiError::invalid_argument(format!(
                            "create option {name} must be an integer, got {other:?}"
                        )))
                    }
                };
                count = Some((n, format!("create option {name}")));
            }
            other => tracing::info!(
                "PJRT_Client_Create: ignoring unknown create option {other:?} = {value:?}"
            ),
        }
    }
    Ok(model::device_count(count)?)
}

args_min_size! {
    PJRT_Client_Create_Args => client,
    PJRT_Client_Destroy_Args => client,
    PJRT_Client_PlatformName_Args => platform_name_size,
    PJRT_Client_ProcessIndex_Args => process_index,
    PJRT_Client_PlatformVersion_Args => platform_version_size,
    PJRT_Client_TopologyDescription_Args => topology,
    PJRT_Client_Devices_Args => num_devices,
    PJRT_Client_AddressableDevices_Args => num_addressable_devices,
    PJRT_Client_LookupDevice_Args => device,
    PJRT_Client_LookupAddressableDevice_Args => addressable_device,
    PJRT_Client_AddressableMemories_Args => num_addressable_memories,
    PJRT_Client_DefaultDeviceAssignment_Args => default_assignment,
}

pub(crate) unsafe extern "C" fn client_create(
    args: *mut PJRT_Client_Create_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_Create", args, |a| {
        super::logging::init();
        // The key-value store callbacks are deliberately never read: in single-process JAX they
        // hold uninitialized garbage, and apu has no multi-process mode that would need them.
        let options = unsafe { read_options(a.create_options, a.num_options)? };
        let num_devices =
            requested_device_count(&options).map_err(|e| e.prefixed("PJRT_Client_Create"))?;
        let state = ClientState::new(num_devices);
        tracing::info!("PJRT_Client_Create: {num_devices} apu device(s)");
        a.client = Box::into_raw(Box::new(Client { state })) as *mut PJRT_Client;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_destroy(
    args: *mut PJRT_Client_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_Destroy", args, |a| {
        if !a.client.is_null() {
            // Buffers and executables still alive keep the shared state (and device threads).
            drop(unsafe { Box::from_raw(a.client as *mut Client) });
        }
        Ok(())
    })
}

fn out_str(s: &str) -> (*const c_char, usize) {
    (s.as_ptr() as *const c_char, s.len())
}

pub(crate) unsafe extern "C" fn client_platform_name(
    args: *mut PJRT_Client_PlatformName_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_PlatformName", args, |a| {
        unsafe { client(a.client)? };
        (a.platform_name, a.platform_name_size) = out_str(PLATFORM_NAME);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_process_index(
    args: *mut PJRT_Client_ProcessIndex_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_ProcessIndex", args, |a| {
        unsafe { client(a.client)? };
        a.process_index = 0;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_platform_version(
    args: *mut PJRT_Client_PlatformVersion_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_PlatformVersion", args, |a| {
        unsafe { client(a.client)? };
        (a.platform_version, a.platform_version_size) = out_str(PLATFORM_VERSION);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_topology_description(
    args: *mut PJRT_Client_TopologyDescription_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_TopologyDescription", args, |a| {
        let c = unsafe { client(a.client)? };
        // Owned by the client; callers do not destroy it.
        a.topology = c.state.topology.as_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_devices(
    args: *mut PJRT_Client_Devices_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_Devices", args, |a| {
        let c = unsafe { client(a.client)? };
        a.devices = c.state.device_ptrs.as_ptr();
        a.num_devices = c.state.device_ptrs.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_addressable_devices(
    args: *mut PJRT_Client_AddressableDevices_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_AddressableDevices", args, |a| {
        let c = unsafe { client(a.client)? };
        a.addressable_devices = c.state.device_ptrs.as_ptr();
        a.num_addressable_devices = c.state.device_ptrs.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_lookup_device(
    args: *mut PJRT_Client_LookupDevice_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_LookupDevice", args, |a| {
        let c = unsafe { client(a.client)? };
        let d = usize::try_from(a.id)
            .ok()
            .and_then(|i| c.state.devices.get(i))
            .ok_or_else(|| {
                ApiError::invalid_argument(format!(
                    "No matching device found for device_id {}",
                    a.id
                ))
            })?;
        a.device = d.as_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_lookup_addressable_device(
    args: *mut PJRT_Client_LookupAddressableDevice_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_LookupAddressableDevice", args, |a| {
        let c = unsafe { client(a.client)? };
        let d = usize::try_from(a.local_hardware_id)
            .ok()
            .and_then(|i| c.state.devices.get(i))
            .ok_or_else(|| {
                ApiError::invalid_argument(format!(
                    "No matching device found for local_hardware_id {}",
                    a.local_hardware_id
                ))
            })?;
        a.addressable_device = d.as_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_addressable_memories(
    args: *mut PJRT_Client_AddressableMemories_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_AddressableMemories", args, |a| {
        let c = unsafe { client(a.client)? };
        a.addressable_memories = c.state.memory_ptrs.as_ptr();
        a.num_addressable_memories = c.state.memory_ptrs.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn client_default_device_assignment(
    args: *mut PJRT_Client_DefaultDeviceAssignment_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_DefaultDeviceAssignment", args, |a| {
        let c = unsafe { client(a.client)? };
        let (replicas, partitions) = match (usize::try_from(a.num_replicas), usize::try_from(a.num_partitions)) {
            (Ok(r), Ok(p)) if r > 0 && p > 0 => (r, p),
            _ => {
                return Err(ApiError::invalid_argument(format!(
                    "PJRT_Client_DefaultDeviceAssignment: num_replicas {} and num_partitions {} must be positive",
                    a.num_replicas, a.num_partitions
                )))
            }
        };
        let needed = replicas * partitions;
        if a.default_assignment_size < needed {
            return Err(ApiError::failed_precondition(format!(
                "PJRT_Client_DefaultDeviceAssignment: `default_assignment_size` {} < `num_replicas * num_partitions`, {} * {} = {}",
                a.default_assignment_size, replicas, partitions, needed
            )));
        }
        let out = unsafe {
            slice(
                a.default_assignment as *const i32,
                needed,
                "default_assignment",
            )?
        };
        let out = unsafe { std::slice::from_raw_parts_mut(out.as_ptr() as *mut i32, out.len()) };
        for (slot, id) in out
            .iter_mut()
            .zip(model::default_assignment(replicas, partitions, c.state.devices.len())?.concat())
        {
            *slot = id as i32;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_count_from_options() {
        assert_eq!(
            requested_device_count(&[("num_devices".into(), OptionValue::Int(3))]).unwrap(),
            3
        );
        assert_eq!(
            requested_device_count(&[("device_count".into(), OptionValue::Str("2".into()))])
                .unwrap(),
            2
        );
        assert!(requested_device_count(&[("num_devices".into(), OptionValue::Int(0))]).is_err());
        assert!(
            requested_device_count(&[("num_devices".into(), OptionValue::Bool(true))]).is_err()
        );
        // Unknown options are ignored.
        let n =
            requested_device_count(&[("something_else".into(), OptionValue::Float(1.0))]).unwrap();
        assert!(n >= 1);
    }

    #[test]
    fn state_links_devices_and_memories() {
        let state = ClientState::new(2);
        assert_eq!(state.memories.len(), 6);
        for (i, d) in state.devices.iter().enumerate() {
            assert_eq!(d.memories.0.len(), 3);
            assert_eq!(state.memory_place(d.default_memory()).unwrap(), (i, MemoryKind::Device));
            for kind in MemoryKind::ALL {
                let m = state.memory_of(i, kind);
                assert_eq!(state.memory_place(m).unwrap(), (i, kind));
                let view = unsafe { &*(m as *const Memory) };
                assert_eq!(view.devices.0, vec![d.as_raw()]);
            }
        }
        let pinned1 = state.memory_of(1, MemoryKind::PinnedHost);
        assert_eq!(state.target_place(std::ptr::null(), pinned1).unwrap(), (1, MemoryKind::PinnedHost));
        assert_eq!(state.target_place(state.devices[1].as_raw(), std::ptr::null()).unwrap(), (1, MemoryKind::Device));
        assert!(state.target_place(state.devices[0].as_raw(), pinned1).is_err());
        assert!(state.target_place(std::ptr::null(), std::ptr::null()).is_err());
    }
}
