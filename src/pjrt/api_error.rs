//! `ApiError`: an error as the plug-in hands it across the C boundary (a `PJRT_Error*`).
//!
//! Since API 0.112 a `PJRT_Error` is not fully opaque: it starts with a pointer to a function table
//! (`destroy`, `message`, `get_code`, `for_each_payload`) that a framework may call directly. The
//! error object therefore embeds that header as its first member. Its code is the device model's
//! [`Code`], whose numbers are the C API's.

use apu_pjrt_api::*;
use apu_runtime::Code;
use std::os::raw::{c_char, c_void};

/// An error as handed across the C boundary. `#[repr(C)]` with the function-table header first.
#[repr(C)]
pub(crate) struct ApiError {
    header: PJRT_Error,
    code: Code,
    message: String,
}

// SAFETY: the header only points at the immutable static function table.
unsafe impl Send for ApiError {}
unsafe impl Sync for ApiError {}

impl std::fmt::Debug for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl ApiError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ApiError {
            header: PJRT_Error {
                vtable: &ERROR_VTABLE.0,
            },
            code,
            message: message.into(),
        }
    }
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(Code::Unimplemented, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::Internal, message)
    }
    pub fn failed_precondition(message: impl Into<String>) -> Self {
        Self::new(Code::FailedPrecondition, message)
    }
    pub fn code(&self) -> Code {
        self.code
    }
    pub fn message(&self) -> &str {
        &self.message
    }
    /// Puts `prefix: ` in front of the message (usually the PJRT function name).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}: {}", self.message);
        self
    }

    /// Hands ownership to the caller; freed by `PJRT_Error_Destroy` or the table's `destroy`.
    pub fn into_raw(self) -> *mut PJRT_Error {
        Box::into_raw(Box::new(self)) as *mut PJRT_Error
    }

    /// Takes back an error made by [`ApiError::into_raw`].
    ///
    /// # Safety
    /// `raw` must come from `into_raw` and not have been freed.
    pub unsafe fn from_raw(raw: *mut PJRT_Error) -> ApiError {
        *unsafe { Box::from_raw(raw as *mut ApiError) }
    }

    /// # Safety
    /// `raw` must be a live error made by [`ApiError::into_raw`].
    pub unsafe fn borrow<'a>(raw: *const PJRT_Error) -> &'a ApiError {
        unsafe { &*(raw as *const ApiError) }
    }
}

/// The code of a raw `PJRT_Error_Code` set by a caller; numbers apu does not know read as UNKNOWN.
pub(crate) fn code_from_raw(code: PJRT_Error_Code) -> Code {
    Code::from_u32(code as u32).unwrap_or(Code::Unknown)
}

/// Errors of the device model: the code is a field, the contexts become `in …` lines.
impl From<apu_runtime::Error> for ApiError {
    fn from(e: apu_runtime::Error) -> Self {
        ApiError::new(e.code, e.full_message())
    }
}

/// Errors of the compiler, through the device model's conversion.
impl From<apu_compiler::Error> for ApiError {
    fn from(e: apu_compiler::Error) -> Self {
        ApiError::from(apu_runtime::Error::from(e))
    }
}

/// The other direction, for errors a caller hands to the runtime (failed events and buffers).
impl From<&ApiError> for apu_runtime::Error {
    fn from(e: &ApiError) -> Self {
        apu_runtime::Error::new(e.code, e.message.clone())
    }
}

// ---- The function table embedded in every error ----------------------------------------------

struct SyncErrorTable(PJRT_Error_FunctionTable);
// SAFETY: immutable after construction; its only pointer (extension_start) is NULL.
unsafe impl Sync for SyncErrorTable {}

static ERROR_VTABLE: SyncErrorTable = SyncErrorTable(PJRT_Error_FunctionTable {
    struct_size: std::mem::size_of::<PJRT_Error_FunctionTable>(),
    instance_size: std::mem::size_of::<ApiError>(),
    extension_start: std::ptr::null_mut(),
    destroy: Some(vtable_destroy),
    message: Some(vtable_message),
    get_code: Some(vtable_get_code),
    for_each_payload: Some(vtable_for_each_payload),
});

unsafe extern "C" fn vtable_destroy(error: *mut PJRT_Error) {
    if !error.is_null() {
        let _ = std::panic::catch_unwind(|| drop(unsafe { ApiError::from_raw(error) }));
    }
}

unsafe extern "C" fn vtable_message(
    error: *const PJRT_Error,
    message: *mut *const c_char,
    size: *mut usize,
) {
    if error.is_null() {
        return;
    }
    let e = unsafe { ApiError::borrow(error) };
    if !message.is_null() {
        unsafe { *message = e.message.as_ptr() as *const c_char };
    }
    if !size.is_null() {
        unsafe { *size = e.message.len() };
    }
}

unsafe extern "C" fn vtable_get_code(error: *const PJRT_Error) -> PJRT_Error_Code {
    if error.is_null() {
        return PJRT_Error_Code_OK;
    }
    unsafe { ApiError::borrow(error) }.code as u32 as PJRT_Error_Code
}

unsafe extern "C" fn vtable_for_each_payload(
    _: *const PJRT_Error,
    _: PJRT_Error_PayloadVisitor,
    _: *mut c_void,
) {
    // apu attaches no payloads.
}
