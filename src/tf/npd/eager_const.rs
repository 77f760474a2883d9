//! A host-memory `_EagerConst` kernel for int32 on the NextPluggableDevice.
//!
//! Why it is needed (TensorFlow 2.17/2.18, eager "op as function" mode, which Python always enables):
//! `tf.constant(...)` under `/APU:0` makes a CPU tensor and runs `_EagerConst` on APU to move it there.
//! The only APU kernel for it is TensorFlow's XLA compile-on-demand registration, which keeps int32 in
//! device memory, so eager copies the input to the APU. But eager wraps every op in a one-node function
//! and, for `_EagerConst` only, keeps int32 function arguments in host memory. The function then treats
//! the APU tensor (a PJRT buffer handle, not data) as host memory and uploads those bytes: the constant's
//! values are garbage (Keras: "Unsupported algorithm id", `tf.random.normal([5])`: garbage shape).
//!
//! TensorFlow's own accelerators avoid this by registering `_EagerConst` for int32 with its input and
//! output in host memory (an identity on host data). This does the same for `APU`, at a priority above
//! the XLA registration: the int32 constant then stays in host memory end to end, and every consumer
//! either takes it in host memory (shapes, seeds, algorithm ids: XLA compile-time constants) or gets a
//! proper host-to-device copy.

use crate::tf::symbols::{self, OwnedStatus, TfApi};
use apu_pjrt_api::tf as c;
use std::ffi::{c_void, CStr};

/// Above the compile-on-demand kernels' default priority 0: with equal priorities TensorFlow refuses
/// to choose between two matching kernels.
const PRIORITY: i32 = 1;

/// The two kernel functions this registration needs beyond [`TfApi`]; resolved here so that a
/// TensorFlow lacking them only loses this kernel.
struct Extra {
    priority: c::TF_KernelBuilder_Priority_Fn,
    set_output: c::TF_SetOutput_Fn,
}

fn extra() -> Option<&'static Extra> {
    static EXTRA: std::sync::OnceLock<Option<Extra>> = std::sync::OnceLock::new();
    EXTRA
        .get_or_init(|| {
            let priority = symbols::lookup(c"TF_KernelBuilder_Priority")?;
            let set_output = symbols::lookup(c"TF_SetOutput")?;
            // SAFETY: both symbols are the kernel C API functions of these names, with the declared types.
            unsafe {
                Some(Extra {
                    priority: std::mem::transmute::<*mut c_void, c::TF_KernelBuilder_Priority_Fn>(priority),
                    set_output: std::mem::transmute::<*mut c_void, c::TF_SetOutput_Fn>(set_output),
                })
            }
        })
        .as_ref()
}

/// The kernel has no state; TensorFlow only needs a pointer to hand back to compute and delete.
static STATELESS: u8 = 0;

unsafe extern "C" fn create(_ctx: *mut c::TF_OpKernelConstruction) -> *mut c_void {
    &STATELESS as *const u8 as *mut c_void
}

unsafe extern "C" fn delete(_kernel: *mut c_void) {}

/// Output 0 = input 0: the same host buffer, as TensorFlow's own identity kernels do.
unsafe fn forward(api: &'static TfApi, extra: &Extra, ctx: *mut c::TF_OpKernelContext) -> Result<(), String> {
    let status = OwnedStatus::new(api);
    let mut input: *mut c::TF_Tensor = std::ptr::null_mut();
    (api.get_input.unwrap())(ctx, 0, &mut input, status.raw);
    if !status.is_ok() {
        return Err(format!("reading input 0: {}", status.message()));
    }
    (extra.set_output.unwrap())(ctx, 0, input, status.raw);
    (api.delete_tensor.unwrap())(input);
    if !status.is_ok() {
        return Err(format!("setting output 0: {}", status.message()));
    }
    Ok(())
}

unsafe extern "C" fn compute(_kernel: *mut c_void, ctx: *mut c::TF_OpKernelContext) {
    let (Ok(api), Some(extra)) = (symbols::api(), extra()) else { return };
    crate::tf::guard::kernel("_EagerConst (int32, host memory)", ctx, || forward(api, extra, ctx).map_err(crate::tf::guard::TfError::internal));
}

/// Registers the kernel for `device_type`. Returns why not when it could not (logged by the caller;
/// never fatal: the rest of the device works, only int32 constants made on it would be wrong).
pub fn register(device_type: &CStr) -> Result<(), String> {
    let api = symbols::api().map_err(str::to_string)?;
    let extra = extra().ok_or("TensorFlow does not export TF_KernelBuilder_Priority / TF_SetOutput")?;
    let status = OwnedStatus::new(api);
    // SAFETY: NUL-terminated names; the callbacks have the kernel C API's signatures; the builder is
    // consumed by TF_RegisterKernelBuilder.
    unsafe {
        let builder = (api.new_kernel_builder.unwrap())(c"_EagerConst".as_ptr(), device_type.as_ptr(), Some(create), Some(compute), Some(delete));
        (api.kernel_builder_type_constraint.unwrap())(builder, c"T".as_ptr(), c::TF_DataType_TF_INT32, status.raw);
        (api.kernel_builder_host_memory.unwrap())(builder, c"input".as_ptr());
        (api.kernel_builder_host_memory.unwrap())(builder, c"output".as_ptr());
        (extra.priority.unwrap())(builder, PRIORITY);
        if status.is_ok() {
            (api.register_kernel_builder.unwrap())(c"apu_EagerConst_int32_host".as_ptr(), builder, status.raw);
        }
    }
    if status.is_ok() {
        Ok(())
    } else {
        Err(status.message())
    }
}

#[cfg(test)]
mod tests {
    /// Outside TensorFlow (here: the test binary) registration reports why it cannot, without panicking.
    #[test]
    fn registration_outside_tensorflow_is_a_reported_error() {
        let err = super::register(c"APU").expect_err("no TensorFlow in a cargo test process");
        assert!(err.contains("does not export"), "{err}");
    }
}
