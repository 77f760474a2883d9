//! Running an `sdy.manual_computation`: slice the global operands per instance, run the body once
//! per instance concurrently (one dedicated thread each, bound to its [`Instance`]), then assemble
//! the global results from the instances' local ones.

use super::data;
use super::{Communicator, Instance};
use crate::{AlignedBytes, Tensor};
use apu_compiler::ir::{DimAxes, ManualComputation, TensorType};
use apu_compiler::{Error, Result};
use std::sync::Arc;

/// Stack of an instance thread: the interpreter recurses per region (see `interp::on_large_stack`).
const INSTANCE_STACK_BYTES: usize = 64 << 20;

/// The offset of instance `pos`'s block of a value of local shape `local` split as `dims`.
fn block_offset(mc: &ManualComputation, dims: &DimAxes, local: &[i64], pos: i64) -> Vec<i64> {
    dims.iter().zip(local).map(|(axes, &l)| mc.piece(axes, pos).1 * l).collect()
}

/// Runs `body` (local operands -> local results of `local_results` types) once per instance and
/// returns the global results of types `global_results`. `sum` adds same-typed tensors: a result
/// unreduced over some axes is the sum of the instances' parts along them.
///
/// At the top of a program the instances are started here, one per device of the mesh (decision
/// 91: also along free axes, where they hold whole values). Inside an instance (a nested
/// computation) the body runs on the current instance, and a result split over the nested
/// computation's axes is gathered from the instances that differ only along them.
pub fn run_manual(
    mc: &ManualComputation,
    operands: &[Tensor],
    local_params: &[TensorType],
    local_results: &[TensorType],
    global_results: &[TensorType],
    body: &(dyn Fn(Vec<Tensor>) -> Result<Vec<Tensor>> + Sync),
    sum: &dyn Fn(&[&Tensor]) -> Result<Tensor>,
) -> Result<Vec<Tensor>> {
    if operands.len() != mc.in_shardings.len() || local_params.len() != operands.len() || global_results.len() != mc.out_shardings.len() {
        return Err(Error::internal("manual computation: operands, shardings and body arguments disagree"));
    }
    if let Some((id, replicas, partitions)) = super::current_instance() {
        if replicas != 1 || partitions != mc.instances() {
            return Err(Error::unimplemented(format!(
                "sdy.manual_computation over {} devices inside a launch of {replicas} x {partitions} instances",
                mc.instances()
            )));
        }
        let locals = body(local_operands(mc, operands, local_params, id)?)?;
        return (0..global_results.len())
            .map(|i| {
                let local = local_result(&locals, i, &local_results[i], id)?;
                let split = mc.split_axes(&mc.out_shardings[i], mc.result_unreduced(i));
                if split.is_empty() {
                    return Ok(local.clone());
                }
                let group = mc
                    .mesh
                    .groups_over(&split)
                    .map_err(Error::internal)?
                    .into_iter()
                    .find(|g| g.contains(&id))
                    .ok_or_else(|| Error::internal(format!("instance {id} is in no group over {split:?}")))?;
                let all = super::meet_members(&group, vec![local.clone()])?;
                let parts = group.iter().zip(&all).map(|(&pos, ts)| (pos, &ts[0])).collect::<Vec<_>>();
                assemble(mc, i, &global_results[i], &parts, sum)
            })
            .collect();
    }
    let n = mc.instances();
    let locals = run_instances(n as usize, 1, n, &|pos| body(local_operands(mc, operands, local_params, pos as i64)?))?;
    (0..global_results.len())
        .map(|i| {
            let (dims, unreduced) = (&mc.out_shardings[i], mc.result_unreduced(i));
            let mut parts = Vec::new();
            for (pos, inst) in locals.iter().enumerate() {
                let pos = pos as i64;
                if mc.provides(dims, unreduced, pos) {
                    parts.push((pos, local_result(inst, i, &local_results[i], pos)?));
                }
            }
            assemble(mc, i, &global_results[i], &parts, sum)
        })
        .collect()
}

/// Instance `pos`'s operands: its block of each, except that an unreduced operand is whole at
/// coordinate 0 of its unreduced axes and zeros elsewhere (parts that add up to it).
fn local_operands(mc: &ManualComputation, operands: &[Tensor], local_params: &[TensorType], pos: i64) -> Result<Vec<Tensor>> {
    Ok(operands
        .iter()
        .zip(&mc.in_shardings)
        .zip(local_params)
        .enumerate()
        .map(|(i, ((t, dims), ty))| {
            if mc.first_along(mc.operand_unreduced(i), pos) {
                data::extract(t, ty.clone(), &block_offset(mc, dims, &ty.shape, pos))
            } else {
                Tensor { ty: ty.clone(), data: Arc::new(AlignedBytes::zeroed(ty.byte_size())) }
            }
        })
        .collect())
}

/// Result `i` of instance `pos`, checked against the body's result type.
fn local_result<'a>(results: &'a [Tensor], i: usize, ty: &TensorType, pos: i64) -> Result<&'a Tensor> {
    let local = results.get(i).ok_or_else(|| Error::internal("an instance returned too few results"))?;
    if local.ty != *ty {
        return Err(Error::internal(format!("instance {pos} returned {} for result {i}, expected {ty}", local.ty)));
    }
    Ok(local)
}

/// Global result `i` of type `gty` from the instances' pieces `(position, local)`: each piece
/// goes to its block; pieces of the same block are parts of an unreduced value and add up.
fn assemble(mc: &ManualComputation, i: usize, gty: &TensorType, parts: &[(i64, &Tensor)], sum: &dyn Fn(&[&Tensor]) -> Result<Tensor>) -> Result<Tensor> {
    let dims = &mc.out_shardings[i];
    let mut blocks: Vec<(Vec<i64>, Vec<&Tensor>)> = Vec::new();
    for &(pos, local) in parts {
        let offset = block_offset(mc, dims, &local.ty.shape, pos);
        match blocks.iter_mut().find(|(o, _)| *o == offset) {
            Some((_, ps)) => ps.push(local),
            None => blocks.push((offset, vec![local])),
        }
    }
    let mut out = AlignedBytes::zeroed(gty.byte_size());
    for (offset, ps) in &blocks {
        let block = if ps.len() == 1 { ps[0].clone() } else { sum(ps)? };
        data::insert(out.as_mut_slice(), &gty.shape, &block, offset);
    }
    Ok(Tensor { ty: gty.clone(), data: Arc::new(out) })
}

/// Runs `f(i)` for the instances `0..n` of a launch of `replicas x partitions`, each on a dedicated
/// thread bound to its [`Instance`] and one shared [`Communicator`]; returns the results in
/// instance order, or the first real error (an instance failing because another did is not one).
pub fn run_instances<T: Send>(n: usize, replicas: i64, partitions: i64, f: &(dyn Fn(usize) -> Result<T> + Sync)) -> Result<Vec<T>> {
    let comm = Communicator::new();
    let results: Vec<Result<T>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|pos| {
                let comm = comm.clone();
                std::thread::Builder::new().name(format!("apu-instance-{pos}")).stack_size(INSTANCE_STACK_BYTES).spawn_scoped(s, move || {
                    let r = Instance::new(comm.clone(), pos as i64, replicas, partitions).enter(|| f(pos));
                    // A failed instance must not leave the others waiting at its next collective.
                    if let Err(e) = &r {
                        comm.fail(&format!("instance {pos}: {}", e.message));
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| {
                    comm.fail("an instance panicked");
                    Err(Error::internal("an instance panicked"))
                }),
                Err(e) => {
                    comm.fail("an instance thread could not start");
                    Err(Error::internal(format!("cannot start an instance thread: {e}")))
                }
            })
            .collect()
    });
    let mut out = Vec::with_capacity(n);
    let mut first_err: Option<Error> = None;
    for r in results {
        match r {
            Ok(v) => out.push(v),
            Err(e) => {
                let echo = e.message.starts_with("another instance failed");
                if first_err.as_ref().map_or(true, |f| f.message.starts_with("another instance failed") && !echo) {
                    first_err = Some(e);
                }
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
