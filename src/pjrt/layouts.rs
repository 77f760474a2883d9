//! The Layouts extension: what memory layout an array has on the device. apu stores every array
//! dense and row-major, so every layout is the "descending" one (`{n-1,...,1,0}` in HLO layout
//! text, minor-to-major). Clients that lack this extension find the layouts of an executable by
//! fetching `PJRT_Executable_OptimizedProgram` and compiling that text to HLO, several times per
//! compile — which cost more than apu's whole compile. The serialized form of a layout is its text.

use super::buffer::buffer;
use super::executable::ExecutableHandle;
use super::guard::{args_min_size, entry, handle, slice, ApiResult};
use super::layout_list::MemoryLayout;
use apu_pjrt_api::*;
use std::os::raw::c_char;

args_min_size! {
    PJRT_Layouts_MemoryLayout_Destroy_Args => layout,
    PJRT_Layouts_MemoryLayout_Serialize_Args => serialized_layout_deleter,
    PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args => layout,
    PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args => layout,
    PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args => layout,
    PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args => layouts,
    PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args => layouts,
}

pub(crate) unsafe extern "C" fn memory_layout_destroy(
    args: *mut PJRT_Layouts_MemoryLayout_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_MemoryLayout_Destroy", args, |a| {
        if !a.layout.is_null() {
            drop(unsafe { Box::from_raw(a.layout as *mut MemoryLayout) });
        }
        Ok(())
    })
}

/// The text of a serialized layout, alive until the client calls the deleter.
struct SerializedLayout(String);

unsafe extern "C" fn free_serialized_layout(p: *mut PJRT_Layouts_SerializedLayout) {
    if !p.is_null() {
        drop(unsafe { Box::from_raw(p as *mut SerializedLayout) });
    }
}

pub(crate) unsafe extern "C" fn memory_layout_serialize(
    args: *mut PJRT_Layouts_MemoryLayout_Serialize_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_MemoryLayout_Serialize", args, |a| {
        let layout: &MemoryLayout = unsafe { handle(a.layout, "layout")? };
        let owned = Box::new(SerializedLayout(layout.text().to_string()));
        a.serialized_bytes = owned.0.as_ptr() as *const c_char;
        a.serialized_bytes_size = owned.0.len();
        a.serialized_layout = Box::into_raw(owned) as *mut PJRT_Layouts_SerializedLayout;
        a.serialized_layout_deleter = Some(free_serialized_layout);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn buffer_memory_layout(
    args: *mut PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_PJRT_Buffer_MemoryLayout", args, |a| {
        let rank = unsafe { buffer(a.buffer, "buffer")? }.buffer.ty().rank();
        a.layout = MemoryLayout::descending(rank).into_raw();
        Ok(())
    })
}

/// Rank of a (dims, num_dims) argument, checking the pointer.
unsafe fn rank_of(dims: *const i64, num_dims: usize) -> ApiResult<usize> {
    Ok(unsafe { slice(dims, num_dims, "dims")? }.len())
}

pub(crate) unsafe extern "C" fn client_get_default_layout(
    args: *mut PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_PJRT_Client_GetDefaultLayout", args, |a| {
        unsafe { super::client::client(a.client)? };
        a.layout = MemoryLayout::descending(unsafe { rank_of(a.dims, a.num_dims)? }).into_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn topology_get_default_layout(
    args: *mut PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_PJRT_Topology_GetDefaultLayout", args, |a| {
        unsafe { handle::<_, u8>(a.topology_description, "topology_description")? };
        a.layout = MemoryLayout::descending(unsafe { rank_of(a.dims, a.num_dims)? }).into_raw();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_get_output_layouts(
    args: *mut PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_PJRT_Executable_GetOutputLayouts", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_outputs = e.output_layouts.len();
        a.layouts = e.output_layouts.as_ptr();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_get_parameter_layouts(
    args: *mut PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Layouts_PJRT_Executable_GetParameterLayouts", args, |a| {
        let e = &unsafe { handle::<_, ExecutableHandle>(a.executable, "executable")? }.exe;
        a.num_parameters = e.param_layouts.len();
        a.layouts = e.param_layouts.as_ptr();
        Ok(())
    })
}
