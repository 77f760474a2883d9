//! Rules for ops with regions: the region signatures of `reduce`, `reduce_window`, `scatter`,
//! `sort`, `while` and `case`, together with those ops' shape rules.

use super::ops::{tensor, Sig};
use super::{type_list, Ctx};
use crate::ir::*;
use crate::{Error, Result};

fn err(msg: impl Into<String>) -> Error {
    Error::invalid(msg.into())
}

fn one_region<'o>(op: &'o Op, what: &str) -> Result<&'o Region> {
    match op.regions.as_slice() {
        [r] => Ok(r),
        rs => Err(err(format!("{what} needs exactly one region, has {}", rs.len()))),
    }
}

/// Checks a combiner body: `2n` scalar parameters (accumulators then values, each of the given
/// element types) returning `n` scalars of those types.
fn combiner(ctx: &Ctx, r: &Region, elems: &[ElementType], what: &str) -> Result<()> {
    let scalars: Vec<Type> = elems.iter().map(|&e| Type::Tensor(TensorType::scalar(e))).collect();
    let want_params: Vec<Type> = scalars.iter().chain(scalars.iter()).cloned().collect();
    let params = ctx.types(&r.params)?;
    if params != want_params {
        return Err(err(format!("{what} body takes ({}) but must take ({})", type_list(&params), type_list(&want_params))));
    }
    let results = ctx.types(&r.results)?;
    if results != scalars {
        return Err(err(format!("{what} body returns ({}) but must return ({})", type_list(&results), type_list(&scalars))));
    }
    Ok(())
}

/// Splits `2n` operands into inputs and init values, checking that inits are scalars of the
/// inputs' element types.
fn inputs_and_inits<'s>(sig: &'s Sig, what: &str) -> Result<(Vec<&'s TensorType>, Vec<ElementType>)> {
    if sig.ins.is_empty() || sig.ins.len() % 2 != 0 {
        return Err(err(format!("{what} needs N inputs and N init values, got {} operands", sig.ins.len())));
    }
    let n = sig.ins.len() / 2;
    let mut inputs: Vec<&TensorType> = Vec::new();
    let mut elems = Vec::new();
    for i in 0..n {
        let x = sig.tin(i)?;
        let init = sig.tin(n + i)?;
        if init.rank() != 0 || init.elem != x.elem {
            return Err(err(format!("init value #{i} must be a scalar of {} (input {x}), got {init}", x.elem)));
        }
        if i > 0 && x.shape != inputs[0].shape {
            let first = inputs[0];
            return Err(err(format!("inputs must share one shape, got {first} and {x}")));
        }
        inputs.push(x);
        elems.push(x.elem);
    }
    if sig.outs.len() != n {
        return Err(err(format!("{what} with {n} inputs must have {n} results, has {}", sig.outs.len())));
    }
    Ok((inputs, elems))
}

pub(crate) fn reduce(sig: &Sig, op: &Op, ctx: &Ctx, dimensions: &[i64]) -> Result<()> {
    let (inputs, elems) = inputs_and_inits(sig, "reduce")?;
    let x = inputs[0];
    let mut seen = vec![false; x.rank()];
    for &d in dimensions {
        if d < 0 || d as usize >= x.rank() || seen[d as usize] {
            return Err(err(format!("reduce dimensions {dimensions:?} must be distinct dimensions of {x}")));
        }
        seen[d as usize] = true;
    }
    let want: Vec<i64> = (0..x.rank()).filter(|&i| !seen[i]).map(|i| x.shape[i]).collect();
    for (i, e) in elems.iter().enumerate() {
        let r = sig.tout(i)?;
        if r.shape != want || r.elem != *e {
            return Err(err(format!("reducing {x} over {dimensions:?} gives tensor of shape {want:?} and {e}, result #{i} is {r}")));
        }
    }
    combiner(ctx, one_region(op, "reduce")?, &elems, "reduce")
}

pub(crate) fn reduce_window(sig: &Sig, op: &Op, ctx: &Ctx) -> Result<()> {
    let OpKind::ReduceWindow { window_dimensions, window_strides, base_dilations, window_dilations, padding } = &op.kind else {
        return Ok(());
    };
    let (inputs, elems) = inputs_and_inits(sig, "reduce_window")?;
    let x = inputs[0];
    let rank = x.rank();
    let len_ok = |v: usize| v == 0 || v == rank;
    if window_dimensions.len() != rank || !len_ok(window_strides.len()) || !len_ok(base_dilations.len()) || !len_ok(window_dilations.len()) || !len_ok(padding.len()) {
        return Err(err(format!("window attributes must have {rank} entries for input {x}")));
    }
    let get = |v: &[i64], i: usize| v.get(i).copied().unwrap_or(1);
    let mut want = Vec::with_capacity(rank);
    for i in 0..rank {
        let (w, s, bd, wd) = (window_dimensions[i], get(window_strides, i), get(base_dilations, i), get(window_dilations, i));
        if w < 1 || s < 1 || bd < 1 || wd < 1 {
            return Err(err(format!("dimension {i}: window {w}, stride {s} and dilations {bd}/{wd} must be positive")));
        }
        let (lo, hi) = padding.get(i).copied().unwrap_or((0, 0));
        let d = x.shape[i];
        let (d, w, bd, wd, lo, hi) = (d as i128, w as i128, bd as i128, wd as i128, lo as i128, hi as i128);
        let padded = if d == 0 { 0 } else { (d - 1) * bd + 1 } + lo + hi;
        let win = (w - 1) * wd + 1;
        want.push(if padded < win { 0 } else { ((padded - win) / s as i128 + 1).min(i64::MAX as i128) as i64 });
    }
    for (i, e) in elems.iter().enumerate() {
        let r = sig.tout(i)?;
        if r.shape != want || r.elem != *e {
            return Err(err(format!("reduce_window over {x} gives shape {want:?}, result #{i} is {r}")));
        }
    }
    combiner(ctx, one_region(op, "reduce_window")?, &elems, "reduce_window")
}

pub(crate) fn scatter(sig: &Sig, op: &Op, ctx: &Ctx, d: &ScatterDims) -> Result<()> {
    if sig.ins.len() < 3 || sig.ins.len() % 2 == 0 {
        return Err(err(format!("scatter needs N inputs, the indices and N updates, got {} operands", sig.ins.len())));
    }
    let n = (sig.ins.len() - 1) / 2;
    let idx = sig.tin(n)?;
    if !idx.elem.is_int() {
        return Err(err(format!("scatter indices must be integers, got {idx}")));
    }
    if sig.outs.len() != n {
        return Err(err(format!("scatter with {n} inputs must have {n} results, has {}", sig.outs.len())));
    }
    let mut elems = Vec::new();
    for i in 0..n {
        let x = sig.tin(i)?;
        if sig.outs[i] != sig.ins[i] {
            return Err(err(format!("result #{i} {} must have input #{i}'s type {x}", sig.outs[i])));
        }
        let u = tensor(sig.ins.get(n + 1 + i), || format!("update #{i}"))?;
        if u.elem != x.elem {
            return Err(err(format!("update #{i} {u} must have the element type of input {x}")));
        }
        let ivd = d.index_vector_dim;
        if ivd < 0 || ivd as usize > idx.rank() {
            return Err(err(format!("index_vector_dim {ivd} is out of range for indices {idx}")));
        }
        let scatter_batch = idx.rank() - usize::from((ivd as usize) < idx.rank());
        if u.rank() != scatter_batch + d.update_window_dims.len() {
            return Err(err(format!(
                "update {u} must have rank {} ({} scatter dimensions + {} window dimensions)",
                scatter_batch + d.update_window_dims.len(),
                scatter_batch,
                d.update_window_dims.len()
            )));
        }
        let Some(window_rank) = x.rank().checked_sub(d.inserted_window_dims.len() + d.input_batching_dims.len()) else {
            return Err(err(format!(
                "inserted_window_dims {:?} and input_batching_dims {:?} exceed the rank of input {x}",
                d.inserted_window_dims, d.input_batching_dims
            )));
        };
        if d.update_window_dims.len() != window_rank {
            return Err(err(format!("update_window_dims {:?} must have {window_rank} entries for input {x}", d.update_window_dims)));
        }
        elems.push(x.elem);
    }
    combiner(ctx, one_region(op, "scatter")?, &elems, "scatter")
}

pub(crate) fn sort(sig: &Sig, op: &Op, ctx: &Ctx, dimension: i64) -> Result<()> {
    if sig.ins.is_empty() || sig.ins != sig.outs {
        return Err(err(format!("sort results must have the operands' types: {}", sig.describe())));
    }
    let first = sig.tin(0)?;
    for i in 0..sig.ins.len() {
        let t = sig.tin(i)?;
        if t.shape != first.shape {
            return Err(err(format!("sort operands must share one shape, got {first} and {t}")));
        }
    }
    let rank = first.rank() as i64;
    if dimension < -rank || dimension >= rank.max(1) {
        return Err(err(format!("sort dimension {dimension} is out of range for {first}")));
    }
    let r = one_region(op, "sort")?;
    let scalars: Vec<Type> = (0..sig.ins.len()).flat_map(|i| {
        let e = Type::Tensor(TensorType::scalar(sig.tin(i).map(|t| t.elem).unwrap_or(ElementType::Pred)));
        [e.clone(), e]
    }).collect();
    let params = ctx.types(&r.params)?;
    if params != scalars {
        return Err(err(format!("sort comparator takes ({}) but must take ({})", type_list(&params), type_list(&scalars))));
    }
    let results = ctx.types(&r.results)?;
    if results != [Type::Tensor(TensorType::scalar(ElementType::Pred))] {
        return Err(err(format!("sort comparator returns ({}) but must return (tensor<i1>)", type_list(&results))));
    }
    Ok(())
}

pub(crate) fn while_loop(sig: &Sig, op: &Op, ctx: &Ctx) -> Result<()> {
    let [cond, body] = op.regions.as_slice() else {
        return Err(err(format!("while needs a cond and a body region, has {} regions", op.regions.len())));
    };
    if sig.outs != sig.ins {
        return Err(err(format!("while results must have the operands' types: {}", sig.describe())));
    }
    for (r, name) in [(cond, "cond"), (body, "body")] {
        let params = ctx.types(&r.params)?;
        if params != sig.ins {
            return Err(err(format!("while {name} takes ({}) but the loop carries ({})", type_list(&params), type_list(&sig.ins))));
        }
    }
    let cond_out = ctx.types(&cond.results)?;
    if cond_out != [Type::Tensor(TensorType::scalar(ElementType::Pred))] {
        return Err(err(format!("while cond returns ({}) but must return (tensor<i1>)", type_list(&cond_out))));
    }
    let body_out = ctx.types(&body.results)?;
    if body_out != sig.ins {
        return Err(err(format!("while body returns ({}) but the loop carries ({})", type_list(&body_out), type_list(&sig.ins))));
    }
    Ok(())
}

pub(crate) fn case(sig: &Sig, op: &Op, ctx: &Ctx) -> Result<()> {
    if sig.ins.len() != 1 || sig.ins[0] != Type::Tensor(TensorType::scalar(ElementType::S32)) {
        return Err(err(format!("case takes one tensor<i32> index, got ({})", type_list(&sig.ins))));
    }
    if op.regions.is_empty() {
        return Err(err("case needs at least one branch"));
    }
    for (i, r) in op.regions.iter().enumerate() {
        if !r.params.is_empty() {
            return Err(err(format!("case branch {i} must take no arguments, takes {}", r.params.len())));
        }
        let out = ctx.types(&r.results)?;
        if out != sig.outs {
            return Err(err(format!("case branch {i} returns ({}) but the op's results are ({})", type_list(&out), type_list(&sig.outs))));
        }
    }
    Ok(())
}
