//! Inlining of `call` ops, at the top level of every function and inside nested regions (loop
//! bodies, branches). Callees are inlined into the caller's value arena with their values
//! renumbered; the call's results become the callee's returned values.

use super::remap::{remap_op, substitute_uses};
use crate::ir::{Function, Module, Op, OpKind, Region, Type, ValueId};
use crate::{Error, Result};
use std::collections::HashMap;

/// Deepest chain of calls (and nested regions) inlined; StableHLO has no recursion, so this only
/// bounds malformed input.
const MAX_DEPTH: usize = 32;

pub fn inline_calls(module: &Module) -> Result<Module> {
    // Built field by field: cloning the module first would copy every function body only to
    // replace it (compile time is part of what apu is measured on).
    let functions = module.functions.iter().map(|f| inline_function(module, f, 0)).collect::<Result<Vec<_>>>()?;
    Ok(Module {
        name: module.name.clone(),
        functions,
        entry: module.entry,
        num_replicas: module.num_replicas,
        num_partitions: module.num_partitions,
    })
}

fn inline_function(module: &Module, f: &Function, depth: usize) -> Result<Function> {
    if depth > MAX_DEPTH {
        return Err(Error::invalid(format!("calls nest deeper than {MAX_DEPTH} levels at @{}", f.name)));
    }
    let mut values = f.values.clone();
    let mut subst = HashMap::new();
    let body = inline_region(module, &mut values, &f.body, &mut subst, depth)?;
    Ok(Function {
        name: f.name.clone(),
        public: f.public,
        values,
        body,
        result_types: f.result_types.clone(),
        arg_attrs: f.arg_attrs.clone(),
        result_shardings: f.result_shardings.clone(),
        result_memory_kinds: f.result_memory_kinds.clone(),
        constraints: f.constraints.clone(),
    })
}

/// Inlines the calls of `region` (and of regions nested in it) into `values`' arena. `subst` maps
/// results of inlined calls to the values that replace them; it is shared with nested regions,
/// which may read values of the enclosing ones.
fn inline_region(
    module: &Module,
    values: &mut Vec<Type>,
    region: &Region,
    subst: &mut HashMap<ValueId, ValueId>,
    depth: usize,
) -> Result<Region> {
    if depth > MAX_DEPTH {
        return Err(Error::invalid(format!("calls or regions nest deeper than {MAX_DEPTH} levels")));
    }
    let mut out = Region { params: region.params.clone(), ops: Vec::with_capacity(region.ops.len()), results: Vec::new() };
    for source in &region.ops {
        let op = source;
        // Nested regions are rebuilt by the recursion, so they are not cloned here.
        let mut op = Op {
            kind: op.kind.clone(),
            operands: op.operands.clone(),
            results: op.results.clone(),
            regions: Vec::new(),
            location: op.location.clone(),
        };
        substitute_uses(&mut op, &|v| *subst.get(&v).unwrap_or(&v));
        for r in &source.regions {
            op.regions.push(inline_region(module, values, r, subst, depth + 1)?);
        }
        let callee = match &op.kind {
            OpKind::Call { callee } => module.function(callee),
            _ => None,
        };
        let Some(callee) = callee.filter(|c| c.body.params.len() == op.operands.len() && c.body.results.len() == op.results.len()) else {
            out.ops.push(op);
            continue;
        };
        let callee = inline_function(module, callee, depth + 1)?;
        let base = values.len() as u32;
        let params: HashMap<ValueId, ValueId> = callee.body.params.iter().copied().zip(op.operands.iter().copied()).collect();
        let rename = |v: ValueId| *params.get(&v).unwrap_or(&ValueId(v.0 + base));
        // `callee` is this call site's own inlined copy: its values and ops move, not clone.
        values.extend(callee.values);
        for mut cop in callee.body.ops {
            remap_op(&mut cop, &rename);
            out.ops.push(cop);
        }
        for (&r, &cr) in op.results.iter().zip(&callee.body.results) {
            subst.insert(r, rename(cr));
        }
    }
    out.results = region.results.iter().map(|r| *subst.get(r).unwrap_or(r)).collect();
    Ok(out)
}
