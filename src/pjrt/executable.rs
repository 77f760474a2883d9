//! Compilation and `PJRT_Executable`: a validated program plus everything the C API asks about it
//! (output types and shapes, memory kinds, fingerprint), precomputed so that answers can point into
//! it. `PJRT_Executable*` handles are `Box<ExecutableHandle>` sharing one `Arc<Executable>`.

use super::compile_options::{self, CompileOptions};
use super::error::ApiError;
use super::guard::{args_min_size, entry, handle, slice, ApiResult};
use super::layouts::LayoutList;
use super::memory::MEMORY_KIND;
use super::types::pjrt_type;
use apu_compiler::ir::{TensorType, Type};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::{validate, ValidModule};
use apu_pjrt_api::*;
use std::os::raw::c_char;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// The program as it was handed to Compile: enough to serialize and recompile it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProgramSource {
    pub format: String,
    pub code: Vec<u8>,
    pub options: Vec<u8>,
}

pub(crate) struct Executable {
    pub name: String,
    /// The executable form (fused plan, or the interpreter where no plan can be built), made once here.
    pub program: Arc<apu_runtime::exec::Program>,
    /// How long the last successful run of the program took, in nanoseconds (`u64::MAX` before
    /// the first): `Execute` runs programs this quick on the calling thread (see `execute.rs`).
    pub last_run_ns: Arc<std::sync::atomic::AtomicU64>,
    /// The validated module, kept to print `program_text` on demand.
    module: ValidModule,
    /// The validated module as StableHLO text, handed out by `PJRT_Executable_OptimizedProgram`.
    /// Printed on first request: only `compiled.as_text()` and similar ask for it.
    program_text: OnceLock<String>,
    pub source: ProgramSource,
    pub options: CompileOptions,
    pub num_replicas: usize,
    pub num_partitions: usize,
    pub param_types: Vec<TensorType>,
    pub output_types: Vec<TensorType>,
    /// Per parameter: the output it may alias (`tf.aliasing_output`), i.e. donated inputs.
    pub aliasing_outputs: Vec<Option<u32>>,
    /// Layouts extension answers: every parameter and output is dense row-major.
    pub param_layouts: LayoutList,
    pub output_layouts: LayoutList,
    output_pjrt_types: Vec<PJRT_Buffer_Type>,
    output_dims: Vec<i64>,
    output_dim_sizes: Vec<usize>,
    output_memory_kinds: Vec<*const c_char>,
    output_memory_kind_sizes: Vec<usize>,
    param_memory_kinds: Vec<*const c_char>,
    param_memory_kind_sizes: Vec<usize>,
    fingerprint: String,
}

// SAFETY: the raw pointers point at the static memory-kind string.
unsafe impl Send for Executable {}
unsafe impl Sync for Executable {}

/// 64-bit FNV-1a over length-prefixed parts: a stable hash that does not depend on the Rust
/// version (unlike `DefaultHasher`), for fingerprints that key compilation caches.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for p in parts {
        eat(&(p.len() as u64).to_le_bytes());
        eat(p);
    }
    h
}

fn tensor_types(types: &[Type], what: &str) -> ApiResult<Vec<TensorType>> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            // A token travels as the empty `pred[0]` buffer JAX passes for it (passes::tokens).
            let t_or_token = match t {
                Type::Token => Some(apu_compiler::passes::tokens::token_tensor_type()),
                _ => t.as_tensor().cloned(),
            };
            t_or_token.ok_or_else(|| {
                ApiError::unimplemented(format!(
                    "{what} {i} of @main has type {t}; apu supports tensor types only"
                ))
            })
        })
        .collect()
}

impl Executable {
    /// Reads, validates and prepares a program.
    pub fn compile(source: ProgramSource) -> ApiResult<Arc<Executable>> {
        let options = compile_options::parse(&source.options).map_err(|e| {
            ApiError::invalid_argument(format!(
                "PJRT_Client_Compile: failed to deserialize CompileOptionsProto: {e}"
            ))
        })?;
        let format = ProgramFormat::parse(&source.format).map_err(|_| {
            // Worded like the reference implementation so that callers matching on it still work.
            ApiError::invalid_argument(format!(
                "Unknown program format '{}'. apu reads \"mlir\" (bytecode or text), \"hlo\" and \"hlo_with_config\"",
                source.format
            ))
        })?;
        let start = Instant::now();
        let module = read_program(format, &source.code)?;
        let read = start.elapsed();
        let module = validate(module)?;
        let validated = start.elapsed();
        let program = Arc::new(super::execute::prepare(&module)?);
        let prepared = start.elapsed();
        tracing::debug!(
            "compiled {} bytes of {:?}: read {:?}, validate {:?}, plan {:?}",
            source.code.len(),
            source.format,
            read,
            validated - read,
            prepared - validated
        );
        let entry = module.entry_function();
        let param_types = tensor_types(&entry.param_types(), "parameter")?;
        let output_types = tensor_types(&entry.result_types, "result")?;
        let mut aliasing_outputs: Vec<Option<u32>> =
            entry.arg_attrs.iter().map(|a| a.aliasing_output).collect();
        aliasing_outputs.resize(param_types.len(), None);
        let positive = |v: Option<i64>, default: u32| {
            v.filter(|&n| n > 0)
                .map_or(default.max(1) as usize, |n| n as usize)
        };
        let num_replicas = positive(options.num_replicas, module.num_replicas);
        let num_partitions = positive(options.num_partitions, module.num_partitions);
        if num_partitions > 1 {
            return Err(ApiError::unimplemented(format!(
                "the program is partitioned over {num_partitions} devices (SPMD); apu runs each replica on one device \
                 and does not partition programs"
            )));
        }
        let name = if module.name.is_empty() {
            "main".to_string()
        } else {
            module.name.clone()
        };
        let fingerprint = format!(
            "apu-{}-{:016x}",
            env!("CARGO_PKG_VERSION"),
            fnv1a(&[source.format.as_bytes(), &source.code, &source.options])
        );
        let kind = MEMORY_KIND.as_ptr() as *const c_char;
        Ok(Arc::new(Executable {
            name,
            last_run_ns: Arc::new(std::sync::atomic::AtomicU64::new(u64::MAX)),
            param_layouts: LayoutList::descending(param_types.iter().map(|t| t.rank())),
            output_layouts: LayoutList::descending(output_types.iter().map(|t| t.rank())),
            output_pjrt_types: output_types.iter().map(|t| pjrt_type(t.elem)).collect(),
            output_dims: output_types
                .iter()
                .flat_map(|t| t.shape.iter().copied())
                .collect(),
            output_dim_sizes: output_types.iter().map(|t| t.rank()).collect(),
            output_memory_kinds: vec![kind; output_types.len()],
            output_memory_kind_sizes: vec![MEMORY_KIND.len(); output_types.len()],
            param_memory_kinds: vec![kind; param_types.len()],
            param_memory_kind_sizes: vec![MEMORY_KIND.len(); param_types.len()],
            program,
            module,
            program_text: OnceLock::new(),
            source,
            options,
            num_replicas,
            num_partitions,
            param_types,
            output_types,
            aliasing_outputs,
            fingerprint,
        }))
    }

    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The validated module as StableHLO text (printed once, on first use).
    pub fn program_text(&self) -> &str {
        self.program_text
            .get_or_init(|| apu_compiler::print::print_module(&self.module))
    }
}

// ---- Serialization: apu's own envelope ---------------------------------------------------------

const ENVELOPE_MAGIC: &[u8; 8] = b"APUEXEC\0";
const ENVELOPE_VERSION: u32 = 1;

/// `magic, version (u32 LE), then format, code, options each as (u64 LE length, bytes)`.
pub(crate) fn serialize(source: &ProgramSource) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + source.code.len() + source.options.len());
    out.extend_from_slice(ENVELOPE_MAGIC);
    out.extend_from_slice(&ENVELOPE_VERSION.to_le_bytes());
    for part in [source.format.as_bytes(), &source.code, &source.options] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    out
}

pub(crate) fn deserialize(bytes: &[u8]) -> ApiResult<ProgramSource> {
    let bad =
        |msg: String| ApiError::invalid_argument(format!("not a serialized apu executable: {msg}"));
    if bytes.len() < 12 || &bytes[..8] != ENVELOPE_MAGIC {
        return Err(bad("missing APUEXEC header".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != ENVELOPE_VERSION {
        return Err(bad(format!(
            "envelope version {version}, this apu reads {ENVELOPE_VERSION}"
        )));
    }
    let mut pos = 12;
    let mut parts = Vec::new();
    for what in ["format", "code", "options"] {
        let len_bytes = bytes
            .get(pos..pos + 8)
            .ok_or_else(|| bad(format!("truncated before the {what} length")))?;
        let len = u64::from_le_bytes(len_bytes.try_into().expect("8 bytes"));
        pos += 8;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                bad(format!(
                    "{what} of {len} bytes runs past the end at byte {pos}"
                ))
            })?;
        parts.push(bytes[pos..end].to_vec());
        pos = end;
    }
    if pos != bytes.len() {
        return Err(bad(format!("{} trailing bytes", bytes.len() - pos)));
    }
    let options = parts.pop().expect("three parts");
    let code = parts.pop().expect("three parts");
    let format = String::from_utf8(parts.pop().expect("three parts"))
        .map_err(|_| bad("format is not UTF-8".into()))?;
    Ok(ProgramSource {
        format,
        code,
        options,
    })
}

// ---- PJRT_Executable_* -------------------------------------------------------------------------

pub(crate) struct ExecutableHandle {
    pub exe: Arc<Executable>,
}

impl ExecutableHandle {
    pub fn into_raw(exe: Arc<Executable>) -> *mut PJRT_Executable {
        Box::into_raw(Box::new(ExecutableHandle { exe })) as *mut PJRT_Executable
    }
}

unsafe fn executable<'a>(raw: *const PJRT_Executable) -> ApiResult<&'a Executable> {
    Ok(&unsafe { handle::<_, ExecutableHandle>(raw, "executable")? }.exe)
}

/// Bytes handed to the caller together with a deleter that frees them.
pub(crate) struct OwnedBytes(pub Vec<u8>);

args_min_size! {
    PJRT_Executable_Destroy_Args => executable,
    PJRT_Executable_Name_Args => executable_name_size,
    PJRT_Executable_NumReplicas_Args => num_replicas,
    PJRT_Executable_NumPartitions_Args => num_partitions,
    PJRT_Executable_NumOutputs_Args => num_outputs,
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args => size_in_bytes,
    PJRT_Executable_Fingerprint_Args => executable_fingerprint_size,
    PJRT_Executable_OutputElementTypes_Args => num_output_types,
    PJRT_Executable_OutputDimensions_Args => dim_sizes,
    PJRT_Executable_OutputMemoryKinds_Args => memory_kind_sizes,
    PJRT_Executable_ParameterMemoryKinds_Args => memory_kind_sizes,
    PJRT_Executable_OptimizedProgram_Args => program,
    PJRT_Executable_Serialize_Args => serialized_executable_deleter,
    PJRT_Executable_GetCompileOptions_Args => serialized_compile_options_deleter,
    PJRT_Executable_GetCompiledMemoryStats_Args => temp_size_in_bytes,
}

pub(crate) unsafe extern "C" fn executable_destroy(
    args: *mut PJRT_Executable_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_Destroy", args, |a| {
        if !a.executable.is_null() {
            drop(unsafe { Box::from_raw(a.executable as *mut ExecutableHandle) });
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_name(
    args: *mut PJRT_Executable_Name_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_Name", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.executable_name = e.name.as_ptr() as *const c_char;
        a.executable_name_size = e.name.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_num_replicas(
    args: *mut PJRT_Executable_NumReplicas_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_NumReplicas", args, |a| {
        a.num_replicas = unsafe { executable(a.executable)? }.num_replicas;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_num_partitions(
    args: *mut PJRT_Executable_NumPartitions_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_NumPartitions", args, |a| {
        a.num_partitions = unsafe { executable(a.executable)? }.num_partitions;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_num_outputs(
    args: *mut PJRT_Executable_NumOutputs_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_NumOutputs", args, |a| {
        a.num_outputs = unsafe { executable(a.executable)? }.output_types.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_size_of_generated_code_in_bytes(
    args: *mut PJRT_Executable_SizeOfGeneratedCodeInBytes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_SizeOfGeneratedCodeInBytes", args, |a| {
        // apu interprets the program; there is no generated code.
        unsafe { executable(a.executable)? };
        a.size_in_bytes = 0;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_fingerprint(
    args: *mut PJRT_Executable_Fingerprint_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_Fingerprint", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.executable_fingerprint = e.fingerprint.as_ptr() as *const c_char;
        a.executable_fingerprint_size = e.fingerprint.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_output_element_types(
    args: *mut PJRT_Executable_OutputElementTypes_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_OutputElementTypes", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.output_types = e.output_pjrt_types.as_ptr() as *mut PJRT_Buffer_Type;
        a.num_output_types = e.output_pjrt_types.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_output_dimensions(
    args: *mut PJRT_Executable_OutputDimensions_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_OutputDimensions", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.num_outputs = e.output_dim_sizes.len();
        a.dims = e.output_dims.as_ptr();
        a.dim_sizes = e.output_dim_sizes.as_ptr();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_output_memory_kinds(
    args: *mut PJRT_Executable_OutputMemoryKinds_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_OutputMemoryKinds", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.num_outputs = e.output_memory_kinds.len();
        a.memory_kinds = e.output_memory_kinds.as_ptr();
        a.memory_kind_sizes = e.output_memory_kind_sizes.as_ptr();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_parameter_memory_kinds(
    args: *mut PJRT_Executable_ParameterMemoryKinds_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_ParameterMemoryKinds", args, |a| {
        let e = unsafe { executable(a.executable)? };
        a.num_parameters = e.param_memory_kinds.len();
        a.memory_kinds = e.param_memory_kinds.as_ptr();
        a.memory_kind_sizes = e.param_memory_kind_sizes.as_ptr();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_optimized_program(
    args: *mut PJRT_Executable_OptimizedProgram_Args,
) -> *mut PJRT_Error {
    // The program apu runs, as StableHLO text (format "mlir"). Called twice by clients: first with
    // `code == NULL` to learn the size, then with a buffer of that size.
    entry("PJRT_Executable_OptimizedProgram", args, |a| {
        let e = unsafe { executable(a.executable)? };
        if a.program.is_null() {
            return Err(ApiError::invalid_argument("PJRT_Executable_OptimizedProgram: `program` is NULL"));
        }
        let p = unsafe { &mut *a.program };
        const FORMAT: &str = "mlir";
        p.format = FORMAT.as_ptr() as *const c_char;
        p.format_size = FORMAT.len();
        let text = e.program_text().as_bytes();
        if !p.code.is_null() {
            if p.code_size < text.len() {
                return Err(ApiError::invalid_argument(format!(
                    "PJRT_Executable_OptimizedProgram: buffer of {} bytes, the program needs {}",
                    p.code_size,
                    text.len()
                )));
            }
            unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), p.code as *mut u8, text.len()) };
        }
        p.code_size = text.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_get_compiled_memory_stats(
    args: *mut PJRT_Executable_GetCompiledMemoryStats_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_GetCompiledMemoryStats", args, |a| {
        let e = unsafe { executable(a.executable)? };
        let bytes = |types: &[TensorType]| types.iter().map(|t| t.byte_size() as i64).sum::<i64>();
        let (arguments, outputs) = (bytes(&e.param_types), bytes(&e.output_types));
        // Callers do not zero the struct: write every field. Temporaries of the interpreter are
        // not known ahead of a run, so they are reported as 0.
        a.generated_code_size_in_bytes = 0;
        a.argument_size_in_bytes = arguments;
        a.output_size_in_bytes = outputs;
        a.alias_size_in_bytes = 0;
        a.temp_size_in_bytes = 0;
        a.host_generated_code_size_in_bytes = 0;
        a.host_argument_size_in_bytes = 0;
        a.host_output_size_in_bytes = 0;
        a.host_alias_size_in_bytes = 0;
        a.host_temp_size_in_bytes = 0;
        a.peak_memory_in_bytes = arguments + outputs;
        a.total_size_in_bytes = arguments + outputs;
        a.total_allocation_bytes = outputs;
        a.indefinite_allocations = 0;
        a.peak_unpadded_heap_bytes = 0;
        Ok(())
    })
}

unsafe extern "C" fn free_serialized_executable(p: *mut PJRT_SerializedExecutable) {
    if !p.is_null() {
        drop(unsafe { Box::from_raw(p as *mut OwnedBytes) });
    }
}

unsafe extern "C" fn free_serialized_compile_options(p: *mut PJRT_SerializedCompileOptions) {
    if !p.is_null() {
        drop(unsafe { Box::from_raw(p as *mut OwnedBytes) });
    }
}

pub(crate) unsafe extern "C" fn executable_serialize(
    args: *mut PJRT_Executable_Serialize_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_Serialize", args, |a| {
        let e = unsafe { executable(a.executable)? };
        let owned = Box::new(OwnedBytes(serialize(&e.source)));
        a.serialized_bytes = owned.0.as_ptr() as *const c_char;
        a.serialized_bytes_size = owned.0.len();
        a.serialized_executable = Box::into_raw(owned) as *mut PJRT_SerializedExecutable;
        a.serialized_executable_deleter = Some(free_serialized_executable);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn executable_get_compile_options(
    args: *mut PJRT_Executable_GetCompileOptions_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_GetCompileOptions", args, |a| {
        let e = unsafe { executable(a.executable)? };
        let owned = Box::new(OwnedBytes(e.source.options.clone()));
        a.serialized_bytes = owned.0.as_ptr() as *const c_char;
        a.serialized_bytes_size = owned.0.len();
        a.serialized_compile_options = Box::into_raw(owned) as *mut PJRT_SerializedCompileOptions;
        a.serialized_compile_options_deleter = Some(free_serialized_compile_options);
        Ok(())
    })
}

/// Reads the `PJRT_Program` of a compile call.
///
/// # Safety
/// `program` must be NULL or valid, with valid `code` and `format` arrays.
pub(crate) unsafe fn read_source(
    program: *const PJRT_Program,
    options: *const c_char,
    options_size: usize,
) -> ApiResult<ProgramSource> {
    let p: &PJRT_Program = unsafe { handle(program, "program")? };
    let format = unsafe { super::guard::string_arg(p.format, p.format_size, "program format")? };
    let code = unsafe { slice(p.code as *const u8, p.code_size, "program code")? }.to_vec();
    let options = unsafe { slice(options as *const u8, options_size, "compile_options")? }.to_vec();
    Ok(ProgramSource {
        format,
        code,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_round_trips_and_rejects_damage() {
        let src = ProgramSource {
            format: "mlir".into(),
            code: vec![1, 2, 3],
            options: vec![9; 5],
        };
        let bytes = serialize(&src);
        assert_eq!(deserialize(&bytes).unwrap(), src);
        for cut in 0..bytes.len() {
            assert!(deserialize(&bytes[..cut]).is_err(), "truncated at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(deserialize(&extra).is_err());
        assert!(deserialize(b"garbage garbage garbage").is_err());
    }

    #[test]
    fn fingerprint_hash_depends_on_every_part() {
        let a = fnv1a(&[b"mlir", b"code", b"opts"]);
        assert_ne!(a, fnv1a(&[b"mlir", b"code", b"opt2"]));
        assert_ne!(
            a,
            fnv1a(&[b"mlirc", b"ode", b"opts"]),
            "parts are length-prefixed"
        );
        assert_eq!(a, fnv1a(&[b"mlir", b"code", b"opts"]));
    }
}
