//! `custom_call @ApproxTopK`: `jax.lax.approx_max_k` / `approx_min_k` everywhere but TPU (JAX marks
//! it `is_fallback`). XLA:CPU answers it exactly: the operand and its iota sorted stably along
//! `reduction_dim` by the called comparator, then the first elements up to the result's size (k, or
//! the whole dimension when `aggregate_to_topk` is false). apu rewrites the call into those ops right
//! after reading, so the plan and the interpreter both see plain ops.

use super::Builder;
use crate::ir::*;
use crate::{Error, Result};
use std::collections::HashMap;

pub const TARGET: &str = "ApproxTopK";

/// Rewrites every ApproxTopK call of `module`.
pub fn expand_approx_top_k(module: &mut Module) -> Result<()> {
    if !module.functions.iter().any(|f| region_has_call(&f.body)) {
        return Ok(());
    }
    let directions: HashMap<String, bool> = module.functions.iter().filter_map(|f| comparator_direction(f).map(|d| (f.name.clone(), d))).collect();
    for f in &mut module.functions {
        let mut body = std::mem::take(&mut f.body);
        let rewritten = rewrite(f, &mut body, &directions);
        f.body = body;
        rewritten?;
    }
    Ok(())
}

fn region_has_call(r: &Region) -> bool {
    r.ops.iter().any(|op| matches!(&op.kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == TARGET) || op.regions.iter().any(region_has_call))
}

/// `Some(true)` for a function `(a, b, ia, ib) -> a > b`, `Some(false)` for `a < b`: JAX's comparators.
fn comparator_direction(f: &Function) -> Option<bool> {
    let [op] = f.body.ops.as_slice() else { return None };
    let OpKind::Compare { direction, .. } = op.kind else { return None };
    if f.body.params.len() != 4 || op.operands != f.body.params[..2] || f.body.results != op.results {
        return None;
    }
    match direction {
        ComparisonDirection::Gt => Some(true),
        ComparisonDirection::Lt => Some(false),
        _ => None,
    }
}

fn rewrite(f: &mut Function, region: &mut Region, directions: &HashMap<String, bool>) -> Result<()> {
    let ops = std::mem::take(&mut region.ops);
    let mut out = Vec::with_capacity(ops.len());
    for mut op in ops {
        for r in &mut op.regions {
            rewrite(f, r, directions)?;
        }
        match &op.kind {
            OpKind::CustomCall { call_target_name, .. } if call_target_name == TARGET => expand(f, &op, directions, &mut out)?,
            _ => out.push(op),
        }
    }
    region.ops = out;
    Ok(())
}

fn int_attr(attrs: &[(String, FfiAttr)], name: &str) -> Result<i64> {
    let missing = || Error::invalid(format!("custom_call @{TARGET}: no integer attribute {name} in mhlo.backend_config"));
    match attrs.iter().find(|(k, _)| k == name) {
        Some((_, FfiAttr::Scalar(l))) if l.ty.elem.is_int() => crate::text::opdefs::literal_ints(l).first().copied().ok_or_else(missing),
        _ => Err(missing()),
    }
}

fn expand(f: &mut Function, op: &Op, directions: &HashMap<String, bool>, out: &mut Vec<Op>) -> Result<()> {
    let OpKind::CustomCall { called_computations, ffi_attributes, .. } = &op.kind else { unreachable!("an ApproxTopK call") };
    let named = |m: String| Error::invalid(format!("custom_call @{TARGET} at {}: {m}", op.location));
    let (Some(&x), Some(&iota), [values, indices]) = (op.operands.first(), op.operands.get(1), op.results.as_slice()) else {
        return Err(named(format!("{} operands and {} results (expected the operand, its iota, init values; values and indices)", op.operands.len(), op.results.len())));
    };
    let attrs = ffi_attributes.as_deref().unwrap_or(&[]);
    let dim = int_attr(attrs, "reduction_dim").map_err(|e| named(e.message))?;
    let comparator = called_computations.first().ok_or_else(|| named("no comparator".into()))?;
    let largest = *directions.get(comparator).ok_or_else(|| {
        Error::unimplemented(format!("custom_call @{TARGET}: comparator @{comparator} is not a single GT or LT compare of the values"))
    })?;
    let (Some(xt), Some(it), Some(vt)) = (f.value_type(x).as_tensor().cloned(), f.value_type(iota).as_tensor().cloned(), f.value_type(*values).as_tensor().cloned()) else {
        return Err(named("operands and results must be tensors".into()));
    };
    let d = usize::try_from(dim).ok().filter(|&d| d < xt.rank()).ok_or_else(|| named(format!("reduction_dim {dim} out of range for {xt}")))?;
    let fits = vt.rank() == xt.rank() && vt.shape.iter().zip(&xt.shape).enumerate().all(|(i, (v, o))| if i == d { v <= o } else { v == o });
    if it.shape != xt.shape || !fits || vt.elem != xt.elem {
        return Err(named(format!("operand {xt}, iota {it}, values {vt}: the values must be a prefix of the operand along {dim}")));
    }
    let mut b = Builder::new(f, out, op.location.clone());
    let region = super::top_k::comparator(&mut b, xt.elem, it.elem, largest);
    let sorted_values = b.value(Type::Tensor(xt.clone()));
    let sorted_indices = b.value(Type::Tensor(it.clone()));
    b.push(OpKind::Sort { dimension: dim, is_stable: true }, vec![x, iota], vec![sorted_values, sorted_indices], vec![region]);
    let slice = OpKind::Slice { start_indices: vec![0; xt.rank()], limit_indices: vt.shape.clone(), strides: vec![1; xt.rank()] };
    // The call's own result ids stay: later ops read them.
    b.push(slice.clone(), vec![sorted_values], vec![*values], vec![]);
    b.push(slice, vec![sorted_indices], vec![*indices], vec![]);
    Ok(())
}
