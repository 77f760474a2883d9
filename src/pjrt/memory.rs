//! `PJRT_Memory`: the C view of one of a device's memory spaces (one per kind, `device` first). Since API 0.112 a `PJRT_Memory`
//! starts with a function table through which a framework may attach keyed user data, so the
//! object is `#[repr(C)]` with that header first.

use super::api_error::ApiError;
use super::guard::{args_min_size, entry, handle, PtrList};
use apu_pjrt_api::*;
use std::os::raw::{c_char, c_void};
use std::sync::Mutex;

use apu_runtime::client::MemoryKind;

type UserDataDtor = unsafe extern "C" fn(*mut c_void);

struct UserData {
    key: usize,
    data: usize,
    dtor: Option<UserDataDtor>,
}

#[repr(C)]
pub(crate) struct Memory {
    header: PJRT_Memory,
    pub id: usize,
    pub device_index: usize,
    pub kind: MemoryKind,
    pub debug_string: String,
    pub to_string: String,
    /// The devices that can address this memory (its own device); filled in by the client.
    pub devices: PtrList<PJRT_Device>,
    user_data: Mutex<Vec<UserData>>,
}

// SAFETY: the header points at the immutable static function table; user data is behind a mutex
// and only stored, never dereferenced, by the plugin.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Memory {
    /// The C view of a device's memory space.
    pub fn new(m: &apu_runtime::client::MemorySpace) -> Self {
        Memory {
            header: PJRT_Memory {
                vtable: &MEMORY_VTABLE.0,
            },
            id: m.id,
            device_index: m.device_index,
            kind: m.kind,
            debug_string: m.debug_string.clone(),
            to_string: m.to_string.clone(),
            devices: PtrList(Vec::new()),
            user_data: Mutex::new(Vec::new()),
        }
    }

    pub fn as_raw(&self) -> *mut PJRT_Memory {
        self as *const Memory as *mut PJRT_Memory
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        let entries =
            std::mem::take(&mut *self.user_data.lock().unwrap_or_else(|p| p.into_inner()));
        for e in entries {
            if let Some(dtor) = e.dtor {
                // SAFETY: the framework registered this destructor for this data.
                unsafe { dtor(e.data as *mut c_void) };
            }
        }
    }
}

/// Borrows a memory from its handle.
///
/// # Safety
/// `raw` must be NULL or a memory of a live client.
pub(crate) unsafe fn memory<'a>(raw: *const PJRT_Memory) -> Result<&'a Memory, ApiError> {
    unsafe { handle(raw, "memory") }
}

// ---- Function table ----------------------------------------------------------------------------

struct SyncMemoryTable(PJRT_Memory_FunctionTable);
// SAFETY: immutable; its only pointer (extension_start) is NULL.
unsafe impl Sync for SyncMemoryTable {}

static MEMORY_VTABLE: SyncMemoryTable = SyncMemoryTable(PJRT_Memory_FunctionTable {
    struct_size: std::mem::size_of::<PJRT_Memory_FunctionTable>(),
    extension_start: std::ptr::null_mut(),
    instance_struct_size: std::mem::size_of::<Memory>(),
    get_user_data: Some(get_user_data),
    set_user_data: Some(set_user_data),
});

unsafe extern "C" fn get_user_data(memory: *mut PJRT_Memory, key: *const c_void) -> *mut c_void {
    if memory.is_null() {
        return std::ptr::null_mut();
    }
    let m = unsafe { &*(memory as *const Memory) };
    let list = m.user_data.lock().unwrap_or_else(|p| p.into_inner());
    list.iter()
        .find(|e| e.key == key as usize)
        .map_or(std::ptr::null_mut(), |e| e.data as *mut c_void)
}

unsafe extern "C" fn set_user_data(
    memory: *mut PJRT_Memory,
    key: *const c_void,
    data: *mut c_void,
    dtor: Option<UserDataDtor>,
) {
    if memory.is_null() {
        return;
    }
    let m = unsafe { &*(memory as *const Memory) };
    let replaced = {
        let mut list = m.user_data.lock().unwrap_or_else(|p| p.into_inner());
        let old = list
            .iter()
            .position(|e| e.key == key as usize)
            .map(|i| list.remove(i));
        list.push(UserData {
            key: key as usize,
            data: data as usize,
            dtor,
        });
        old
    };
    // Destroy replaced data outside the lock: its destructor may call back into us.
    if let Some(UserData {
        data,
        dtor: Some(dtor),
        ..
    }) = replaced
    {
        unsafe { dtor(data as *mut c_void) };
    }
}

// ---- PJRT_Memory_* entry points ----------------------------------------------------------------

args_min_size! {
    PJRT_Memory_Id_Args => id,
    PJRT_Memory_Kind_Args => kind_size,
    PJRT_Memory_Kind_Id_Args => kind_id,
    PJRT_Memory_DebugString_Args => debug_string_size,
    PJRT_Memory_ToString_Args => to_string_size,
    PJRT_Memory_AddressableByDevices_Args => num_devices,
}

pub(crate) unsafe extern "C" fn memory_id(args: *mut PJRT_Memory_Id_Args) -> *mut PJRT_Error {
    entry("PJRT_Memory_Id", args, |a| {
        a.id = unsafe { memory(a.memory)? }.id as i32;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn memory_kind(args: *mut PJRT_Memory_Kind_Args) -> *mut PJRT_Error {
    entry("PJRT_Memory_Kind", args, |a| {
        let name = unsafe { memory(a.memory)? }.kind.name();
        a.kind = name.as_ptr() as *const c_char;
        a.kind_size = name.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn memory_kind_id(
    args: *mut PJRT_Memory_Kind_Id_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Memory_Kind_Id", args, |a| {
        a.kind_id = unsafe { memory(a.memory)? }.kind.id();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn memory_debug_string(
    args: *mut PJRT_Memory_DebugString_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Memory_DebugString", args, |a| {
        let m = unsafe { memory(a.memory)? };
        a.debug_string = m.debug_string.as_ptr() as *const c_char;
        a.debug_string_size = m.debug_string.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn memory_to_string(
    args: *mut PJRT_Memory_ToString_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Memory_ToString", args, |a| {
        let m = unsafe { memory(a.memory)? };
        a.to_string = m.to_string.as_ptr() as *const c_char;
        a.to_string_size = m.to_string.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn memory_addressable_by_devices(
    args: *mut PJRT_Memory_AddressableByDevices_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Memory_AddressableByDevices", args, |a| {
        let m = unsafe { memory(a.memory)? };
        a.devices = m.devices.as_ptr();
        a.num_devices = m.devices.len();
        Ok(())
    })
}
