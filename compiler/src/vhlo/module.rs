//! Builds the IR module from the raw op tree: `builtin.module` → [`Module`], `vhlo.func_v1` →
//! [`Function`], every other op through [`super::ops::map_op`].

use super::convert::{int_value, ty_name, value_type};
use super::op_table::properties_of;
use super::ops::{map_op, OpCtx};
use crate::bytecode::{attr_loc_text, Attr, Properties, RawOp, RawRegion, Table, Ty};
use crate::error::ResultExt;
use crate::ir::{ArgAttrs, Function, Location, Module, Op, OpKind, Region, Type, ValueId};
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
fn inherent_attrs(op: &RawOp<'_>, short: &str, table: &mut Table<'_>) -> Result<NamedAttrs> {
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
        Some(Properties::Attr(_)) => {
            return Err(Error::invalid(format!("vhlo.{short} is marked as unregistered by the writer")));
        }
        None => {
            let dict = op.attrs.as_deref();
            for &name in names {
                if let Some(a) = dict.and_then(|d| d.dict_get(name)) {
                    out.push((name, a.clone()));
                }
            }
        }
    }
    Ok(out)
}

fn location(op: &RawOp<'_>) -> Location {
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
    for block in &region.blocks {
        for op in &block.ops {
            match op.name.as_str() {
                "vhlo.func_v1" => {
                    let f = build_function(op, table).map_err(|e| e.context(format!("vhlo.func_v1 at byte {}", op.offset)))?;
                    module.functions.push(f);
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

/// A single-device program may carry an empty Shardy mesh; a real mesh means a sharded program.
fn check_sdy_mesh(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<()> {
    let mesh = match &op.props {
        Some(Properties::Native(r)) => {
            // Properties of sdy.mesh in name order: mesh, sym_name.
            let mut r = r.clone();
            Some(table.read_attr(&mut r)?)
        }
        _ => op.attrs.as_deref().and_then(|d| d.dict_get("mesh")).cloned(),
    };
    match mesh.as_deref() {
        Some(Attr::Dialect { dialect: "sdy", name: "mesh", fields }) if is_trivial_mesh(fields) => Ok(()),
        _ => Err(Error::unimplemented(format!(
            "sdy.mesh at {}: sharded programs (a device mesh) are not supported; apu runs on one device",
            attr_loc_text(&op.loc)
        ))),
    }
}

fn is_trivial_mesh(fields: &[Rc<Attr>]) -> bool {
    let axes_trivial = match fields.first().map(|a| &**a) {
        Some(Attr::Array(axes)) => axes.iter().all(|ax| match &**ax {
            Attr::Dialect { name: "mesh_axis", fields, .. } => matches!(fields.get(1).map(|f| &**f), Some(Attr::Int(1))),
            _ => false,
        }),
        _ => false,
    };
    let ids_trivial = match fields.get(1).map(|a| &**a) {
        Some(Attr::Ints(ids)) => ids.iter().all(|&d| d == 0),
        None => true,
        _ => false,
    };
    axes_trivial && ids_trivial
}

/// An `sdy.sharding` that leaves every dimension unsharded (what single-device JAX programs carry).
fn is_trivial_sharding(a: &Attr) -> bool {
    match a {
        Attr::Dialect { dialect: "sdy", name: "tensor_sharding", fields } => {
            let dims_open = match fields.get(1).map(|f| &**f) {
                Some(Attr::Array(dims)) => dims.iter().all(|d| match &**d {
                    Attr::Dialect { name: "dimension_sharding", fields, .. } => {
                        matches!(fields.first().map(|f| &**f), Some(Attr::Array(axes)) if axes.is_empty())
                    }
                    _ => false,
                }),
                _ => false,
            };
            let none_replicated = matches!(fields.get(2).map(|f| &**f), Some(Attr::Array(r)) if r.is_empty());
            dims_open && none_replicated
        }
        _ => false,
    }
}

/// Checks the sharding annotations of one argument or result dictionary.
fn check_value_sharding(dict: &Attr, what: &str) -> Result<()> {
    if let Some(s) = dict.dict_get("sdy.sharding") {
        if !is_trivial_sharding(s) {
            return Err(Error::unimplemented(format!("{what} has a Shardy sharding; apu runs on one device")));
        }
    }
    if let Some(s) = dict.dict_get("mhlo.sharding") {
        let text = s.as_str().unwrap_or("?");
        if !matches!(text, "" | "{replicated}" | "{maximal device=0}") {
            return Err(Error::unimplemented(format!("{what} has sharding {text}; apu runs on one device")));
        }
    }
    Ok(())
}

fn build_function(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<Function> {
    let attrs = inherent_attrs(op, "func_v1", table)?;
    let name = lookup(&attrs, "sym_name")
        .and_then(|a| a.as_str().map(str::to_string))
        .ok_or_else(|| Error::invalid("function without a name"))?;
    let ctx = format!("function @{name}");
    build_function_named(op, &attrs, name, table).context_with(|| ctx)
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
    f.result_types = results.iter().map(|t| value_type(t)).collect::<Result<_>>().context_with(|| "result types".into())?;
    let mut values = scope_value_types(op, 0)?;
    let [region] = op.regions.as_slice() else {
        return Err(Error::invalid("vhlo.func_v1 must have one region"));
    };
    if region.blocks.is_empty() {
        return Err(Error::unimplemented("function declarations without a body"));
    }
    f.body = build_region(region, &mut values, 0, table)?;
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
        if let Some(v) = d.dict_get("tf.aliasing_output") {
            let out_index = u32::try_from(int_value(v)?).map_err(|_| Error::invalid("tf.aliasing_output out of range"))?;
            out[i].aliasing_output = Some(out_index);
        }
    }
    Ok(out)
}

/// Converts a single-block region; its `vhlo.return_v1` operands become the region's results.
/// Types of the values of an isolated op's own scope; `first` is the id the first one will get.
fn scope_value_types(op: &RawOp<'_>, first: usize) -> Result<Vec<Type>> {
    op.scope_types
        .iter()
        .enumerate()
        .map(|(i, t)| value_type(t).context_with(|| format!("value %{}", first + i)))
        .collect()
}

/// Converts a single-block region. `base` maps the ids of the region's value scope into the
/// function's arena: the writer may number any op whose regions capture nothing (not only
/// functions) as a separate isolated scope, and apu's IR has one arena per function.
fn build_region(region: &RawRegion<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>) -> Result<Region> {
    let block = match region.blocks.as_slice() {
        [b] => b,
        [] => return Ok(Region::default()),
        _ => return Err(Error::unimplemented(format!("regions with {} blocks", region.blocks.len()))),
    };
    let id = |v: u32| ValueId(base + v);
    let mut out = Region { params: block.args.iter().map(|a| id(a.id)).collect(), ..Default::default() };
    let Some((last, body)) = block.ops.split_last() else {
        return Err(Error::invalid("block without a terminator"));
    };
    for op in body {
        out.ops.push(build_op(op, values, base, table)?);
    }
    if last.name != "vhlo.return_v1" {
        return Err(Error::invalid(format!("block ends with '{}' instead of vhlo.return_v1", last.name)));
    }
    out.results = last.operands.iter().map(|&v| id(v)).collect();
    Ok(out)
}

fn build_op(op: &RawOp<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>) -> Result<Op> {
    let id = |v: u32| ValueId(base + v);
    let loc = location(op);
    let name = op.name.as_str();
    let context = || format!("{name} at {loc} (byte {})", op.offset);
    let short = name.strip_prefix("vhlo.").ok_or_else(|| match name {
        "sdy.sharding_constraint" | "sdy.manual_computation" | "sdy.reshard" | "builtin.unrealized_conversion_cast" => {
            Error::unimplemented(format!("{name}: sharded programs are not supported; apu runs on one device"))
        }
        _ => Error::unimplemented(format!("{name}: not a VHLO op")),
    });
    let short = short.map_err(|e| e.context(context()))?;
    let (op_base, version) =
        split_version(short).ok_or_else(|| Error::unimplemented(format!("{name}: unknown VHLO op")).context(context()))?;
    let kind = (|| {
        if short == "return_v1" || short == "func_v1" {
            return Err(Error::invalid(format!("{name} in an op position")));
        }
        let attrs = inherent_attrs(op, short, table)?;
        let operand_types = op
            .operands
            .iter()
            .map(|&v| values.get(id(v).index()).cloned().ok_or_else(|| Error::internal(format!("operand %{v} has no type"))))
            .collect::<Result<Vec<Type>>>()?;
        let ctx = OpCtx { base: op_base, version, attrs: &attrs, operand_types: &operand_types };
        let kind = map_op(&ctx).map_err(|e| match e.kind {
            crate::error::ErrorKind::Unimplemented => Error::unimplemented(format!("{name}: {}", e.message)),
            _ => Error::invalid(format!("{name}: {}", e.message)),
        })?;
        check_arity(&kind, op)?;
        Ok(kind)
    })()
    .map_err(|e: Error| e.context(context()))?;
    let mut regions = Vec::with_capacity(op.regions.len());
    let region_base = if op.isolated {
        let first = values.len();
        let nested = scope_value_types(op, first).map_err(|e| e.context(context()))?;
        values.extend(nested);
        u32::try_from(first).map_err(|_| Error::invalid("too many values").context(context()))?
    } else {
        base
    };
    for r in &op.regions {
        regions.push(build_region(r, values, region_base, table).map_err(|e| e.context(context()))?);
    }
    if matches!(kind, OpKind::Composite { .. }) && regions.iter().any(|r| !r.ops.is_empty()) {
        return Err(Error::unimplemented(format!("{name}: composite with inline regions")).context(context()));
    }
    Ok(Op {
        kind,
        operands: op.operands.iter().map(|&v| id(v)).collect(),
        results: op.results.iter().map(|&v| id(v)).collect(),
        regions,
        location: loc,
    })
}

/// Fixed operand/result counts of the simple op families, checked here so later stages can index
/// operands without re-checking.
fn check_arity(kind: &OpKind, op: &RawOp<'_>) -> Result<()> {
    let expected: Option<(usize, usize)> = match kind {
        OpKind::Unary(_) | OpKind::Convert | OpKind::BitcastConvert | OpKind::Reshape => Some((1, 1)),
        OpKind::BroadcastInDim { .. } | OpKind::Transpose { .. } | OpKind::Reverse { .. } | OpKind::Slice { .. } => Some((1, 1)),
        OpKind::ReducePrecision { .. } | OpKind::GetDimensionSize { .. } => Some((1, 1)),
        OpKind::Binary(_) | OpKind::Compare { .. } | OpKind::DotGeneral { .. } | OpKind::Convolution { .. } => Some((2, 1)),
        OpKind::Pad { .. } | OpKind::Gather { .. } => Some((2, 1)),
        OpKind::Select | OpKind::Clamp => Some((3, 1)),
        OpKind::Constant(_) | OpKind::Iota { .. } => Some((0, 1)),
        _ => None,
    };
    if let Some((n_in, n_out)) = expected {
        if op.operands.len() != n_in || op.results.len() != n_out {
            return Err(Error::invalid(format!(
                "expected {n_in} operands and {n_out} results, got {} and {}",
                op.operands.len(),
                op.results.len()
            )));
        }
    }
    let even_split = matches!(kind, OpKind::Reduce { .. } | OpKind::ReduceWindow { .. });
    if even_split && (op.operands.is_empty() || op.operands.len() % 2 != 0) {
        return Err(Error::invalid(format!("expected inputs and init values in equal numbers, got {} operands", op.operands.len())));
    }
    if matches!(kind, OpKind::Scatter { .. }) && (op.operands.len() < 3 || op.operands.len() % 2 != 1) {
        return Err(Error::invalid(format!("expected N inputs, indices and N updates, got {} operands", op.operands.len())));
    }
    Ok(())
}
