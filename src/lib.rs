//! The apu plugin: PJRT C API handlers over the compiler and runtime crates. The library exports
//! `GetPjrtApi` (everything else of PJRT is reached through the table it returns) and, for TensorFlow,
//! `SE_InitPlugin`, `TF_InitKernel` and `TFNPD_InitPlugin` (see [`tf`]), and `apu_host_callback_install`
//! for the wheel's host callbacks (see [`host_callback`]).

pub mod ffi;
pub mod host_callback;
pub mod pjrt;
pub mod tf;
pub mod version;

/// The entry point PJRT frameworks look up with `dlsym`. Returns a static table; the caller does
/// not own it.
#[no_mangle]
pub extern "C" fn GetPjrtApi() -> *const apu_pjrt_api::PJRT_Api {
    // Logging is a convenience; nothing may unwind into the framework.
    let _ = std::panic::catch_unwind(pjrt::logging::init);
    pjrt::api()
}
