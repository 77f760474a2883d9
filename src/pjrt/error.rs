//! `PJRT_Error`: the error objects the plugin returns, and the `PJRT_Error_*` functions.
//!
//! Since API 0.112 a `PJRT_Error` is not fully opaque: it starts with a pointer to a function table
//! (`destroy`, `message`, `get_code`, `for_each_payload`) that a framework may call directly. Our
//! error object therefore embeds that header as its first member and answers through both routes.

use super::guard::{args_min_size, entry, entry_void};
use apu_pjrt_api::*;
use std::os::raw::{c_char, c_void};

/// Error codes, numbered as in the C API (`PJRT_Error_Code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum ErrorCode {
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    NotFound = 5,
    AlreadyExists = 6,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
}

impl ErrorCode {
    pub fn from_raw(code: PJRT_Error_Code) -> Option<ErrorCode> {
        use ErrorCode::*;
        Some(match code {
            1 => Cancelled,
            2 => Unknown,
            3 => InvalidArgument,
            5 => NotFound,
            6 => AlreadyExists,
            8 => ResourceExhausted,
            9 => FailedPrecondition,
            10 => Aborted,
            11 => OutOfRange,
            12 => Unimplemented,
            13 => Internal,
            14 => Unavailable,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        use ErrorCode::*;
        match self {
            Cancelled => "CANCELLED",
            Unknown => "UNKNOWN",
            InvalidArgument => "INVALID_ARGUMENT",
            NotFound => "NOT_FOUND",
            AlreadyExists => "ALREADY_EXISTS",
            ResourceExhausted => "RESOURCE_EXHAUSTED",
            FailedPrecondition => "FAILED_PRECONDITION",
            Aborted => "ABORTED",
            OutOfRange => "OUT_OF_RANGE",
            Unimplemented => "UNIMPLEMENTED",
            Internal => "INTERNAL",
            Unavailable => "UNAVAILABLE",
        }
    }
}

/// An error as handed across the C boundary. `#[repr(C)]` with the function-table header first.
#[repr(C)]
pub(crate) struct ApiError {
    header: PJRT_Error,
    code: ErrorCode,
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
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            header: PJRT_Error {
                vtable: &ERROR_VTABLE.0,
            },
            code,
            message: message.into(),
        }
    }
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unimplemented, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
    pub fn failed_precondition(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::FailedPrecondition, message)
    }
    #[cfg(test)]
    pub fn code(&self) -> ErrorCode {
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
    unsafe fn borrow<'a>(raw: *const PJRT_Error) -> &'a ApiError {
        unsafe { &*(raw as *const ApiError) }
    }
}

/// Context entry that carries a PJRT code the compiler's three error kinds cannot express (e.g.
/// ABORTED set by a caller on an event) through the runtime, which only knows compiler errors.
const CODE_CONTEXT_PREFIX: &str = "pjrt-error-code:";

/// Errors of the compiler and runtime crates.
impl From<apu_compiler::Error> for ApiError {
    fn from(e: apu_compiler::Error) -> Self {
        use apu_compiler::error::ErrorKind;
        let mut code = match e.kind {
            ErrorKind::Unimplemented => ErrorCode::Unimplemented,
            ErrorKind::InvalidArgument => ErrorCode::InvalidArgument,
            ErrorKind::Internal => ErrorCode::Internal,
        };
        let mut message = e.message;
        for ctx in &e.context {
            if let Some(carried) = ctx.strip_prefix(CODE_CONTEXT_PREFIX) {
                code = carried
                    .parse()
                    .ok()
                    .and_then(ErrorCode::from_raw)
                    .unwrap_or(code);
                continue;
            }
            message.push_str("\n  in ");
            message.push_str(ctx);
        }
        ApiError::new(code, message)
    }
}

/// The other direction, for errors that travel through runtime events. The PJRT code survives
/// the round trip.
impl From<&ApiError> for apu_compiler::Error {
    fn from(e: &ApiError) -> Self {
        match e.code {
            ErrorCode::Unimplemented => apu_compiler::Error::unimplemented(e.message.clone()),
            ErrorCode::Internal => apu_compiler::Error::internal(e.message.clone()),
            ErrorCode::InvalidArgument => apu_compiler::Error::invalid(e.message.clone()),
            other => apu_compiler::Error::invalid(e.message.clone())
                .context(format!("{CODE_CONTEXT_PREFIX}{}", other as u32)),
        }
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
    unsafe { ApiError::borrow(error) }.code as PJRT_Error_Code
}

unsafe extern "C" fn vtable_for_each_payload(
    _: *const PJRT_Error,
    _: PJRT_Error_PayloadVisitor,
    _: *mut c_void,
) {
    // apu attaches no payloads.
}

// ---- PJRT_Error_* entry points ----------------------------------------------------------------

args_min_size! {
    PJRT_Error_Destroy_Args => error,
    PJRT_Error_Message_Args => message_size,
    PJRT_Error_GetCode_Args => code,
    PJRT_Error_ForEachPayload_Args => user_arg,
}

pub(crate) unsafe extern "C" fn error_destroy(args: *mut PJRT_Error_Destroy_Args) {
    entry_void("PJRT_Error_Destroy", args, |a| {
        if !a.error.is_null() {
            drop(unsafe { ApiError::from_raw(a.error) });
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn error_message(args: *mut PJRT_Error_Message_Args) {
    entry_void("PJRT_Error_Message", args, |a| {
        if a.error.is_null() {
            a.message = std::ptr::null();
            a.message_size = 0;
        } else {
            let e = unsafe { ApiError::borrow(a.error) };
            a.message = e.message.as_ptr() as *const c_char;
            a.message_size = e.message.len();
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn error_get_code(
    args: *mut PJRT_Error_GetCode_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Error_GetCode", args, |a| {
        a.code = if a.error.is_null() {
            PJRT_Error_Code_OK
        } else {
            unsafe { ApiError::borrow(a.error) }.code as PJRT_Error_Code
        };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn error_for_each_payload(
    args: *mut PJRT_Error_ForEachPayload_Args,
) -> *mut PJRT_Error {
    // No payloads: nothing to visit.
    entry("PJRT_Error_ForEachPayload", args, |_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_answer_through_the_function_table() {
        let raw = ApiError::unimplemented("no such thing").into_raw();
        unsafe {
            let table = &*(*raw).vtable;
            assert_eq!(table.get_code.unwrap()(raw), PJRT_Error_Code_UNIMPLEMENTED);
            let (mut msg, mut len) = (std::ptr::null(), 0usize);
            table.message.unwrap()(raw, &mut msg, &mut len);
            assert_eq!(
                std::slice::from_raw_parts(msg as *const u8, len),
                b"no such thing"
            );
            table.destroy.unwrap()(raw);
        }
    }

    #[test]
    fn compiler_error_kinds_map_to_codes() {
        let e: ApiError = apu_compiler::Error::unimplemented("op x")
            .context("function @main")
            .into();
        assert_eq!(e.code(), ErrorCode::Unimplemented);
        assert_eq!(e.message(), "op x\n  in function @main");
        let e: ApiError = apu_compiler::Error::invalid("bad").into();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
    }

    #[test]
    fn codes_survive_a_trip_through_runtime_errors() {
        for code in [
            ErrorCode::Aborted,
            ErrorCode::Cancelled,
            ErrorCode::Internal,
            ErrorCode::NotFound,
        ] {
            let runtime: apu_compiler::Error = (&ApiError::new(code, "stop")).into();
            let back = ApiError::from(runtime.context("while running"));
            assert_eq!(back.code(), code);
            assert_eq!(back.message(), "stop\n  in while running");
        }
    }
}
