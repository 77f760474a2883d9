//! The C entries through which a host (the wheel's Python package) registers typed FFI handlers for
//! platform apu: `jax.ffi.register_ffi_target(name, capsule, platform="apu")` reaches
//! `apu_ffi_register` with the capsule's function pointer, and `jax.ffi.register_ffi_type` reaches
//! `apu_ffi_register_type`. Each returns 0, or non-zero with a NUL-terminated message of at most
//! `error_len` bytes written into `error`.

use apu_runtime::ffi::{abi::Handler, api::register_type, registry};
use std::ffi::{c_char, c_int, c_void, CStr};

fn write_error(error: *mut c_char, error_len: usize, message: &str) {
    if error.is_null() || error_len == 0 {
        return;
    }
    let n = message.len().min(error_len - 1);
    // SAFETY: the caller provides `error_len` writable bytes at `error`.
    unsafe {
        std::ptr::copy_nonoverlapping(message.as_ptr().cast::<c_char>(), error, n);
        *error.add(n) = 0;
    }
}

fn guarded(error: *mut c_char, error_len: usize, f: impl FnOnce() -> Result<(), String> + std::panic::UnwindSafe) -> c_int {
    match std::panic::catch_unwind(f) {
        Ok(Ok(())) => 0,
        Ok(Err(message)) => {
            write_error(error, error_len, &message);
            1
        }
        Err(_) => {
            write_error(error, error_len, "internal error in apu while registering an FFI handler");
            2
        }
    }
}

/// Registers `execute` (an `XLA_FFI_Handler*`) as the FFI handler `name` for platform apu.
#[no_mangle]
pub extern "C" fn apu_ffi_register(name: *const c_char, execute: *const c_void, error: *mut c_char, error_len: usize) -> c_int {
    guarded(error, error_len, || {
        if name.is_null() || execute.is_null() {
            return Err("apu_ffi_register needs a name and a handler".into());
        }
        // SAFETY: the caller passes a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
        // SAFETY: the caller passes a function of XLA's FFI handler signature.
        let handler = unsafe { std::mem::transmute::<*const c_void, Handler>(execute) };
        registry::register(&name, handler)
    })
}

/// Registers the FFI type `name`; `type_id` (in-out) is 0 for "assign one" or the id the caller wants.
#[no_mangle]
pub extern "C" fn apu_ffi_register_type(name: *const c_char, type_id: *mut i64, error: *mut c_char, error_len: usize) -> c_int {
    guarded(error, error_len, || {
        if name.is_null() || type_id.is_null() {
            return Err("apu_ffi_register_type needs a name and a type id".into());
        }
        // SAFETY: the caller passes a NUL-terminated name and a writable type id.
        let (name, slot) = unsafe { (CStr::from_ptr(name).to_string_lossy().into_owned(), &mut *type_id) };
        *slot = register_type(&name, *slot)?;
        Ok(())
    })
}
