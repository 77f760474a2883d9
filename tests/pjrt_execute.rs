//! Compile and execute through the C API: real JAX programs from the shared samples, donation,
//! executable metadata, serialization, and argument checking.
#![allow(non_upper_case_globals, unused_unsafe)]

mod common;
use apu_compiler::ir::ElementType;
use apu_runtime::Tensor;
use common::*;

fn pjrt_type(e: ElementType) -> PJRT_Buffer_Type {
    match e {
        ElementType::Pred => PJRT_Buffer_Type_PRED,
        ElementType::S32 => PJRT_Buffer_Type_S32,
        ElementType::U32 => PJRT_Buffer_Type_U32,
        ElementType::F32 => PJRT_Buffer_Type_F32,
        ElementType::F64 => PJRT_Buffer_Type_F64,
        other => panic!("test does not map {other}"),
    }
}

fn upload(client: &Client, t: &Tensor) -> Buffer {
    client
        .buffer_from_host(
            t.bytes(),
            pjrt_type(t.ty.elem),
            &t.ty.shape,
            None,
            PJRT_HostBufferSemantics_kImmutableZeroCopy,
        )
        .unwrap()
}

/// Element-wise comparison: exact for integers, close for f32 (the reference is XLA:CPU).
fn assert_close(name: &str, got: &[u8], want: &Tensor) {
    assert_eq!(got.len(), want.bytes().len(), "{name}: byte size");
    if want.ty.elem == ElementType::F32 {
        for (i, (g, w)) in f32_values(got)
            .iter()
            .zip(f32_values(want.bytes()))
            .enumerate()
        {
            let tol = 1e-5 * w.abs().max(1.0);
            assert!(
                (g - w).abs() <= tol || (g.is_nan() && w.is_nan()),
                "{name}[{i}]: got {g}, want {w}"
            );
        }
    } else {
        assert_eq!(got, want.bytes(), "{name}");
    }
}

#[test]
fn jax_samples_compile_and_run_like_xla_cpu() {
    let Some(dir) = samples_dir() else {
        println!("skipped: samples not found");
        return;
    };
    let client = Client::new();
    let mut passed = Vec::new();
    let mut unimplemented = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(dir.join("jax"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".io.npz")
                .map(String::from)
        })
        .collect();
    names.sort();
    for name in &names {
        let code = std::fs::read(dir.join(format!("jax/{name}.vhlo_v1_13_7.mlirbc"))).unwrap();
        let options = std::fs::read(dir.join(format!("jax/{name}.compile_options.pb"))).unwrap();
        let exe = match client.compile("mlir", &code, &options) {
            Ok(e) => e,
            Err(f) if f.code == PJRT_Error_Code_UNIMPLEMENTED => {
                unimplemented.push(format!(
                    "{name}: {}",
                    f.message.lines().next().unwrap_or("")
                ));
                continue;
            }
            Err(f) => panic!("{name}: compile failed: {f:?}"),
        };
        let io = apu_runtime::npz::load_npz(&dir.join(format!("jax/{name}.io.npz"))).unwrap();
        let inputs: Vec<Buffer> = io
            .iter()
            .filter(|(k, _)| k.starts_with("in"))
            .map(|(_, t)| upload(&client, t))
            .collect();
        let refs: Vec<&Buffer> = inputs.iter().collect();
        let outputs = exe
            .execute(&refs, &[])
            .unwrap_or_else(|f| panic!("{name}: execute failed: {f:?}"));
        let expected: Vec<&(String, Tensor)> =
            io.iter().filter(|(k, _)| k.starts_with("out")).collect();
        assert_eq!(outputs.len(), expected.len(), "{name}: number of outputs");
        for (out, (k, want)) in outputs.iter().zip(expected) {
            assert_eq!(out.dims(), want.ty.shape, "{name} {k}: dims");
            assert_eq!(
                out.element_type(),
                pjrt_type(want.ty.elem),
                "{name} {k}: type"
            );
            assert_close(&format!("{name} {k}"), &out.to_host().unwrap(), want);
        }
        passed.push(name.clone());
    }
    println!("passed: {passed:?}\nunimplemented: {unimplemented:#?}");
    assert!(
        passed.iter().any(|n| n == "add") && passed.iter().any(|n| n == "matmul"),
        "{passed:?}"
    );
}

fn donate_program(client: &Client) -> Loaded {
    client
        .compile("mlir", &fixture("donate.vhlo_v1_0_0.mlirbc"), &[])
        .unwrap()
}

#[test]
fn donated_inputs_are_deleted_unless_marked_non_donatable() {
    let client = Client::new();
    let exe = donate_program(&client);
    let x = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let y = client
        .buffer_from_host(&f32_bytes(&[0.5; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();

    let out = exe.execute(&[&x, &y], &[0]).unwrap();
    assert!(!x.is_deleted(), "non-donatable input must survive");
    assert_eq!(f32_values(&out[0].to_host().unwrap()), vec![2.5; 8]);

    let out = exe.execute(&[&x, &y], &[]).unwrap();
    assert!(x.is_deleted(), "donated input must be marked deleted");
    assert!(!y.is_deleted());
    assert_eq!(f32_values(&out[0].to_host().unwrap()), vec![2.5; 8]);

    let e = exe
        .execute(&[&x, &y], &[])
        .err()
        .expect("a deleted argument is refused");
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
}

#[test]
fn argument_types_are_checked() {
    let client = Client::new();
    let exe = donate_program(&client);
    let wrong = client
        .buffer_from_host(&[0u8; 16], PJRT_Buffer_Type_F32, &[4], None, 0)
        .unwrap();
    let y = client
        .buffer_from_host(&f32_bytes(&[0.5; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let e = exe.execute(&[&wrong, &y], &[]).err().unwrap();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        e.message.contains("argument 0") && e.message.contains("[4]"),
        "{}",
        e.message
    );
    // Storage-only narrow types keep their caller-visible type.
    let narrow = client
        .buffer_from_host(&[0u8; 8], PJRT_Buffer_Type_S1, &[8], None, 0)
        .unwrap();
    assert_eq!(narrow.element_type(), PJRT_Buffer_Type_S1);
    let e = exe.execute(&[&narrow, &y], &[]).err().unwrap();
    assert!(e.message.contains("S1"), "{}", e.message);
    // A narrow float of the wrong type is refused naming it.
    let f4 = client
        .buffer_from_host(&[0u8; 8], PJRT_Buffer_Type_F4E2M1FN, &[8], None, 0)
        .unwrap();
    assert_eq!(f4.element_type(), PJRT_Buffer_Type_F4E2M1FN);
    let e = exe.execute(&[&f4, &y], &[]).err().unwrap();
    assert!(e.message.contains("f4E2M1FN"), "{}", e.message);
    assert!(!wrong.is_deleted(), "a refused call has no side effects");
    let e = exe.execute(&[&y], &[]).err().unwrap();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
}

#[test]
fn executable_metadata() {
    let client = Client::new();
    let exe = donate_program(&client);
    exe.with_executable(|e| {
        let mut n = args!(PJRT_Executable_NumOutputs_Args { executable: e });
        call!(PJRT_Executable_NumOutputs, &mut n).unwrap();
        assert_eq!(n.num_outputs, 1);
        let mut t = args!(PJRT_Executable_OutputElementTypes_Args { executable: e });
        call!(PJRT_Executable_OutputElementTypes, &mut t).unwrap();
        assert_eq!(
            unsafe { std::slice::from_raw_parts(t.output_types, t.num_output_types) },
            &[PJRT_Buffer_Type_F32]
        );
        let mut d = args!(PJRT_Executable_OutputDimensions_Args { executable: e });
        call!(PJRT_Executable_OutputDimensions, &mut d).unwrap();
        assert_eq!(d.num_outputs, 1);
        assert_eq!(unsafe { (*d.dim_sizes, *d.dims) }, (1, 8));
        let mut k = args!(PJRT_Executable_OutputMemoryKinds_Args { executable: e });
        call!(PJRT_Executable_OutputMemoryKinds, &mut k).unwrap();
        assert_eq!(
            unsafe { str_from(*k.memory_kinds, *k.memory_kind_sizes) },
            "device"
        );
        let mut r = args!(PJRT_Executable_NumReplicas_Args { executable: e });
        call!(PJRT_Executable_NumReplicas, &mut r).unwrap();
        assert_eq!(r.num_replicas, 1);
        let mut f = args!(PJRT_Executable_Fingerprint_Args { executable: e });
        call!(PJRT_Executable_Fingerprint, &mut f).unwrap();
        assert!(f.executable_fingerprint_size > 0);
        let mut c = args!(PJRT_Executable_GetCostAnalysis_Args { executable: e });
        call!(PJRT_Executable_GetCostAnalysis, &mut c).unwrap();
        let props = unsafe { std::slice::from_raw_parts(c.properties, c.num_properties) };
        let value = |name: &str| {
            let p = props
                .iter()
                .find(|p| unsafe { str_from(p.name, p.name_size) } == name)
                .unwrap_or_else(|| panic!("no cost property {name}"));
            assert_eq!(p.type_, PJRT_NamedValue_kFloat);
            unsafe { p.__bindgen_anon_1.float_value }
        };
        // An elementwise program over f32[8]: at least one flop per output element, and its two
        // inputs and one output read or written at least once.
        assert!(value("flops") >= 8.0, "{}", value("flops"));
        assert!(value("bytes accessed") >= 3.0 * 32.0, "{}", value("bytes accessed"));
        assert_eq!(value("transcendentals"), 0.0);
    });
    let mut da = args!(PJRT_LoadedExecutable_GetDeviceAssignment_Args { executable: exe.0 });
    call!(PJRT_LoadedExecutable_GetDeviceAssignment, &mut da).unwrap();
    let bytes = unsafe {
        std::slice::from_raw_parts(da.serialized_bytes as *const u8, da.serialized_bytes_size)
    };
    // replica_count 1, computation_count 1, one computation on device 0.
    assert_eq!(bytes, &[0x08, 1, 0x10, 1, 0x1a, 3, 0x0a, 1, 0]);
    unsafe { da.serialized_device_assignment_deleter.unwrap()(da.serialized_device_assignment) };
    let mut ad = args!(PJRT_LoadedExecutable_AddressableDevices_Args { executable: exe.0 });
    call!(PJRT_LoadedExecutable_AddressableDevices, &mut ad).unwrap();
    assert_eq!(
        unsafe { std::slice::from_raw_parts(ad.addressable_devices, ad.num_addressable_devices) },
        &client.devices()[..]
    );
}

#[test]
fn a_donated_buffer_passed_twice_is_refused_before_any_side_effect() {
    let client = Client::new();
    let exe = donate_program(&client);
    let x = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let e = exe.execute(&[&x, &x], &[]).err().unwrap();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(e.message.contains("donated") && e.message.contains("argument 1"), "{}", e.message);
    assert!(!x.is_deleted(), "a refused call has no side effects");
    // Not donating it, the same buffer may be passed twice.
    let out = exe.execute(&[&x, &x], &[0]).unwrap();
    assert_eq!(out.len(), 1);
}

/// `CompileOptionsProto` bytes with one `env_option_overrides` entry whose value is a string.
fn options_with_override(name: &str, value: &str) -> Vec<u8> {
    let field = |tag: u8, body: &[u8]| [&[tag, body.len() as u8][..], body].concat();
    let value = field(0x0a, value.as_bytes()); // OptionOverrideProto.string_field
    let entry = [field(0x0a, name.as_bytes()), field(0x12, &value)].concat();
    field(0x3a, &entry) // CompileOptionsProto.env_option_overrides (7)
}

#[test]
fn compile_options_overrides_are_checked_like_xla_checks_them() {
    let client = Client::new();
    let code = fixture("donate.vhlo_v1_0_0.mlirbc");
    let e = client.compile("mlir", &code, &options_with_override("invalid_key", "invalid_value")).err().unwrap();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(e.message.contains("No such compile option: 'invalid_key'"), "{}", e.message);
    let e = client
        .compile("mlir", &code, &options_with_override("xla_embed_ir_in_executable", "invalid_value"))
        .err()
        .unwrap();
    assert!(e.message.contains("is not a valid bool value."), "{}", e.message);
    assert!(client.compile("mlir", &code, &options_with_override("xla_embed_ir_in_executable", "True")).is_ok());
}

#[test]
fn serialize_then_deserialize_runs_the_same_program() {
    let client = Client::new();
    let exe = donate_program(&client);
    let bytes = exe.with_executable(|e| {
        let mut s = args!(PJRT_Executable_Serialize_Args { executable: e });
        call!(PJRT_Executable_Serialize, &mut s).unwrap();
        let out = unsafe {
            std::slice::from_raw_parts(s.serialized_bytes as *const u8, s.serialized_bytes_size)
        }
        .to_vec();
        unsafe { s.serialized_executable_deleter.unwrap()(s.serialized_executable) };
        out
    });
    let mut d = args!(PJRT_Executable_DeserializeAndLoad_Args {
        client: client.0,
        serialized_executable: bytes.as_ptr() as *const _,
        serialized_executable_size: bytes.len(),
    });
    call!(PJRT_Executable_DeserializeAndLoad, &mut d).unwrap();
    let again = Loaded(d.loaded_executable);
    let x = client
        .buffer_from_host(&f32_bytes(&[3.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let y = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let out = again.execute(&[&x, &y], &[0]).unwrap();
    assert_eq!(f32_values(&out[0].to_host().unwrap()), vec![7.0; 8]);
    let mut bad = args!(PJRT_Executable_DeserializeAndLoad_Args {
        client: client.0,
        serialized_executable: bytes.as_ptr() as *const _,
        serialized_executable_size: bytes.len() - 1,
    });
    assert_eq!(
        call!(PJRT_Executable_DeserializeAndLoad, &mut bad)
            .unwrap_err()
            .code,
        PJRT_Error_Code_INVALID_ARGUMENT
    );
}

/// `CompileOptionsProto { executable_build_options { num_replicas: n } }`.
fn replicated_options(n: u8) -> Vec<u8> {
    vec![(3 << 3) | 2, 2, 4 << 3, n]
}

fn client_with_devices(n: i64) -> Client {
    let name = "num_devices";
    let mut nv = args!(PJRT_NamedValue);
    nv.name = name.as_ptr() as *const _;
    nv.name_size = name.len();
    nv.type_ = PJRT_NamedValue_kInt64;
    nv.__bindgen_anon_1.int64_value = n;
    nv.value_size = 1;
    Client::with_options(&[nv])
}

#[test]
fn partitioned_programs_compile_onto_as_many_devices_and_no_more() {
    // Partitioned programs run since decision 64 (this test asserted their refusal before); one with
    // no shardings is replicated: every device gets the whole result (runtime/tests/partitioned_execute.rs
    // runs sharded ones).
    let client = client_with_devices(2);
    // executable_build_options { num_partitions: 2 }
    let options = [(3 << 3) | 2, 2, 5 << 3, 2];
    let exe = client
        .compile("mlir", &fixture("donate.vhlo_v1_0_0.mlirbc"), &options)
        .unwrap();
    exe.with_executable(|e| {
        let mut p = args!(PJRT_Executable_NumPartitions_Args { executable: e });
        call!(PJRT_Executable_NumPartitions, &mut p).unwrap();
        assert_eq!(p.num_partitions, 2);
    });
    let mut ad = args!(PJRT_LoadedExecutable_AddressableDevices_Args { executable: exe.0 });
    call!(PJRT_LoadedExecutable_AddressableDevices, &mut ad).unwrap();
    assert_eq!(ad.num_addressable_devices, 2);
    // Four partitions on two devices: an error naming both counts, not a wrap-around.
    let options = [(3 << 3) | 2, 2, 5 << 3, 4];
    let e = client
        .compile("mlir", &fixture("donate.vhlo_v1_0_0.mlirbc"), &options)
        .err()
        .unwrap();
    assert_eq!(e.code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(e.message.contains("need 4 devices; the client has 2"), "{}", e.message);
}

#[test]
fn replicated_program_runs_once_per_device() {
    let client = client_with_devices(2);
    let exe = client
        .compile(
            "mlir",
            &fixture("donate.vhlo_v1_0_0.mlirbc"),
            &replicated_options(2),
        )
        .unwrap();
    let mut ad = args!(PJRT_LoadedExecutable_AddressableDevices_Args { executable: exe.0 });
    call!(PJRT_LoadedExecutable_AddressableDevices, &mut ad).unwrap();
    let devices = client.devices();
    assert_eq!(
        unsafe { std::slice::from_raw_parts(ad.addressable_devices, ad.num_addressable_devices) },
        &devices[..]
    );

    // One argument list per device, each with its own buffers on that device.
    let make = |d: usize, v: f32| {
        let data = f32_bytes(&[v; 8]);
        let dims = [8i64];
        let mut a = args!(PJRT_Client_BufferFromHostBuffer_Args {
            client: client.0,
            data: data.as_ptr() as *const _,
            type_: PJRT_Buffer_Type_F32,
            dims: dims.as_ptr(),
            num_dims: 1,
            device: devices[d],
        });
        call!(PJRT_Client_BufferFromHostBuffer, &mut a).unwrap();
        destroy_event(a.done_with_host_buffer);
        Buffer(a.buffer)
    };
    let (x0, y0, x1, y1) = (make(0, 1.0), make(0, 1.0), make(1, 10.0), make(1, 5.0));
    let lists = [[x0.0, y0.0], [x1.0, y1.0]];
    let list_ptrs = [lists[0].as_ptr(), lists[1].as_ptr()];
    let mut outs = [[std::ptr::null_mut::<PJRT_Buffer>(); 1]; 2];
    let out_ptrs = [outs[0].as_mut_ptr(), outs[1].as_mut_ptr()];
    let mut events = [std::ptr::null_mut::<PJRT_Event>(); 2];
    let mut a = args!(PJRT_LoadedExecutable_Execute_Args {
        executable: exe.0,
        argument_lists: list_ptrs.as_ptr(),
        num_devices: 2,
        num_args: 2,
        output_lists: out_ptrs.as_ptr(),
        device_complete_events: events.as_mut_ptr(),
    });
    call!(PJRT_LoadedExecutable_Execute, &mut a).unwrap();
    for e in events {
        await_event(e).unwrap();
        destroy_event(e);
    }
    let (o0, o1) = (Buffer(outs[0][0]), Buffer(outs[1][0]));
    assert_eq!(f32_values(&o0.to_host().unwrap()), vec![3.0; 8]);
    assert_eq!(f32_values(&o1.to_host().unwrap()), vec![25.0; 8]);
    let mut d = args!(PJRT_Buffer_Device_Args { buffer: o1.0 });
    call!(PJRT_Buffer_Device, &mut d).unwrap();
    assert_eq!(d.device, devices[1]);
    // Options with a null options pointer: donation applies.
    assert!(x0.is_deleted() && x1.is_deleted());
}

#[test]
fn concurrent_compiles_and_executions_from_many_threads() {
    let client = client_with_devices(2);
    let code = fixture("donate.vhlo_v1_0_0.mlirbc");
    std::thread::scope(|s| {
        for t in 0..4 {
            let client = &client;
            let code = &code;
            s.spawn(move || {
                let exe = client.compile("mlir", code, &[]).unwrap();
                for i in 0..20 {
                    let v = (t * 100 + i) as f32;
                    let x = client
                        .buffer_from_host(&f32_bytes(&[v; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
                        .unwrap();
                    let y = client
                        .buffer_from_host(
                            &f32_bytes(&[1.0; 8]),
                            PJRT_Buffer_Type_F32,
                            &[8],
                            None,
                            0,
                        )
                        .unwrap();
                    let out = exe.execute(&[&x, &y], &[0]).unwrap();
                    assert_eq!(
                        f32_values(&out[0].to_host().unwrap()),
                        vec![2.0 * v + 1.0; 8]
                    );
                }
            });
        }
    });
}

#[test]
fn key_value_callback_fields_are_never_read() {
    // Single-process JAX leaves these fields uninitialized; they must not be touched.
    let mut a = args!(PJRT_Client_Create_Args);
    unsafe {
        let garbage = 0xdead_beef_usize;
        a.kv_get_callback = std::mem::transmute::<usize, PJRT_KeyValueGetCallback>(garbage);
        a.kv_put_callback = std::mem::transmute::<usize, PJRT_KeyValuePutCallback>(garbage);
        a.kv_try_get_callback = std::mem::transmute::<usize, PJRT_KeyValueTryGetCallback>(garbage);
        a.kv_get_user_arg = garbage as *mut _;
        a.kv_put_user_arg = garbage as *mut _;
    }
    call!(PJRT_Client_Create, &mut a).unwrap();
    drop(Client(a.client));
    // An older caller whose struct ends at `client` (no try-get fields) is accepted too.
    let mut short = args!(PJRT_Client_Create_Args);
    short.struct_size = std::mem::offset_of!(PJRT_Client_Create_Args, kv_try_get_callback);
    call!(PJRT_Client_Create, &mut short).unwrap();
    drop(Client(short.client));
}

#[test]
fn execute_options_of_jaxlib_size_are_honoured() {
    // jaxlib 0.10.2 passes PJRT_ExecuteOptions with struct_size 144; an older caller may pass less,
    // in which case `non_donatable_input_indices` does not exist and must not be read.
    let client = Client::new();
    let exe = donate_program(&client);
    let x = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let y = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let keep = [0i64];
    let mut options = args!(PJRT_ExecuteOptions {
        non_donatable_input_indices: keep.as_ptr(),
        num_non_donatable_input_indices: 1,
    });
    options.struct_size = std::mem::offset_of!(PJRT_ExecuteOptions, non_donatable_input_indices);
    let args_list = [x.0, y.0];
    let lists = [args_list.as_ptr()];
    let mut out = [std::ptr::null_mut::<PJRT_Buffer>()];
    let outs = [out.as_mut_ptr()];
    let mut a = args!(PJRT_LoadedExecutable_Execute_Args {
        executable: exe.0,
        options: &mut options,
        argument_lists: lists.as_ptr(),
        num_devices: 1,
        num_args: 2,
        output_lists: outs.as_ptr(),
    });
    call!(PJRT_LoadedExecutable_Execute, &mut a).unwrap();
    let result = Buffer(out[0]);
    assert_eq!(f32_values(&result.to_host().unwrap()), vec![3.0; 8]);
    assert!(
        x.is_deleted(),
        "the short options struct has no non-donatable list, so x is donated"
    );
}

#[test]
fn error_buffers_fail_their_consumers() {
    let client = Client::new();
    let exe = donate_program(&client);
    let dims = [8i64];
    let msg = "producer failed";
    let mut a = args!(PJRT_Client_CreateErrorBuffer_Args {
        client: client.0,
        error_code: PJRT_Error_Code_ABORTED,
        error_message: msg.as_ptr() as *const _,
        error_message_size: msg.len(),
        shape_dims: dims.as_ptr(),
        shape_num_dims: 1,
        shape_element_type: PJRT_Buffer_Type_F32,
        memory: client.memories()[0],
    });
    call!(PJRT_Client_CreateErrorBuffer, &mut a).unwrap();
    let bad = Buffer(a.buffer);
    assert!(bad.to_host().unwrap_err().message.contains(msg));
    let y = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let e = exe
        .execute(&[&bad, &y], &[0])
        .err()
        .expect("the run inherits the error");
    assert!(e.message.contains(msg), "{}", e.message);
}

#[test]
fn compile_without_client_then_load() {
    let client = Client::new();
    let code = fixture("donate.vhlo_v1_0_0.mlirbc");
    let format = "mlir";
    let program = args!(PJRT_Program {
        code: code.as_ptr() as *mut _,
        code_size: code.len(),
        format: format.as_ptr() as *const _,
        format_size: format.len(),
    });
    let mut c = args!(PJRT_Compile_Args { program: &program });
    call!(PJRT_Compile, &mut c).unwrap();
    let mut l = args!(PJRT_Client_Load_Args {
        client: client.0,
        executable: c.executable
    });
    call!(PJRT_Client_Load, &mut l).unwrap();
    let mut d = args!(PJRT_Executable_Destroy_Args {
        executable: c.executable
    });
    call!(PJRT_Executable_Destroy, &mut d).unwrap();
    let loaded = Loaded(l.loaded_executable);
    let x = client
        .buffer_from_host(&f32_bytes(&[2.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let y = client
        .buffer_from_host(&f32_bytes(&[1.0; 8]), PJRT_Buffer_Type_F32, &[8], None, 0)
        .unwrap();
    let out = loaded.execute(&[&x, &y], &[]).unwrap();
    assert_eq!(f32_values(&out[0].to_host().unwrap()), vec![5.0; 8]);
}

#[test]
fn collectives_across_replicas_are_refused_at_compile_time() {
    // Execute runs each replica alone; a program whose replicas meet must not compile (decision 65).
    let client = client_with_devices(2);
    let text = "module @m attributes {mhlo.num_replicas = 2 : i32} {\n  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    %0 = \"stablehlo.all_reduce\"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n      %1 = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %1 : tensor<f32>\n    }) : (tensor<2xf32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n";
    let e = client.compile("mlir", text.as_bytes(), &replicated_options(2)).err().unwrap();
    assert_eq!(e.code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(e.message.contains("between the program's 2 replicas"), "{}", e.message);
}
