//! The C entry through which a host (the wheel's Python package) installs its host-callback trampoline:
//! `int apu_host_callback_install(trampoline)`, the trampoline as in
//! [`apu_runtime::host_callback::Trampoline`]. Returns 0. NULL removes the trampoline.

use apu_runtime::host_callback::{install, Trampoline};

/// Installs the process's host-callback trampoline (see the module docs).
#[no_mangle]
pub extern "C" fn apu_host_callback_install(trampoline: Option<Trampoline>) -> std::ffi::c_int {
    // Nothing here can panic; the guard keeps that true if it ever stops being so.
    match std::panic::catch_unwind(|| install(trampoline)) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
