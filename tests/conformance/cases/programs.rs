//! Compiling programs (valid and invalid) and executing them.
use crate::conformance::handles::{default_execute_options, Buffer, Client, LoadedExecutable};
use crate::conformance::npz::read_npz;
use crate::conformance::plugin::Plugin;
use crate::conformance::runner::{CaseResult, Skip};
use crate::conformance::samples::{fixture, jax_sample};
use crate::pjrt_args;
use anyhow::{bail, ensure, Context};
use apu_pjrt_api::*;

/// The `add` sample: inputs and expected output computed here as in0 + in1.
pub struct AddCase {
    pub in0: Vec<f32>,
    pub in1: Vec<f32>,
    pub expected: Vec<f32>,
    pub options: Vec<u8>,
}

pub fn add_case() -> Result<AddCase, Skip> {
    let npz = jax_sample("add.io.npz")?;
    let arrays = read_npz(&npz).map_err(|e| Skip(format!("add.io.npz unreadable: {e}")))?;
    let get = |k: &str| arrays.get(k).ok_or_else(|| Skip(format!("add.io.npz has no {k}")))?.f32_values().map_err(Skip);
    let (in0, in1) = (get("in0")?, get("in1")?);
    let expected = in0.iter().zip(&in1).map(|(a, b)| a + b).collect();
    Ok(AddCase { in0, in1, expected, options: jax_sample("add.compile_options.pb")? })
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `executable` on the add inputs and checks the single f32[8] output.
fn run_add<'p>(client: &Client<'p>, executable: &LoadedExecutable<'p>, case: &AddCase) -> anyhow::Result<()> {
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    check_add_outputs(client, executable, &[&a, &b], case, &mut default_execute_options())
}

fn check_add_outputs<'p>(
    client: &Client<'p>,
    executable: &LoadedExecutable<'p>,
    inputs: &[&Buffer<'p>],
    case: &AddCase,
    options: &mut PJRT_ExecuteOptions,
) -> anyhow::Result<()> {
    let run = executable.execute(inputs, options)?;
    let complete = run.complete.as_ref().context("device_complete_events[0] left NULL")?;
    complete.await_ready()?.context("execution completed with an error")?;
    ensure!(run.outputs.len() == 1, "{} outputs", run.outputs.len());
    let out = &run.outputs[0];
    ensure!(out.element_type()? == PJRT_Buffer_Type_F32, "output type {}", out.element_type()?);
    ensure!(out.dimensions()? == [8], "output dims {:?}", out.dimensions()?);
    ensure!(out.device()? == client.first_device()?, "output on another device");
    let kind = super::client::memory_kind(client.plugin, out.memory()?)?;
    ensure!(kind == "device", "output memory kind {kind:?} (JAX requires \"device\")");
    let got = f32_values(&out.to_host(32)?);
    ensure!(got == case.expected, "add result {got:?}, expected {:?}", case.expected);
    Ok(())
}

fn compile_and_run_add(plugin: &Plugin, code: &[u8], format: &str) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(code, format, &case.options).with_context(|| format!("compile ({format})"))?;
    run_add(&client, &executable, &case)?;
    run_add(&client, &executable, &case).context("second execution of the same executable")?;
    Ok(())
}

pub fn add_vhlo_1_13_7(plugin: &Plugin) -> CaseResult {
    compile_and_run_add(plugin, &jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir")
}

pub fn add_vhlo_1_0_0(plugin: &Plugin) -> CaseResult {
    compile_and_run_add(plugin, &jax_sample("add.vhlo_v1_0_0.mlirbc")?, "mlir")
}

pub fn add_vhlo_1_17_0(plugin: &Plugin) -> CaseResult {
    compile_and_run_add(plugin, &jax_sample("add.vhlo_v1_17_0.mlirbc")?, "mlir")
}

pub fn add_stablehlo_text(plugin: &Plugin) -> CaseResult {
    compile_and_run_add(plugin, &jax_sample("add.stablehlo.mlir")?, "mlir")
}

pub fn add_hlo_proto(plugin: &Plugin) -> CaseResult {
    compile_and_run_add(plugin, &jax_sample("add.hlo.pb")?, "hlo")
}

/// jaxlib compiles on a thread other than the one that made the client, and puts its own
/// Profiler extension (type 1, struct_size 40) into the Compile and Execute args.
pub fn compile_on_another_thread_with_extension(plugin: &Plugin) -> CaseResult {
    #[repr(C)]
    struct FrameworkProfilerExtension {
        base: PJRT_Extension_Base,
        profiler_api: *const std::ffi::c_void,
        traceme_context_id: i64,
    }
    let case = add_case()?;
    let code = jax_sample("add.vhlo_v1_13_7.mlirbc")?;
    let client = Client::create(plugin)?;
    let mut extension = FrameworkProfilerExtension {
        base: PJRT_Extension_Base { struct_size: 40, type_: PJRT_Extension_Type_Profiler, next: std::ptr::null_mut() },
        profiler_api: std::ptr::null(),
        traceme_context_id: 0,
    };
    let extension_ptr = crate::conformance::plugin::SendPtr(&mut extension as *mut _ as *mut std::ffi::c_void);
    let (client_ref, code_ref, case_ref) = (&client, &code, &case);
    let executable = std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let ext = extension_ptr;
                let (client, code, case) = (client_ref, code_ref, case_ref);
                client.compile_with_extension(code, "mlir", &case.options, ext.0 as *mut PJRT_Extension_Base)
            })
            .join()
            .expect("compile thread panicked")
    })?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    let run = executable.execute_with_extension(&[&a, &b], &mut default_execute_options(), &mut extension.base)?;
    run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    ensure!(f32_values(&run.outputs[0].to_host(32)?) == case.expected, "wrong result");
    Ok(())
}

/// Metadata queried by jaxlib after compiling.
pub fn executable_metadata(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let loaded = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let executable = loaded.executable()?;
    ensure!(executable.num_outputs()? == 1, "NumOutputs {}", executable.num_outputs()?);
    ensure!(executable.num_replicas()? == 1, "NumReplicas {}", executable.num_replicas()?);
    ensure!(executable.num_partitions()? == 1, "NumPartitions {}", executable.num_partitions()?);
    let devices = loaded.addressable_devices()?;
    ensure!(devices == [client.first_device()?], "executable devices {devices:?}");
    let mut assignment = pjrt_args!(PJRT_LoadedExecutable_GetDeviceAssignment_Args { executable: loaded.raw });
    crate::pjrt_call!(plugin, PJRT_LoadedExecutable_GetDeviceAssignment, &mut assignment)?;
    if let Some(deleter) = assignment.serialized_device_assignment_deleter {
        unsafe { deleter(assignment.serialized_device_assignment) };
    }
    Ok(())
}

fn expect_compile_error(plugin: &Plugin, code: &[u8], format: &str, options: &[u8]) -> anyhow::Result<crate::conformance::plugin::PjrtError> {
    let client = Client::create(plugin)?;
    match client.compile(code, format, options) {
        Ok(_) => bail!("compiling an invalid program succeeded (format {format:?}, {} bytes)", code.len()),
        Err(e) => {
            println!("    compile error as expected: {e}");
            ensure!(e.code != PJRT_Error_Code_OK, "error with code OK");
            ensure!(!e.message.is_empty(), "error without message");
            Ok(e)
        }
    }
}

/// Garbage in an "mlir" program: an error with a message, no crash.
pub fn compile_invalid_program(plugin: &Plugin) -> CaseResult {
    let options = add_case()?.options;
    expect_compile_error(plugin, b"this is not a program \xff\x00\x01", "mlir", &options)?;
    // A bytecode file cut in half.
    let code = jax_sample("add.vhlo_v1_13_7.mlirbc")?;
    expect_compile_error(plugin, &code[..code.len() / 2], "mlir", &options)?;
    let hlo = jax_sample("add.hlo.pb")?;
    expect_compile_error(plugin, &hlo[..hlo.len() / 2], "hlo", &options)?;
    Ok(())
}

/// Unknown program format: INVALID_ARGUMENT (upstream CompileInvalidProgramFormat).
pub fn compile_unknown_format(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let e = expect_compile_error(plugin, &jax_sample("add.hlo.pb")?, "invalid", &case.options)?;
    ensure!(e.code == PJRT_Error_Code_INVALID_ARGUMENT, "{e}");
    Ok(())
}

/// Undecodable CompileOptionsProto: INVALID_ARGUMENT (upstream CompileInvalidOption).
pub fn compile_invalid_options(plugin: &Plugin) -> CaseResult {
    let e = expect_compile_error(plugin, &jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &[0xff; 7])?;
    ensure!(e.code == PJRT_Error_Code_INVALID_ARGUMENT, "{e}");
    Ok(())
}

/// An execution that cannot run must fail at Execute (or through its completion event),
/// never crash.
fn expect_execute_error<'p>(executable: &LoadedExecutable<'p>, inputs: &[&Buffer<'p>]) -> anyhow::Result<()> {
    match executable.execute(inputs, &mut default_execute_options()) {
        Err(e) => {
            println!("    execute error as expected: {e}");
            ensure!(!e.message.is_empty(), "Execute error without message");
            Ok(())
        }
        Ok(run) => match run.complete.as_ref().map(|c| c.await_ready()) {
            Some(Ok(Err(e))) => {
                println!("    execution completed with the expected error: {e}");
                Ok(())
            }
            _ => bail!("Execute with bad arguments succeeded ({} outputs)", run.outputs.len()),
        },
    }
}

pub fn execute_wrong_arguments(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let short = client.upload(&f32_bytes(&case.in1[..4]), PJRT_Buffer_Type_F32, &[4])?;
    expect_execute_error(&executable, &[&a]).context("one argument instead of two")?;
    expect_execute_error(&executable, &[&a, &a, &a]).context("three arguments instead of two")?;
    expect_execute_error(&executable, &[&a, &short]).context("f32[4] instead of f32[8]")?;
    // The executable still works afterwards.
    run_add(&client, &executable, &case).context("valid execution after rejected ones")?;
    Ok(())
}

/// apu checks element types too. (XLA's CPU plugin only compares byte sizes and runs an
/// s32[8] argument as if it were f32[8]; see docs/conformance-suite.md.)
pub fn execute_wrong_element_type(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let ints = client.upload(&[0u8; 32], PJRT_Buffer_Type_S32, &[8])?;
    expect_execute_error(&executable, &[&a, &ints]).context("s32[8] instead of f32[8]")?;
    Ok(())
}

pub fn execute_with_deleted_input(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    b.delete()?;
    expect_execute_error(&executable, &[&a, &b])?;
    Ok(())
}

/// A newer framework passes longer args structs (here: ExecuteOptions of the 0.117 layout,
/// 160 bytes with the extra members zero); a plugin must ignore what it does not know.
pub fn newer_caller_struct_sizes(plugin: &Plugin) -> CaseResult {
    #[repr(C)]
    #[derive(Default)]
    struct NewerExecuteOptions {
        known: PJRT_ExecuteOptions,
        custom_options: usize,
        num_custom_options: usize,
    }
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    let mut options = NewerExecuteOptions::default();
    options.known.struct_size = 160;
    options.known.launch_id = 3;
    check_add_outputs(&client, &executable, &[&a, &b], &case, &mut options.known)?;
    Ok(())
}

/// Donation: the `donate_add` fixture aliases argument 0 to output 0; after Execute the
/// plugin itself must report argument 0 deleted (jaxlib never calls Buffer_Delete for it).
pub fn donation(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let code = std::fs::read(fixture("donate_add.vhlo_v1_13_7.mlirbc")).context("donate_add fixture")?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&code, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    let run = executable.execute(&[&a, &b], &mut default_execute_options())?;
    run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    ensure!(f32_values(&run.outputs[0].to_host(32)?) == case.expected, "wrong result with donation");
    ensure!(a.is_deleted()?, "donated argument 0 is not reported deleted after Execute");
    ensure!(!b.is_deleted()?, "argument 1 (not donated) reported deleted");
    expect_execute_error(&executable, &[&a, &b]).context("executing again with the donated buffer")?;
    Ok(())
}

/// non_donatable_input_indices overrides the program's aliasing for the listed inputs.
pub fn donation_suppressed(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let code = std::fs::read(fixture("donate_add.vhlo_v1_13_7.mlirbc")).context("donate_add fixture")?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&code, "mlir", &case.options)?;
    let a = client.upload(&f32_bytes(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32_bytes(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    let keep = [0i64];
    let mut options = default_execute_options();
    options.non_donatable_input_indices = keep.as_ptr();
    options.num_non_donatable_input_indices = 1;
    check_add_outputs(&client, &executable, &[&a, &b], &case, &mut options)?;
    ensure!(!a.is_deleted()?, "argument 0 deleted although listed as non-donatable");
    ensure!(f32_values(&a.to_host(32)?) == case.in0, "argument 0 changed although not donated");
    Ok(())
}
