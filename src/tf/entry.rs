//! The symbols TensorFlow looks up in a plug-in library. Each catches panics: unwinding into TensorFlow
//! is undefined behaviour, and an error status here aborts the process, so problems are logged instead.

use super::config::{self, Mode};
use apu_pjrt_api::tf as c;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// StreamExecutor registration (PluggableDevice). Registers `APU` in PD mode, `APU_DUMMY` otherwise.
///
/// # Safety
/// Called by TensorFlow with its registration params.
#[no_mangle]
pub unsafe extern "C" fn SE_InitPlugin(params: *mut c::SE_PlatformRegistrationParams, _status: *mut c::TF_Status) {
    if catch_unwind(AssertUnwindSafe(|| super::pd::platform::init_plugin(params))).is_err() {
        eprintln!("apu: SE_InitPlugin panicked");
    }
}

/// NextPluggableDevice registration. Device type `APU` in NPD mode, `APU_DUMMY` with no devices otherwise.
///
/// # Safety
/// Called by TensorFlow with its params.
#[no_mangle]
pub unsafe extern "C" fn TFNPD_InitPlugin(params: *mut c::TFNPD_PluginParams, _status: *mut c::TF_Status) -> *const c::TFNPD_Api {
    catch_unwind(AssertUnwindSafe(|| super::npd::plugin::init_plugin(params))).unwrap_or_else(|_| {
        eprintln!("apu: TFNPD_InitPlugin panicked");
        std::ptr::null()
    })
}

/// Kernel registration: apu's kernels on `APU` in PD mode. In NPD mode every op is compiled through
/// PJRT, except one host-memory identity that keeps int32 constants correct (`npd::eager_const`).
#[no_mangle]
pub extern "C" fn TF_InitKernel() {
    let r = catch_unwind(|| {
        let cfg = config::get();
        match cfg.mode {
            Mode::Pluggable => {
                let n = super::kernels::registry::register_all(config::DEVICE_TYPE);
                eprintln!("apu: registered {n} TensorFlow kernels on {}", config::DEVICE_TYPE);
            }
            Mode::NextPluggable => {
                if let Err(e) = super::npd::eager_const::register(c"APU") {
                    eprintln!("apu: registering the host-memory _EagerConst kernel failed ({e}); int32 constants made on APU will be wrong");
                }
            }
        }
    });
    if r.is_err() {
        eprintln!("apu: TF_InitKernel panicked");
    }
}
