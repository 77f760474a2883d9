//! The function table apu hands to FFI handlers ([`API`]) and what each entry does on apu's host-memory
//! device: errors, type ids, futures, scratch memory and the thread pool work as in XLA:CPU; there is
//! no stream, no execution-context user data and no per-handler state (apu runs the execute stage only),
//! and asking for them is an error that names what is missing.

use super::abi::*;
use super::context::InvokeContext;
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr, CString};
use std::sync::{Condvar, Mutex, OnceLock};

pub static API: Api = Api {
    struct_size: std::mem::size_of::<Api>(),
    extension_start: std::ptr::null_mut(),
    api_version: ApiVersion {
        struct_size: std::mem::size_of::<ApiVersion>(),
        extension_start: std::ptr::null_mut(),
        major_version: API_MAJOR,
        minor_version: API_MINOR,
    },
    internal_api: std::ptr::null(),
    error_create,
    error_get_details,
    error_destroy,
    handler_register,
    stream_get,
    type_register,
    invoke_context_get,
    state_set,
    state_get,
    device_memory_allocate,
    device_memory_free,
    thread_pool_schedule,
    thread_pool_num_threads,
    future_create,
    future_set_available,
    future_set_error,
    run_id_get,
    device_ordinal_get,
    invoke_context_find_extension,
    custom_options_get,
};

/// A new error object owned by whoever receives the pointer.
pub fn new_error(code: c_int, message: &str) -> *mut FfiError {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    Box::into_raw(Box::new(FfiError { code, message }))
}

/// Takes back an error a handler returned: its code and message.
///
/// # Safety
/// `e` must come from [`new_error`] (through the table) and not be used again.
pub unsafe fn take_error(e: *mut FfiError) -> (c_int, String) {
    let e = Box::from_raw(e);
    (e.code, e.message.to_string_lossy().into_owned())
}

unsafe fn ctx<'a>(p: *mut c_void) -> Option<&'a InvokeContext> {
    p.cast::<InvokeContext>().as_ref()
}

unsafe extern "C" fn error_create(args: *mut ErrorCreateArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return std::ptr::null_mut() };
    let message = if a.message.is_null() { String::new() } else { CStr::from_ptr(a.message).to_string_lossy().into_owned() };
    new_error(a.errc, &message)
}

unsafe extern "C" fn error_get_details(args: *mut ErrorGetDetailsArgs) {
    let Some(a) = args.as_mut() else { return };
    let Some(e) = a.error.as_ref() else { return };
    a.message = e.message.as_ptr();
    // API 0.3 callers pass the shorter struct without `errc`.
    if a.struct_size >= struct_size!(ErrorGetDetailsArgs, errc) {
        a.errc = e.code;
    }
}

unsafe extern "C" fn error_destroy(args: *mut ErrorDestroyArgs) {
    if let Some(a) = args.as_ref() {
        if !a.error.is_null() {
            drop(Box::from_raw(a.error));
        }
    }
}

unsafe extern "C" fn handler_register(args: *mut HandlerRegisterArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return new_error(code::INVALID_ARGUMENT, "null Handler_Register args") };
    let (name, platform) = (a.name.to_string_lossy(), a.platform.to_string_lossy());
    if !platform.eq_ignore_ascii_case(super::PLATFORM) {
        return new_error(
            code::INVALID_ARGUMENT,
            &format!("apu's FFI table registers handlers for platform apu, not {platform:?} (handler {name:?})"),
        );
    }
    let Some(execute) = a.bundle.execute else {
        return new_error(code::INVALID_ARGUMENT, &format!("FFI handler {name:?} has no execute stage"));
    };
    if a.bundle.instantiate.is_some() || a.bundle.prepare.is_some() || a.bundle.initialize.is_some() {
        return new_error(code::UNIMPLEMENTED, &super::registry::stages_message(&name));
    }
    match super::registry::register(&name, execute) {
        Ok(()) => std::ptr::null_mut(),
        Err(message) => new_error(code::INVALID_ARGUMENT, &message),
    }
}

unsafe extern "C" fn stream_get(_: *mut CtxOutArgs<*mut c_void>) -> *mut FfiError {
    new_error(code::UNIMPLEMENTED, "apu runs FFI handlers on the host: it has no device stream to give")
}

fn type_ids() -> &'static Mutex<HashMap<String, i64>> {
    static IDS: OnceLock<Mutex<HashMap<String, i64>>> = OnceLock::new();
    IDS.get_or_init(Default::default)
}

/// Registers a named type: the same name always gets the same id; an id the caller chose is kept.
pub fn register_type(name: &str, requested: i64) -> Result<i64, String> {
    let mut ids = type_ids().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&id) = ids.get(name) {
        if requested != 0 && requested != id {
            return Err(format!("FFI type {name:?} is already registered with id {id}, not {requested}"));
        }
        return Ok(id);
    }
    let id = if requested != 0 { requested } else { ids.values().copied().max().unwrap_or(0).max(1 << 20) + 1 };
    ids.insert(name.to_string(), id);
    Ok(id)
}

unsafe extern "C" fn type_register(args: *mut TypeRegisterArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return new_error(code::INVALID_ARGUMENT, "null Type_Register args") };
    let Some(slot) = a.type_id.as_mut() else { return new_error(code::INVALID_ARGUMENT, "Type_Register without a type id") };
    match register_type(&a.name.to_string_lossy(), *slot) {
        Ok(id) => {
            *slot = id;
            std::ptr::null_mut()
        }
        Err(message) => new_error(code::INVALID_ARGUMENT, &message),
    }
}

unsafe extern "C" fn invoke_context_get(args: *mut InvokeContextGetArgs) -> *mut FfiError {
    let id = args.as_ref().and_then(|a| a.type_id.as_ref()).copied().unwrap_or(0);
    new_error(code::NOT_FOUND, &format!("apu passes no execution-context user data to FFI handlers (type id {id})"))
}

unsafe extern "C" fn state_set(_: *mut StateArgs) -> *mut FfiError {
    new_error(code::UNIMPLEMENTED, "apu runs the execute stage only: FFI handler state (instantiate) is not supported")
}

unsafe extern "C" fn state_get(_: *mut StateArgs) -> *mut FfiError {
    new_error(code::UNIMPLEMENTED, "apu runs the execute stage only: FFI handler state (instantiate) is not supported")
}

/// Scratch blocks handed out by DeviceMemory_Allocate, by address, with the layout to free them.
fn scratch() -> &'static Mutex<HashMap<usize, std::alloc::Layout>> {
    static BLOCKS: OnceLock<Mutex<HashMap<usize, std::alloc::Layout>>> = OnceLock::new();
    BLOCKS.get_or_init(Default::default)
}

unsafe extern "C" fn device_memory_allocate(args: *mut DeviceMemoryAllocateArgs) -> *mut FfiError {
    let Some(a) = args.as_mut() else { return new_error(code::INVALID_ARGUMENT, "null DeviceMemory_Allocate args") };
    let Ok(layout) = std::alloc::Layout::from_size_align(a.size.max(1), a.alignment.max(1)) else {
        return new_error(code::INVALID_ARGUMENT, &format!("cannot allocate {} bytes aligned to {}", a.size, a.alignment));
    };
    let p = std::alloc::alloc(layout);
    if p.is_null() {
        return new_error(code::RESOURCE_EXHAUSTED, &format!("out of host memory allocating {} bytes", a.size));
    }
    scratch().lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize, layout);
    a.data = p.cast();
    std::ptr::null_mut()
}

unsafe extern "C" fn device_memory_free(args: *mut DeviceMemoryFreeArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return new_error(code::INVALID_ARGUMENT, "null DeviceMemory_Free args") };
    match scratch().lock().unwrap_or_else(|e| e.into_inner()).remove(&(a.data as usize)) {
        Some(layout) => {
            std::alloc::dealloc(a.data.cast(), layout);
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, &format!("DeviceMemory_Free of {:p}, which apu did not allocate", a.data)),
    }
}

struct SendTask(Task, *mut c_void);
// SAFETY: the handler that schedules a task hands its data to another thread by contract.
unsafe impl Send for SendTask {}

unsafe extern "C" fn thread_pool_schedule(args: *mut ThreadPoolScheduleArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return new_error(code::INVALID_ARGUMENT, "null ThreadPool_Schedule args") };
    let Some(task) = a.task else { return new_error(code::INVALID_ARGUMENT, "ThreadPool_Schedule without a task") };
    let job = SendTask(task, a.data);
    rayon::spawn(move || {
        let job = job;
        // SAFETY: the handler gave this task and its data to run once on another thread.
        unsafe { (job.0)(job.1) }
    });
    std::ptr::null_mut()
}

unsafe extern "C" fn thread_pool_num_threads(args: *mut CtxOutArgs<*mut i64>) -> *mut FfiError {
    match args.as_ref().and_then(|a| a.out.as_mut()) {
        Some(out) => {
            *out = rayon::current_num_threads() as i64;
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, "ThreadPool_NumThreads without an output"),
    }
}

/// A handler's asynchronous completion: set once, waited for by the call that ran the handler.
pub struct Future {
    state: Mutex<Option<Result<(), (c_int, String)>>>,
    done: Condvar,
}

impl Future {
    fn set(&self, outcome: Result<(), (c_int, String)>) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.is_none() {
            *s = Some(outcome);
        }
        // Notified under the lock: the waiter frees the future as soon as it can take the lock, so
        // nothing here may touch it after the guard drops.
        self.done.notify_all();
    }

    /// Waits for the outcome and frees the future.
    ///
    /// # Safety
    /// `p` must come from Future_Create and not be waited for twice.
    pub unsafe fn wait_and_free(p: *mut c_void) -> Result<(), (c_int, String)> {
        let f = Box::from_raw(p.cast::<Future>());
        let mut s = f.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.is_none() {
            s = f.done.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let outcome = s.take().unwrap_or(Ok(()));
        drop(s);
        outcome
    }
}

unsafe extern "C" fn future_create(args: *mut FutureArgs) -> *mut FfiError {
    let Some(a) = args.as_mut() else { return new_error(code::INVALID_ARGUMENT, "null Future_Create args") };
    a.future = Box::into_raw(Box::new(Future { state: Mutex::new(None), done: Condvar::new() })).cast();
    std::ptr::null_mut()
}

unsafe extern "C" fn future_set_available(args: *mut FutureArgs) -> *mut FfiError {
    match args.as_ref().and_then(|a| a.future.cast::<Future>().as_ref()) {
        Some(f) => {
            f.set(Ok(()));
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, "Future_SetAvailable without a future"),
    }
}

unsafe extern "C" fn future_set_error(args: *mut FutureSetErrorArgs) -> *mut FfiError {
    let Some(a) = args.as_ref() else { return new_error(code::INVALID_ARGUMENT, "null Future_SetError args") };
    let Some(f) = a.future.cast::<Future>().as_ref() else {
        return new_error(code::INVALID_ARGUMENT, "Future_SetError without a future");
    };
    let outcome = if a.error.is_null() { (code::INTERNAL, "unknown error".to_string()) } else { take_error(a.error) };
    f.set(Err(outcome));
    std::ptr::null_mut()
}

unsafe extern "C" fn run_id_get(args: *mut CtxOutArgs<i64>) -> *mut FfiError {
    match args.as_mut() {
        Some(a) => {
            a.out = ctx(a.ctx).map_or(0, |c| c.run_id);
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, "null RunId_Get args"),
    }
}

unsafe extern "C" fn device_ordinal_get(args: *mut CtxOutArgs<i32>) -> *mut FfiError {
    match args.as_mut() {
        Some(a) => {
            a.out = ctx(a.ctx).map_or(0, |c| c.device_ordinal);
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, "null DeviceOrdinal_Get args"),
    }
}

unsafe extern "C" fn invoke_context_find_extension(args: *mut FindExtensionArgs) -> *mut FfiError {
    // apu attaches no extensions: "not attached" is an empty answer, not an error.
    if let Some(a) = args.as_mut() {
        a.extension = std::ptr::null();
    }
    std::ptr::null_mut()
}

unsafe extern "C" fn custom_options_get(args: *mut CustomOptionsGetArgs) -> *mut FfiError {
    match args.as_mut() {
        Some(a) => {
            a.attrs = ctx(a.ctx).map_or(std::ptr::null(), |c| &c.no_options as *const Attrs);
            std::ptr::null_mut()
        }
        None => new_error(code::INVALID_ARGUMENT, "null CustomOptions_Get args"),
    }
}
