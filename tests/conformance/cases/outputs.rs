//! What an executable says about its outputs, and programs with several outputs.
use super::programs::add_case;
use crate::conformance::handles::{copy_list, default_execute_options, Client};
use crate::conformance::npz::{read_npz, NpyArray};
use crate::conformance::plugin::{bytes_to_string, Plugin};
use crate::conformance::runner::{CaseResult, Skip};
use crate::conformance::samples::jax_sample;
use crate::{pjrt_args, pjrt_call};
use anyhow::{ensure, Context};
use apu_pjrt_api::*;

/// Output element types and dimensions are required; output memory kinds may be UNIMPLEMENTED
/// (jaxlib tolerates it) but when present must say "device".
pub fn executable_output_metadata(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let loaded = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let executable = loaded.executable()?;
    let mut types = pjrt_args!(PJRT_Executable_OutputElementTypes_Args { executable: executable.raw });
    pjrt_call!(plugin, PJRT_Executable_OutputElementTypes, &mut types)?;
    let types = unsafe { copy_list(types.output_types, types.num_output_types) };
    ensure!(types == [PJRT_Buffer_Type_F32], "output element types {types:?}");
    let mut dims = pjrt_args!(PJRT_Executable_OutputDimensions_Args { executable: executable.raw });
    pjrt_call!(plugin, PJRT_Executable_OutputDimensions, &mut dims)?;
    ensure!(dims.num_outputs == 1, "OutputDimensions num_outputs {}", dims.num_outputs);
    let sizes = unsafe { copy_list(dims.dim_sizes, dims.num_outputs) };
    let flat = unsafe { copy_list(dims.dims, sizes.iter().sum()) };
    ensure!(sizes == [1] && flat == [8], "output dims {flat:?} (ranks {sizes:?})");
    let mut kinds = pjrt_args!(PJRT_Executable_OutputMemoryKinds_Args { executable: executable.raw });
    match pjrt_call!(plugin, PJRT_Executable_OutputMemoryKinds, &mut kinds) {
        Ok(()) => {
            let ptrs = unsafe { copy_list(kinds.memory_kinds, kinds.num_outputs) };
            let lens = unsafe { copy_list(kinds.memory_kind_sizes, kinds.num_outputs) };
            let names: Vec<String> = ptrs.iter().zip(&lens).map(|(p, n)| unsafe { bytes_to_string(*p, *n) }).collect();
            ensure!(names == ["device"], "output memory kinds {names:?}");
        }
        Err(e) if e.code == PJRT_Error_Code_UNIMPLEMENTED => {}
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

fn element_type_of(array: &NpyArray) -> anyhow::Result<PJRT_Buffer_Type> {
    Ok(match array.descr.as_str() {
        "<f4" => PJRT_Buffer_Type_F32,
        "<i4" => PJRT_Buffer_Type_S32,
        other => anyhow::bail!("sample dtype {other} not handled by this case"),
    })
}

/// Values equal, allowing f32 rounding differences (a fused multiply-add may differ in the
/// last bits from separate operations).
fn close_enough(ty: PJRT_Buffer_Type, got: &[u8], want: &[u8]) -> bool {
    if ty != PJRT_Buffer_Type_F32 {
        return got == want;
    }
    let f = |b: &[u8]| b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    let (g, w) = (f(got), f(want));
    g.len() == w.len() && g.iter().zip(&w).all(|(a, b)| (a - b).abs() <= 1e-5 * b.abs().max(1.0))
}

/// `while_loop` (f32[3], s32[] -> s32[], f32[3]): two outputs of different types, one scalar.
/// Expected values are the ones JAX's CPU backend produced when the sample was made.
pub fn multiple_outputs_while_loop(plugin: &Plugin) -> CaseResult {
    let arrays = read_npz(&jax_sample("while_loop.io.npz")?).map_err(|e| Skip(format!("while_loop.io.npz: {e}")))?;
    let get = |k: &str| arrays.get(k).with_context(|| format!("while_loop.io.npz has no {k}"));
    let options = jax_sample("while_loop.compile_options.pb")?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("while_loop.vhlo_v1_13_7.mlirbc")?, "mlir", &options)?;
    let (in0, in1) = (get("in0")?, get("in1")?);
    let a = client.upload(&in0.data, element_type_of(in0)?, &in0.shape)?;
    let b = client.upload(&in1.data, element_type_of(in1)?, &in1.shape)?;
    let run = executable.execute(&[&a, &b], &mut default_execute_options())?;
    run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    ensure!(run.outputs.len() == 2, "{} outputs", run.outputs.len());
    for (i, out) in run.outputs.iter().enumerate() {
        let want = get(&format!("out{i}"))?;
        let ty = element_type_of(want)?;
        ensure!(out.element_type()? == ty, "output {i} type {}", out.element_type()?);
        ensure!(out.dimensions()? == want.shape, "output {i} dims {:?}", out.dimensions()?);
        let got = out.to_host(want.data.len())?;
        ensure!(close_enough(ty, &got, &want.data), "output {i}: {got:?} vs {:?}", want.data);
    }
    Ok(())
}

/// Several threads executing the same executable at once (jaxlib dispatches from any thread).
pub fn concurrent_executions(plugin: &Plugin) -> CaseResult {
    let case = super::programs::add_case()?;
    let client = Client::create(plugin)?;
    let executable = client.compile(&jax_sample("add.vhlo_v1_13_7.mlirbc")?, "mlir", &case.options)?;
    let f32_bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (client_ref, executable_ref, case_ref) = (&client, &executable, &case);
    let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                scope.spawn(move || -> anyhow::Result<()> {
                    for round in 0..5 {
                        let a = client_ref.upload(&f32_bytes(&case_ref.in0), PJRT_Buffer_Type_F32, &[8])?;
                        let b = client_ref.upload(&f32_bytes(&case_ref.in1), PJRT_Buffer_Type_F32, &[8])?;
                        let run = executable_ref.execute(&[&a, &b], &mut default_execute_options())?;
                        run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
                        let got = run.outputs.first().context("no output")?.to_host(32)?;
                        ensure!(got == f32_bytes(&case_ref.expected), "worker {worker} round {round}: wrong result");
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|_| Err(anyhow::anyhow!("worker panicked")))).collect()
    });
    for result in results {
        result?;
    }
    Ok(())
}

/// Buffer_CopyToMemory (what `jax.device_put` to another device or memory kind uses): to the
/// default memory of the last addressable device (another device when there are several).
pub fn copy_to_memory(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let bytes: Vec<u8> = (0u8..24).collect();
    let source = client.upload(&bytes, PJRT_Buffer_Type_U8, &[4, 6])?;
    let target_device = *client.addressable_devices()?.last().context("no devices")?;
    let mut default = pjrt_args!(PJRT_Device_DefaultMemory_Args { device: target_device });
    pjrt_call!(plugin, PJRT_Device_DefaultMemory, &mut default)?;
    let mut args = pjrt_args!(PJRT_Buffer_CopyToMemory_Args { buffer: source.raw, dst_memory: default.memory });
    pjrt_call!(plugin, PJRT_Buffer_CopyToMemory, &mut args)?;
    let copy = crate::conformance::handles::Buffer { plugin, raw: args.dst_buffer };
    ensure!(!copy.raw.is_null(), "CopyToMemory returned no buffer");
    ensure!(copy.memory()? == default.memory, "copy is not in the requested memory");
    ensure!(copy.device()? == target_device, "copy is not on the requested device");
    ensure!(copy.dimensions()? == [4, 6], "copy dims {:?}", copy.dimensions()?);
    ensure!(copy.to_host(24)? == bytes, "copy holds other bytes");
    ensure!(!source.is_deleted()? && source.to_host(24)? == bytes, "source changed by the copy");
    Ok(())
}

/// Every memory of a device holds buffers: BufferFromHostBuffer with a `memory` (and no device)
/// puts the buffer there, and CopyToMemory moves it between every pair of the device's memories
/// (what `jax.device_put(x, SingleDeviceSharding(d, memory_kind=...))` uses), keeping the bytes.
pub fn memory_kinds_round_trip(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let device = client.first_device()?;
    let mut own = pjrt_args!(PJRT_Device_AddressableMemories_Args { device: device });
    pjrt_call!(plugin, PJRT_Device_AddressableMemories, &mut own)?;
    let memories = unsafe { copy_list(own.memories, own.num_memories) };
    let bytes: Vec<u8> = (0u8..24).collect();
    const DIMS: [i64; 2] = [4, 6];
    for &from in &memories {
        let kind = super::client::memory_kind(plugin, from)?;
        let mut args = pjrt_args!(PJRT_Client_BufferFromHostBuffer_Args {
            client: client.raw,
            data: bytes.as_ptr() as *const _,
            type_: PJRT_Buffer_Type_U8,
            dims: DIMS.as_ptr(),
            num_dims: 2,
            host_buffer_semantics: PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
            memory: from,
        });
        pjrt_call!(plugin, PJRT_Client_BufferFromHostBuffer, &mut args).with_context(|| format!("upload into {kind}"))?;
        if let Some(done) = crate::conformance::handles::Event::wrap(plugin, args.done_with_host_buffer) {
            done.await_ready()??;
        }
        let source = crate::conformance::handles::Buffer { plugin, raw: args.buffer };
        ensure!(source.memory()? == from, "uploaded into {kind}, buffer reports another memory");
        ensure!(source.device()? == device, "uploaded into {kind} of the first device, buffer on another device");
        for &to in &memories {
            let target = super::client::memory_kind(plugin, to)?;
            let mut copy = pjrt_args!(PJRT_Buffer_CopyToMemory_Args { buffer: source.raw, dst_memory: to });
            pjrt_call!(plugin, PJRT_Buffer_CopyToMemory, &mut copy).with_context(|| format!("copy {kind} -> {target}"))?;
            let copy = crate::conformance::handles::Buffer { plugin, raw: copy.dst_buffer };
            ensure!(copy.memory()? == to, "copy {kind} -> {target} is in another memory");
            ensure!(super::client::memory_kind(plugin, copy.memory()?)? == target, "copy {kind} -> {target}: kind changed");
            ensure!(copy.to_host(24)? == bytes, "copy {kind} -> {target} holds other bytes");
        }
    }
    Ok(())
}

/// A program whose result declares `mhlo.memory_kind = "pinned_host"` (JAX's `out_shardings`
/// with a host memory kind) reports that kind for its output and makes the output there.
pub fn output_in_host_memory(plugin: &Plugin) -> CaseResult {
    let case = add_case()?;
    let text = String::from_utf8(jax_sample("add.stablehlo.mlir")?).map_err(|_| Skip("add.stablehlo.mlir is not UTF-8".into()))?;
    let annotated = text.replace("jax.result_info = \"result\"", "jax.result_info = \"result\", mhlo.memory_kind = \"pinned_host\"");
    ensure!(annotated != text, "the add sample's result has no attribute dictionary to annotate");
    let client = Client::create(plugin)?;
    let device = client.first_device()?;
    let mut own = pjrt_args!(PJRT_Device_AddressableMemories_Args { device: device });
    pjrt_call!(plugin, PJRT_Device_AddressableMemories, &mut own)?;
    let memories = unsafe { copy_list(own.memories, own.num_memories) };
    let mut pinned = None;
    for &m in &memories {
        if super::client::memory_kind(plugin, m)? == "pinned_host" {
            pinned = Some(m);
        }
    }
    let Some(pinned) = pinned else {
        return Err(Skip("the plugin's devices have no pinned_host memory".into()).into());
    };
    let loaded = client.compile(annotated.as_bytes(), "mlir", &case.options)?;
    // Bound to a name: the executable handle is destroyed when it is dropped.
    let executable = loaded.executable()?;
    let mut kinds = pjrt_args!(PJRT_Executable_OutputMemoryKinds_Args { executable: executable.raw });
    pjrt_call!(plugin, PJRT_Executable_OutputMemoryKinds, &mut kinds)?;
    let ptrs = unsafe { copy_list(kinds.memory_kinds, kinds.num_outputs) };
    let lens = unsafe { copy_list(kinds.memory_kind_sizes, kinds.num_outputs) };
    let names: Vec<String> = ptrs.iter().zip(&lens).map(|(p, n)| unsafe { bytes_to_string(*p, *n) }).collect();
    ensure!(names == ["pinned_host"], "output memory kinds {names:?}");
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a = client.upload(&f32s(&case.in0), PJRT_Buffer_Type_F32, &[8])?;
    let b = client.upload(&f32s(&case.in1), PJRT_Buffer_Type_F32, &[8])?;
    let run = loaded.execute(&[&a, &b], &mut default_execute_options())?;
    run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    ensure!(run.outputs[0].memory()? == pinned, "the output is not in the device's pinned_host memory");
    ensure!(run.outputs[0].to_host(32)? == f32s(&case.expected), "wrong sum");
    Ok(())
}

/// A program that returns a token: the executable and the output buffer say TOKEN with no dimensions
/// (jaxlib refuses to read such a buffer as an array by its element type), and the token goes back
/// into a program that takes one.
pub fn token_output(plugin: &Plugin) -> CaseResult {
    const MAKES: &str = "func.func public @main(%arg0: tensor<8xf32>) -> (!stablehlo.token, tensor<8xf32>) {\n  \
        %0 = stablehlo.after_all : !stablehlo.token\n  return %0, %arg0 : !stablehlo.token, tensor<8xf32>\n}\n";
    const TAKES: &str = "func.func public @main(%arg0: !stablehlo.token) -> !stablehlo.token {\n  \
        %0 = stablehlo.after_all %arg0 : !stablehlo.token\n  return %0 : !stablehlo.token\n}\n";
    let case = add_case()?;
    let client = Client::create(plugin)?;
    let makes = client.compile(MAKES.as_bytes(), "mlir", &case.options)?;
    let executable = makes.executable()?;
    let mut types = pjrt_args!(PJRT_Executable_OutputElementTypes_Args { executable: executable.raw });
    pjrt_call!(plugin, PJRT_Executable_OutputElementTypes, &mut types)?;
    let types = unsafe { copy_list(types.output_types, types.num_output_types) };
    ensure!(types == [PJRT_Buffer_Type_TOKEN, PJRT_Buffer_Type_F32], "output element types {types:?}");
    let mut dims = pjrt_args!(PJRT_Executable_OutputDimensions_Args { executable: executable.raw });
    pjrt_call!(plugin, PJRT_Executable_OutputDimensions, &mut dims)?;
    let sizes = unsafe { copy_list(dims.dim_sizes, dims.num_outputs) };
    ensure!(sizes == [0, 1], "output ranks {sizes:?}");
    let f32s: Vec<u8> = case.in0.iter().flat_map(|x| x.to_le_bytes()).collect();
    let a = client.upload(&f32s, PJRT_Buffer_Type_F32, &[8])?;
    let run = makes.execute(&[&a], &mut default_execute_options())?;
    run.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    let token = &run.outputs[0];
    ensure!(token.element_type()? == PJRT_Buffer_Type_TOKEN, "token buffer's element type {}", token.element_type()?);
    ensure!(token.dimensions()?.is_empty(), "token buffer's dimensions {:?}", token.dimensions()?);
    ensure!(run.outputs[1].to_host(32)? == f32s, "the array output changed");
    let takes = client.compile(TAKES.as_bytes(), "mlir", &case.options)?;
    let again = takes.execute(&[token], &mut default_execute_options())?;
    again.complete.as_ref().context("no completion event")?.await_ready()?.context("execution error")?;
    ensure!(again.outputs[0].element_type()? == PJRT_Buffer_Type_TOKEN, "the passed-on token's element type");
    Ok(())
}
