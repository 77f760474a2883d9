//! Reader of `xla.HloModuleProto`: PJRT program formats "hlo" (what TensorFlow sends) and
//! "hlo_with_config" (`xla.HloModuleProtoWithConfig`).
//!
//! Mapping onto the IR (details in [`computation`]):
//! - the entry computation becomes the public entry function; computations reached by `call`
//!   become private functions; `to_apply`/while/sort/scatter computations become regions;
//!   `fusion` and `conditional` branch computations are inlined;
//! - tuples are flattened everywhere, including the entry signature: a tuple-shaped parameter is
//!   one IR parameter per leaf and a tuple-shaped root is one IR result per leaf;
//! - layouts: HLO values are logical arrays, so the layouts written on instructions do not change
//!   what the program computes and are ignored (except by `bitcast`, accepted only as a plain
//!   reshape). That includes the entry's parameters and root: PJRT clears the module's entry
//!   layouts and takes the I/O layouts from the compile options (`argument_layouts`,
//!   `result_layout`; default row-major when absent), see `xla/pjrt/utils.cc`
//!   `DetermineArgumentLayoutsFromCompileOptions`. JAX's HLO really does carry `{0,1}` on a
//!   transposed result (`mlp_grad`). Non-row-major requested layouts are rejected by
//!   [`crate::options::CompileOptions::check_layouts`];
//! - `custom-call` is rejected at read time with UNIMPLEMENTED naming its target, except the
//!   sharding annotations that are the identity on one device.

mod attrs;
mod computation;
mod erf;
mod instruction;
mod literal;
pub mod proto;
pub mod shape;

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod wire_tests;

use crate::ir::{Module, Type};
use crate::{Error, Result};
use computation::{parameter_shapes, ModuleReader};
use prost::Message;
use proto::{HloComputationProto, HloModuleProto, HloModuleProtoWithConfig};

/// Reads a serialized `xla.HloModuleProto` (format "hlo").
pub fn read_hlo_module_proto(bytes: &[u8]) -> Result<Module> {
    let proto = HloModuleProto::decode(bytes)
        .map_err(|e| Error::invalid(format!("malformed HloModuleProto ({} bytes): {e}", bytes.len())))?;
    module_from_proto(&proto)
}

/// Reads a serialized `xla.HloModuleProtoWithConfig` (format "hlo_with_config"). The replica and
/// partition counts of the config are recorded on the module.
pub fn read_hlo_module_proto_with_config(bytes: &[u8]) -> Result<Module> {
    let proto = HloModuleProtoWithConfig::decode(bytes)
        .map_err(|e| Error::invalid(format!("malformed HloModuleProtoWithConfig ({} bytes): {e}", bytes.len())))?;
    let hlo = proto.hlo_module.as_ref().ok_or_else(|| Error::invalid("HloModuleProtoWithConfig has no hlo_module"))?;
    let mut module = module_from_proto(hlo)?;
    if let Some(config) = &proto.config {
        module.num_replicas = count(config.replica_count, "replica_count")?;
        module.num_partitions = count(config.num_partitions, "num_partitions")?;
    }
    Ok(module)
}

/// A replica or partition count; 0 (unset) means 1.
fn count(value: i64, what: &str) -> Result<u32> {
    match value {
        0 => Ok(1),
        v => u32::try_from(v).map_err(|_| Error::invalid(format!("{what} {v} is out of range"))),
    }
}

/// Converts a decoded module.
pub fn module_from_proto(proto: &HloModuleProto) -> Result<Module> {
    let entry_comp = entry_computation(proto)?;
    let mut reader = ModuleReader::new(&proto.computations)?;
    let entry = reader.function_for(entry_comp.id, true).map_err(|e| e.context(format!("HLO module {}", proto.name)))?;
    let mut functions = reader.functions;
    apply_aliasing(proto, &mut functions[entry])?;
    Ok(Module { name: proto.name.clone(), functions, entry, num_replicas: 1, num_partitions: 1 })
}

/// The entry computation: by id, else by name.
fn entry_computation(proto: &HloModuleProto) -> Result<&HloComputationProto> {
    proto
        .computations
        .iter()
        .find(|c| c.id == proto.entry_computation_id && (proto.entry_computation_id != 0 || c.name == proto.entry_computation_name))
        .or_else(|| proto.computations.iter().find(|c| !c.name.is_empty() && c.name == proto.entry_computation_name))
        .ok_or_else(|| {
            Error::invalid(format!(
                "HLO module {:?} has no entry computation (id {}, name {:?}) among its {} computations",
                proto.name,
                proto.entry_computation_id,
                proto.entry_computation_name,
                proto.computations.len()
            ))
        })
}

/// Records `input_output_alias` on the entry's (flattened) parameters as `aliasing_output`.
fn apply_aliasing(proto: &HloModuleProto, entry: &mut crate::ir::Function) -> Result<()> {
    let Some(aliases) = &proto.input_output_alias else { return Ok(()) };
    if aliases.entries.is_empty() {
        return Ok(());
    }
    let comp = entry_computation(proto)?;
    let param_types: Vec<Type> =
        parameter_shapes(comp)?.into_iter().map(shape::to_type).collect::<Result<Vec<_>>>()?;
    let root = comp
        .instructions
        .iter()
        .find(|i| i.id == comp.root_id)
        .and_then(|i| i.shape.as_ref())
        .ok_or_else(|| Error::invalid("entry computation has no root shape"))?;
    let result_type = shape::to_type(root)?;
    for a in &aliases.entries {
        let p = usize::try_from(a.parameter_number)
            .ok()
            .filter(|&p| p < param_types.len())
            .ok_or_else(|| Error::invalid(format!("alias names parameter {} of {}", a.parameter_number, param_types.len())))?;
        let before: usize = param_types[..p].iter().map(|t| shape::leaf_types(t).len()).sum();
        let within = leaf_offset(&param_types[p], &a.parameter_shape_index)
            .ok_or_else(|| Error::invalid(format!("alias parameter index {:?} is not an array", a.parameter_shape_index)))?;
        // The entry's results are the leaves of the root shape.
        let output = leaf_offset(&result_type, &a.output_shape_index)
        .ok_or_else(|| Error::invalid(format!("alias output index {:?} is not an array", a.output_shape_index)))?;
        let arg = before + within;
        let attrs = entry.arg_attrs.get_mut(arg).ok_or_else(|| Error::internal("alias parameter out of range"))?;
        attrs.aliasing_output = Some(output as u32);
    }
    Ok(())
}

/// Leaf offset of the subtree at `path` in `ty`, when that subtree is an array or token.
fn leaf_offset(ty: &Type, path: &[i64]) -> Option<usize> {
    match (ty, path.split_first()) {
        (Type::Tuple(_), None) => None,
        (_, None) => Some(0),
        (Type::Tuple(parts), Some((&i, rest))) => {
            let i = usize::try_from(i).ok().filter(|&i| i < parts.len())?;
            let before: usize = parts[..i].iter().map(|t| shape::leaf_types(t).len()).sum();
            Some(before + leaf_offset(&parts[i], rest)?)
        }
        (_, Some(_)) => None,
    }
}
