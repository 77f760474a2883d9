//! TensorFlow functions apu calls, resolved at run time with `dlsym(RTLD_DEFAULT, name)`.
//!
//! The library must not carry undefined `TF_*` references: JAX loads it where no TensorFlow exists, and
//! TensorFlow versions differ in what they export (a hard reference to a missing symbol makes
//! `import tensorflow` fail). TensorFlow loads its own libraries with RTLD_GLOBAL, so once our entry points
//! run, the global lookup finds them.

use apu_pjrt_api::tf as c;
use std::ffi::{c_char, c_void, CStr};
use std::sync::OnceLock;

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlopen(filename: *const c_char, flags: std::ffi::c_int) -> *mut c_void;
}

/// `RTLD_DEFAULT` on glibc: search the global scope.
const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();
const RTLD_LAZY: std::ffi::c_int = 0x1;
const RTLD_NOLOAD: std::ffi::c_int = 0x4;

/// TensorFlow's shared libraries, by soname. TensorFlow 2.21 loads them into the global scope, but
/// 2.18 does not, so symbols are also looked up in each of them (if already loaded).
const TF_LIBRARIES: [&CStr; 3] = [c"libtensorflow_framework.so.2", c"libtensorflow_cc.so.2", c"_pywrap_tensorflow_internal.so"];

struct Handles(Vec<usize>);

/// Handles of the TensorFlow libraries this process has loaded (`RTLD_NOLOAD` never loads anything).
/// Found once, at the first lookup, which happens inside a TensorFlow entry point.
fn tf_library_handles() -> &'static [usize] {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    &HANDLES
        .get_or_init(|| {
            Handles(
                TF_LIBRARIES
                    .iter()
                    // SAFETY: RTLD_NOLOAD only returns a handle to an object that is already loaded.
                    .map(|n| unsafe { dlopen(n.as_ptr(), RTLD_LAZY | RTLD_NOLOAD) } as usize)
                    .filter(|&h| h != 0)
                    .collect(),
            )
        })
        .0
}

/// Looks a symbol up in the global scope, then in TensorFlow's libraries; `None` if this process does
/// not export it.
pub fn lookup(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym with a valid handle (or RTLD_DEFAULT) and a NUL-terminated name has no preconditions.
    let p = unsafe { dlsym(RTLD_DEFAULT, name.as_ptr()) };
    if !p.is_null() {
        return Some(p);
    }
    tf_library_handles().iter().find_map(|&h| {
        // SAFETY: as above.
        let p = unsafe { dlsym(h as *mut c_void, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    })
}

/// Whether the running TensorFlow exports `name`.
pub fn exported(name: &CStr) -> bool {
    lookup(name).is_some()
}

macro_rules! tf_functions {
    ($( $field:ident : $ty:ident = $name:literal ),* $(,)?) => {
        /// The kernel and status functions apu needs; all exist in every TensorFlow with the kernel C API.
        pub struct TfApi {
            $( pub $field: c::$ty, )*
        }

        impl TfApi {
            fn resolve() -> Result<TfApi, String> {
                Ok(TfApi {
                    $( $field: {
                        let p = lookup($name).ok_or_else(|| format!("TensorFlow does not export {}", $name.to_string_lossy()))?;
                        // SAFETY: the symbol is the C function of that name, whose type the header declares.
                        unsafe { std::mem::transmute::<*mut c_void, c::$ty>(p) }
                    }, )*
                })
            }
        }
    };
}

tf_functions! {
    new_status: TF_NewStatus_Fn = c"TF_NewStatus",
    delete_status: TF_DeleteStatus_Fn = c"TF_DeleteStatus",
    set_status: TF_SetStatus_Fn = c"TF_SetStatus",
    get_code: TF_GetCode_Fn = c"TF_GetCode",
    message: TF_Message_Fn = c"TF_Message",
    tensor_type: TF_TensorType_Fn = c"TF_TensorType",
    num_dims: TF_NumDims_Fn = c"TF_NumDims",
    dim: TF_Dim_Fn = c"TF_Dim",
    tensor_byte_size: TF_TensorByteSize_Fn = c"TF_TensorByteSize",
    tensor_data: TF_TensorData_Fn = c"TF_TensorData",
    delete_tensor: TF_DeleteTensor_Fn = c"TF_DeleteTensor",
    new_kernel_builder: TF_NewKernelBuilder_Fn = c"TF_NewKernelBuilder",
    kernel_builder_type_constraint: TF_KernelBuilder_TypeConstraint_Fn = c"TF_KernelBuilder_TypeConstraint",
    kernel_builder_host_memory: TF_KernelBuilder_HostMemory_Fn = c"TF_KernelBuilder_HostMemory",
    register_kernel_builder: TF_RegisterKernelBuilder_Fn = c"TF_RegisterKernelBuilder",
    get_attr_bool: TF_OpKernelConstruction_GetAttrBool_Fn = c"TF_OpKernelConstruction_GetAttrBool",
    get_attr_type: TF_OpKernelConstruction_GetAttrType_Fn = c"TF_OpKernelConstruction_GetAttrType",
    get_attr_size: TF_OpKernelConstruction_GetAttrSize_Fn = c"TF_OpKernelConstruction_GetAttrSize",
    get_attr_string: TF_OpKernelConstruction_GetAttrString_Fn = c"TF_OpKernelConstruction_GetAttrString",
    get_attr_int32_list: TF_OpKernelConstruction_GetAttrInt32List_Fn = c"TF_OpKernelConstruction_GetAttrInt32List",
    get_attr_int64: TF_OpKernelConstruction_GetAttrInt64_Fn = c"TF_OpKernelConstruction_GetAttrInt64",
    num_inputs: TF_NumInputs_Fn = c"TF_NumInputs",
    num_outputs: TF_NumOutputs_Fn = c"TF_NumOutputs",
    get_input: TF_GetInput_Fn = c"TF_GetInput",
    allocate_output: TF_AllocateOutput_Fn = c"TF_AllocateOutput",
    kernel_failure: TF_OpKernelContext_Failure_Fn = c"TF_OpKernelContext_Failure",
}

static API: OnceLock<Result<TfApi, String>> = OnceLock::new();

/// The resolved functions, or why they could not be resolved (apu not loaded by TensorFlow).
pub fn api() -> Result<&'static TfApi, &'static str> {
    API.get_or_init(TfApi::resolve).as_ref().map_err(|e| e.as_str())
}

/// An owned `TF_Status`, deleted on drop.
pub struct OwnedStatus {
    api: &'static TfApi,
    pub raw: *mut c::TF_Status,
}

impl OwnedStatus {
    pub fn new(api: &'static TfApi) -> Self {
        // SAFETY: TF_NewStatus has no preconditions.
        OwnedStatus { api, raw: unsafe { (api.new_status.unwrap())() } }
    }
    pub fn is_ok(&self) -> bool {
        // SAFETY: `raw` is a live status.
        unsafe { (self.api.get_code.unwrap())(self.raw) == c::TF_Code_TF_OK }
    }
    pub fn message(&self) -> String {
        // SAFETY: `raw` is live; TF_Message returns a NUL-terminated string owned by the status.
        unsafe {
            let m = (self.api.message.unwrap())(self.raw);
            if m.is_null() {
                String::new()
            } else {
                CStr::from_ptr(m).to_string_lossy().into_owned()
            }
        }
    }
}

impl Drop for OwnedStatus {
    fn drop(&mut self) {
        // SAFETY: created by TF_NewStatus and deleted once.
        unsafe { (self.api.delete_status.unwrap())(self.raw) }
    }
}

/// Sets `status` (owned by TensorFlow) to `code` with `message`. Interior NULs are replaced.
///
/// # Safety
/// `status` is a live `TF_Status` handed to us by TensorFlow.
pub unsafe fn set_status(api: &TfApi, status: *mut c::TF_Status, code: c::TF_Code, message: &str) {
    let msg = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    (api.set_status.unwrap())(status, code, msg.as_ptr())
}
