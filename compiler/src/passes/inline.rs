//! Inlining of `call` ops at the top level of every function. Callees are inlined into the caller's
//! value arena with their values renumbered; the call's results become the callee's returned values.

use super::remap::{remap_op, substitute_uses};
use crate::ir::{Function, Module, OpKind, ValueId};
use crate::{Error, Result};
use std::collections::HashMap;

/// Deepest chain of calls inlined (StableHLO has no recursion; this bounds malformed input).
const MAX_DEPTH: usize = 32;

pub fn inline_calls(module: &Module) -> Result<Module> {
    let mut out = module.clone();
    for (i, f) in module.functions.iter().enumerate() {
        out.functions[i] = inline_function(module, f, 0)?;
    }
    Ok(out)
}

fn inline_function(module: &Module, f: &Function, depth: usize) -> Result<Function> {
    if depth > MAX_DEPTH {
        return Err(Error::invalid(format!("calls nest deeper than {MAX_DEPTH} levels at @{}", f.name)));
    }
    let mut out = f.clone();
    out.body.ops = Vec::with_capacity(f.body.ops.len());
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    for op in &f.body.ops {
        let mut op = op.clone();
        substitute_uses(&mut op, &|v| *subst.get(&v).unwrap_or(&v));
        let callee = match &op.kind {
            OpKind::Call { callee } => module.function(callee),
            _ => None,
        };
        let Some(callee) = callee.filter(|c| c.body.params.len() == op.operands.len() && c.body.results.len() == op.results.len()) else {
            out.body.ops.push(op);
            continue;
        };
        let callee = inline_function(module, callee, depth + 1)?;
        let base = out.values.len() as u32;
        out.values.extend(callee.values.iter().cloned());
        let params: HashMap<ValueId, ValueId> = callee.body.params.iter().copied().zip(op.operands.iter().copied()).collect();
        let rename = |v: ValueId| *params.get(&v).unwrap_or(&ValueId(v.0 + base));
        for cop in &callee.body.ops {
            let mut cop = cop.clone();
            remap_op(&mut cop, &rename);
            out.body.ops.push(cop);
        }
        for (&r, &cr) in op.results.iter().zip(&callee.body.results) {
            subst.insert(r, rename(cr));
        }
    }
    for r in &mut out.body.results {
        *r = *subst.get(r).unwrap_or(r);
    }
    Ok(out)
}
