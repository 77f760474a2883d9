//! `PJRT_TopologyDescription`: the client's view of its devices, without a client. apu only has the
//! client-owned topology (`PJRT_Client_TopologyDescription`); creating or deserializing standalone
//! topologies is not supported.

use super::api_error::ApiError;
use super::attributes::{AttrValue, NamedValues};
use super::guard::{args_min_size, entry, handle, PtrList};
use apu_pjrt_api::*;
pub(crate) use apu_runtime::client::PLATFORM_NAME;
use apu_runtime::client::MemoryKind;
use std::os::raw::c_char;

pub(crate) const PLATFORM_VERSION: &str = concat!(
    "apu ",
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("APU_GIT_REVISION"),
    ")"
);

pub(crate) struct Topology {
    pub descriptions: PtrList<PJRT_DeviceDescription>,
    pub attributes: NamedValues,
    pub fingerprint: u64,
}

impl Topology {
    /// The C view of the model's topology, listing the devices' descriptions.
    pub fn new(model: &apu_runtime::client::Topology, descriptions: Vec<*mut PJRT_DeviceDescription>) -> Self {
        Topology {
            attributes: NamedValues::new(vec![("num_devices".into(), AttrValue::Int(model.num_devices as i64))]),
            fingerprint: model.fingerprint,
            descriptions: PtrList(descriptions),
        }
    }

    pub fn as_raw(&self) -> *mut PJRT_TopologyDescription {
        self as *const Topology as *mut PJRT_TopologyDescription
    }
}

unsafe fn topology<'a>(raw: *const PJRT_TopologyDescription) -> Result<&'a Topology, ApiError> {
    unsafe { handle(raw, "topology") }
}

args_min_size! {
    PJRT_TopologyDescription_Destroy_Args => topology,
    PJRT_TopologyDescription_PlatformName_Args => platform_name_size,
    PJRT_TopologyDescription_PlatformVersion_Args => platform_version_size,
    PJRT_TopologyDescription_GetDeviceDescriptions_Args => num_descriptions,
    PJRT_TopologyDescription_Attributes_Args => num_attributes,
    PJRT_TopologyDescription_Fingerprint_Args => fingerprint,
}

/// Every topology apu hands out belongs to its client, so destroying one is a no-op.
pub(crate) unsafe extern "C" fn topology_destroy(
    args: *mut PJRT_TopologyDescription_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_TopologyDescription_Destroy", args, |_| Ok(()))
}

pub(crate) unsafe extern "C" fn topology_platform_name(
    args: *mut PJRT_TopologyDescription_PlatformName_Args,
) -> *mut PJRT_Error {
    entry("PJRT_TopologyDescription_PlatformName", args, |a| {
        unsafe { topology(a.topology)? };
        a.platform_name = PLATFORM_NAME.as_ptr() as *const c_char;
        a.platform_name_size = PLATFORM_NAME.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn topology_platform_version(
    args: *mut PJRT_TopologyDescription_PlatformVersion_Args,
) -> *mut PJRT_Error {
    entry("PJRT_TopologyDescription_PlatformVersion", args, |a| {
        unsafe { topology(a.topology)? };
        a.platform_version = PLATFORM_VERSION.as_ptr() as *const c_char;
        a.platform_version_size = PLATFORM_VERSION.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn topology_get_device_descriptions(
    args: *mut PJRT_TopologyDescription_GetDeviceDescriptions_Args,
) -> *mut PJRT_Error {
    entry(
        "PJRT_TopologyDescription_GetDeviceDescriptions",
        args,
        |a| {
            let t = unsafe { topology(a.topology)? };
            a.descriptions = t.descriptions.as_ptr();
            a.num_descriptions = t.descriptions.len();
            Ok(())
        },
    )
}

pub(crate) unsafe extern "C" fn topology_attributes(
    args: *mut PJRT_TopologyDescription_Attributes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_TopologyDescription_Attributes", args, |a| {
        let t = unsafe { topology(a.topology)? };
        a.attributes = t.attributes.as_ptr();
        a.num_attributes = t.attributes.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn topology_fingerprint(
    args: *mut PJRT_TopologyDescription_Fingerprint_Args,
) -> *mut PJRT_Error {
    entry("PJRT_TopologyDescription_Fingerprint", args, |a| {
        a.fingerprint = unsafe { topology(a.topology)? }.fingerprint;
        Ok(())
    })
}

args_min_size! {
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args => num_memory_space_kind_ids,
}

static MEMORY_KIND_IDS: [i32; 3] = [MemoryKind::Device.id(), MemoryKind::PinnedHost.id(), MemoryKind::UnpinnedHost.id()];

pub(crate) unsafe extern "C" fn topology_get_memory_space_kind_ids(
    args: *mut PJRT_TopologyDescription_GetMemorySpaceKindIds_Args,
) -> *mut PJRT_Error {
    entry(
        "PJRT_TopologyDescription_GetMemorySpaceKindIds",
        args,
        |a| {
            unsafe { topology(a.topology)? };
            a.memory_space_kind_ids = MEMORY_KIND_IDS.as_ptr();
            a.num_memory_space_kind_ids = MEMORY_KIND_IDS.len();
            Ok(())
        },
    )
}
