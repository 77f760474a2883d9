//! The XLA FFI C ABI as apu implements it, written from the facts of `xla/ffi/api/c_api.h` (jaxlib
//! 0.10.2 ships API 0.3, jaxlib 0.12.0.1 API 0.5; the layouts below are 0.5's, whose every struct
//! extends 0.3's at its end, so handlers built against either read them; docs/integration-notes.md).
//!
//! Every argument struct starts with its `struct_size` and an extension pointer. A struct's size is
//! where its last field ends (not `size_of`, which would count trailing padding), and a handler
//! compares the call frame's exactly.

use std::ffi::{c_char, c_int, c_void};

pub const API_MAJOR: c_int = 0;
pub const API_MINOR: c_int = 5;

/// The end of `field` in `T`: the size XLA's headers give a struct whose last field is `field`.
#[macro_export]
macro_rules! ffi_struct_size {
    ($t:ty, $field:ident) => {{
        let probe = std::mem::MaybeUninit::<$t>::uninit();
        let base = probe.as_ptr();
        // SAFETY: only field addresses are computed, nothing is read.
        let field = unsafe { std::ptr::addr_of!((*base).$field) };
        fn size_of_pointee<F>(_: *const F) -> usize {
            std::mem::size_of::<F>()
        }
        (field as usize - base as usize) + size_of_pointee(field)
    }};
}
pub use crate::ffi_struct_size as struct_size;

/// An opaque error object; handlers create and read them only through the API table.
pub struct FfiError {
    pub code: c_int,
    pub message: std::ffi::CString,
}

/// `XLA_FFI_Error_Code` values apu produces.
pub mod code {
    pub const INVALID_ARGUMENT: i32 = 3;
    pub const NOT_FOUND: i32 = 5;
    pub const RESOURCE_EXHAUSTED: i32 = 8;
    pub const UNIMPLEMENTED: i32 = 12;
    pub const INTERNAL: i32 = 13;
}

/// `XLA_FFI_ExecutionStage`: apu runs the execute stage only.
pub const STAGE_EXECUTE: c_int = 3;
pub const ARG_BUFFER: c_int = 1;
pub const RET_BUFFER: c_int = 1;
pub const ATTR_ARRAY: c_int = 1;
pub const ATTR_DICTIONARY: c_int = 2;
pub const ATTR_SCALAR: c_int = 3;
pub const ATTR_STRING: c_int = 4;

#[repr(C)]
pub struct ApiVersion {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub major_version: c_int,
    pub minor_version: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ByteSpan {
    pub ptr: *const c_char,
    pub len: usize,
}

impl ByteSpan {
    /// # Safety
    /// `ptr` must point at `len` readable bytes (or be null with `len` 0).
    pub unsafe fn to_string_lossy(self) -> String {
        if self.ptr.is_null() || self.len == 0 {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len)).into_owned()
    }
}

#[repr(C)]
pub struct Buffer {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub dtype: c_int,
    pub data: *mut c_void,
    pub rank: i64,
    pub dims: *mut i64,
}

#[repr(C)]
pub struct Scalar {
    pub dtype: c_int,
    pub value: *mut c_void,
}

#[repr(C)]
pub struct Array {
    pub dtype: c_int,
    pub size: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct Args {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub size: i64,
    pub types: *mut c_int,
    pub args: *mut *mut c_void,
}

#[repr(C)]
pub struct Rets {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub size: i64,
    pub types: *mut c_int,
    pub rets: *mut *mut c_void,
}

#[repr(C)]
pub struct Attrs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub size: i64,
    pub types: *mut c_int,
    pub names: *mut *mut ByteSpan,
    pub attrs: *mut *mut c_void,
}

#[repr(C)]
pub struct CallFrame {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub api: *const Api,
    pub ctx: *mut c_void,
    pub stage: c_int,
    pub args: Args,
    pub rets: Rets,
    pub attrs: Attrs,
    /// Out: set by a handler that finishes asynchronously. Not counted in `struct_size`.
    pub future: *mut c_void,
}

pub type Handler = unsafe extern "C" fn(*mut CallFrame) -> *mut FfiError;

#[repr(C)]
pub struct HandlerBundle {
    pub instantiate: Option<Handler>,
    pub prepare: Option<Handler>,
    pub initialize: Option<Handler>,
    pub execute: Option<Handler>,
}

#[repr(C)]
pub struct ErrorCreateArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub message: *const c_char,
    pub errc: c_int,
}

/// 0.3 ends after `message` (it was Error_GetMessage); 0.5 adds `errc`.
#[repr(C)]
pub struct ErrorGetDetailsArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub error: *mut FfiError,
    pub message: *const c_char,
    pub errc: c_int,
}

#[repr(C)]
pub struct ErrorDestroyArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub error: *mut FfiError,
}

/// Name, platform and the handler bundle's first four stages; what follows differs between versions.
#[repr(C)]
pub struct HandlerRegisterArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub name: ByteSpan,
    pub platform: ByteSpan,
    pub bundle: HandlerBundle,
}

#[repr(C)]
pub struct TypeRegisterArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub name: ByteSpan,
    pub type_id: *mut i64,
}

/// The shape shared by the calls that take only the invocation context and one out pointer-sized
/// value (Stream_Get, RunId_Get as i64, ...): apu reads `ctx` and writes `out`.
#[repr(C)]
pub struct CtxOutArgs<T> {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub out: T,
}

#[repr(C)]
pub struct InvokeContextGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub type_id: *mut i64,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct StateArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub stage: c_int,
    pub type_id: *mut i64,
    pub state: *mut c_void,
}

#[repr(C)]
pub struct DeviceMemoryAllocateArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub size: usize,
    pub alignment: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct DeviceMemoryFreeArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub size: usize,
    pub data: *mut c_void,
}

pub type Task = unsafe extern "C" fn(*mut c_void);

#[repr(C)]
pub struct ThreadPoolScheduleArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub task: Option<Task>,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct FutureArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub future: *mut c_void,
}

#[repr(C)]
pub struct FutureSetErrorArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub future: *mut c_void,
    pub error: *mut FfiError,
}

#[repr(C)]
pub struct FindExtensionArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub extension_type: i64,
    pub extension: *const c_void,
}

#[repr(C)]
pub struct CustomOptionsGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub ctx: *mut c_void,
    pub attrs: *const Attrs,
}

type Fn<A> = unsafe extern "C" fn(*mut A) -> *mut FfiError;

/// The function table handed to every handler in its call frame, in 0.5's order.
#[repr(C)]
pub struct Api {
    pub struct_size: usize,
    pub extension_start: *mut c_void,
    pub api_version: ApiVersion,
    pub internal_api: *const c_void,
    pub error_create: unsafe extern "C" fn(*mut ErrorCreateArgs) -> *mut FfiError,
    pub error_get_details: unsafe extern "C" fn(*mut ErrorGetDetailsArgs),
    pub error_destroy: unsafe extern "C" fn(*mut ErrorDestroyArgs),
    pub handler_register: Fn<HandlerRegisterArgs>,
    pub stream_get: Fn<CtxOutArgs<*mut c_void>>,
    pub type_register: Fn<TypeRegisterArgs>,
    pub invoke_context_get: Fn<InvokeContextGetArgs>,
    pub state_set: Fn<StateArgs>,
    pub state_get: Fn<StateArgs>,
    pub device_memory_allocate: Fn<DeviceMemoryAllocateArgs>,
    pub device_memory_free: Fn<DeviceMemoryFreeArgs>,
    pub thread_pool_schedule: Fn<ThreadPoolScheduleArgs>,
    pub thread_pool_num_threads: Fn<CtxOutArgs<*mut i64>>,
    pub future_create: Fn<FutureArgs>,
    pub future_set_available: Fn<FutureArgs>,
    pub future_set_error: Fn<FutureSetErrorArgs>,
    pub run_id_get: Fn<CtxOutArgs<i64>>,
    pub device_ordinal_get: Fn<CtxOutArgs<i32>>,
    pub invoke_context_find_extension: Fn<FindExtensionArgs>,
    pub custom_options_get: Fn<CustomOptionsGetArgs>,
}

// SAFETY: the table is immutable and its pointers (null extension/internal pointers, functions) are
// valid from any thread.
unsafe impl Sync for Api {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes XLA's `*_STRUCT_SIZE` constants have in jaxlib 0.12.0.1's c_api.h on x86-64 (printed
    /// by a C program against that header): handlers compare the call frame's exactly.
    #[test]
    fn struct_sizes_match_xla_ffi_api_0_5() {
        assert_eq!(struct_size!(CallFrame, attrs), 168);
        assert_eq!(struct_size!(Buffer, dims), 48);
        assert_eq!(struct_size!(Args, args), 40);
        assert_eq!(struct_size!(Rets, rets), 40);
        assert_eq!(struct_size!(Attrs, attrs), 48);
        assert_eq!(struct_size!(Api, custom_options_get), 208);
        assert_eq!(struct_size!(ErrorGetDetailsArgs, errc), 36);
        assert_eq!(struct_size!(ErrorCreateArgs, errc), 28);
        assert_eq!(std::mem::offset_of!(HandlerRegisterArgs, bundle), 48);
    }
}
