//! `PJRT_Executable`: the C view of a model [`Executable`] — everything the C API asks about it
//! (output types and shapes, memory kinds, layouts), precomputed so that answers can point into
//! it. `PJRT_Executable*` handles are `Box<ExecutableHandle>` sharing one `Arc<ExecutableView>`.

use super::api_error::ApiError;
use super::attributes::{AttrValue, NamedValues};
use super::guard::{args_min_size, entry, handle, slice, string_arg, ApiResult};
use super::layout_list::LayoutList;
use super::types::pjrt_type;
use apu_pjrt_api::*;
use apu_runtime::client::{Executable, ProgramSource};
use std::os::raw::c_char;
use std::sync::{Arc, OnceLock};

pub(crate) struct ExecutableView {
    pub model: Arc<Executable>,
    /// Layouts extension answers: every parameter and output is dense row-major.
    pub param_layouts: LayoutList,
    pub output_layouts: LayoutList,
    pub output_pjrt_types: Vec<PJRT_Buffer_Type>,
    output_dims: Vec<i64>,
    output_dim_sizes: Vec<usize>,
    output_memory_kinds: Vec<*const c_char>,
    output_memory_kind_sizes: Vec<usize>,
    param_memory_kinds: Vec<*const c_char>,
    param_memory_kind_sizes: Vec<usize>,
    /// The Shardings extension's answers for a partitioned program (None: one device, NULL arrays).
    pub param_shardings: Option<super::shardings::ShardingList>,
    pub output_shardings: Option<super::shardings::ShardingList>,
    /// GetCostAnalysis's answer, estimated on first request (`apu_compiler::cost`).
    cost: OnceLock<NamedValues>,
}

// SAFETY: the raw pointers point at the static memory-kind string.
unsafe impl Send for ExecutableView {}
unsafe impl Sync for ExecutableView {}

impl std::ops::Deref for ExecutableView {
    type Target = Executable;
    fn deref(&self) -> &Executable {
        &self.model
    }
}

impl ExecutableView {
    pub fn new(model: Arc<Executable>) -> Arc<ExecutableView> {
        let params = &model.param_types;
        // What the framework sees of each output: a token output is XLA's TOKEN with no dimensions.
        let outputs: Vec<(PJRT_Buffer_Type, &[i64])> = model
            .output_types
            .iter()
            .zip(&model.output_tokens)
            .map(|(t, &token)| if token { (PJRT_Buffer_Type_TOKEN, &[][..]) } else { (pjrt_type(t.elem), &t.shape[..]) })
            .collect();
        let names = |kinds: &[apu_runtime::client::MemoryKind]| -> (Vec<*const c_char>, Vec<usize>) {
            kinds.iter().map(|k| (k.name().as_ptr() as *const c_char, k.name().len())).unzip()
        };
        let (output_memory_kinds, output_memory_kind_sizes) = names(&model.output_memory_kinds);
        let (param_memory_kinds, param_memory_kind_sizes) = names(&model.param_memory_kinds);
        Arc::new(ExecutableView {
            param_layouts: LayoutList::descending(params.iter().map(|t| t.rank())),
            output_layouts: LayoutList::descending(outputs.iter().map(|(_, dims)| dims.len())),
            output_pjrt_types: outputs.iter().map(|&(t, _)| t).collect(),
            output_dims: outputs.iter().flat_map(|(_, dims)| dims.iter().copied()).collect(),
            output_dim_sizes: outputs.iter().map(|(_, dims)| dims.len()).collect(),
            output_memory_kinds,
            output_memory_kind_sizes,
            param_memory_kinds,
            param_memory_kind_sizes,
            cost: OnceLock::new(),
            param_shardings: model.partitioning.as_ref().map(|p| super::shardings::ShardingList::new(&p.params)),
            output_shardings: model.partitioning.as_ref().map(|p| super::shardings::ShardingList::outputs(&p.results)),
            model,
        })
    }

    /// Compiles a program through the model's pipeline and builds its view.
    pub fn compile(source: ProgramSource) -> ApiResult<Arc<ExecutableView>> {
        Ok(ExecutableView::new(Executable::compile(source)?))
    }
}

// ---- PJRT_Executable_* -------------------------------------------------------------------------

pub(crate) struct ExecutableHandle {
    pub exe: Arc<ExecutableView>,
}

impl ExecutableHandle {
    pub fn into_raw(exe: Arc<ExecutableView>) -> *mut PJRT_Executable {
        Box::into_raw(Box::new(ExecutableHandle { exe })) as *mut PJRT_Executable
    }
}

unsafe fn executable<'a>(raw: *const PJRT_Executable) -> ApiResult<&'a ExecutableView> {
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
    PJRT_Executable_GetCostAnalysis_Args => properties,
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

pub(crate) unsafe extern "C" fn executable_get_cost_analysis(
    args: *mut PJRT_Executable_GetCostAnalysis_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Executable_GetCostAnalysis", args, |a| {
        let exe = unsafe { executable(a.executable)? };
        let cost = exe.cost.get_or_init(|| {
            let estimate = exe.model.cost();
            NamedValues::new(
                estimate.properties().iter().map(|(k, v)| (k.to_string(), AttrValue::Float(*v as f32))).collect(),
            )
        });
        a.num_properties = cost.len();
        a.properties = cost.as_ptr();
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
        a.executable_fingerprint = e.fingerprint().as_ptr() as *const c_char;
        a.executable_fingerprint_size = e.fingerprint().len();
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
        let (arguments, outputs) = e.argument_and_output_bytes();
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
        let owned = Box::new(OwnedBytes(e.serialize()));
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
    let format = unsafe { string_arg(p.format, p.format_size, "program format")? };
    let code = unsafe { slice(p.code as *const u8, p.code_size, "program code")? }.to_vec();
    let options = unsafe { slice(options as *const u8, options_size, "compile_options")? }.to_vec();
    Ok(ProgramSource {
        format,
        code,
        options,
    })
}
