//! `PJRT_LoadedExecutable`: the C view of a model [`LoadedExecutable`], and the client functions
//! that make one (`PJRT_Client_Compile`, `PJRT_Client_Load`, `PJRT_Executable_DeserializeAndLoad`).

use super::client::{client, ClientState};
use super::executable::{read_source, ExecutableHandle, ExecutableView, OwnedBytes};
use super::guard::{args_min_size, entry, handle, slice, ApiResult, PtrList};
use apu_pjrt_api::*;
use apu_runtime::client::{Executable, LoadedExecutable};
use std::os::raw::c_char;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub(crate) struct LoadedHandle {
    pub model: LoadedExecutable,
    pub exe: Arc<ExecutableView>,
    pub client: Arc<ClientState>,
    devices: PtrList<PJRT_Device>,
    logical_ids: Vec<PJRT_LogicalDeviceIds>,
}

// SAFETY: `logical_ids` are plain integers; `devices` point into the shared client state.
unsafe impl Send for LoadedHandle {}
unsafe impl Sync for LoadedHandle {}

impl LoadedHandle {
    /// Binds an executable to the client's devices (the model decides which) and builds the
    /// device and logical-id lists the C API hands out.
    pub fn load(exe: Arc<ExecutableView>, client: Arc<ClientState>) -> ApiResult<Self> {
        let model = LoadedExecutable::load(exe.model.clone(), client.model.clone())?;
        let devices = PtrList(model.device_indices.iter().map(|&i| client.devices[i].as_raw()).collect());
        let logical_ids = model
            .logical_ids
            .iter()
            .map(|&(r, p)| PJRT_LogicalDeviceIds {
                replica: r as i32,
                partition: p as i32,
            })
            .collect();
        Ok(LoadedHandle {
            model,
            exe,
            client,
            devices,
            logical_ids,
        })
    }

    pub fn into_raw(self) -> *mut PJRT_LoadedExecutable {
        Box::into_raw(Box::new(self)) as *mut PJRT_LoadedExecutable
    }
}

/// Borrows a loaded executable from its handle.
///
/// # Safety
/// `raw` must be NULL or a live loaded executable.
pub(crate) unsafe fn loaded<'a>(
    raw: *const PJRT_LoadedExecutable,
) -> ApiResult<&'a LoadedHandle> {
    unsafe { handle(raw, "executable") }
}

args_min_size! {
    PJRT_Compile_Args => executable,
    PJRT_Client_Load_Args => loaded_executable,
    PJRT_Client_Compile_Args => executable,
    PJRT_Executable_DeserializeAndLoad_Args => loaded_executable,
    PJRT_LoadedExecutable_Destroy_Args => executable,
    PJRT_LoadedExecutable_GetExecutable_Args => executable,
    PJRT_LoadedExecutable_AddressableDevices_Args => num_addressable_devices,
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args => num_addressable_device_logical_ids,
    PJRT_LoadedExecutable_GetDeviceAssignment_Args => serialized_device_assignment_deleter,
    PJRT_LoadedExecutable_Delete_Args => executable,
    PJRT_LoadedExecutable_IsDeleted_Args => is_deleted,
    PJRT_LoadedExecutable_Fingerprint_Args => executable_fingerprint_size,
}

pub(crate) unsafe extern "C" fn client_compile(
    args: *mut PJRT_Client_Compile_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Client_Compile", args, |a| {
        let c = unsafe { client(a.client)? };
        let source = unsafe { read_source(a.program, a.compile_options, a.compile_options_size)? };
        tracing::debug!(
            "PJRT_Client_Compile: format {:?}, {} bytes",
            source.format,
            source.code.len()
        );
        dump_program(&source.format, &source.code);
        let exe = ExecutableView::compile(source)?;
        a.executable = LoadedHandle::load(exe, c.state.clone())?.into_raw();
        Ok(())
    })
}

/// With `APU_DUMP_DIR` set, writes every program handed to `PJRT_Client_Compile` to
/// `<dir>/<pid>-<n>.<format>` (e.g. the HloModuleProto TensorFlow sends), for debugging.
fn dump_program(format: &str, code: &[u8]) {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("APU_DUMP_DIR") else { return };
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let ext: String = format.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let path = std::path::Path::new(&dir).join(format!("{}-{n}.{ext}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, code)) {
        tracing::warn!("APU_DUMP_DIR: cannot write {}: {e}", path.display());
    }
}

/// Ahead-of-time compile against a topology: the same checks as `PJRT_Client_Compile`, without
/// binding to devices. apu's only topologies are its clients' own, so any is accepted.
pub(crate) unsafe extern "C" fn compile(args: *mut PJRT_Compile_Args) -> *mut PJRT_Error {
    entry("PJRT_Compile", args, |a| {
        let source = unsafe { read_source(a.program, a.compile_options, a.compile_options_size)? };
        a.executable = ExecutableHandle::into_raw(ExecutableView::compile(source)?);
        Ok(())
    })
}

/// Binds a compiled executable to a client; new compile options, if given, replace the original
/// ones (which may change the device assignment), so the program is prepared again with them.
pub(crate) unsafe extern "C" fn client_load(args: *mut PJRT_Client_Load_Args) -> *mut PJRT_Error {
    entry("PJRT_Client_Load", args, |a| {
        let c = unsafe { client(a.client)? };
        let exe = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        let options = unsafe {
            slice(
                a.compile_options as *const u8,
                a.compile_options_size,
                "compile_options",
            )?
        };
        let exe = if options.is_empty() || options == exe.source.options.as_slice() {
            exe.clone()
        } else {
            ExecutableView::new(exe.with_options(options)?)
        };
        a.loaded_executable = LoadedHandle::load(exe, c.state.clone())?.into_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_deserialize_and_load(
    args: *mut PJRT_Executable_DeserializeAndLoad_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_DeserializeAndLoad", args, |a| {
        let c = unsafe { client(a.client)? };
        let bytes = unsafe {
            slice(
                a.serialized_executable as *const u8,
                a.serialized_executable_size,
                "serialized_executable",
            )?
        };
        let overridden = unsafe {
            slice(
                a.overridden_serialized_compile_options as *const u8,
                a.overridden_serialized_compile_options_size,
                "overridden_serialized_compile_options",
            )?
        };
        // Logged like PJRT_Client_Compile: with APU_LOG=debug a run shows which of the two made each program.
        tracing::debug!("PJRT_Executable_DeserializeAndLoad: {} bytes", bytes.len());
        let exe = ExecutableView::new(Executable::deserialize(bytes, overridden)?);
        a.loaded_executable = LoadedHandle::load(exe, c.state.clone())?.into_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_destroy(
    args: *mut PJRT_LoadedExecutable_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_Destroy", args, |a| {
        if !a.executable.is_null() {
            drop(unsafe { Box::from_raw(a.executable as *mut LoadedHandle) });
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_get_executable(
    args: *mut PJRT_LoadedExecutable_GetExecutable_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_GetExecutable", args, |a| {
        let l = unsafe { loaded(a.loaded_executable)? };
        // A new handle the caller frees with PJRT_Executable_Destroy.
        a.executable = ExecutableHandle::into_raw(l.exe.clone());
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_addressable_devices(
    args: *mut PJRT_LoadedExecutable_AddressableDevices_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_AddressableDevices", args, |a| {
        let l = unsafe { loaded(a.executable)? };
        a.addressable_devices = l.devices.as_ptr();
        a.num_addressable_devices = l.devices.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_addressable_device_logical_ids(
    args: *mut PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,
) -> *mut PJRT_Error {
    entry(
        "PJRT_LoadedExecutable_AddressableDeviceLogicalIds",
        args,
        |a| {
            let l = unsafe { loaded(a.executable)? };
            a.addressable_device_logical_ids = l.logical_ids.as_ptr() as *mut PJRT_LogicalDeviceIds;
            a.num_addressable_device_logical_ids = l.logical_ids.len();
            Ok(())
        },
    )
}

unsafe extern "C" fn free_device_assignment(p: *mut PJRT_DeviceAssignmentSerialized) {
    if !p.is_null() {
        drop(unsafe { Box::from_raw(p as *mut OwnedBytes) });
    }
}

pub(crate) unsafe extern "C" fn loaded_get_device_assignment(
    args: *mut PJRT_LoadedExecutable_GetDeviceAssignment_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_GetDeviceAssignment", args, |a| {
        let l = unsafe { loaded(a.executable)? };
        let owned = Box::new(OwnedBytes(l.model.device_assignment().to_vec()));
        a.serialized_bytes = owned.0.as_ptr() as *const c_char;
        a.serialized_bytes_size = owned.0.len();
        a.serialized_device_assignment =
            Box::into_raw(owned) as *mut PJRT_DeviceAssignmentSerialized;
        a.serialized_device_assignment_deleter = Some(free_device_assignment);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_delete(
    args: *mut PJRT_LoadedExecutable_Delete_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_Delete", args, |a| {
        unsafe { loaded(a.executable)? }.model.delete();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_is_deleted(
    args: *mut PJRT_LoadedExecutable_IsDeleted_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_IsDeleted", args, |a| {
        a.is_deleted = unsafe { loaded(a.executable)? }.model.is_deleted();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn loaded_fingerprint(
    args: *mut PJRT_LoadedExecutable_Fingerprint_Args,
) -> *mut PJRT_Error {
    entry("PJRT_LoadedExecutable_Fingerprint", args, |a| {
        let fp = unsafe { loaded(a.executable)? }.exe.fingerprint();
        a.executable_fingerprint = fp.as_ptr() as *const c_char;
        a.executable_fingerprint_size = fp.len();
        Ok(())
    })
}
