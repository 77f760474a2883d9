//! Streams, events, timers, copies and host callbacks of the APU StreamExecutor.
//!
//! Every operation runs to completion inside the call that enqueues it, so a stream's operations are in
//! order by construction, a stream never waits on another, and an event is complete once recorded.
//!
//! # Safety
//! Every `extern "C"` function here is a StreamExecutor callback: TensorFlow calls it with the device,
//! stream, event and memory handles this plug-in created, and with valid (or null) out-pointers.
#![allow(clippy::missing_safety_doc)]

use crate::tf::symbols::{self, OwnedStatus};
use apu_pjrt_api::tf as c;
use std::time::Instant;

/// Plug-in state behind an `SP_Stream`.
pub struct Stream {
    pub ordinal: i32,
}

/// Plug-in state behind an `SP_Event`.
pub struct Event {
    pub recorded: bool,
}

/// Plug-in state behind an `SP_Timer`.
pub struct Timer {
    start: Option<Instant>,
    elapsed_ns: u64,
}

unsafe fn ordinal(device: *const c::SP_Device) -> i32 {
    if device.is_null() {
        0
    } else {
        (*device).ordinal
    }
}

pub(crate) unsafe extern "C" fn create_stream(device: *const c::SP_Device, stream: *mut c::SP_Stream, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_stream", (), || {
        let st = Box::new(Stream { ordinal: ordinal(device) });
        *stream = Box::into_raw(st) as c::SP_Stream;
})
}

pub(crate) unsafe extern "C" fn destroy_stream(_device: *const c::SP_Device, stream: c::SP_Stream) {
    crate::tf::guard::quiet("destroy_stream", (), || {
        if !stream.is_null() {
            drop(Box::from_raw(stream as *mut Stream));
        }
})
}

/// Work is complete when enqueued, so `dependent` never has anything to wait for.
pub(crate) unsafe extern "C" fn create_stream_dependency(
    _device: *const c::SP_Device,
    _dependent: c::SP_Stream,
    _other: c::SP_Stream,
    _s: *mut c::TF_Status,
) {
}

/// Streams never enter an error state: failures are reported by the failing call itself.
pub(crate) unsafe extern "C" fn get_stream_status(_device: *const c::SP_Device, _stream: c::SP_Stream, _s: *mut c::TF_Status) {}

pub(crate) unsafe extern "C" fn create_event(_device: *const c::SP_Device, event: *mut c::SP_Event, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_event", (), || {
        *event = Box::into_raw(Box::new(Event { recorded: false })) as c::SP_Event;
})
}

pub(crate) unsafe extern "C" fn destroy_event(_device: *const c::SP_Device, event: c::SP_Event) {
    crate::tf::guard::quiet("destroy_event", (), || {
        if !event.is_null() {
            drop(Box::from_raw(event as *mut Event));
        }
})
}

/// Complete whether recorded or not: like an unrecorded CUDA event, there is nothing to wait for.
pub(crate) unsafe extern "C" fn get_event_status(_device: *const c::SP_Device, _event: c::SP_Event) -> c::SE_EventStatus {
    crate::tf::guard::quiet("get_event_status", c::SE_EventStatus_SE_EVENT_ERROR, || {
        c::SE_EventStatus_SE_EVENT_COMPLETE
})
}

pub(crate) unsafe extern "C" fn record_event(
    _device: *const c::SP_Device,
    _stream: c::SP_Stream,
    event: c::SP_Event,
    _s: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("record_event", (), || {
        if let Some(e) = (event as *mut Event).as_mut() {
            e.recorded = true;
        }
})
}

pub(crate) unsafe extern "C" fn wait_for_event(
    _device: *const c::SP_Device,
    _stream: c::SP_Stream,
    _event: c::SP_Event,
    _s: *mut c::TF_Status,
) {
}

pub(crate) unsafe extern "C" fn create_timer(_device: *const c::SP_Device, timer: *mut c::SP_Timer, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_timer", (), || {
        *timer = Box::into_raw(Box::new(Timer { start: None, elapsed_ns: 0 })) as c::SP_Timer;
})
}

pub(crate) unsafe extern "C" fn destroy_timer(_device: *const c::SP_Device, timer: c::SP_Timer) {
    crate::tf::guard::quiet("destroy_timer", (), || {
        if !timer.is_null() {
            drop(Box::from_raw(timer as *mut Timer));
        }
})
}

pub(crate) unsafe extern "C" fn start_timer(
    _device: *const c::SP_Device,
    _stream: c::SP_Stream,
    timer: c::SP_Timer,
    _s: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("start_timer", (), || {
        if let Some(t) = (timer as *mut Timer).as_mut() {
            t.start = Some(Instant::now());
        }
})
}

pub(crate) unsafe extern "C" fn stop_timer(
    _device: *const c::SP_Device,
    _stream: c::SP_Stream,
    timer: c::SP_Timer,
    _s: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("stop_timer", (), || {
        if let Some(t) = (timer as *mut Timer).as_mut() {
            if let Some(start) = t.start.take() {
                t.elapsed_ns = start.elapsed().as_nanos() as u64;
            }
        }
})
}

pub(crate) unsafe extern "C" fn timer_nanoseconds(timer: c::SP_Timer) -> u64 {
    crate::tf::guard::quiet("timer_nanoseconds", 0, || {
        (timer as *const Timer).as_ref().map_or(0, |t| t.elapsed_ns)
})
}

/// Copies `size` bytes; both sides are host memory. Null pointers with a non-zero size are reported.
unsafe fn copy(dst: *mut u8, src: *const u8, size: u64, status: *mut c::TF_Status, what: &str) {
    if size == 0 {
        return;
    }
    if dst.is_null() || src.is_null() {
        if let Ok(api) = symbols::api() {
            symbols::set_status(api, status, c::TF_Code_TF_INVALID_ARGUMENT, &format!("apu {what}: null pointer for {size} bytes"));
        }
        return;
    }
    std::ptr::copy(src, dst, size as usize);
}

unsafe fn opaque(mem: *const c::SP_DeviceMemoryBase) -> *mut u8 {
    mem.as_ref().map_or(std::ptr::null_mut(), |m| m.opaque as *mut u8)
}

pub(crate) unsafe extern "C" fn memcpy_dtoh(
    _d: *const c::SP_Device,
    _s: c::SP_Stream,
    host_dst: *mut std::ffi::c_void,
    device_src: *const c::SP_DeviceMemoryBase,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("memcpy_dtoh", (), || {
        copy(host_dst as *mut u8, opaque(device_src), size, status, "memcpy_dtoh");
})
}

pub(crate) unsafe extern "C" fn memcpy_htod(
    _d: *const c::SP_Device,
    _s: c::SP_Stream,
    device_dst: *mut c::SP_DeviceMemoryBase,
    host_src: *const std::ffi::c_void,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("memcpy_htod", (), || {
        copy(opaque(device_dst), host_src as *const u8, size, status, "memcpy_htod");
})
}

pub(crate) unsafe extern "C" fn memcpy_dtod(
    _d: *const c::SP_Device,
    _s: c::SP_Stream,
    device_dst: *mut c::SP_DeviceMemoryBase,
    device_src: *const c::SP_DeviceMemoryBase,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("memcpy_dtod", (), || {
        copy(opaque(device_dst), opaque(device_src), size, status, "memcpy_dtod");
})
}

pub(crate) unsafe extern "C" fn sync_memcpy_dtoh(
    _d: *const c::SP_Device,
    host_dst: *mut std::ffi::c_void,
    device_src: *const c::SP_DeviceMemoryBase,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("sync_memcpy_dtoh", (), || {
        copy(host_dst as *mut u8, opaque(device_src), size, status, "sync_memcpy_dtoh");
})
}

pub(crate) unsafe extern "C" fn sync_memcpy_htod(
    _d: *const c::SP_Device,
    device_dst: *mut c::SP_DeviceMemoryBase,
    host_src: *const std::ffi::c_void,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("sync_memcpy_htod", (), || {
        copy(opaque(device_dst), host_src as *const u8, size, status, "sync_memcpy_htod");
})
}

pub(crate) unsafe extern "C" fn sync_memcpy_dtod(
    _d: *const c::SP_Device,
    device_dst: *mut c::SP_DeviceMemoryBase,
    device_src: *const c::SP_DeviceMemoryBase,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("sync_memcpy_dtod", (), || {
        copy(opaque(device_dst), opaque(device_src), size, status, "sync_memcpy_dtod");
})
}

pub(crate) unsafe extern "C" fn block_host_for_event(_d: *const c::SP_Device, _e: c::SP_Event, _s: *mut c::TF_Status) {}

pub(crate) unsafe extern "C" fn block_host_until_done(_d: *const c::SP_Device, _st: c::SP_Stream, _s: *mut c::TF_Status) {}

pub(crate) unsafe extern "C" fn synchronize_all_activity(_d: *const c::SP_Device, _s: *mut c::TF_Status) {}

/// Applies `f` to the first `size` bytes of `location`.
unsafe fn fill(location: *mut c::SP_DeviceMemoryBase, size: u64, status: *mut c::TF_Status, f: impl FnOnce(&mut [u8])) {
    let p = opaque(location);
    if size == 0 {
        return;
    }
    if p.is_null() {
        if let Ok(api) = symbols::api() {
            symbols::set_status(api, status, c::TF_Code_TF_INVALID_ARGUMENT, &format!("apu memset: null destination for {size} bytes"));
        }
        return;
    }
    f(std::slice::from_raw_parts_mut(p, size as usize));
}

pub(crate) unsafe extern "C" fn mem_zero(
    _device: *const c::SP_Device,
    _s: c::SP_Stream,
    location: *mut c::SP_DeviceMemoryBase,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("mem_zero", (), || {
        fill(location, size, status, |b| b.fill(0));
})
}

pub(crate) unsafe extern "C" fn memset(
    _device: *const c::SP_Device,
    _s: c::SP_Stream,
    location: *mut c::SP_DeviceMemoryBase,
    pattern: u8,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("memset", (), || {
        fill(location, size, status, |b| b.fill(pattern));
})
}

/// `size` is in bytes; the 32-bit pattern repeats, little-endian, over whole words.
pub(crate) unsafe extern "C" fn memset32(
    _device: *const c::SP_Device,
    _s: c::SP_Stream,
    location: *mut c::SP_DeviceMemoryBase,
    pattern: u32,
    size: u64,
    status: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("memset32", (), || {
        fill(location, size, status, |b| {
            for (i, byte) in b.iter_mut().enumerate() {
                *byte = pattern.to_le_bytes()[i % 4];
            }
        });
})
}

/// Everything enqueued before the callback has completed, so it runs now, with an OK status it may
/// overwrite; the status is ours and deleted afterwards.
pub(crate) unsafe extern "C" fn host_callback(
    _d: *const c::SP_Device,
    _s: c::SP_Stream,
    callback: c::SE_StatusCallbackFn,
    arg: *mut std::ffi::c_void,
) -> c::TF_Bool {
    crate::tf::guard::quiet("host_callback", 0, || {
        let (Some(cb), Ok(api)) = (callback, symbols::api()) else { return 0 };
        let status = OwnedStatus::new(api);
        cb(arg, status.raw);
        if !status.is_ok() {
            eprintln!("apu: host callback reported: {}", status.message());
        }
        1
})
}
