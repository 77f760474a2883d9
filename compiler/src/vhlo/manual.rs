//! `sdy.manual_computation` in VHLO bytecode (decision 65): its shardings and manual axes, the
//! module's meshes it names, and the module-level pass that gives each manual computation its mesh.

use crate::bytecode::{Attr, Properties, RawOp, Table};
use crate::ir::{DimAxes, Function, ValueId, ManualComputation, MeshAxes, Module, OpKind, Region, ValueSharding};
use crate::{Error, Result};
use std::collections::HashMap;
use std::rc::Rc;

/// The meshes of a module by name, and whether their device order is 0..N.
pub type Meshes = HashMap<String, (MeshAxes, bool)>;

/// `(name, mesh attribute)` of an `sdy.mesh` op (properties in name order: mesh, sym_name).
pub fn sdy_mesh(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<(String, Rc<Attr>)> {
    let (mesh, name) = match &op.props {
        Some(Properties::Native(r)) => {
            let mut r = r.clone();
            let mesh = table.read_attr(&mut r)?;
            (Some(mesh), Some(table.read_attr(&mut r)?))
        }
        _ => {
            let d = op.attrs.as_deref();
            (d.and_then(|d| d.dict_get("mesh")).cloned(), d.and_then(|d| d.dict_get("sym_name")).cloned())
        }
    };
    let name = name.and_then(|n| n.as_str().map(str::to_string)).ok_or_else(|| Error::invalid("sdy.mesh without a name"))?;
    Ok((name, mesh.ok_or_else(|| Error::invalid("sdy.mesh without a mesh"))?))
}

/// The axes of a decoded `#sdy.mesh`, and whether its device ids are absent or 0..N.
pub fn mesh_axes(mesh: &Attr) -> Result<(MeshAxes, bool)> {
    let Attr::Dialect { dialect: "sdy", name: "mesh", fields } = mesh else {
        return Err(Error::invalid("sdy.mesh holds no #sdy.mesh"));
    };
    let axes = match fields.first().map(|f| &**f) {
        Some(Attr::Array(axes)) => axes
            .iter()
            .map(|a| match &**a {
                Attr::Dialect { name: "mesh_axis", fields, .. } => match (fields.first().map(|f| &**f), fields.get(1).map(|f| &**f)) {
                    (Some(Attr::String(n)), Some(Attr::Int(size))) if *size >= 1 => Ok((n.clone(), *size)),
                    _ => Err(Error::invalid("malformed mesh axis")),
                },
                _ => Err(Error::invalid("malformed mesh axis")),
            })
            .collect::<Result<Vec<_>>>()?,
        _ => return Err(Error::invalid("mesh without axes")),
    };
    let mut mesh = MeshAxes { axes, device_ids: Vec::new() };
    let iota = match fields.get(1).map(|f| &**f) {
        Some(Attr::Ints(ids)) => ids.is_empty() || ids.iter().copied().eq(0..mesh.size()),
        _ => true,
    };
    // Kept as written: a maximal mesh (`<[], device_ids=[k]>`, one device) is not a permutation.
    if let (false, Some(Attr::Ints(ids))) = (iota, fields.get(1).map(|f| &**f)) {
        mesh.device_ids = ids.clone();
    }
    Ok((mesh, iota))
}

fn strings(a: &Attr) -> Result<Vec<String>> {
    match a {
        Attr::Array(items) => items.iter().map(|i| i.as_str().map(str::to_string).ok_or_else(|| Error::invalid("expected an axis name"))).collect(),
        _ => Err(Error::invalid("expected a list of axis names")),
    }
}

/// The names of a list of `#sdy.axis_ref`s (whole axes; sub-axes are refused by name).
fn axis_names(axes: &[Rc<Attr>]) -> Result<Vec<String>> {
    axes.iter()
        .map(|ax| match &**ax {
            Attr::Dialect { name: "axis_ref", fields, .. } if fields.len() == 1 => {
                fields[0].as_str().map(str::to_string).ok_or_else(|| Error::invalid("axis without a name"))
            }
            Attr::Dialect { name: "axis_ref", .. } => Err(Error::unimplemented("sub-axes in a sharding")),
            _ => Err(Error::invalid("expected an axis reference")),
        })
        .collect()
}

/// One `#sdy.sharding`: its mesh's name, the axes of each dimension and the unreduced axes.
pub fn tensor_sharding(a: &Attr) -> Result<(String, DimAxes, Vec<String>)> {
    let Attr::Dialect { dialect: "sdy", name: "tensor_sharding", fields } = a else {
        return Err(Error::invalid("expected an #sdy.sharding"));
    };
    let mesh = match fields.first().map(|f| &**f) {
        Some(Attr::SymbolRef { root, .. }) => root.clone(),
        _ => return Err(Error::unimplemented("a manual computation's sharding with an inline mesh")),
    };
    let unreduced = match fields.get(3).map(|f| &**f) {
        Some(Attr::Array(axes)) => axis_names(axes)?,
        _ => Vec::new(),
    };
    let dims = match fields.get(1).map(|f| &**f) {
        Some(Attr::Array(dims)) => dims
            .iter()
            .map(|d| match &**d {
                Attr::Dialect { name: "dimension_sharding", fields, .. } => match fields.first().map(|f| &**f) {
                    Some(Attr::Array(axes)) => axis_names(axes),
                    _ => Err(Error::invalid("dimension sharding without axes")),
                },
                _ => Err(Error::invalid("expected a dimension sharding")),
            })
            .collect::<Result<Vec<_>>>()?,
        _ => return Err(Error::invalid("sharding without dimensions")),
    };
    Ok((mesh, dims, unreduced))
}

/// Per value: the axes of each dimension and the unreduced axes.
fn per_value(a: &Attr, mesh: &mut Option<String>) -> Result<Vec<(DimAxes, Vec<String>)>> {
    let Attr::Dialect { dialect: "sdy", name: "tensor_sharding_per_value", fields } = a else {
        return Err(Error::invalid("expected shardings per value"));
    };
    let Some(Attr::Array(items)) = fields.first().map(|f| &**f) else {
        return Err(Error::invalid("expected shardings per value"));
    };
    items
        .iter()
        .map(|s| {
            let (m, dims, unreduced) = tensor_sharding(s)?;
            match mesh {
                Some(prev) if *prev != m => Err(Error::unimplemented(format!("shardings over two meshes @{prev} and @{m}"))),
                _ => {
                    *mesh = Some(m);
                    Ok((dims, unreduced))
                }
            }
        })
        .collect()
}

/// The attributes of an `sdy.manual_computation` (properties in name order: in_shardings,
/// manual_axes, out_shardings). The mesh is filled in by [`resolve_meshes`] once the module's
/// meshes are known.
pub fn manual_computation(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<ManualComputation> {
    let attrs: Vec<Rc<Attr>> = match &op.props {
        Some(Properties::Native(r)) => {
            let mut r = r.clone();
            let mut v = Vec::new();
            for _ in 0..3 {
                v.push(table.read_attr(&mut r)?);
            }
            v
        }
        _ => {
            let d = op.attrs.as_deref();
            ["in_shardings", "manual_axes", "out_shardings"]
                .iter()
                .map(|k| d.and_then(|d| d.dict_get(k)).cloned().ok_or_else(|| Error::invalid(format!("missing {k}"))))
                .collect::<Result<_>>()?
        }
    };
    let mut mesh_name = None;
    let (in_shardings, in_unreduced) = per_value(&attrs[0], &mut mesh_name)?.into_iter().unzip();
    let manual_axes = match &*attrs[1] {
        Attr::Dialect { dialect: "sdy", name: "manual_axes", fields } => strings(fields.first().ok_or_else(|| Error::invalid("empty manual_axes"))?)?,
        _ => return Err(Error::invalid("expected #sdy manual axes")),
    };
    let (out_shardings, out_unreduced) = per_value(&attrs[2], &mut mesh_name)?.into_iter().unzip();
    Ok(ManualComputation {
        mesh: MeshAxes::default(),
        mesh_name: mesh_name.unwrap_or_default(),
        in_shardings,
        out_shardings,
        manual_axes,
        in_unreduced,
        out_unreduced,
    })
}

/// The `sdy.sharding` of a function argument or result, if it names a mesh by symbol (an inline
/// mesh is one device's: [`super::sharding::check_value_sharding`] accepts only trivial ones).
pub fn value_sharding(dict: &Attr) -> Result<Option<ValueSharding>> {
    match dict.dict_get("sdy.sharding") {
        Some(s) if matches!(&**s, Attr::Dialect { fields, .. } if matches!(fields.first().map(|f| &**f), Some(Attr::SymbolRef { .. }))) => {
            let (mesh_name, dims, unreduced) = tensor_sharding(s)?;
            Ok(Some(ValueSharding { mesh_name, mesh: MeshAxes::default(), dims, unreduced }))
        }
        _ => Ok(None),
    }
}

/// The sharding constraints among the top-level ops of a function's body (their results are that
/// scope's values, numbered from 0): mesh names only, resolved by [`resolve_meshes`]. The op's one
/// property (or, in older bytecode, attribute) is `sharding`.
pub fn constraints(body: &crate::bytecode::RawRegion<'_>, table: &mut Table<'_>) -> Result<Vec<(ValueId, ValueSharding)>> {
    let mut out = Vec::new();
    for op in body.blocks.iter().flat_map(|b| &b.ops) {
        let ("sdy.sharding_constraint" | "sdy.reshard", [result]) = (op.name.as_str(), op.results.as_slice()) else { continue };
        let sharding = match &op.props {
            Some(Properties::Native(r)) => Some(table.read_attr(&mut r.clone())?),
            _ => op.attrs.as_deref().and_then(|d| d.dict_get("sharding")).cloned(),
        };
        if let Some(s) = sharding {
            let (mesh_name, dims, unreduced) = tensor_sharding(&s)?;
            out.push((ValueId(*result), ValueSharding { mesh_name, mesh: MeshAxes::default(), dims, unreduced }));
        }
    }
    Ok(out)
}

/// Gives every manual computation of the module the mesh its shardings name, and so the entry
/// function's argument and result shardings (a sharding over a mesh this module does not keep — a
/// program without manual computations, whose meshes [`super::sharding::check_sdy_mesh`] allows only
/// when every axis has size 1 — splits nothing and is dropped).
pub fn resolve_meshes(module: &mut Module, meshes: &Meshes) -> Result<()> {
    for f in &mut module.functions {
        let resolve = |s: &mut Option<ValueSharding>| -> Result<()> {
            if let Some(v) = s {
                // Parameters and results may name a mesh of any device order: their pieces are placed
                // by it (decision 94).
                match meshes.get(&v.mesh_name) {
                    Some((m, _)) => v.mesh = m.clone(),
                    None => *s = None,
                }
            }
            Ok(())
        };
        for a in &mut f.arg_attrs {
            resolve(&mut a.sharding)?;
        }
        for r in &mut f.result_shardings {
            resolve(r)?;
        }
        // A constraint only informs what is reported: one over a mesh apu cannot place is dropped.
        f.constraints.retain_mut(|(_, s)| match meshes.get(&s.mesh_name) {
            Some((m, _)) => {
                s.mesh = m.clone();
                true
            }
            _ => false,
        });
    }
    fn region(r: &mut Region, meshes: &Meshes) -> Result<()> {
        for op in &mut r.ops {
            let name = op.kind.name();
            if let OpKind::AllReduce { groups }
            | OpKind::AllGather { groups, .. }
            | OpKind::ReduceScatter { groups, .. }
            | OpKind::AllToAll { groups, .. }
            | OpKind::CollectiveBroadcast { groups } = &mut op.kind
            {
                if let Some((mesh, axes)) = groups.mesh_axes.take() {
                    let m = match meshes.get(&mesh) {
                        Some((m, true)) => m,
                        Some((_, false)) => return Err(Error::unimplemented(format!("mesh @{mesh} with a device order other than 0..N"))),
                        None => return Err(Error::unimplemented(format!("{name}: replica groups over mesh @{mesh} outside a manual computation's module"))),
                    };
                    groups.groups = m.groups_over(&axes).map_err(|e| Error::invalid(format!("{name}: {e}")))?;
                }
            }
            if let OpKind::ManualComputation(mc) = &mut op.kind {
                if !mc.mesh_name.is_empty() {
                    mc.mesh = match meshes.get(&mc.mesh_name) {
                        Some((m, true)) => m.clone(),
                        Some((_, false)) => {
                            return Err(Error::unimplemented(format!("mesh @{} with a device order other than 0..N", mc.mesh_name)))
                        }
                        None => return Err(Error::invalid(format!("sdy.manual_computation names unknown mesh @{}", mc.mesh_name))),
                    };
                }
            }
            for inner in &mut op.regions {
                region(inner, meshes)?;
            }
        }
        Ok(())
    }
    module.functions.iter_mut().try_for_each(|f: &mut Function| region(&mut f.body, meshes))
}

/// Whether any op nested in `op` is an `sdy.manual_computation`.
pub fn has_manual_computation(op: &RawOp<'_>) -> bool {
    op.regions.iter().flat_map(|r| &r.blocks).flat_map(|b| &b.ops).any(|o| o.name == "sdy.manual_computation" || has_manual_computation(o))
}
