//! Handing TensorFlow apu's PJRT client. TensorFlow's NextPluggableDevice never builds a client from a
//! plug-in's `GetPjrtApi` by itself: the plug-in must store one in TensorFlow's global resource manager from
//! `TFNPD_InitPluginInternalDeviceStates`, before the devices are made.
//!
//! Two routes, both resolved at run time (the library never links TensorFlow):
//! - **C function** (TensorFlow ≤ 2.18): `TF_CreateAndSetPjRtCApiClient("APU", …)`.
//! - **Exported C++** (2.19+, whose wheels no longer link that C function): allocate an
//!   `xla::PjRtCApiClient` with TensorFlow's `operator new`, run its constructor on apu's own `PJRT_Api` and a
//!   `PJRT_Client` made through it, and pass it to `tensorflow::SetPjRtClientInTFGlobalResourceManager`. Both
//!   mangled names are identical from 2.18.1 to nightly 2.23 and hold no absl or container type; what is
//!   not visible in them (the object's size, absl's `Status` encoding) comes from `abi::CHECKED_BUILDS`, so
//!   this route is taken only on a TensorFlow listed there. Calling convention (x86-64 SysV, Itanium C++ ABI):
//!   a `unique_ptr` parameter is passed as a pointer to a caller-owned slot that the callee moves from; the
//!   `absl::Status` result is returned through a hidden pointer passed first.

use super::abi::{self, CheckedBuild};
use crate::tf::symbols::{self, OwnedStatus};
use apu_pjrt_api as pjrt;
use apu_pjrt_api::tf as c;
use std::ffi::{c_char, c_void, CStr};

/// The C function of TensorFlow ≤ 2.18.
pub const CREATE_CLIENT_SYMBOL: &CStr = c"TF_CreateAndSetPjRtCApiClient";
/// `xla::PjRtCApiClient::PjRtCApiClient(const PJRT_Api*, PJRT_Client*, std::unique_ptr<pjrt::PJRT_KeyValueCallbackData>)`.
pub const CONSTRUCTOR_SYMBOL: &CStr =
    c"_ZN3xla14PjRtCApiClientC1EPK8PJRT_ApiP11PJRT_ClientSt10unique_ptrIN4pjrt25PJRT_KeyValueCallbackDataESt14default_deleteIS8_EE";
/// `absl::Status tensorflow::SetPjRtClientInTFGlobalResourceManager(const tsl::DeviceType&, std::unique_ptr<xla::PjRtClient>)`.
pub const SET_CLIENT_SYMBOL: &CStr =
    c"_ZN10tensorflow38SetPjRtClientInTFGlobalResourceManagerERKN3tsl10DeviceTypeESt10unique_ptrIN3xla10PjRtClientESt14default_deleteIS6_EE";
/// `operator new(size_t)` of the libstdc++ TensorFlow uses, so that TensorFlow could free the object.
pub const OPERATOR_NEW_SYMBOL: &CStr = c"_Znwm";

type ConstructorFn = unsafe extern "C" fn(this: *mut c_void, api: *const pjrt::PJRT_Api, client: *mut pjrt::PJRT_Client, kv_slot: *mut *mut c_void);
type SetClientFn = unsafe extern "C" fn(status_out: *mut usize, device_type: *const CxxString, client_slot: *mut *mut c_void);
type OperatorNewFn = unsafe extern "C" fn(size: usize) -> *mut c_void;

/// How this process can hand TensorFlow a client.
pub enum Route {
    CFunction(unsafe extern "C" fn(*const c_char, *mut c::TF_Status, *const c_void, i32)),
    Constructor { build: &'static CheckedBuild, construct: ConstructorFn, set_client: SetClientFn, operator_new: OperatorNewFn },
}

/// `TF_Version()` of the running TensorFlow, when it exports it.
pub fn tensorflow_version() -> Option<String> {
    let p = symbols::lookup(c"TF_Version")?;
    // SAFETY: `const char* TF_Version(void)`, returning a static string.
    unsafe {
        let s = std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *const c_char>(p)();
        (!s.is_null()).then(|| CStr::from_ptr(s).to_string_lossy().into_owned())
    }
}

/// The route this TensorFlow offers, or why it offers none.
pub fn route() -> Result<Route, String> {
    if let Some(f) = symbols::lookup(CREATE_CLIENT_SYMBOL) {
        // SAFETY: the C function of that name, with the header's signature.
        return Ok(Route::CFunction(unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*const c_char, *mut c::TF_Status, *const c_void, i32)>(f) }));
    }
    let version = tensorflow_version().unwrap_or_else(|| "(no TF_Version)".to_string());
    let build = abi::checked_build(&version).ok_or_else(|| {
        format!(
            "TensorFlow {version} does not export {} and is not a build whose PjRtCApiClient layout apu has checked ({})",
            CREATE_CLIENT_SYMBOL.to_string_lossy(),
            abi::checked_versions()
        )
    })?;
    let find = |name: &CStr| {
        symbols::lookup(name).ok_or_else(|| format!("TensorFlow {version} does not export {}", name.to_string_lossy()))
    };
    let (ctor, set, new) = (find(CONSTRUCTOR_SYMBOL)?, find(SET_CLIENT_SYMBOL)?, find(OPERATOR_NEW_SYMBOL)?);
    // SAFETY: the symbols are the functions named by their mangled names, whose parameters the names encode
    // (see the module comment for how they are passed); return types and sizes are those of `build`.
    unsafe {
        Ok(Route::Constructor {
            build,
            construct: std::mem::transmute::<*mut c_void, ConstructorFn>(ctor),
            set_client: std::mem::transmute::<*mut c_void, SetClientFn>(set),
            operator_new: std::mem::transmute::<*mut c_void, OperatorNewFn>(new),
        })
    }
}

/// A libstdc++ (C++11 ABI) `std::string` holding a short string in place, the only member of
/// `tsl::DeviceType`.
#[repr(C)]
pub struct CxxString {
    data: *const u8,
    len: usize,
    local: [u8; 16],
}

impl CxxString {
    /// A string of at most 15 bytes, boxed so that its self-pointer stays valid.
    fn boxed(s: &str) -> Box<CxxString> {
        assert!(s.len() < 16, "short strings only");
        let mut b = Box::new(CxxString { data: std::ptr::null(), len: s.len(), local: [0; 16] });
        b.local[..s.len()].copy_from_slice(s.as_bytes());
        b.data = b.local.as_ptr();
        b
    }
}

/// Creates a client through apu's own table, as `xla::WrapClientAroundCApi` would: no options, no
/// key-value store.
unsafe fn create_pjrt_client(api: *const pjrt::PJRT_Api) -> Result<*mut pjrt::PJRT_Client, String> {
    let create = (*api).PJRT_Client_Create.ok_or("apu's PJRT table has no PJRT_Client_Create")?;
    let mut args: pjrt::PJRT_Client_Create_Args = Default::default();
    args.struct_size = pjrt::PJRT_Client_Create_Args_STRUCT_SIZE as usize;
    let err = create(&mut args);
    if !err.is_null() {
        let mut m: pjrt::PJRT_Error_Message_Args = std::mem::zeroed();
        m.struct_size = std::mem::size_of::<pjrt::PJRT_Error_Message_Args>();
        m.error = err;
        let mut text = "unknown error".to_string();
        if let Some(message) = (*api).PJRT_Error_Message {
            message(&mut m);
            if !m.message.is_null() {
                text = String::from_utf8_lossy(std::slice::from_raw_parts(m.message as *const u8, m.message_size)).into_owned();
            }
        }
        if let Some(destroy) = (*api).PJRT_Error_Destroy {
            let mut d: pjrt::PJRT_Error_Destroy_Args = std::mem::zeroed();
            d.struct_size = std::mem::size_of::<pjrt::PJRT_Error_Destroy_Args>();
            d.error = err;
            destroy(&mut d);
        }
        return Err(format!("PJRT_Client_Create failed: {text}"));
    }
    Ok(args.client)
}

/// Stores a client for `APU` in TensorFlow; on success, says how (for the log). Never sets a status that
/// TensorFlow sees: an error here is only logged.
///
/// # Safety
/// Called from `TFNPD_InitPluginInternalDeviceStates`, inside TensorFlow.
pub unsafe fn install(route: &Route) -> Result<String, String> {
    match route {
        Route::CFunction(create) => {
            let api = symbols::api().map_err(str::to_string)?;
            let status = OwnedStatus::new(api);
            create(c"APU".as_ptr(), status.raw, std::ptr::null(), 0);
            if status.is_ok() {
                Ok(format!("through {}", CREATE_CLIENT_SYMBOL.to_string_lossy()))
            } else {
                Err(format!("{} failed: {}", CREATE_CLIENT_SYMBOL.to_string_lossy(), status.message()))
            }
        }
        Route::Constructor { build, construct, set_client, operator_new } => {
            let api = crate::GetPjrtApi();
            let client = create_pjrt_client(api)?;
            let object = operator_new(abi::CLIENT_ALLOCATION);
            if object.is_null() {
                return Err("operator new returned NULL".into());
            }
            std::ptr::write_bytes(object as *mut u8, 0, abi::CLIENT_ALLOCATION);
            let mut kv_slot: *mut c_void = std::ptr::null_mut();
            construct(object, api, client, &mut kv_slot);
            // TensorFlow copies the device type; it stays alive for the process anyway.
            let device_type: &'static CxxString = Box::leak(CxxString::boxed("APU"));
            let mut client_slot = object;
            let mut status: usize = usize::MAX;
            set_client(&mut status, device_type, &mut client_slot);
            if status == build.status.ok_rep() {
                Ok(format!(
                    "through xla::PjRtCApiClient (TensorFlow {}: a checked build, {}-byte object, apu allocates {})",
                    build.version,
                    build.client_object_size,
                    abi::CLIENT_ALLOCATION
                ))
            } else {
                // The status (a heap object when it carries a message) is left alone: decoding its message
                // would need more of absl's private layout.
                Err(match build.status.inlined_code(status) {
                    Some(code) => format!("SetPjRtClientInTFGlobalResourceManager returned status code {code}"),
                    None => "SetPjRtClientInTFGlobalResourceManager returned an error status".to_string(),
                })
            }
        }
    }
}

/// The shape layout `TFNPD_XlaShapeToDeviceShapeRepresentation` receives in this process, decided once.
pub fn shape_abi() -> abi::ShapeAbi {
    static SHAPE: std::sync::OnceLock<abi::ShapeAbi> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| match route() {
        Ok(Route::Constructor { build, .. }) => build.shape,
        // TensorFlow ≤ 2.18 (the C function) had the dimension-attribute lists.
        _ => abi::ShapeAbi::WithDimLists,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_std_string_points_into_itself() {
        let s = CxxString::boxed("APU");
        assert_eq!(s.len, 3);
        assert_eq!(s.data, s.local.as_ptr());
        assert_eq!(&s.local[..4], b"APU\0");
        assert_eq!(std::mem::size_of::<CxxString>(), 32);
    }

    #[test]
    fn outside_tensorflow_there_is_no_route_and_the_reason_names_the_function() {
        let why = route().err().expect("no TensorFlow in a cargo test process");
        assert!(why.contains("TF_CreateAndSetPjRtCApiClient"), "{why}");
        assert!(why.contains("2.21.0"), "the reason lists the checked builds: {why}");
    }
}
