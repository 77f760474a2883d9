//! The TensorFlow plug-in structs have the sizes and offsets TensorFlow 2.21 expects on x86-64.

use apu_pjrt_api::tf::*;
use std::mem::{offset_of, size_of};

#[test]
fn stream_executor_struct_sizes() {
    assert_eq!(size_of::<SE_PlatformRegistrationParams>(), SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_PlatformFns>(), SP_PLATFORM_FNS_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_StreamExecutor>(), SP_STREAMEXECUTOR_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_Device>(), SP_DEVICE_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_DeviceFns>(), SP_DEVICE_FNS_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_DeviceMemoryBase>(), SP_DEVICE_MEMORY_BASE_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_AllocatorStats>(), SP_ALLOCATORSTATS_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SP_TimerFns>(), SP_TIMER_FNS_STRUCT_SIZE as usize);
    assert_eq!(size_of::<SE_CreateDeviceParams>(), SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE as usize);
    // SP_Platform's struct size is the offset of the end of its last field, not sizeof.
    assert_eq!(offset_of!(SP_Platform, force_memory_growth) + 1, SP_PLATFORM_STRUCT_SIZE as usize);
    // The callback table: 34 pointers after struct_size and ext, host_callback last.
    assert_eq!(offset_of!(SP_StreamExecutor, allocate), 16);
    assert_eq!(offset_of!(SP_StreamExecutor, host_callback), 16 + 33 * 8);
    assert_eq!(offset_of!(SP_StreamExecutor, memcpy_dtoh), 16 + 21 * 8);
}

#[test]
fn next_pluggable_device_struct_sizes() {
    assert_eq!(size_of::<TFNPD_Api>(), TFNPD_API_STRUCT_SIZE as usize);
    assert_eq!(offset_of!(TFNPD_PluginParams, is_pluggable_device) + 1, TFNPD_PLUGIN_PARAMS_STRUCT_SIZE as usize);
    assert_eq!(offset_of!(TFNPD_PluginParams, use_pjrt_on_demand_compile), 37);
    assert_eq!(offset_of!(TFNPD_PluginParams, priority), 32);
    assert_eq!(offset_of!(TFNPD_Api, TFNPD_InitPluginInternalDeviceStates), 168);
}

#[test]
fn xla_shape_layout_of_tensorflow_2_18() {
    assert_eq!(size_of::<XLA_IntList>(), 32);
    assert_eq!(size_of::<XLA_Int64List>(), 56);
    assert_eq!(size_of::<XLA_BoolList>(), 16);
    assert_eq!(size_of::<XLA_TileList>(), 6 * 56 + 8);
    assert_eq!(offset_of!(XLA_Layout, tiles), 56 + 3 * 32);
    assert_eq!(offset_of!(XLA_Shape, dimensions), 8);
    assert_eq!(offset_of!(XLA_Shape, tuple_shapes), 8 + 56 + 16);
}
