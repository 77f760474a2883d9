//! `SE_InitPlugin`'s work: the SP_Platform, its device(s) and the SP_StreamExecutor callback table.

use super::memory::{Allocator, REPORTED_MEMORY_BYTES};
use super::stream as s;
use crate::tf::config::{self, Mode};
use crate::tf::symbols;
use apu_pjrt_api::tf as c;
use std::ffi::c_void;

/// Devices of the active PluggableDevice side (the dummy side has none).
pub const DEVICE_COUNT: i32 = 1;

/// Plug-in state behind `SP_Device::device_handle`.
pub struct DeviceState {
    pub ordinal: i32,
    pub allocator: Allocator,
}

/// The allocator of a device handed back by TensorFlow.
///
/// # Safety
/// `device` is null or an `SP_Device` created by [`create_device`].
pub unsafe fn allocator_of<'a>(device: *const c::SP_Device) -> Option<&'a Allocator> {
    let d = device.as_ref()?;
    (d.device_handle as *const DeviceState).as_ref().map(|st| &st.allocator)
}

fn static_cstr(s: &'static str) -> *const std::ffi::c_char {
    match s {
        config::DEVICE_TYPE => c"APU".as_ptr(),
        config::DUMMY_DEVICE_TYPE => c"APU_DUMMY".as_ptr(),
        _ => c"APU_UNKNOWN".as_ptr(),
    }
}

/// Fills the registration params. Never sets an error status: TensorFlow aborts the process on one.
///
/// # Safety
/// `params` points to TensorFlow's registration struct with `platform` and `platform_fns` set.
pub unsafe fn init_plugin(params: *mut c::SE_PlatformRegistrationParams) {
    let Some(params) = params.as_mut() else { return };
    let cfg = config::get();
    let ty = static_cstr(cfg.pluggable_device_type());
    params.major_version = c::SE_MAJOR as i32;
    params.minor_version = c::SE_MINOR as i32;
    params.patch_version = c::SE_PATCH as i32;
    params.destroy_platform = Some(destroy_platform);
    params.destroy_platform_fns = Some(destroy_platform_fns);
    if let Some(p) = params.platform.as_mut() {
        p.struct_size = c::SP_PLATFORM_STRUCT_SIZE as usize;
        p.name = ty;
        p.type_ = ty;
        p.supports_unified_memory = 0;
        // Without the BFC allocator TensorFlow calls `allocate` per tensor, so our statistics are real.
        p.use_bfc_allocator = 0;
        p.force_memory_growth = 0;
    }
    if let Some(f) = params.platform_fns.as_mut() {
        f.struct_size = c::SP_PLATFORM_FNS_STRUCT_SIZE as usize;
        f.get_device_count = Some(get_device_count);
        f.create_device = Some(create_device);
        f.destroy_device = Some(destroy_device);
        f.create_device_fns = Some(create_device_fns);
        f.destroy_device_fns = Some(destroy_device_fns);
        f.create_stream_executor = Some(create_stream_executor);
        f.destroy_stream_executor = Some(destroy_stream_executor);
        f.create_timer_fns = Some(create_timer_fns);
        f.destroy_timer_fns = Some(destroy_timer_fns);
    }
}

unsafe extern "C" fn destroy_platform(_p: *mut c::SP_Platform) {}
unsafe extern "C" fn destroy_platform_fns(_f: *mut c::SP_PlatformFns) {}

unsafe extern "C" fn get_device_count(_p: *const c::SP_Platform, count: *mut i32, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("get_device_count", (), || {
        if !count.is_null() {
            *count = if config::get().mode == Mode::Pluggable { DEVICE_COUNT } else { 0 };
        }
})
}

unsafe extern "C" fn create_device(_p: *const c::SP_Platform, params: *mut c::SE_CreateDeviceParams, status: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_device", (), || {
        let Some(params) = params.as_mut() else { return };
        let Some(dev) = params.device.as_mut() else {
            if let Ok(api) = symbols::api() {
                symbols::set_status(api, status, c::TF_Code_TF_INVALID_ARGUMENT, "apu create_device: no SP_Device given");
            }
            return;
        };
        dev.struct_size = c::SP_DEVICE_STRUCT_SIZE as usize;
        dev.ordinal = params.ordinal;
        dev.device_handle = Box::into_raw(Box::new(DeviceState { ordinal: params.ordinal, allocator: Allocator::new() })) as *mut c_void;
        dev.hardware_name = c"APU (host memory, reference kernels)".as_ptr();
        dev.device_vendor = c"apu".as_ptr();
        dev.pci_bus_id = std::ptr::null();
})
}

unsafe extern "C" fn destroy_device(_p: *const c::SP_Platform, device: *mut c::SP_Device) {
    crate::tf::guard::quiet("destroy_device", (), || {
        if let Some(d) = device.as_mut() {
            if !d.device_handle.is_null() {
                drop(Box::from_raw(d.device_handle as *mut DeviceState));
                d.device_handle = std::ptr::null_mut();
            }
        }
})
}

unsafe extern "C" fn numa_node(_d: *const c::SP_Device) -> i32 {
    crate::tf::guard::quiet("numa_node", -1, || {
        -1
})
}

unsafe extern "C" fn create_device_fns(_p: *const c::SP_Platform, params: *mut c::SE_CreateDeviceFnsParams, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_device_fns", (), || {
        if let Some(fns) = params.as_mut().and_then(|p| p.device_fns.as_mut()) {
            fns.struct_size = c::SP_DEVICE_FNS_STRUCT_SIZE as usize;
            fns.get_numa_node = Some(numa_node);
        }
})
}

unsafe extern "C" fn destroy_device_fns(_p: *const c::SP_Platform, _f: *mut c::SP_DeviceFns) {}

unsafe extern "C" fn allocate(device: *const c::SP_Device, size: u64, _space: i64, mem: *mut c::SP_DeviceMemoryBase) {
    crate::tf::guard::quiet("allocate", (), || {
        let Some(mem) = mem.as_mut() else { return };
        mem.struct_size = c::SP_DEVICE_MEMORY_BASE_STRUCT_SIZE as usize;
        let p = allocator_of(device).and_then(|a| a.allocate_uninit(size as usize));
        // A null `opaque` tells TensorFlow the allocation failed (it reports OOM itself).
        mem.opaque = p.map_or(std::ptr::null_mut(), |p| p as *mut c_void);
        mem.size = if p.is_some() { size } else { 0 };
})
}

unsafe extern "C" fn deallocate(device: *const c::SP_Device, mem: *mut c::SP_DeviceMemoryBase) {
    crate::tf::guard::quiet("deallocate", (), || {
        let Some(mem) = mem.as_mut() else { return };
        if let Some(a) = allocator_of(device) {
            a.deallocate(mem.opaque as *mut u8);
        }
        mem.opaque = std::ptr::null_mut();
        mem.size = 0;
})
}

unsafe extern "C" fn host_memory_allocate(device: *const c::SP_Device, size: u64) -> *mut c_void {
    crate::tf::guard::quiet("host_memory_allocate", std::ptr::null_mut(), || {
        allocator_of(device).and_then(|a| a.allocate(size as usize)).map_or(std::ptr::null_mut(), |p| p as *mut c_void)
})
}

unsafe extern "C" fn host_memory_deallocate(device: *const c::SP_Device, mem: *mut c_void) {
    crate::tf::guard::quiet("host_memory_deallocate", (), || {
        if let Some(a) = allocator_of(device) {
            a.deallocate(mem as *mut u8);
        }
})
}

unsafe extern "C" fn get_allocator_stats(device: *const c::SP_Device, stats: *mut c::SP_AllocatorStats) -> c::TF_Bool {
    crate::tf::guard::quiet("get_allocator_stats", 0, || {
        let (Some(a), Some(out)) = (allocator_of(device), stats.as_mut()) else { return 0 };
        let st = a.stats();
        out.struct_size = c::SP_ALLOCATORSTATS_STRUCT_SIZE as usize;
        out.num_allocs = st.num_allocs;
        out.bytes_in_use = st.bytes_in_use;
        out.peak_bytes_in_use = st.peak_bytes_in_use;
        out.largest_alloc_size = st.largest_alloc_size;
        out.has_bytes_limit = 1;
        out.bytes_limit = REPORTED_MEMORY_BYTES;
        1
})
}

/// TensorFlow refuses to create the device unless this returns true.
unsafe extern "C" fn device_memory_usage(device: *const c::SP_Device, free: *mut i64, total: *mut i64) -> c::TF_Bool {
    crate::tf::guard::quiet("device_memory_usage", 0, || {
        let used = allocator_of(device).map_or(0, |a| a.stats().bytes_in_use);
        if !free.is_null() {
            *free = (REPORTED_MEMORY_BYTES - used).max(0);
        }
        if !total.is_null() {
            *total = REPORTED_MEMORY_BYTES;
        }
        1
})
}

unsafe extern "C" fn create_stream_executor(
    _p: *const c::SP_Platform,
    params: *mut c::SE_CreateStreamExecutorParams,
    _s: *mut c::TF_Status,
) {
    crate::tf::guard::quiet("create_stream_executor", (), || {
        let Some(se) = params.as_mut().and_then(|p| p.stream_executor.as_mut()) else { return };
        se.struct_size = c::SP_STREAMEXECUTOR_STRUCT_SIZE as usize;
        se.allocate = Some(allocate);
        se.deallocate = Some(deallocate);
        se.host_memory_allocate = Some(host_memory_allocate);
        se.host_memory_deallocate = Some(host_memory_deallocate);
        // Not advertised (supports_unified_memory = 0), but host memory would serve, so never leave NULLs.
        se.unified_memory_allocate = Some(host_memory_allocate);
        se.unified_memory_deallocate = Some(host_memory_deallocate);
        se.get_allocator_stats = Some(get_allocator_stats);
        se.device_memory_usage = Some(device_memory_usage);
        se.create_stream = Some(s::create_stream);
        se.destroy_stream = Some(s::destroy_stream);
        se.create_stream_dependency = Some(s::create_stream_dependency);
        se.get_stream_status = Some(s::get_stream_status);
        se.create_event = Some(s::create_event);
        se.destroy_event = Some(s::destroy_event);
        se.get_event_status = Some(s::get_event_status);
        se.record_event = Some(s::record_event);
        se.wait_for_event = Some(s::wait_for_event);
        se.create_timer = Some(s::create_timer);
        se.destroy_timer = Some(s::destroy_timer);
        se.start_timer = Some(s::start_timer);
        se.stop_timer = Some(s::stop_timer);
        se.memcpy_dtoh = Some(s::memcpy_dtoh);
        se.memcpy_htod = Some(s::memcpy_htod);
        se.memcpy_dtod = Some(s::memcpy_dtod);
        se.sync_memcpy_dtoh = Some(s::sync_memcpy_dtoh);
        se.sync_memcpy_htod = Some(s::sync_memcpy_htod);
        se.sync_memcpy_dtod = Some(s::sync_memcpy_dtod);
        se.block_host_for_event = Some(s::block_host_for_event);
        se.block_host_until_done = Some(s::block_host_until_done);
        se.synchronize_all_activity = Some(s::synchronize_all_activity);
        se.mem_zero = Some(s::mem_zero);
        se.memset = Some(s::memset);
        se.memset32 = Some(s::memset32);
        se.host_callback = Some(s::host_callback);
})
}

unsafe extern "C" fn destroy_stream_executor(_p: *const c::SP_Platform, _se: *mut c::SP_StreamExecutor) {}

unsafe extern "C" fn create_timer_fns(_p: *const c::SP_Platform, timer: *mut c::SP_TimerFns, _s: *mut c::TF_Status) {
    crate::tf::guard::quiet("create_timer_fns", (), || {
        if let Some(t) = timer.as_mut() {
            t.struct_size = c::SP_TIMER_FNS_STRUCT_SIZE as usize;
            t.nanoseconds = Some(s::timer_nanoseconds);
        }
})
}

unsafe extern "C" fn destroy_timer_fns(_p: *const c::SP_Platform, _t: *mut c::SP_TimerFns) {}

