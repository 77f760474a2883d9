//! Loading a PJRT plugin library and calling its function table through apu's bindings.
use apu_pjrt_api::*;
use std::ffi::c_void;
use std::path::{Path, PathBuf};

/// Which implementation a plugin is; cases use it only to pick flavour-specific expectations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Apu,
    XlaCpu,
}

/// A loaded, initialized plugin. The library stays loaded for the life of the test process:
/// plugins keep threads and globals that must not outlive their code.
pub struct Plugin {
    pub path: PathBuf,
    pub flavor: Flavor,
    api: *const PJRT_Api,
}

// The function table is immutable and plugins must be callable from any thread.
unsafe impl Send for Plugin {}
unsafe impl Sync for Plugin {}

/// Why a plugin could not be used; the runner turns these into "skipped" notices.
#[derive(Debug)]
pub enum LoadError {
    Missing(PathBuf),
    NotLoadable(PathBuf, String),
    NoEntryPoint(PathBuf),
    InitializeFailed(PathBuf, PjrtError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Missing(p) => write!(f, "{} does not exist", p.display()),
            LoadError::NotLoadable(p, e) => write!(f, "dlopen({}) failed: {e}", p.display()),
            LoadError::NoEntryPoint(p) => write!(f, "{} does not export GetPjrtApi", p.display()),
            LoadError::InitializeFailed(p, e) => write!(f, "PJRT_Plugin_Initialize of {} failed: {e}", p.display()),
        }
    }
}

/// An error returned by a plugin, already copied out and destroyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PjrtError {
    pub code: PJRT_Error_Code,
    pub message: String,
}

impl std::fmt::Display for PjrtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", code_name(self.code), self.message)
    }
}

impl std::error::Error for PjrtError {}

pub fn code_name(code: PJRT_Error_Code) -> &'static str {
    const NAMES: [&str; 17] = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
        "UNAUTHENTICATED",
    ];
    NAMES.get(code as usize).copied().unwrap_or("<unknown code>")
}

impl Plugin {
    /// dlopens `path`, calls `GetPjrtApi` and `PJRT_Plugin_Initialize`.
    pub fn load(path: &Path, flavor: Flavor) -> Result<Plugin, LoadError> {
        if !path.is_file() {
            return Err(LoadError::Missing(path.to_path_buf()));
        }
        // SAFETY: loading a shared library runs its initializers; that is the point of the test.
        let library = unsafe { libloading::Library::new(path) }
            .map_err(|e| LoadError::NotLoadable(path.to_path_buf(), e.to_string()))?;
        // SAFETY: the symbol, when present, has the PJRT entry-point signature.
        let get_api: libloading::Symbol<GetPjrtApiFn> = unsafe { library.get(GET_PJRT_API_SYMBOL) }
            .map_err(|_| LoadError::NoEntryPoint(path.to_path_buf()))?;
        let api = unsafe { get_api() };
        if api.is_null() {
            return Err(LoadError::NoEntryPoint(path.to_path_buf()));
        }
        std::mem::forget(library); // see the struct comment
        let plugin = Plugin { path: path.to_path_buf(), flavor, api };
        let mut args = PJRT_Plugin_Initialize_Args {
            struct_size: PJRT_Plugin_Initialize_Args_STRUCT_SIZE as usize,
            ..Default::default()
        };
        let init = plugin.api().PJRT_Plugin_Initialize.ok_or_else(|| {
            LoadError::InitializeFailed(plugin.path.clone(), PjrtError { code: 0, message: "slot is NULL".into() })
        })?;
        plugin
            .check(unsafe { init(&mut args) })
            .map_err(|e| LoadError::InitializeFailed(plugin.path.clone(), e))?;
        Ok(plugin)
    }

    pub fn api(&self) -> &PJRT_Api {
        // SAFETY: GetPjrtApi returned a non-NULL table that lives as long as the library.
        unsafe { &*self.api }
    }

    pub fn raw_api(&self) -> *const PJRT_Api {
        self.api
    }

    /// The table size the plugin declares (its header version's PJRT_Api_STRUCT_SIZE).
    pub fn api_struct_size(&self) -> usize {
        // SAFETY: the head of the table (struct_size, extension_start, version) always exists.
        unsafe { std::ptr::addr_of!((*self.api).struct_size).read() }
    }

    /// The (major, minor) version the plugin reports.
    pub fn version(&self) -> (i32, i32) {
        let v = unsafe { std::ptr::addr_of!((*self.api).pjrt_api_version).read() };
        (v.major_version, v.minor_version)
    }

    /// Converts a returned `PJRT_Error*` into a Result, destroying the error object.
    pub fn check(&self, error: *mut PJRT_Error) -> Result<(), PjrtError> {
        match self.read_error(error) {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// Reads code and message of `error` (if any) and destroys it.
    pub fn read_error(&self, error: *mut PJRT_Error) -> Option<PjrtError> {
        if error.is_null() {
            return None;
        }
        let api = self.api();
        let mut code_args = PJRT_Error_GetCode_Args {
            struct_size: PJRT_Error_GetCode_Args_STRUCT_SIZE as usize,
            error,
            ..Default::default()
        };
        let code = match api.PJRT_Error_GetCode {
            Some(f) if unsafe { f(&mut code_args) }.is_null() => code_args.code,
            _ => PJRT_Error_Code_UNKNOWN,
        };
        let mut message_args = PJRT_Error_Message_Args {
            struct_size: PJRT_Error_Message_Args_STRUCT_SIZE as usize,
            error,
            ..Default::default()
        };
        let message = match api.PJRT_Error_Message {
            Some(f) => {
                unsafe { f(&mut message_args) };
                unsafe { bytes_to_string(message_args.message, message_args.message_size) }
            }
            None => "<PJRT_Error_Message slot is NULL>".to_string(),
        };
        let mut destroy_args = PJRT_Error_Destroy_Args {
            struct_size: PJRT_Error_Destroy_Args_STRUCT_SIZE as usize,
            error,
            ..Default::default()
        };
        if let Some(f) = api.PJRT_Error_Destroy {
            unsafe { f(&mut destroy_args) };
        }
        Some(PjrtError { code, message })
    }
}

/// Copies a (pointer, length) string; NULL reads as empty.
///
/// # Safety
/// `data` must point to `len` readable bytes when non-NULL.
pub unsafe fn bytes_to_string(data: *const std::os::raw::c_char, len: usize) -> String {
    if data.is_null() || len == 0 {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(data as *const u8, len)).into_owned()
}

/// Calls one function-table slot with a mutable args struct and converts the returned error.
/// A NULL slot, or one beyond the plugin's `PJRT_Api.struct_size` (an older plugin), becomes an
/// UNIMPLEMENTED error, so a case fails or skips instead of reading past the table.
#[macro_export]
macro_rules! pjrt_call {
    ($plugin:expr, $slot:ident, $args:expr) => {{
        let plugin: &$crate::conformance::plugin::Plugin = $plugin;
        let table = plugin.raw_api();
        let offset = std::mem::offset_of!(apu_pjrt_api::PJRT_Api, $slot);
        let in_table = offset + std::mem::size_of::<usize>() <= plugin.api_struct_size();
        // SAFETY: the slot lies inside the table the plugin declared.
        let function = if in_table { unsafe { std::ptr::addr_of!((*table).$slot).read() } } else { None };
        match function {
            None => Err($crate::conformance::plugin::PjrtError {
                code: apu_pjrt_api::PJRT_Error_Code_UNIMPLEMENTED,
                message: if in_table {
                    concat!(stringify!($slot), " slot is NULL").to_string()
                } else {
                    concat!(stringify!($slot), " lies beyond the plugin's PJRT_Api.struct_size").to_string()
                },
            }),
            Some(f) => {
                let args = $args;
                // SAFETY: `args` is a valid args struct of the slot's type, set up by the caller.
                plugin.check(unsafe { f(args) })
            }
        }
    }};
}

/// Builds an args struct with `struct_size` set to the struct's `_STRUCT_SIZE` constant and every
/// other member zero unless given.
#[macro_export]
macro_rules! pjrt_args {
    ($ty:ident { $($field:ident : $value:expr),* $(,)? }) => {
        paste::paste! {
            apu_pjrt_api::$ty {
                struct_size: apu_pjrt_api::[<$ty _STRUCT_SIZE>] as usize,
                $($field: $value,)*
                ..Default::default()
            }
        }
    };
}

/// An opaque pointer usable from other threads (events, callbacks).
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut c_void);
unsafe impl Send for SendPtr {}
