//! The symbols TensorFlow looks up in a plug-in library. Each runs through [`guard::registration`]:
//! unwinding into TensorFlow is undefined behaviour, and an error status here aborts the process, so
//! problems are logged instead.

use super::config::{self, Mode};
use super::guard;
use apu_pjrt_api::tf as c;

/// StreamExecutor registration (PluggableDevice). Registers `APU` in PD mode, `APU_DUMMY` otherwise.
///
/// # Safety
/// Called by TensorFlow with its registration params.
#[no_mangle]
pub unsafe extern "C" fn SE_InitPlugin(params: *mut c::SE_PlatformRegistrationParams, _status: *mut c::TF_Status) {
    guard::registration("SE_InitPlugin", (), || {
        super::pd::platform::init_plugin(params);
        Ok(())
    })
}

/// NextPluggableDevice registration. Device type `APU` in NPD mode, `APU_DUMMY` with no devices otherwise.
///
/// # Safety
/// Called by TensorFlow with its params.
#[no_mangle]
pub unsafe extern "C" fn TFNPD_InitPlugin(params: *mut c::TFNPD_PluginParams, _status: *mut c::TF_Status) -> *const c::TFNPD_Api {
    guard::registration("TFNPD_InitPlugin", std::ptr::null(), || Ok(super::npd::plugin::init_plugin(params)))
}

/// Kernel registration: apu's kernels on `APU` in PD mode. In NPD mode every op is compiled through
/// PJRT, except one host-memory identity that keeps int32 constants correct (`npd::eager_const`).
#[no_mangle]
pub extern "C" fn TF_InitKernel() {
    guard::registration("TF_InitKernel", (), || {
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
        Ok(())
    })
}
