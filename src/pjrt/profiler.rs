//! The PJRT profiler extension: JAX's profiler (`jax.profiler.trace`) finds it on the API table's
//! extension chain when it loads the plug-in, and from then on makes a profiler per session,
//! starts and stops it, and collects a serialized XSpace from it ([`super::xspace`]). The spans
//! come from the runtime's recorder (`apu_runtime::profile`). The layouts are those jaxlib 0.10.2
//! and 0.12 use (facts and offsets: `docs/integration-notes.md`, profiler extension); the args of
//! create, destroy, start, stop and collect_data are read without their `struct_size`, which jaxlib
//! leaves unset.

use super::extensions::SyncExtension;
use super::guard::profiler_entry;
use apu_pjrt_api::*;
use std::os::raw::{c_char, c_int, c_void};

/// The extension as it hangs on `PJRT_Api.extension_start` (type Profiler).
#[repr(C)]
pub(crate) struct ProfilerExtension {
    pub base: PJRT_Extension_Base,
    pub profiler_api: *const ProfilerApi,
    /// Only meaningful in the copy a framework puts into Compile/Execute args; 0 here.
    pub traceme_context_id: i64,
}

/// A profiler object handed to the framework.
pub(crate) struct Profiler {
    /// The last collected XSpace, kept until the next start or the profiler's destruction
    /// (the framework reads it through the pointer collect_data returns).
    collected: Vec<u8>,
}

/// An error of a profiler call: a status code (never 0) and its message.
pub(crate) struct ProfilerError {
    pub code: c_int,
    pub message: String,
}

#[repr(C)]
pub(crate) struct ErrorDestroyArgs {
    struct_size: usize,
    priv_: *mut c_void,
    error: *mut ProfilerError,
}

#[repr(C)]
pub(crate) struct ErrorMessageArgs {
    struct_size: usize,
    priv_: *mut c_void,
    error: *const ProfilerError,
    message: *const c_char,
    message_size: usize,
}

#[repr(C)]
pub(crate) struct ErrorGetCodeArgs {
    struct_size: usize,
    priv_: *mut c_void,
    error: *const ProfilerError,
    code: c_int,
}

#[repr(C)]
pub(crate) struct CreateArgs {
    struct_size: usize,
    options: *const c_char,
    options_size: usize,
    profiler: *mut Profiler,
}

/// The args of destroy, start and stop.
#[repr(C)]
pub(crate) struct ProfilerArgs {
    struct_size: usize,
    profiler: *mut Profiler,
}

#[repr(C)]
pub(crate) struct CollectDataArgs {
    struct_size: usize,
    profiler: *mut Profiler,
    buffer: *mut u8,
    buffer_size_in_bytes: usize,
}

type ErrorFn<A> = unsafe extern "C" fn(*mut A);
type CallFn<A> = unsafe extern "C" fn(*mut A) -> *mut ProfilerError;

/// The function table. jaxlib 0.10.2 accepts exactly these ten slots (80 bytes) and 0.12 at least
/// them; 0.12's optional continuous-profiling slots are left out.
#[repr(C)]
pub(crate) struct ProfilerApi {
    struct_size: usize,
    priv_: *mut c_void,
    error_destroy: Option<ErrorFn<ErrorDestroyArgs>>,
    error_message: Option<ErrorFn<ErrorMessageArgs>>,
    error_get_code: Option<CallFn<ErrorGetCodeArgs>>,
    create: Option<CallFn<CreateArgs>>,
    destroy: Option<CallFn<ProfilerArgs>>,
    start: Option<CallFn<ProfilerArgs>>,
    stop: Option<CallFn<ProfilerArgs>>,
    collect_data: Option<CallFn<CollectDataArgs>>,
}

const _: () = {
    assert!(std::mem::size_of::<ProfilerExtension>() == 40);
    assert!(std::mem::size_of::<ProfilerApi>() == 80);
    assert!(std::mem::offset_of!(ErrorGetCodeArgs, code) == 24);
    assert!(std::mem::offset_of!(ErrorMessageArgs, message_size) == 32);
    assert!(std::mem::offset_of!(CreateArgs, profiler) == 24);
    assert!(std::mem::offset_of!(CollectDataArgs, buffer_size_in_bytes) == 24);
};

static API: SyncExtension<ProfilerApi> = SyncExtension(ProfilerApi {
    struct_size: std::mem::size_of::<ProfilerApi>(),
    priv_: std::ptr::null_mut(),
    error_destroy: Some(error_destroy),
    error_message: Some(error_message),
    error_get_code: Some(error_get_code),
    create: Some(create),
    destroy: Some(destroy),
    start: Some(start),
    stop: Some(stop),
    collect_data: Some(collect_data),
});

pub(crate) static EXTENSION: SyncExtension<ProfilerExtension> = SyncExtension(ProfilerExtension {
    base: PJRT_Extension_Base {
        struct_size: std::mem::size_of::<ProfilerExtension>(),
        type_: PJRT_Extension_Type_Profiler,
        next: std::ptr::null_mut(),
    },
    profiler_api: &API.0,
    traceme_context_id: 0,
});

unsafe extern "C" fn error_destroy(args: *mut ErrorDestroyArgs) {
    if let Some(a) = unsafe { args.as_mut() } {
        if !a.error.is_null() {
            drop(unsafe { Box::from_raw(a.error) });
            a.error = std::ptr::null_mut();
        }
    }
}

unsafe extern "C" fn error_message(args: *mut ErrorMessageArgs) {
    if let Some(a) = unsafe { args.as_mut() } {
        if let Some(e) = unsafe { a.error.as_ref() } {
            a.message = e.message.as_ptr() as *const c_char;
            a.message_size = e.message.len();
        }
    }
}

/// Never fails: jaxlib aborts the process when this call returns an error.
unsafe extern "C" fn error_get_code(args: *mut ErrorGetCodeArgs) -> *mut ProfilerError {
    if let Some(a) = unsafe { args.as_mut() } {
        a.code = unsafe { a.error.as_ref() }.map_or(PJRT_Error_Code_UNKNOWN as c_int, |e| e.code);
    }
    std::ptr::null_mut()
}

/// Never fails either: after a failed create, jaxlib starts and stops an unset handle.
unsafe extern "C" fn create(args: *mut CreateArgs) -> *mut ProfilerError {
    profiler_entry("create", || {
        let a = unsafe { args.as_mut() }.ok_or("args is NULL")?;
        a.profiler = Box::into_raw(Box::new(Profiler { collected: Vec::new() }));
        Ok(())
    })
}

unsafe extern "C" fn destroy(args: *mut ProfilerArgs) -> *mut ProfilerError {
    profiler_entry("destroy", || {
        let a = unsafe { args.as_mut() }.ok_or("args is NULL")?;
        if !a.profiler.is_null() {
            drop(unsafe { Box::from_raw(a.profiler) });
        }
        Ok(())
    })
}

unsafe extern "C" fn start(args: *mut ProfilerArgs) -> *mut ProfilerError {
    profiler_entry("start", || {
        let p = unsafe { args.as_ref().and_then(|a| a.profiler.as_mut()) }.ok_or("no profiler")?;
        p.collected.clear();
        apu_runtime::profile::start();
        Ok(())
    })
}

unsafe extern "C" fn stop(args: *mut ProfilerArgs) -> *mut ProfilerError {
    profiler_entry("stop", || {
        let p = unsafe { args.as_ref().and_then(|a| a.profiler.as_mut()) }.ok_or("no profiler")?;
        let (spans, dropped) = apu_runtime::profile::stop();
        if dropped > 0 {
            tracing::warn!("the profile kept its first {} spans and dropped {dropped}", spans.len());
        }
        p.collected = super::xspace::encode(&spans);
        Ok(())
    })
}

/// jaxlib calls this once with `buffer` NULL and reads the plug-in's own bytes through the
/// pointer it gets back; a caller that passes a buffer gets a copy (the header's two-call form).
unsafe extern "C" fn collect_data(args: *mut CollectDataArgs) -> *mut ProfilerError {
    profiler_entry("collect_data", || {
        let a = unsafe { args.as_mut() }.ok_or("args is NULL")?;
        let p = unsafe { a.profiler.as_ref() }.ok_or("no profiler")?;
        if a.buffer.is_null() {
            a.buffer = p.collected.as_ptr() as *mut u8;
        } else if a.buffer_size_in_bytes >= p.collected.len() {
            // The second call of the two-call form: the caller's buffer of the size the first gave.
            unsafe { std::ptr::copy_nonoverlapping(p.collected.as_ptr(), a.buffer, p.collected.len()) };
        } else {
            return Err("the caller's buffer is smaller than the collected trace");
        }
        a.buffer_size_in_bytes = p.collected.len();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session through the function table as jaxlib drives it: create, start, stop, collect_data
    /// once with no buffer (the plug-in's bytes), then the two-call form, an error's code and
    /// message, destroy.
    #[test]
    fn a_session_through_the_table() {
        let api = unsafe { &*EXTENSION.0.profiler_api };
        assert_eq!(api.struct_size, 80);
        // jaxlib leaves struct_size unset in these args: garbage must not matter.
        let mut create_args = CreateArgs { struct_size: 0xdead, options: std::ptr::null(), options_size: 0, profiler: std::ptr::null_mut() };
        assert!(unsafe { (api.create.unwrap())(&mut create_args) }.is_null());
        let mut args = ProfilerArgs { struct_size: 7, profiler: create_args.profiler };
        assert!(unsafe { (api.start.unwrap())(&mut args) }.is_null());
        let timer = apu_runtime::profile::begin().expect("recording after start");
        timer.end(apu_runtime::profile::SpanKind::Step, || ("dot".into(), "x".into()));
        assert!(unsafe { (api.stop.unwrap())(&mut args) }.is_null());
        assert!(apu_runtime::profile::begin().is_none(), "stopped");
        let mut collect = CollectDataArgs { struct_size: 3, profiler: create_args.profiler, buffer: std::ptr::null_mut(), buffer_size_in_bytes: 0 };
        assert!(unsafe { (api.collect_data.unwrap())(&mut collect) }.is_null());
        let n = collect.buffer_size_in_bytes;
        assert!(n > 0);
        let bytes = unsafe { std::slice::from_raw_parts(collect.buffer, n) }.to_vec();
        assert_eq!(bytes[0], 0x0a, "XSpace.planes, length-delimited");
        assert!(bytes.windows(3).any(|w| w == b"dot"));
        // The two-call form: a buffer of the size given is filled; a smaller one is an error.
        let mut copy = vec![0u8; n];
        let mut second = CollectDataArgs { struct_size: 32, profiler: create_args.profiler, buffer: copy.as_mut_ptr(), buffer_size_in_bytes: n };
        assert!(unsafe { (api.collect_data.unwrap())(&mut second) }.is_null());
        assert_eq!(copy, bytes);
        let mut short = vec![0u8; n - 1];
        let mut third = CollectDataArgs { struct_size: 32, profiler: create_args.profiler, buffer: short.as_mut_ptr(), buffer_size_in_bytes: n - 1 };
        let error = unsafe { (api.collect_data.unwrap())(&mut third) };
        assert!(!error.is_null());
        let mut code = ErrorGetCodeArgs { struct_size: 28, priv_: std::ptr::null_mut(), error, code: 0 };
        assert!(unsafe { (api.error_get_code.unwrap())(&mut code) }.is_null());
        assert_ne!(code.code, 0, "a failure never reads as OK");
        let mut message = ErrorMessageArgs { struct_size: 40, priv_: std::ptr::null_mut(), error, message: std::ptr::null(), message_size: 0 };
        unsafe { (api.error_message.unwrap())(&mut message) };
        let text = unsafe { std::slice::from_raw_parts(message.message as *const u8, message.message_size) };
        assert!(std::str::from_utf8(text).unwrap().contains("smaller than the collected trace"));
        let mut destroy_error = ErrorDestroyArgs { struct_size: 24, priv_: std::ptr::null_mut(), error };
        unsafe { (api.error_destroy.unwrap())(&mut destroy_error) };
        assert!(unsafe { (api.destroy.unwrap())(&mut args) }.is_null());
    }
}
