//! `TFNPD_InitPlugin`: the NPD device type, its table and its device states.

use crate::tf::config::{self, Mode};
use apu_pjrt_api::tf as c;

/// Above PluggableDevice's fixed 220, so that the NPD factory wins whenever both register `APU`.
pub const NPD_PRIORITY: i32 = 300;

struct Api(c::TFNPD_Api);
// SAFETY: the table is immutable and its only pointer field (`priv`) is null.
unsafe impl Sync for Api {}

static API: Api = Api(c::TFNPD_Api {
    struct_size: c::TFNPD_API_STRUCT_SIZE as usize,
    priv_: std::ptr::null_mut(),
    TFNPD_NewDeviceEvent: None,
    TFNPD_DeviceEventAwait: None,
    TFNPD_DeviceEventIsReady: None,
    TFNPD_DeviceEventAndThen: None,
    TFNPD_DeviceEventDelete: None,
    TFNPD_DeviceAllocatorCreate: None,
    TFNPD_DeviceAllocateRaw: None,
    TFNPD_DeviceDeallocateRaw: None,
    TFNPD_DeviceAllocatorName: None,
    TFNPD_DeviceAllocatorAllocatesOpaqueHandle: None,
    TFNPD_DeviceAllocatorDelete: None,
    TFNPD_DeviceContextCreate: None,
    TFNPD_DeviceContextDelete: None,
    TFNPD_DeviceTensorToHostTensor: None,
    TFNPD_HostTensorToDeviceTensor: None,
    TFNPD_SameDeviceTensorCopy: None,
    TFNPD_SameDevicePjRtBufferCopy: None,
    TFNPD_XlaShapeToDeviceShapeRepresentation: Some(xla_shape_to_device_shape),
    TFNPD_GetDeviceCount: Some(get_device_count),
    TFNPD_InitPluginInternalDeviceStates: Some(init_device_states),
});

/// Fills the params; never sets an error status (TensorFlow aborts the process on one).
///
/// # Safety
/// `params` is TensorFlow's zero-initialised params struct.
pub unsafe fn init_plugin(params: *mut c::TFNPD_PluginParams) -> *const c::TFNPD_Api {
    let cfg = config::get();
    if let Some(p) = params.as_mut() {
        let active = cfg.mode == Mode::NextPluggable;
        p.device_type = if active { c"APU".as_ptr() } else { c"APU_DUMMY".as_ptr() };
        p.compilation_device_name = c"XLA_CPU_JIT".as_ptr();
        p.priority = if active { NPD_PRIORITY } else { 0 };
        p.is_pluggable_device = true;
        // apu's kernels read host memory, not PJRT buffers: on the NPD device every op is lowered to HLO
        // and compiled through apu's PJRT table instead.
        p.use_pjrt_on_demand_compile = active;
    }
    &API.0
}

unsafe extern "C" fn get_device_count(_status: *mut c::TF_Status) -> i32 {
    if config::get().mode == Mode::NextPluggable {
        1
    } else {
        0
    }
}

/// Creates apu's PJRT client and hands it to TensorFlow (it never creates one on its own). Errors are
/// logged, never put into `status`: TensorFlow would abort the process. Without a client the APU device
/// still exists and its first use fails with TensorFlow's own NotFound error.
unsafe extern "C" fn init_device_states(_status: *mut c::TF_Status) {
    if config::get().mode != Mode::NextPluggable {
        return;
    }
    let outcome = std::panic::catch_unwind(|| match super::client::route() {
        Ok(route) => super::client::install(&route),
        Err(why) => Err(why),
    });
    match outcome {
        Ok(Ok(how)) => eprintln!("apu: PJRT client for APU handed to TensorFlow {how}"),
        Ok(Err(why)) => eprintln!("apu: could not hand TensorFlow a PJRT client for APU: {why}"),
        Err(_) => eprintln!("apu: could not hand TensorFlow a PJRT client for APU: panicked"),
    }
}

/// apu's device layout is the host layout: the device shape is the shape itself.
unsafe extern "C" fn xla_shape_to_device_shape(
    input: *mut c::XLA_Shape,
    _dtype: i32,
    _fast_mem: bool,
    _pref: c::XLA_LayoutPreference,
    output: *mut c::XLA_Shape,
    _status: *mut c::TF_Status,
) {
    if !input.is_null() && !output.is_null() {
        super::shape::deep_copy(super::client::shape_abi(), input as *const _, output as *mut _);
    }
}
