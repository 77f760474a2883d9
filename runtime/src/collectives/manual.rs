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
pub fn run_manual(
    mc: &ManualComputation,
    operands: &[Tensor],
    local_params: &[TensorType],
    local_results: &[TensorType],
    global_results: &[TensorType],
    body: &(dyn Fn(Vec<Tensor>) -> Result<Vec<Tensor>> + Sync),
    sum: &dyn Fn(&[&Tensor]) -> Result<Tensor>,
) -> Result<Vec<Tensor>> {
    let n = mc.instances();
    if operands.len() != mc.in_shardings.len() || local_params.len() != operands.len() {
        return Err(Error::internal("manual computation: operands, shardings and body arguments disagree"));
    }
    let locals = run_instances(n as usize, 1, n, &|pos| {
        // An unreduced operand is whole at coordinate 0 of its unreduced axes and zeros elsewhere:
        // parts that add up to it.
        let locals: Vec<Tensor> = operands
            .iter()
            .zip(&mc.in_shardings)
            .zip(local_params)
            .enumerate()
            .map(|(i, ((t, dims), ty))| {
                if mc.first_along(mc.operand_unreduced(i), pos as i64) {
                    data::extract(t, ty.clone(), &block_offset(mc, dims, &ty.shape, pos as i64))
                } else {
                    Tensor { ty: ty.clone(), data: Arc::new(AlignedBytes::zeroed(ty.byte_size())) }
                }
            })
            .collect();
        body(locals)
    })?;
    global_results
        .iter()
        .enumerate()
        .map(|(i, gty)| {
            let (dims, unreduced) = (&mc.out_shardings[i], mc.result_unreduced(i));
            let lty = &local_results[i];
            // Per block of the global result, the instances' parts (one unless it is unreduced).
            let mut blocks: Vec<(Vec<i64>, Vec<&Tensor>)> = Vec::new();
            for (pos, inst) in locals.iter().enumerate() {
                let pos = pos as i64;
                if !mc.provides(dims, unreduced, pos) {
                    continue;
                }
                let local = inst.get(i).ok_or_else(|| Error::internal("an instance returned too few results"))?;
                if local.ty != *lty {
                    return Err(Error::internal(format!("instance {pos} returned {} for result {i}, expected {lty}", local.ty)));
                }
                let offset = block_offset(mc, dims, &lty.shape, pos);
                match blocks.iter_mut().find(|(o, _)| *o == offset) {
                    Some((_, parts)) => parts.push(local),
                    None => blocks.push((offset, vec![local])),
                }
            }
            let mut out = AlignedBytes::zeroed(gty.byte_size());
            for (offset, parts) in &blocks {
                let block = if parts.len() == 1 { parts[0].clone() } else { sum(parts)? };
                data::insert(out.as_mut_slice(), &gty.shape, &block, offset);
            }
            Ok(Tensor { ty: gty.clone(), data: Arc::new(out) })
        })
        .collect()
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
