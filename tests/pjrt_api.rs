//! The plugin's C API surface, driven through the `PJRT_Api` table as a framework would.
#![allow(non_upper_case_globals, unused_unsafe)]

mod common;
use common::*;
use std::os::raw::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn table_reports_0_112_with_all_138_slots_filled() {
    let api = api();
    assert_eq!(api.struct_size, 1144);
    assert_eq!(
        (
            api.pjrt_api_version.major_version,
            api.pjrt_api_version.minor_version
        ),
        (0, 112)
    );
    // Slots start at byte 40 and are 8 bytes each.
    let words =
        unsafe { std::slice::from_raw_parts(api as *const PJRT_Api as *const usize, 1144 / 8) };
    for (slot, &word) in words[5..].iter().enumerate() {
        assert_ne!(word, 0, "slot {slot} is NULL");
    }
    assert_eq!(words.len() - 5, 138);
}

#[test]
fn plugin_attributes_advertise_versions() {
    let mut init = args!(PJRT_Plugin_Initialize_Args);
    call!(PJRT_Plugin_Initialize, &mut init).unwrap();
    let mut a = args!(PJRT_Plugin_Attributes_Args);
    call!(PJRT_Plugin_Attributes, &mut a).unwrap();
    let attrs = unsafe { std::slice::from_raw_parts(a.attributes, a.num_attributes) };
    let mut seen = std::collections::HashMap::new();
    for nv in attrs {
        let name = unsafe { str_from(nv.name, nv.name_size) };
        let value: Vec<i64> = unsafe {
            match nv.type_ {
                PJRT_NamedValue_kInt64 => vec![nv.__bindgen_anon_1.int64_value],
                PJRT_NamedValue_kInt64List => {
                    std::slice::from_raw_parts(nv.__bindgen_anon_1.int64_array_value, nv.value_size)
                        .to_vec()
                }
                t => panic!("unexpected attribute type {t} for {name}"),
            }
        };
        assert!(seen.insert(name, value).is_none(), "duplicate attribute");
    }
    assert_eq!(seen["xla_version"], vec![2]);
    assert_eq!(seen["stablehlo_current_version"], vec![1, 22, 0]);
    assert_eq!(seen["stablehlo_minimum_version"], vec![0, 9, 0]);
}

#[test]
fn args_smaller_than_required_are_rejected_by_name() {
    let client = Client::new();
    let mut a = args!(PJRT_Client_Devices_Args { client: client.0 });
    a.struct_size = 16;
    let e = call!(PJRT_Client_Devices, &mut a).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        e.message.contains("PJRT_Client_Devices") && e.message.contains("16"),
        "{}",
        e.message
    );
    let e = check(unsafe { api().PJRT_Client_Devices.unwrap()(std::ptr::null_mut()) }).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
}

#[test]
fn short_args_from_older_callers_are_served_without_reading_past_them() {
    let client = Client::new();
    // An older caller's Client_PlatformName args: only up to the output fields we need.
    let mut a = args!(PJRT_Client_PlatformName_Args { client: client.0 });
    call!(PJRT_Client_PlatformName, &mut a).unwrap();
    assert_eq!(
        unsafe { str_from(a.platform_name, a.platform_name_size) },
        "apu"
    );
}

#[test]
fn client_devices_memories_and_lookups() {
    let name = "num_devices";
    let opts = [{
        let mut nv = args!(PJRT_NamedValue);
        nv.name = name.as_ptr() as *const _;
        nv.name_size = name.len();
        nv.type_ = PJRT_NamedValue_kInt64;
        nv.__bindgen_anon_1.int64_value = 3;
        nv.value_size = 1;
        nv
    }];
    let client = Client::with_options(&opts);
    let devices = client.devices();
    assert_eq!(devices.len(), 3);
    let memories = client.memories();
    assert_eq!(memories.len(), 9, "three memory kinds per device");
    for (i, &d) in devices.iter().enumerate() {
        let mut desc = args!(PJRT_Device_GetDescription_Args { device: d });
        call!(PJRT_Device_GetDescription, &mut desc).unwrap();
        let mut id = args!(PJRT_DeviceDescription_Id_Args {
            device_description: desc.device_description
        });
        call!(PJRT_DeviceDescription_Id, &mut id).unwrap();
        assert_eq!(id.id, i as i32);
        let mut kind = args!(PJRT_DeviceDescription_Kind_Args {
            device_description: desc.device_description
        });
        call!(PJRT_DeviceDescription_Kind, &mut kind).unwrap();
        assert_eq!(
            unsafe { str_from(kind.device_kind, kind.device_kind_size) },
            "apu"
        );
        // The device's default memory is its first, of kind "device"; it has one memory of each
        // kind, each one of the client's and addressable by this device only.
        let mut own = args!(PJRT_Device_AddressableMemories_Args { device: d });
        call!(PJRT_Device_AddressableMemories, &mut own).unwrap();
        let own = unsafe { std::slice::from_raw_parts(own.memories, own.num_memories) }.to_vec();
        assert_eq!(client.default_memory(d), own[0]);
        let mut kinds = Vec::new();
        for &mem in &own {
            assert!(memories.contains(&mem));
            let mut k = args!(PJRT_Memory_Kind_Args { memory: mem });
            call!(PJRT_Memory_Kind, &mut k).unwrap();
            kinds.push(unsafe { str_from(k.kind, k.kind_size) }.to_string());
            let mut by = args!(PJRT_Memory_AddressableByDevices_Args { memory: mem });
            call!(PJRT_Memory_AddressableByDevices, &mut by).unwrap();
            assert_eq!(
                unsafe { std::slice::from_raw_parts(by.devices, by.num_devices) },
                &[d]
            );
        }
        assert_eq!(kinds, ["device", "pinned_host", "unpinned_host"]);
        let mut look = args!(PJRT_Client_LookupDevice_Args {
            client: client.0,
            id: i as i32
        });
        call!(PJRT_Client_LookupDevice, &mut look).unwrap();
        assert_eq!(look.device, d);
    }
    let mut bad = args!(PJRT_Client_LookupDevice_Args {
        client: client.0,
        id: 7
    });
    let e = call!(PJRT_Client_LookupDevice, &mut bad).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(e
        .message
        .contains("No matching device found for device_id 7"));

    let mut assignment = [0i32; 8];
    let mut da = args!(PJRT_Client_DefaultDeviceAssignment_Args {
        client: client.0,
        num_replicas: 4,
        num_partitions: 2,
        default_assignment_size: 7,
        default_assignment: assignment.as_mut_ptr(),
    });
    let e = call!(PJRT_Client_DefaultDeviceAssignment, &mut da).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_FAILED_PRECONDITION);
    assert!(
        e.message
            .contains("`default_assignment_size` 7 < `num_replicas * num_partitions`, 4 * 2 = 8"),
        "{}",
        e.message
    );
    da.num_replicas = 3;
    da.num_partitions = 1;
    call!(PJRT_Client_DefaultDeviceAssignment, &mut da).unwrap();
    assert_eq!(&assignment[..3], &[0, 1, 2]);
}

#[test]
fn host_buffer_round_trips_with_strides_and_layouts() {
    let client = Client::new();
    // A 2x3 f32 matrix stored column-major on the host: byte strides (4, 8).
    let col_major = f32_bytes(&[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    for semantics in [
        PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
        PJRT_HostBufferSemantics_kImmutableZeroCopy,
    ] {
        let b = client
            .buffer_from_host(
                &col_major,
                PJRT_Buffer_Type_F32,
                &[2, 3],
                Some(&[4, 8]),
                semantics,
            )
            .unwrap();
        assert_eq!(b.dims(), vec![2, 3]);
        assert_eq!(b.element_type(), PJRT_Buffer_Type_F32);
        assert_eq!(
            f32_values(&b.to_host().unwrap()),
            vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        );
    }
    let e = client
        .buffer_from_host(
            &col_major,
            PJRT_Buffer_Type_F32,
            &[2, 3],
            None,
            PJRT_HostBufferSemantics_kMutableZeroCopy,
        )
        .err()
        .unwrap();
    assert_eq!(e.code, PJRT_Error_Code_UNIMPLEMENTED);
    // One host element broadcast by zero strides to 2^44 elements (64 TiB): an error that names the
    // buffer, not an aborted process; past the address space, the type is refused before that.
    for (dims, code) in [
        ([1i64 << 22, 1 << 22], PJRT_Error_Code_RESOURCE_EXHAUSTED),
        ([1 << 40, 1 << 40], PJRT_Error_Code_INVALID_ARGUMENT),
    ] {
        let e = client
            .buffer_from_host(&col_major, PJRT_Buffer_Type_F32, &dims, Some(&[0, 0]), 0)
            .err()
            .unwrap();
        assert_eq!(e.code, code, "{dims:?}: {}", e.message);
        assert!(e.message.contains(&format!("{}x{}xf32", dims[0], dims[1])), "{}", e.message);
    }
    let b = client
        .buffer_from_host(&col_major, PJRT_Buffer_Type_F32, &[2, 3], Some(&[4, 8]), 0)
        .unwrap();
    // Read back column-major through a tiled host layout with minor_to_major = [0, 1].
    let m2m = [0i64, 1];
    let mut layout: PJRT_Buffer_MemoryLayout = unsafe { std::mem::zeroed() };
    layout.struct_size = std::mem::size_of::<PJRT_Buffer_MemoryLayout>();
    layout.type_ = PJRT_Buffer_MemoryLayout_Type_Tiled;
    unsafe {
        layout.__bindgen_anon_1.tiled.minor_to_major = m2m.as_ptr();
        layout.__bindgen_anon_1.tiled.minor_to_major_size = 2;
    }
    assert_eq!(b.to_host_with_layout(&mut layout).unwrap(), col_major);
    // And descending = dense row-major.
    let desc = [1i64, 0];
    unsafe { layout.__bindgen_anon_1.tiled.minor_to_major = desc.as_ptr() };
    assert_eq!(
        f32_values(&b.to_host_with_layout(&mut layout).unwrap()),
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
}

#[test]
fn every_supported_element_type_round_trips() {
    let client = Client::new();
    for (ty, size) in [
        (PJRT_Buffer_Type_PRED, 1),
        (PJRT_Buffer_Type_S8, 1),
        (PJRT_Buffer_Type_S16, 2),
        (PJRT_Buffer_Type_S32, 4),
        (PJRT_Buffer_Type_S64, 8),
        (PJRT_Buffer_Type_U8, 1),
        (PJRT_Buffer_Type_U16, 2),
        (PJRT_Buffer_Type_U32, 4),
        (PJRT_Buffer_Type_U64, 8),
        (PJRT_Buffer_Type_F16, 2),
        (PJRT_Buffer_Type_BF16, 2),
        (PJRT_Buffer_Type_F32, 4),
        (PJRT_Buffer_Type_F64, 8),
        (PJRT_Buffer_Type_C64, 8),
        (PJRT_Buffer_Type_C128, 16),
    ] {
        let data: Vec<u8> = (0..3 * size)
            .map(|i| {
                if ty == PJRT_Buffer_Type_PRED {
                    (i % 2) as u8
                } else {
                    i as u8
                }
            })
            .collect();
        let b = client.buffer_from_host(&data, ty, &[3], None, 0).unwrap();
        assert_eq!(b.element_type(), ty);
        assert_eq!(b.to_host().unwrap(), data, "type {ty}");
    }
    let e = client
        .buffer_from_host(&[0u8; 4], PJRT_Buffer_Type_TOKEN, &[1], None, 0)
        .err()
        .unwrap();
    assert_eq!(e.code, PJRT_Error_Code_UNIMPLEMENTED);
}

#[test]
fn delete_ready_event_and_external_references() {
    let client = Client::new();
    let b = client
        .buffer_from_host(
            &f32_bytes(&[41.0, 42.0, 43.0, 44.0]),
            PJRT_Buffer_Type_F32,
            &[4],
            None,
            0,
        )
        .unwrap();
    let mut ready = args!(PJRT_Buffer_ReadyEvent_Args { buffer: b.0 });
    call!(PJRT_Buffer_ReadyEvent, &mut ready).unwrap();
    assert!(!ready.event.is_null());
    await_event(ready.event).unwrap();
    let mut is_ready = args!(PJRT_Event_IsReady_Args { event: ready.event });
    call!(PJRT_Event_IsReady, &mut is_ready).unwrap();
    assert!(is_ready.is_ready);
    destroy_event(ready.event);

    let mut size = args!(PJRT_Buffer_OnDeviceSizeInBytes_Args { buffer: b.0 });
    call!(PJRT_Buffer_OnDeviceSizeInBytes, &mut size).unwrap();
    assert_eq!(size.on_device_size_in_bytes, 16);

    let mut dec = args!(PJRT_Buffer_DecreaseExternalReferenceCount_Args { buffer: b.0 });
    let e = call!(PJRT_Buffer_DecreaseExternalReferenceCount, &mut dec).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(e
        .message
        .contains("Attempting to decrease reference on a buffer with zero reference count."));
    let mut inc = args!(PJRT_Buffer_IncreaseExternalReferenceCount_Args { buffer: b.0 });
    call!(PJRT_Buffer_IncreaseExternalReferenceCount, &mut inc).unwrap();
    let mut ptr = args!(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args { buffer: b.0 });
    call!(PJRT_Buffer_OpaqueDeviceMemoryDataPointer, &mut ptr).unwrap();
    assert!(!ptr.device_memory_ptr.is_null());
    let first = unsafe { *(ptr.device_memory_ptr as *const f32) };
    assert_eq!(first, 41.0);
    call!(PJRT_Buffer_DecreaseExternalReferenceCount, &mut dec).unwrap();

    let mut on_cpu = args!(PJRT_Buffer_IsOnCpu_Args { buffer: b.0 });
    call!(PJRT_Buffer_IsOnCpu, &mut on_cpu).unwrap();
    assert!(!on_cpu.is_on_cpu);

    assert!(!b.is_deleted());
    let mut del = args!(PJRT_Buffer_Delete_Args { buffer: b.0 });
    call!(PJRT_Buffer_Delete, &mut del).unwrap();
    assert!(b.is_deleted());
    assert!(b.to_host().is_err());
}

#[test]
fn memory_stats_follow_live_buffers() {
    let client = Client::new();
    let device = client.devices()[0];
    let stats = || {
        // Like jaxlib, pass a struct full of garbage: every output must be written.
        let mut a = args!(PJRT_Device_MemoryStats_Args);
        unsafe {
            std::ptr::write_bytes(&mut a as *mut _ as *mut u8, 0x5a, std::mem::size_of_val(&a))
        };
        a.struct_size = std::mem::size_of_val(&a);
        a.extension_start = std::ptr::null_mut();
        a.device = device;
        call!(PJRT_Device_MemoryStats, &mut a).unwrap();
        assert!(a.peak_bytes_in_use_is_set);
        assert!(!a.bytes_limit_is_set && !a.pool_bytes_is_set && !a.peak_pool_bytes_is_set);
        (a.bytes_in_use, a.peak_bytes_in_use)
    };
    assert_eq!(stats(), (0, 0));
    let b = client
        .buffer_from_host(&[0u8; 64], PJRT_Buffer_Type_F32, &[16], None, 0)
        .unwrap();
    assert_eq!(stats(), (64, 64));
    drop(b);
    assert_eq!(stats(), (0, 64));
    let mut clear = args!(PJRT_Device_ClearMemoryStats_Args { device: device });
    call!(PJRT_Device_ClearMemoryStats, &mut clear).unwrap();
    assert_eq!(stats(), (0, 0));
}

#[test]
fn copy_to_memory_of_another_device() {
    let name = "num_devices";
    let value = "2";
    let mut nv = args!(PJRT_NamedValue);
    nv.name = name.as_ptr() as *const _;
    nv.name_size = name.len();
    nv.type_ = PJRT_NamedValue_kString;
    nv.__bindgen_anon_1.string_value = value.as_ptr() as *const _;
    nv.value_size = value.len();
    let client = Client::with_options(&[nv]);
    let b = client
        .buffer_from_host(&f32_bytes(&[1.0, 2.0]), PJRT_Buffer_Type_F32, &[2], None, 2)
        .unwrap();
    // Device 1's default memory (each device has three memories, its default first).
    let target = client.default_memory(client.devices()[1]);
    let mut c = args!(PJRT_Buffer_CopyToMemory_Args {
        buffer: b.0,
        dst_memory: target
    });
    call!(PJRT_Buffer_CopyToMemory, &mut c).unwrap();
    let copy = Buffer(c.dst_buffer);
    let mut m = args!(PJRT_Buffer_Memory_Args { buffer: copy.0 });
    call!(PJRT_Buffer_Memory, &mut m).unwrap();
    assert_eq!(m.memory, target);
    let mut d = args!(PJRT_Buffer_Device_Args { buffer: copy.0 });
    call!(PJRT_Buffer_Device, &mut d).unwrap();
    assert_eq!(d.device, client.devices()[1]);
    assert_eq!(f32_values(&copy.to_host().unwrap()), vec![1.0, 2.0]);
}

#[test]
fn uninitialized_buffer_is_zero_filled() {
    let client = Client::new();
    let dims = [2i64, 2];
    let mut a = args!(PJRT_Client_CreateUninitializedBuffer_Args {
        client: client.0,
        shape_dims: dims.as_ptr(),
        shape_num_dims: 2,
        shape_element_type: PJRT_Buffer_Type_S32,
        device: client.devices()[0],
    });
    call!(PJRT_Client_CreateUninitializedBuffer, &mut a).unwrap();
    let b = Buffer(a.buffer);
    assert_eq!(b.to_host().unwrap(), vec![0u8; 16]);
}

static CALLBACK_HITS: AtomicUsize = AtomicUsize::new(0);
static CALLBACK_ERRORS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_ready(error: *mut PJRT_Error, user_arg: *mut c_void) {
    assert_eq!(user_arg as usize, 0xabc);
    if check(error).is_err() {
        CALLBACK_ERRORS.fetch_add(1, Ordering::SeqCst);
    }
    CALLBACK_HITS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn events_created_and_set_by_the_caller() {
    let mut c = args!(PJRT_Event_Create_Args);
    call!(PJRT_Event_Create, &mut c).unwrap();
    let mut r = args!(PJRT_Event_OnReady_Args {
        event: c.event,
        callback: Some(on_ready),
        user_arg: 0xabc as *mut c_void
    });
    call!(PJRT_Event_OnReady, &mut r).unwrap();
    assert_eq!(CALLBACK_HITS.load(Ordering::SeqCst), 0);
    let msg = "cancelled by test";
    let mut s = args!(PJRT_Event_Set_Args {
        event: c.event,
        error_code: PJRT_Error_Code_CANCELLED,
        error_message: msg.as_ptr() as *const _,
        error_message_size: msg.len(),
    });
    call!(PJRT_Event_Set, &mut s).unwrap();
    assert_eq!(CALLBACK_HITS.load(Ordering::SeqCst), 1);
    assert_eq!(CALLBACK_ERRORS.load(Ordering::SeqCst), 1);
    let e = await_event(c.event).unwrap_err();
    assert!(e.message.contains(msg));
    assert_eq!(
        e.code, PJRT_Error_Code_CANCELLED,
        "the caller's code is kept"
    );
    let mut err = args!(PJRT_Event_Error_Args { event: c.event });
    assert!(call!(PJRT_Event_Error, &mut err).is_err());
    // Setting twice is refused.
    assert!(call!(PJRT_Event_Set, &mut s).is_err());
    destroy_event(c.event);
}

#[test]
fn compile_rejects_bad_options_and_formats() {
    let client = Client::new();
    let code = b"ML\xefR not really bytecode";
    let compile = |format: &str, options: &[u8]| {
        let program = args!(PJRT_Program {
            code: code.as_ptr() as *mut _,
            code_size: code.len(),
            format: format.as_ptr() as *const _,
            format_size: format.len(),
        });
        let mut a = args!(PJRT_Client_Compile_Args {
            client: client.0,
            program: &program,
            compile_options: options.as_ptr() as *const _,
            compile_options_size: options.len(),
        });
        call!(PJRT_Client_Compile, &mut a)
    };
    let e = compile("mlir", b"invalid").unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        e.message
            .contains("failed to deserialize CompileOptionsProto"),
        "{}",
        e.message
    );
    let e = compile("invalid", b"").unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        e.message.contains("Unknown program format 'invalid'."),
        "{}",
        e.message
    );
    assert!(
        compile("mlir", b"").is_err(),
        "garbage bytecode must not compile"
    );
}

#[test]
fn unimplemented_slots_name_themselves() {
    let mut a = args!(PJRT_Client_DmaMap_Args);
    let e = call!(PJRT_Client_DmaMap, &mut a).unwrap_err();
    assert_eq!(e.code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(e.message.contains("PJRT_Client_DmaMap"));
}

#[test]
fn errors_expose_the_function_table() {
    let mut a = args!(PJRT_Client_DmaMap_Args);
    let err = unsafe { api().PJRT_Client_DmaMap.unwrap()(&mut a) };
    unsafe {
        let table = &*(*err).vtable;
        assert_eq!(table.get_code.unwrap()(err), PJRT_Error_Code_UNIMPLEMENTED);
        table.destroy.unwrap()(err);
    }
}
