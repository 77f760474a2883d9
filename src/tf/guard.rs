//! The one choke point between TensorFlow's C callbacks and apu's Rust code.
//!
//! Every function TensorFlow calls (the plug-in entry points, kernel create/compute/delete, the
//! StreamExecutor callbacks) runs its body through one of these wrappers:
//!
//! - [`registration`]: entry points whose error status TensorFlow turns into a process abort
//!   (`SE_InitPlugin`, `TFNPD_InitPlugin`, `TF_InitKernel`). A panic or an error is logged, never
//!   reported through the status: a plug-in problem must not kill the user's process.
//! - [`with_status`]: callbacks that hand us a `TF_Status` TensorFlow reads afterwards (device and
//!   stream creation, memcpy): an error or a panic becomes a status code and message.
//! - [`kernel`]: an op kernel's compute: an error or a panic becomes `TF_OpKernelContext_Failure`,
//!   which Python raises as the exception of that code (`InvalidArgumentError`, `UnimplementedError`).
//! - [`quiet`]: callbacks without a status (delete, allocate, queries): a panic is logged and the
//!   given fallback value returned.
//!
//! Nothing unwinds across the C boundary: unwinding into TensorFlow's frames is undefined behaviour.

use crate::tf::symbols::{self, OwnedStatus};
use apu_compiler::error::ErrorKind;
use apu_pjrt_api::tf as c;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An error on its way to TensorFlow: a status code and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TfError {
    pub code: c::TF_Code,
    pub message: String,
}

impl TfError {
    pub fn new(code: c::TF_Code, message: impl Into<String>) -> Self {
        TfError { code, message: message.into() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(c::TF_Code_TF_INVALID_ARGUMENT, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(c::TF_Code_TF_INTERNAL, message)
    }
}

/// TensorFlow's status code for an apu error kind.
pub fn tf_code(kind: ErrorKind) -> c::TF_Code {
    match kind {
        ErrorKind::Unimplemented => c::TF_Code_TF_UNIMPLEMENTED,
        ErrorKind::InvalidArgument => c::TF_Code_TF_INVALID_ARGUMENT,
        ErrorKind::Internal => c::TF_Code_TF_INTERNAL,
    }
}

impl From<apu_compiler::Error> for TfError {
    fn from(e: apu_compiler::Error) -> Self {
        TfError { code: tf_code(e.kind), message: e.to_string() }
    }
}

impl From<String> for TfError {
    fn from(message: String) -> Self {
        TfError::internal(message)
    }
}

/// The text of a caught panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs `f`, turning a panic into an INTERNAL error naming `what`.
pub fn catch<T>(what: &str, f: impl FnOnce() -> Result<T, TfError>) -> Result<T, TfError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(TfError::internal(format!("apu: {what} panicked: {}", panic_text(&*p)))),
    }
}

/// A registration entry point: errors and panics are logged and `fallback` returned; no status is
/// ever set (TensorFlow aborts the process on a registration error).
pub fn registration<T>(what: &str, fallback: T, f: impl FnOnce() -> Result<T, TfError>) -> T {
    match catch(what, f) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("apu: {what}: {} (ignored: an error status here would abort TensorFlow)", e.message);
            fallback
        }
    }
}

/// A callback without a status: a panic is logged and `fallback` returned.
pub fn quiet<T>(what: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            eprintln!("apu: {what} panicked: {}", panic_text(&*p));
            fallback
        }
    }
}

/// A callback with a `TF_Status`: an error or a panic sets it.
///
/// # Safety
/// `status` is null or a live `TF_Status` handed to us by TensorFlow.
pub unsafe fn with_status(what: &str, status: *mut c::TF_Status, f: impl FnOnce() -> Result<(), TfError>) {
    if let Err(e) = catch(what, f) {
        match (symbols::api(), status.is_null()) {
            (Ok(api), false) => symbols::set_status(api, status, e.code, &e.message),
            _ => eprintln!("apu: {what}: {}", e.message),
        }
    }
}

/// An op kernel's compute: an error or a panic fails the kernel with the error's code and a message
/// naming the op.
///
/// # Safety
/// `ctx` is the live context of the running kernel.
pub unsafe fn kernel(op_name: &str, ctx: *mut c::TF_OpKernelContext, f: impl FnOnce() -> Result<(), TfError>) {
    let Err(e) = catch(op_name, f) else { return };
    let Ok(api) = symbols::api() else {
        eprintln!("apu: {op_name} on APU failed: {}", e.message);
        return;
    };
    // Building the status and failing the context cannot panic in Rust code we own, but guard
    // anyway: this runs in TensorFlow's executor thread.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let status = OwnedStatus::new(api);
        symbols::set_status(api, status.raw, e.code, &format!("apu: {op_name} on APU failed: {}", e.message));
        (api.kernel_failure.unwrap())(ctx, status.raw);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let e = catch::<()>("Relu compute", || panic!("boom {}", 7)).unwrap_err();
        assert_eq!(e.code, c::TF_Code_TF_INTERNAL);
        assert!(e.message.contains("Relu compute panicked: boom 7"), "{}", e.message);
    }

    #[test]
    fn apu_errors_keep_their_kind() {
        let e: TfError = apu_compiler::Error::unimplemented("grouped convolution").into();
        assert_eq!(e.code, c::TF_Code_TF_UNIMPLEMENTED);
        let e: TfError = apu_compiler::Error::invalid("bad axis").into();
        assert_eq!(e.code, c::TF_Code_TF_INVALID_ARGUMENT);
        assert!(e.message.contains("bad axis"));
    }

    #[test]
    fn registration_and_quiet_return_the_fallback_instead_of_unwinding() {
        assert_eq!(registration("SE_InitPlugin", 3, || panic!("no")), 3);
        assert_eq!(registration("TF_InitKernel", 4, || Err(TfError::internal("x"))), 4);
        assert_eq!(registration("TF_InitKernel", 4, || Ok(5)), 5);
        assert_eq!(quiet("allocate", 0usize, || panic!("no")), 0);
    }

    #[test]
    fn with_status_on_a_null_status_only_logs() {
        // SAFETY: a null status is allowed.
        unsafe { with_status("create_stream", std::ptr::null_mut(), || panic!("no")) };
    }
}
