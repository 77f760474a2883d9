//! What the running TensorFlow (and this library) offer for NextPluggableDevice.

use crate::tf::symbols;
use std::ffi::{c_char, c_int, c_void, CStr};

#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

extern "C" {
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlclose(handle: *mut c_void) -> c_int;
}

const RTLD_LAZY: c_int = 0x1;
const RTLD_NOLOAD: c_int = 0x4;

/// Whether this very library exports `name`. TensorFlow loads plug-ins RTLD_LOCAL, so a global lookup
/// would not see our own exports; we reopen ourselves by path instead.
pub fn own_library_exports(name: &CStr) -> bool {
    let mut info = DlInfo { dli_fname: std::ptr::null(), dli_fbase: std::ptr::null_mut(), dli_sname: std::ptr::null(), dli_saddr: std::ptr::null_mut() };
    // SAFETY: dladdr only reads the address; `info` is a valid out-parameter.
    let found = unsafe { dladdr(own_library_exports as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return false;
    }
    // SAFETY: the path comes from the loader; RTLD_NOLOAD only returns an already loaded object.
    unsafe {
        let handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if handle.is_null() {
            return false;
        }
        let p = dlsym(handle, name.as_ptr());
        dlclose(handle);
        !p.is_null()
    }
}

/// `None` when this process can run apu as a NextPluggableDevice, else the reason it cannot: this
/// library lacks its PJRT table, or TensorFlow offers no way to take apu's client (`client::route`).
pub fn why_npd_unavailable() -> Option<String> {
    if !own_library_exports(c"GetPjrtApi") {
        return Some("this libapu has no PJRT table (GetPjrtApi)".into());
    }
    super::client::route().err().map(|why| format!("{why}, so apu cannot hand it a PJRT client"))
}

/// Whether TensorFlow's XLA auto-clustering is on (`TF_GetXlaAutoJitEnabled`, when exported).
pub fn auto_jit_enabled() -> bool {
    match symbols::lookup(c"TF_GetXlaAutoJitEnabled") {
        // SAFETY: the symbol is `unsigned char TF_GetXlaAutoJitEnabled(void)`.
        Some(p) => unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> u8>(p)() != 0 },
        None => false,
    }
}
