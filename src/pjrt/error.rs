//! The `PJRT_Error_*` functions, on errors made by [`ApiError`].

use super::api_error::ApiError;
use super::guard::{args_min_size, entry, entry_void};
use apu_pjrt_api::*;
use std::os::raw::c_char;

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
            a.message = e.message().as_ptr() as *const c_char;
            a.message_size = e.message().len();
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
            unsafe { ApiError::borrow(a.error) }.code() as u32 as PJRT_Error_Code
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
    use apu_runtime::Code;

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
        assert_eq!(e.code(), Code::Unimplemented);
        assert_eq!(e.message(), "op x\n  in function @main");
        let e: ApiError = apu_compiler::Error::invalid("bad").into();
        assert_eq!(e.code(), Code::InvalidArgument);
    }

    #[test]
    fn codes_survive_a_trip_through_runtime_errors() {
        for code in [
            Code::Aborted,
            Code::Cancelled,
            Code::Internal,
            Code::NotFound,
        ] {
            let runtime: apu_runtime::Error = (&ApiError::new(code, "stop")).into();
            let back = ApiError::from(runtime.context("while running"));
            assert_eq!(back.code(), code);
            assert_eq!(back.message(), "stop\n  in while running");
        }
    }

    #[test]
    fn every_code_has_the_c_apis_number() {
        let pairs = [
            (Code::Cancelled, PJRT_Error_Code_CANCELLED),
            (Code::Unknown, PJRT_Error_Code_UNKNOWN),
            (Code::InvalidArgument, PJRT_Error_Code_INVALID_ARGUMENT),
            (Code::DeadlineExceeded, PJRT_Error_Code_DEADLINE_EXCEEDED),
            (Code::NotFound, PJRT_Error_Code_NOT_FOUND),
            (Code::AlreadyExists, PJRT_Error_Code_ALREADY_EXISTS),
            (Code::PermissionDenied, PJRT_Error_Code_PERMISSION_DENIED),
            (Code::ResourceExhausted, PJRT_Error_Code_RESOURCE_EXHAUSTED),
            (Code::FailedPrecondition, PJRT_Error_Code_FAILED_PRECONDITION),
            (Code::Aborted, PJRT_Error_Code_ABORTED),
            (Code::OutOfRange, PJRT_Error_Code_OUT_OF_RANGE),
            (Code::Unimplemented, PJRT_Error_Code_UNIMPLEMENTED),
            (Code::Internal, PJRT_Error_Code_INTERNAL),
            (Code::Unavailable, PJRT_Error_Code_UNAVAILABLE),
            (Code::DataLoss, PJRT_Error_Code_DATA_LOSS),
            (Code::Unauthenticated, PJRT_Error_Code_UNAUTHENTICATED),
        ];
        assert_eq!(pairs.len(), Code::ALL.len());
        for (code, raw) in pairs {
            assert_eq!(code as u32 as PJRT_Error_Code, raw, "{code:?}");
            assert_eq!(super::super::api_error::code_from_raw(raw), code);
            let raw_error = ApiError::new(code, "x").into_raw();
            let mut a: PJRT_Error_GetCode_Args = unsafe { std::mem::zeroed() };
            a.struct_size = std::mem::size_of::<PJRT_Error_GetCode_Args>();
            a.error = raw_error;
            assert!(unsafe { error_get_code(&mut a) }.is_null());
            assert_eq!(a.code, raw, "{code:?} through PJRT_Error_GetCode");
            drop(unsafe { ApiError::from_raw(raw_error) });
        }
        assert_eq!(super::super::api_error::code_from_raw(99), Code::Unknown);
    }
}
