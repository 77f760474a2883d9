//! Sharding annotations in single-device programs. JAX puts Shardy meshes and shardings (or, on the
//! legacy path, `mhlo.sharding` strings) on programs even when they run on one device; those that
//! describe one device are accepted, anything that really splits data is refused by name.

use crate::bytecode::{attr_loc_text, Attr, Properties, RawOp, Table};
use crate::{Error, Result};
use std::rc::Rc;

/// A single-device program may carry an empty Shardy mesh; a real mesh means a sharded program.
pub fn check_sdy_mesh(op: &RawOp<'_>, table: &mut Table<'_>) -> Result<()> {
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
        _ => {
            let at = attr_loc_text(&op.loc);
            let at = if at.is_empty() { String::new() } else { format!(" at {at}") };
            Err(Error::unimplemented(format!(
                "sdy.mesh{at} with {}: sharded programs are not supported; apu runs on one device",
                describe_mesh(mesh.as_deref())
            )))
        }
    }
}

/// `axes x=2, y=4` (or what the mesh attribute was), for the error message.
fn describe_mesh(mesh: Option<&Attr>) -> String {
    let Some(Attr::Dialect { name: "mesh", fields, .. }) = mesh else {
        return "an unreadable mesh".to_string();
    };
    let Some(Attr::Array(axes)) = fields.first().map(|a| &**a) else {
        return "an unreadable mesh".to_string();
    };
    let parts: Vec<String> = axes
        .iter()
        .map(|ax| match &**ax {
            Attr::Dialect { name: "mesh_axis", fields, .. } => match (fields.first().map(|f| &**f), fields.get(1).map(|f| &**f)) {
                (Some(Attr::String(n)), Some(Attr::Int(size))) => format!("{n}={size}"),
                _ => "?".to_string(),
            },
            _ => "?".to_string(),
        })
        .collect();
    format!("axes {}", parts.join(", "))
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

/// Whether an `sdy.sharding` keeps the whole value on one device. Its first field names the mesh: a
/// symbol of an `sdy.mesh` op, which [`check_sdy_mesh`] refuses unless every axis has size 1 (so any
/// split over it is no split: JAX's `with_explicit_mesh((1,), ("x",))` shards over such an axis), or
/// an inline mesh, checked here the same way. An op's results carry one sharding per value: JAX puts a
/// maximal one (`<@maximal_mesh_k, []>`, a mesh of no axes on device k) on every host callback so that
/// one device runs it. apu runs the whole program once, so the callback runs once, as it should.
fn is_trivial_sharding(a: &Attr) -> bool {
    match a {
        Attr::Dialect { dialect: "sdy", name: "tensor_sharding_per_value", fields } => match fields.first().map(|f| &**f) {
            Some(Attr::Array(values)) => values.iter().all(|v| is_trivial_sharding(v)),
            _ => false,
        },
        Attr::Dialect { dialect: "sdy", name: "tensor_sharding", fields } => match fields.first().map(|f| &**f) {
            Some(Attr::Dialect { dialect: "sdy", name: "mesh", fields }) => is_trivial_mesh(fields),
            Some(_) => true,
            None => false,
        },
        _ => false,
    }
}

/// Checks the sharding annotations of one argument or result dictionary.
pub fn check_value_sharding(dict: &Attr, what: &str) -> Result<()> {
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

