//! The TensorFlow entry points driven as TensorFlow drives them, in a process without TensorFlow: no
//! TensorFlow symbol resolves here, so the switch falls back to PluggableDevice and nothing may crash.

use apu::tf::entry::{SE_InitPlugin, TFNPD_InitPlugin};
use apu_pjrt_api::tf::*;
use std::ffi::CStr;
use std::mem::zeroed;

unsafe fn cstr(p: *const std::ffi::c_char) -> &'static str {
    CStr::from_ptr(p).to_str().unwrap()
}

#[test]
fn stream_executor_platform_device_and_memory() {
    unsafe {
        let mut platform: SP_Platform = zeroed();
        platform.struct_size = SP_PLATFORM_STRUCT_SIZE as usize;
        let mut fns: SP_PlatformFns = zeroed();
        fns.struct_size = SP_PLATFORM_FNS_STRUCT_SIZE as usize;
        let mut params: SE_PlatformRegistrationParams = zeroed();
        params.struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE as usize;
        params.platform = &mut platform;
        params.platform_fns = &mut fns;
        SE_InitPlugin(&mut params, std::ptr::null_mut());

        assert_eq!((params.major_version, params.minor_version, params.patch_version), (0, 0, 1));
        assert!(params.destroy_platform.is_some() && params.destroy_platform_fns.is_some());
        // Without TensorFlow's NPD C API the switch falls back to PluggableDevice: the real type.
        assert_eq!(cstr(platform.type_), "APU");
        assert_eq!(cstr(platform.name), "APU");

        let mut count = -1;
        fns.get_device_count.unwrap()(&platform, &mut count, std::ptr::null_mut());
        assert_eq!(count, 1);

        let mut device: SP_Device = zeroed();
        let mut dparams: SE_CreateDeviceParams = zeroed();
        dparams.struct_size = SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE as usize;
        dparams.ordinal = 0;
        dparams.device = &mut device;
        fns.create_device.unwrap()(&platform, &mut dparams, std::ptr::null_mut());
        assert_eq!(device.struct_size, SP_DEVICE_STRUCT_SIZE as usize);
        assert!(!device.device_handle.is_null());

        let mut se: SP_StreamExecutor = zeroed();
        let mut sparams: SE_CreateStreamExecutorParams = zeroed();
        sparams.stream_executor = &mut se;
        fns.create_stream_executor.unwrap()(&platform, &mut sparams, std::ptr::null_mut());
        // Every callback is filled: 34 non-null pointers after struct_size and ext.
        let words = std::slice::from_raw_parts(&se as *const SP_StreamExecutor as *const usize, 36);
        assert!(words[2..].iter().all(|&w| w != 0), "a StreamExecutor callback is NULL");

        let (mut free, mut total) = (0i64, 0i64);
        assert_eq!(se.device_memory_usage.unwrap()(&device, &mut free, &mut total), 1);
        assert!(free > 0 && free <= total);

        let mut mem: SP_DeviceMemoryBase = zeroed();
        se.allocate.unwrap()(&device, 64, 0, &mut mem);
        assert!(!mem.opaque.is_null() && mem.size == 64);
        let mut stream: SP_Stream = std::ptr::null_mut();
        se.create_stream.unwrap()(&device, &mut stream, std::ptr::null_mut());
        let src: Vec<u8> = (0..64).collect();
        se.memcpy_htod.unwrap()(&device, stream, &mut mem, src.as_ptr().cast(), 64, std::ptr::null_mut());
        se.memset32.unwrap()(&device, stream, &mut mem, 0xAABBCCDD, 8, std::ptr::null_mut());
        let mut back = vec![0u8; 64];
        se.sync_memcpy_dtoh.unwrap()(&device, back.as_mut_ptr().cast(), &mem, 64, std::ptr::null_mut());
        assert_eq!(&back[..8], &[0xDD, 0xCC, 0xBB, 0xAA, 0xDD, 0xCC, 0xBB, 0xAA]);
        assert_eq!(&back[8..], &src[8..]);

        let mut event: SP_Event = std::ptr::null_mut();
        se.create_event.unwrap()(&device, &mut event, std::ptr::null_mut());
        se.record_event.unwrap()(&device, stream, event, std::ptr::null_mut());
        assert_eq!(se.get_event_status.unwrap()(&device, event), SE_EventStatus_SE_EVENT_COMPLETE);
        se.destroy_event.unwrap()(&device, event);

        let mut stats: SP_AllocatorStats = zeroed();
        assert_eq!(se.get_allocator_stats.unwrap()(&device, &mut stats), 1);
        assert_eq!((stats.num_allocs, stats.bytes_in_use, stats.largest_alloc_size), (1, 64, 64));
        se.deallocate.unwrap()(&device, &mut mem);
        se.get_allocator_stats.unwrap()(&device, &mut stats);
        assert_eq!((stats.bytes_in_use, stats.peak_bytes_in_use), (0, 64));

        se.destroy_stream.unwrap()(&device, stream);
        fns.destroy_device.unwrap()(&platform, &mut device);
    }
}

#[test]
fn next_pluggable_device_side_is_the_dummy_when_pd_is_active() {
    unsafe {
        let mut params: TFNPD_PluginParams = zeroed();
        params.struct_size = TFNPD_PLUGIN_PARAMS_STRUCT_SIZE as usize;
        let api = TFNPD_InitPlugin(&mut params, std::ptr::null_mut());
        assert!(!api.is_null());
        assert_eq!(cstr(params.device_type), "APU_DUMMY");
        assert_eq!(cstr(params.compilation_device_name), "XLA_CPU_JIT");
        assert_eq!(params.priority, 0);
        assert!(!params.use_pjrt_on_demand_compile);
        let api = &*api;
        assert_eq!(api.struct_size, TFNPD_API_STRUCT_SIZE as usize);
        assert_eq!(api.TFNPD_GetDeviceCount.unwrap()(std::ptr::null_mut()), 0);
    }
}

#[test]
fn xla_shape_copy_owns_its_heap_lists() {
    unsafe {
        let dims: Vec<i64> = (1..=8).collect();
        let mut shape: XLA_Shape = zeroed();
        shape.element_type = 11;
        shape.dimensions.__bindgen_anon_1.heap = dims.as_ptr() as *mut i64;
        shape.dimensions.size = 8;
        shape.has_layout = true;
        shape.layout.minor_to_major.size = 2;
        shape.layout.minor_to_major.__bindgen_anon_1.inlined[..2].copy_from_slice(&[1, 0]);
        let mut out: XLA_Shape = zeroed();
        let api = &*TFNPD_InitPlugin(&mut zeroed(), std::ptr::null_mut());
        api.TFNPD_XlaShapeToDeviceShapeRepresentation.unwrap()(&mut shape, 1, false, 0, &mut out, std::ptr::null_mut());
        assert_eq!(out.element_type, 11);
        assert_eq!(out.dimensions.size, 8);
        let copied = out.dimensions.__bindgen_anon_1.heap;
        assert_ne!(copied as *const i64, dims.as_ptr(), "the copy must not share the caller's heap list");
        assert_eq!(std::slice::from_raw_parts(copied, 8), &dims[..]);
        assert_eq!(&out.layout.minor_to_major.__bindgen_anon_1.inlined[..2], &[1, 0]);
        extern "C" {
            fn free(p: *mut std::ffi::c_void);
        }
        free(copied.cast());
    }
}
