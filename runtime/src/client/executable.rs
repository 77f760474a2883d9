//! A compiled program and everything a framework asks about it: parameter and output types, which
//! parameters may be donated to which outputs, replica and partition counts, a fingerprint, and
//! the source it came from (to serialize it and to compile it again with other options).

use super::compile;
use super::{envelope, host_bound};
use super::fnv1a;
use super::partition::Partitioning;
use super::MemoryKind;
use crate::exec::Program;
use crate::{Error, Result};
use apu_compiler::ir::{TensorType, Type};
use apu_compiler::options::CompileOptions;
use apu_compiler::valid::ValidModule;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

/// The program as it was handed to compile: enough to serialize and recompile it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramSource {
    pub format: String,
    pub code: Vec<u8>,
    /// A serialized `xla.CompileOptionsProto` (empty: all defaults).
    pub options: Vec<u8>,
}

pub struct Executable {
    pub name: String,
    /// The executable form (fused plan, or the interpreter where no plan can be built).
    pub program: Program,
    /// How long the last successful run took, in nanoseconds (`u64::MAX` before the first): quick
    /// programs run on the caller's thread (see `execute.rs`).
    pub last_run_ns: AtomicU64,
    /// The validated module, kept to print [`Executable::program_text`] on demand.
    module: ValidModule,
    program_text: OnceLock<String>,
    pub source: ProgramSource,
    pub options: CompileOptions,
    pub num_replicas: usize,
    pub num_partitions: usize,
    /// How the devices' pieces map onto the global program, when it is partitioned.
    pub partitioning: Option<Partitioning>,
    pub param_types: Vec<TensorType>,
    pub output_types: Vec<TensorType>,
    /// Per output: whether @main returns a token there. It travels as an empty `pred[0]` buffer, which
    /// the framework must see as a token (XLA's TOKEN element type, no dimensions) so that it never
    /// reads it as an array.
    pub output_tokens: Vec<bool>,
    /// Per parameter: the output it may alias (`tf.aliasing_output`), i.e. donated inputs.
    pub aliasing_outputs: Vec<Option<u32>>,
    /// Per parameter and per output: the memory it lives in (`mhlo.memory_kind`, `device` when
    /// not given). Outputs are made in these memories.
    pub param_memory_kinds: Vec<MemoryKind>,
    pub output_memory_kinds: Vec<MemoryKind>,
    fingerprint: String,
    /// Whether the program calls host callbacks, which bind it to this process (`host_bound.rs`).
    pub calls_host: bool,
}

fn tensor_types(types: &[Type], what: &str) -> Result<Vec<TensorType>> {
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
                Error::unimplemented(format!("{what} {i} of @main has type {t}; apu supports tensor types only"))
                    .location(format!("{what} {i}"))
            })
        })
        .collect()
}

/// The memory kind of each of `n` parameters or results from their `mhlo.memory_kind` names (the
/// default memory where none is given); an unknown name is a compile error naming the value.
fn memory_kinds<'a>(names: impl Iterator<Item = Option<&'a str>>, n: usize, what: &str) -> Result<Vec<MemoryKind>> {
    let mut kinds: Vec<MemoryKind> = names
        .enumerate()
        .map(|(i, name)| name.map_or(Ok(MemoryKind::Device), |name| MemoryKind::from_name(name, &format!("{what} {i} of @main"))))
        .collect::<Result<_>>()?;
    kinds.resize(n, MemoryKind::Device);
    Ok(kinds)
}

/// Gives each `jax.buffer_donor` parameter (in order) the first output of its per-device type that no
/// parameter aliases yet, as XLA's compiler does for buffer donors; a donor that finds none is not
/// donated (JAX warns that the buffer was not usable).
fn donors_to_aliases(aliases: &mut [Option<u32>], donors: impl Iterator<Item = bool>, params: &[TensorType], outputs: &[TensorType]) {
    for (i, donor) in donors.enumerate() {
        if !donor || i >= aliases.len() || aliases[i].is_some() {
            continue;
        }
        let free = (0..outputs.len()).find(|&o| outputs[o] == params[i] && !aliases.contains(&Some(o as u32)));
        aliases[i] = free.map(|o| o as u32);
    }
}

#[cfg(test)]
mod donor_tests {
    use super::donors_to_aliases;
    use apu_compiler::ir::{ElementType, TensorType};

    #[test]
    fn donors_take_free_outputs_of_their_type_in_order() {
        let t = |n: i64| TensorType::new(vec![n], ElementType::F32);
        let params = [t(2), t(2), t(3), t(2)];
        let outputs = [t(2), t(3), t(2)];
        // Parameter 3 names output 0 itself; 0 and 1 are donors; 2 is not donated.
        let mut aliases = vec![None, None, None, Some(0)];
        donors_to_aliases(&mut aliases, [true, true, false, false].into_iter(), &params, &outputs);
        assert_eq!(aliases, vec![Some(2), None, None, Some(0)]);
    }
}

/// A replica or partition count from the compile options if they set one, else the module's.
fn count(from_options: Option<i64>, from_module: u32) -> usize {
    from_options.filter(|&n| n > 0).map_or(from_module.max(1) as usize, |n| n as usize)
}

impl Executable {
    /// Decodes the options, then runs the compile pipeline on the program ([`compile::compile`]).
    pub fn compile(source: ProgramSource) -> Result<Arc<Executable>> {
        let options = CompileOptions::decode(&source.options)?;
        let compiled = compile::compile(&source.format, &source.code)?;
        let module = compiled.module;
        let entry = module.entry_function();
        let mut param_types = tensor_types(&entry.param_types(), "parameter")?;
        let mut output_types = tensor_types(&entry.result_types, "result")?;
        let output_tokens = entry.result_types.iter().map(|t| matches!(t, Type::Token)).collect();
        let mut aliasing_outputs: Vec<Option<u32>> = entry.arg_attrs.iter().map(|a| a.aliasing_output).collect();
        aliasing_outputs.resize(param_types.len(), None);
        let param_memory_kinds = memory_kinds(entry.arg_attrs.iter().map(|a| a.memory_kind.as_deref()), param_types.len(), "parameter")?;
        let output_memory_kinds = memory_kinds(entry.result_memory_kinds.iter().map(Option::as_deref), output_types.len(), "result")?;
        let build = options.proto.executable_build_options.as_ref();
        let num_replicas = count(build.map(|b| b.num_replicas), module.num_replicas);
        let num_partitions = count(build.map(|b| b.num_partitions), module.num_partitions);
        // A partitioned program is the global one, run once over the devices' pieces (decision 64);
        // what the framework sees per device are the pieces' types.
        let partitioning = if num_partitions > 1 {
            if num_replicas > 1 {
                return Err(Error::unimplemented(format!(
                    "a program with {num_replicas} replicas of {num_partitions} partitions each"
                )));
            }
            let p = Partitioning::new(entry, &param_types, &output_types, num_partitions)?;
            param_types = p.params.iter().map(|x| x.local.clone()).collect();
            output_types = p.results.iter().map(|x| x.local.clone()).collect();
            Some(p)
        } else {
            None
        };
        donors_to_aliases(&mut aliasing_outputs, entry.arg_attrs.iter().map(|a| a.buffer_donor), &param_types, &output_types);
        // Replicas whose collectives meet must run together (`Program::run_replicated`, decision 65);
        // Execute runs each replica alone, so such programs stay refused at compile time.
        if compiled.program.launch_replicas() > 0 {
            return Err(Error::unimplemented(format!(
                "collectives between the program's {num_replicas} replicas: apu's Execute does not launch replicas together yet"
            )));
        }
        let name = if module.name.is_empty() { "main".to_string() } else { module.name.clone() };
        let fingerprint = format!(
            "apu-{}-{:016x}",
            env!("CARGO_PKG_VERSION"),
            fnv1a(&[source.format.as_bytes(), &source.code, &source.options])
        );
        let calls_host = host_bound::calls_host(module.module());
        Ok(Arc::new(Executable {
            calls_host,
            name,
            program: compiled.program,
            last_run_ns: AtomicU64::new(u64::MAX),
            module,
            program_text: OnceLock::new(),
            source,
            options,
            num_replicas,
            num_partitions,
            partitioning,
            param_types,
            output_types,
            output_tokens,
            aliasing_outputs,
            param_memory_kinds,
            output_memory_kinds,
            fingerprint,
        }))
    }

    /// The same program compiled with other serialized compile options.
    pub fn with_options(&self, options: &[u8]) -> Result<Arc<Executable>> {
        let mut source = self.source.clone();
        source.options = options.to_vec();
        Executable::compile(source)
    }

    /// `PJRT_Executable_Serialize`: the source in apu's envelope, with this process's token when the
    /// program calls the host.
    pub fn serialize(&self) -> Vec<u8> {
        envelope::serialize(&self.source, host_bound::origin_for(self.calls_host))
    }

    /// `PJRT_Executable_DeserializeAndLoad`: compiles a serialized program again (with the caller's
    /// options if it gives any), refusing one that calls the host of another process.
    pub fn deserialize(bytes: &[u8], overridden_options: &[u8]) -> Result<Arc<Executable>> {
        let envelope::Envelope { mut source, origin } = envelope::deserialize(bytes)?;
        if !overridden_options.is_empty() {
            source.options = overridden_options.to_vec();
        }
        let exe = Executable::compile(source)?;
        host_bound::check_origin(&exe.name, exe.calls_host, origin.as_deref())?;
        Ok(exe)
    }

    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The validated module as StableHLO text (printed once, on first use).
    pub fn program_text(&self) -> &str {
        self.program_text.get_or_init(|| apu_compiler::print::print_module(&self.module))
    }

    /// The static cost estimate of one run (`Compiled.cost_analysis()`): see [`apu_compiler::cost`].
    pub fn cost(&self) -> apu_compiler::cost::Cost {
        apu_compiler::cost::estimate(&self.module)
    }

    /// Bytes of all parameters and of all outputs.
    pub fn argument_and_output_bytes(&self) -> (i64, i64) {
        let bytes = |types: &[TensorType]| types.iter().map(|t| t.byte_size() as i64).sum::<i64>();
        (bytes(&self.param_types), bytes(&self.output_types))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_options_when_set() {
        assert_eq!(count(None, 0), 1);
        assert_eq!(count(Some(0), 3), 3);
        assert_eq!(count(Some(-1), 2), 2);
        assert_eq!(count(Some(4), 2), 4);
    }
}
