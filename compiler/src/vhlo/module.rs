//! Builds the IR module from the raw op tree: `builtin.module` → [`Module`], `vhlo.func_v1` →
//! [`Function`], every other op through [`super::ops::map_op`].

use super::convert::{int_value, ty_name, value_type};
use super::op_table::properties_of;
use super::ops::refused_by_name;
use super::region::{build_region, scope_value_types};
use super::sharding::{check_sdy_mesh, check_value_sharding};
use crate::bytecode::{attr_loc_text, Attr, Properties, RawOp, Table, Ty};
use crate::error::ResultExt;
use crate::ir::{ArgAttrs, Function, Location, Module, Type};
use crate::{Error, Result};
use std::rc::Rc;

type NamedAttrs = Vec<(&'static str, Rc<Attr>)>;

/// Splits `add_v1` into (`add`, 1).
pub fn split_version(name: &str) -> Option<(&str, u32)> {
    let (base, v) = name.rsplit_once("_v")?;
    Some((base, v.parse().ok()?))
}

/// The inherent attributes of a VHLO op, by name, from its properties (bytecode ≥ 5) or from its
/// attribute dictionary (older bytecode).
pub fn inherent_attrs(op: &RawOp<'_>, short: &str, table: &mut Table<'_>) -> Result<NamedAttrs> {
    let names = properties_of(short).ok_or_else(|| Error::unimplemented(format!("vhlo.{short}: unknown VHLO op")))?;
    let mut out = Vec::with_capacity(names.len());
    match &op.props {
        Some(Properties::Native(r)) => {
            let mut r = r.clone();
            for &name in names {
                out.push((name, table.read_attr(&mut r)?));
            }
            if !r.is_empty() {
                return Err(r.error(format!("{} unexpected bytes after the properties of vhlo.{short}", r.remaining())));
            }
        }
        // A writer that did not know VHLO stores an unregistered op's inherent attributes as one
        // dictionary; older bytecode (< 5) keeps them in the attribute dictionary.
        Some(Properties::Attr(_)) | None => {
            let dict = match &op.props {
                Some(Properties::Attr(a)) => Some(&**a),
                _ => op.attrs.as_deref(),
            };
            for &name in names {
                if let Some(a) = dict.and_then(|d| d.dict_get(name)) {
                    out.push((name, a.clone()));
                }
            }
        }
    }
    Ok(out)
}

pub fn location(op: &RawOp<'_>) -> Location {
    Location { text: attr_loc_text(&op.loc) }
}

/// Reads the file's single `builtin.module`.
pub fn build_module(top: &[RawOp<'_>], table: &mut Table<'_>) -> Result<Module> {
    let [module_op] = top else {
        return Err(Error::invalid(format!("MLIR bytecode: expected one top-level builtin.module, found {} ops", top.len())));
    };
    if module_op.name != "builtin.module" {
        return Err(Error::unimplemented(format!("MLIR bytecode: top-level op '{}' is not builtin.module", module_op.name)));
    }
    let mut module = Module { num_replicas: 1, num_partitions: 1, ..Default::default() };
    module.name = module_name(module_op, table)?;
    if let Some(dict) = module_op.attrs.as_deref() {
        for (key, field) in [("mhlo.num_replicas", &mut module.num_replicas), ("mhlo.num_partitions", &mut module.num_partitions)] {
            if let Some(v) = dict.dict_get(key) {
                *field = u32::try_from(int_value(v)?).map_err(|_| Error::invalid(format!("{key} out of range")))?;
            }
        }
    }
    let [region] = module_op.regions.as_slice() else {
        return Err(Error::invalid("builtin.module must have one region"));
    };
    // A program with manual computations (shard_map, pmap) needs its meshes, and so does one
    // partitioned over several devices (a jit over NamedShardings: the global program, whose argument
    // and result shardings say how the devices' pieces map onto it, decision 64); any other program
    // keeps refusing real meshes (decision 65).
    let manual = super::manual::has_manual_computation(module_op) || module.num_partitions > 1;
    let mut meshes = super::manual::Meshes::new();
    for block in &region.blocks {
        for op in &block.ops {
            match op.name.as_str() {
                "vhlo.func_v1" => {
                    let f = build_function(op, table).map_err(|e| e.context(format!("vhlo.func_v1 at byte {}", op.offset)))?;
                    module.functions.push(f);
                }
                "sdy.mesh" if manual => {
                    let (name, mesh) = super::manual::sdy_mesh(op, table)?;
                    meshes.insert(name, super::manual::mesh_axes(&mesh)?);
                }
                "sdy.mesh" => check_sdy_mesh(op, table)?,
                other => {
                    return Err(Error::unimplemented(format!(
                        "{other}: not a VHLO function (is this a StableHLO portable artifact?)"
                    )))
                }
            }
        }
    }
    super::manual::resolve_meshes(&mut module, &meshes)?;
    module.entry = match module.function_index("main") {
        Some(i) => i,
        None => {
            let public: Vec<usize> = (0..module.functions.len()).filter(|&i| module.functions[i].public).collect();
            match public.as_slice() {
                [i] => *i,
                _ => return Err(Error::invalid("module has no @main and not exactly one public function")),
            }
        }
    };
    Ok(module)
}

fn module_name(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<String> {
    let name = match &op.props {
        // Native properties of builtin.module: optional sym_name, optional sym_visibility.
        Some(Properties::Native(r)) => {
            let mut r = r.clone();
            table.read_optional_attr(&mut r)?
        }
        Some(Properties::Attr(a)) => a.dict_get("sym_name").cloned(),
        None => op.attrs.as_deref().and_then(|d| d.dict_get("sym_name")).cloned(),
    };
    Ok(name.and_then(|n| n.as_str().map(str::to_string)).unwrap_or_default())
}

fn build_function(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<Function> {
    let attrs = inherent_attrs(op, "func_v1", table)?;
    let name = lookup(&attrs, "sym_name")
        .and_then(|a| a.as_str().map(str::to_string))
        .ok_or_else(|| Error::invalid("function without a name"))?;
    let ctx = format!("function @{name}");
    build_function_named(op, &attrs, name, table).context_with(|| ctx)
}

/// The bytecode reader already stops at 32 nested regions; this bound only keeps the walk below
/// obviously finite on its own.
const MAX_REGION_DEPTH: usize = 64;

/// Refuses the first op (in program order) that apu refuses by name alone, with the same message and
/// context as the op builder gives it. Runs before any value type is converted.
fn refuse_ops_by_name(op: &RawOp<'_>, depth: usize) -> Result<()> {
    if depth > MAX_REGION_DEPTH {
        return Err(Error::invalid(format!("regions nested deeper than {MAX_REGION_DEPTH}")));
    }
    for inner in op.regions.iter().flat_map(|r| &r.blocks).flat_map(|b| &b.ops) {
        let name = inner.name.as_str();
        if let Some((base, _)) = name.strip_prefix("vhlo.").and_then(split_version) {
            if let Some(why) = refused_by_name(base) {
                let at = format!("{name} at {} (byte {})", location(inner), inner.offset);
                return Err(Error::unimplemented(format!("{name}: {why}")).context(at));
            }
        }
        refuse_ops_by_name(inner, depth + 1)?;
    }
    Ok(())
}

fn lookup(attrs: &NamedAttrs, name: &str) -> Option<Rc<Attr>> {
    attrs.iter().find(|(k, _)| *k == name).map(|(_, a)| a.clone())
}

fn build_function_named(op: &RawOp<'_>, attrs: &NamedAttrs, name: String, table: &mut Table<'_>) -> Result<Function> {
    let mut f = Function::new(name);
    f.public = match lookup(attrs, "sym_visibility").as_deref() {
        Some(Attr::String(s)) => s.is_empty() || s == "public",
        _ => true,
    };
    let (inputs, results) = match lookup(attrs, "function_type").as_deref() {
        Some(Attr::Type(t)) => match &**t {
            Ty::Function { inputs, results } => (inputs.clone(), results.clone()),
            other => return Err(Error::invalid(format!("function_type is {}", ty_name(other)))),
        },
        _ => return Err(Error::invalid("missing function_type")),
    };
    refuse_ops_by_name(op, 0)?;
    f.result_types = results.iter().map(|t| value_type(t)).collect::<Result<_>>().context_with(|| "result types".into())?;
    let mut values = scope_value_types(op, 0)?;
    let [region] = op.regions.as_slice() else {
        return Err(Error::invalid("vhlo.func_v1 must have one region"));
    };
    if region.blocks.is_empty() {
        return Err(Error::unimplemented("function declarations without a body"));
    }
    f.body = build_region(region, &mut values, 0, table)?;
    f.constraints = super::manual::constraints(region, table)?;
    f.values = values;
    let param_types = f.param_types();
    let declared: Vec<Type> = inputs.iter().map(|t| value_type(t)).collect::<Result<_>>()?;
    if param_types != declared {
        return Err(Error::invalid("entry block arguments do not match function_type inputs"));
    }
    let result_value_types: Vec<Type> = f.body.results.iter().filter_map(|v| f.values.get(v.index()).cloned()).collect();
    if result_value_types != f.result_types {
        return Err(Error::invalid("returned values do not match function_type results"));
    }
    f.arg_attrs = arg_attrs(lookup(attrs, "arg_attrs").as_deref(), declared.len())?;
    if let Some(Attr::Array(res)) = lookup(attrs, "res_attrs").as_deref() {
        for (i, d) in res.iter().enumerate() {
            check_value_sharding(d, &format!("result {i}"))?;
        }
        f.result_shardings = res.iter().map(|d| super::manual::value_sharding(d)).collect::<Result<_>>()?;
        f.result_memory_kinds = res.iter().enumerate().map(|(i, d)| memory_kind(d, &format!("result {i}"))).collect::<Result<_>>()?;
    }
    Ok(f)
}

/// Per-argument attributes: `tf.aliasing_output` (donation) is kept; shardings are checked.
fn arg_attrs(attr: Option<&Attr>, n: usize) -> Result<Vec<ArgAttrs>> {
    let mut out = vec![ArgAttrs::default(); n];
    let dicts = match attr {
        Some(Attr::Array(items)) => items,
        // Absent (a `none` type or nothing at all): no attributes.
        _ => return Ok(out),
    };
    if !dicts.is_empty() && dicts.len() != n {
        return Err(Error::invalid(format!("arg_attrs has {} entries for {n} arguments", dicts.len())));
    }
    for (i, d) in dicts.iter().enumerate() {
        check_value_sharding(d, &format!("argument {i}"))?;
        out[i].sharding = super::manual::value_sharding(d)?;
        if let Some(v) = d.dict_get("tf.aliasing_output") {
            let out_index = u32::try_from(int_value(v)?).map_err(|_| Error::invalid("tf.aliasing_output out of range"))?;
            out[i].aliasing_output = Some(out_index);
        }
        out[i].memory_kind = memory_kind(d, &format!("argument {i}"))?;
        out[i].buffer_donor = d.dict_get("jax.buffer_donor").is_some_and(|a| matches!(&**a, Attr::Bool(true)));
    }
    Ok(out)
}

/// The `mhlo.memory_kind` of an argument's or result's attribute dictionary, if it has one.
fn memory_kind(dict: &Attr, what: &str) -> Result<Option<String>> {
    match dict.dict_get("mhlo.memory_kind") {
        None => Ok(None),
        Some(kind) => match kind.as_str() {
            Some(name) => Ok(Some(name.to_string())),
            None => Err(Error::invalid(format!("{what}: mhlo.memory_kind is not a string"))),
        },
    }
}

