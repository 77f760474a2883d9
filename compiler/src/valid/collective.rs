//! Rules for collectives and `sdy.manual_computation` (decision 65): shapes, combiners, groups
//! that name existing instances, and where ops that depend on the instance may appear.

use super::ops::Sig;
use super::Ctx;
use crate::ir::collective::{check_groups, participants};
use crate::ir::*;
use crate::{Error, Result};

fn err(msg: impl Into<String>) -> Error {
    Error::invalid(msg.into())
}

/// The instances a collective runs between: `(replicas, partitions)`.
pub(crate) fn instance_space(ctx: &Ctx) -> (i64, i64) {
    match ctx.manual_instances {
        Some(n) => (1, n),
        None => (ctx.module.num_replicas.max(1) as i64, ctx.module.num_partitions.max(1) as i64),
    }
}

/// The binary op an all_reduce / reduce_scatter region applies; other regions are refused by name.
pub fn combiner(op: &Op) -> Result<BinaryOp> {
    let region = op.regions.first().ok_or_else(|| err(format!("{} needs a combiner region", op.kind.name())))?;
    // One binary op of the two parameters, possibly followed by same-type reshapes: the identities
    // a portable artifact's `sdy.sharding_constraint` becomes (see `vhlo::region`).
    let single = match region.ops.split_first() {
        Some((first, rest)) if region.params.len() == 2 && first.operands == region.params => {
            let mut last = &first.results;
            let chained = rest.iter().all(|op| {
                let ok = matches!(op.kind, OpKind::Reshape) && op.operands == *last;
                last = &op.results;
                ok
            });
            match first.kind {
                OpKind::Binary(b) if chained && region.results == *last => Some(b),
                _ => None,
            }
        }
        _ => None,
    };
    match single {
        Some(b @ (BinaryOp::Add | BinaryOp::Multiply | BinaryOp::Minimum | BinaryOp::Maximum | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)) => Ok(b),
        _ => {
            let names: Vec<&str> = region.ops.iter().map(|o| o.kind.name()).collect();
            Err(Error::unimplemented(format!(
                "{} with the combiner region ({}): apu reduces with one of add, multiply, minimum, maximum, and, or, xor",
                op.kind.name(),
                names.join(", ")
            )))
        }
    }
}

pub(crate) fn check(ctx: &Ctx, op: &Op, sig: &Sig) -> Result<()> {
    let (replicas, partitions) = instance_space(ctx);
    // The entry function's own ops run once, globally. Other functions may be called from a
    // manual body (checked when they run: a collective without instances fails there).
    let global = ctx.manual_instances.is_none() && std::ptr::eq(ctx.func, ctx.module.entry_function());
    let groups = match &op.kind {
        OpKind::ManualComputation(mc) => return manual(ctx, op, sig, mc),
        OpKind::PartitionId if global && partitions > 1 => {
            return Err(Error::unimplemented(format!(
                "partition_id outside a manual computation in a program of {partitions} partitions: apu runs such a program once, globally"
            )))
        }
        OpKind::AllReduce { groups } | OpKind::AllGather { groups, .. } | OpKind::ReduceScatter { groups, .. } | OpKind::AllToAll { groups, .. } | OpKind::CollectiveBroadcast { groups } => groups,
        OpKind::CollectivePermute { pairs, channel_id } => {
            let limit = if channel_id.is_some() { partitions } else { replicas };
            if let Some(p) = pairs.iter().find(|p| p.0 >= limit || p.1 >= limit) {
                return Err(err(format!("collective_permute pair {p:?} names an id outside 0..{limit}")));
            }
            if global && partitions > 1 && pairs.iter().any(|p| p.0 != p.1) {
                return Err(Error::unimplemented("collective_permute between devices outside a manual computation"));
            }
            return same_types(op, sig);
        }
        _ => return Ok(()),
    };
    if let Some((mesh, _)) = &groups.mesh_axes {
        return Err(err(format!("{}: replica groups over mesh @{mesh} were never expanded", op.kind.name())));
    }
    let mode = match &op.kind {
        // all_to_all and collective_broadcast have no use_global_device_ids: a channel makes them
        // cross-partition.
        OpKind::AllToAll { .. } | OpKind::CollectiveBroadcast { .. } if groups.channel_id.is_some() => GroupMode::CrossPartition,
        OpKind::AllToAll { .. } | OpKind::CollectiveBroadcast { .. } => GroupMode::CrossReplica,
        _ => groups.mode(),
    };
    let limit = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => replicas,
        GroupMode::CrossPartition => partitions,
        GroupMode::FlattenedIds => replicas * partitions,
    };
    check_groups(&groups.groups, limit).map_err(|m| err(format!("{}: {m}", op.kind.name())))?;
    let mut size = None;
    for me in 0..replicas * partitions {
        let members = participants(mode, &groups.groups, me, replicas, partitions)
            .ok_or_else(|| err(format!("{}: instance {me} is in no replica group", op.kind.name())))?;
        // A program of replicas (one partition) runs once per replica, all together
        // (`Program::run_replicated`); a partitioned one runs its global body once.
        if global && partitions > 1 && members.len() > 1 {
            return Err(Error::unimplemented(format!(
                "{} between {} devices outside a manual computation of a program of partitions",
                op.kind.name(),
                members.len()
            )));
        }
        size = Some(members.len() as i64);
    }
    let n = size.unwrap_or(1);
    if matches!(op.kind, OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. }) {
        combiner(op)?;
    }
    match &op.kind {
        OpKind::AllReduce { .. } | OpKind::CollectiveBroadcast { .. } => same_types(op, sig),
        OpKind::AllGather { all_gather_dim, .. } => scaled(sig, *all_gather_dim, n, 1, "all_gather"),
        OpKind::ReduceScatter { scatter_dimension, .. } => scaled(sig, *scatter_dimension, 1, n, "reduce_scatter"),
        OpKind::AllToAll { split_dimension, concat_dimension, split_count, .. } => {
            if *split_count != n {
                return Err(err(format!("all_to_all: split_count {split_count} but groups of {n}")));
            }
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            let mut want = a.shape.clone();
            let (s, c) = (*split_dimension as usize, *concat_dimension as usize);
            if s >= want.len() || c >= want.len() || want[s] % n != 0 {
                return Err(err(format!("all_to_all: cannot split {a} into {n} along {s} and concatenate along {c}")));
            }
            want[s] /= n;
            want[c] *= n;
            if r.shape != want || r.elem != a.elem {
                return Err(err(format!("all_to_all: result {r}, expected shape {want:?}")));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn same_types(op: &Op, sig: &Sig) -> Result<()> {
    if sig.ins != sig.outs {
        return Err(err(format!("{} results must have the operands' types: {}", op.kind.name(), sig.describe())));
    }
    Ok(())
}

/// One operand, one result whose dimension `dim` is the operand's times `mul` divided by `div`.
fn scaled(sig: &Sig, dim: i64, mul: i64, div: i64, what: &str) -> Result<()> {
    sig.counts(1, 1)?;
    let (a, r) = (sig.tin(0)?, sig.tout(0)?);
    let d = usize::try_from(dim).ok().filter(|&d| d < a.rank()).ok_or_else(|| err(format!("{what}: dimension {dim} out of range for {a}")))?;
    let mut want = a.shape.clone();
    if want[d] * mul % div != 0 {
        return Err(err(format!("{what}: dimension {dim} of {a} does not split into {div}")));
    }
    want[d] = want[d] * mul / div;
    if r.shape != want || r.elem != a.elem {
        return Err(err(format!("{what}: result {r}, expected shape {want:?} of {}", a.elem)));
    }
    Ok(())
}

fn manual(ctx: &Ctx, op: &Op, sig: &Sig, mc: &ManualComputation) -> Result<()> {
    // A nested computation runs inside the instances of the enclosing one (decision 91): it must
    // name the same devices and make manual only axes that are still free.
    if let Some(outer) = ctx.manual_instances {
        if outer != mc.instances() {
            return Err(Error::unimplemented(format!(
                "sdy.manual_computation over {} devices nested in one over {outer}",
                mc.instances()
            )));
        }
        if let Some(a) = mc.manual_axes.iter().find(|a| ctx.manual_axes.contains(a)) {
            return Err(err(format!("nested sdy.manual_computation makes axis \"{a}\" manual again")));
        }
    }
    if let Some(a) = mc.manual_axes.iter().find(|a| mc.mesh.axis(a).is_none()) {
        return Err(err(format!("manual axis \"{a}\" is not in the mesh")));
    }
    if let Some(a) = mc.in_unreduced.iter().chain(&mc.out_unreduced).flatten().find(|a| mc.mesh.axis(a).is_none()) {
        return Err(err(format!("unreduced axis \"{a}\" is not in the mesh")));
    }
    let [body] = op.regions.as_slice() else {
        return Err(err("sdy.manual_computation needs one region"));
    };
    if mc.in_shardings.len() != op.operands.len() || mc.out_shardings.len() != op.results.len() {
        return Err(err(format!(
            "{} in_shardings for {} operands, {} out_shardings for {} results",
            mc.in_shardings.len(),
            op.operands.len(),
            mc.out_shardings.len(),
            op.results.len()
        )));
    }
    let params = ctx.types(&body.params)?;
    let returned = ctx.types(&body.results)?;
    if params.len() != sig.ins.len() || returned.len() != sig.outs.len() {
        return Err(err("sdy.manual_computation: the body's arguments and results do not match its operands and results"));
    }
    let pairs = sig.ins.iter().zip(&params).zip(&mc.in_shardings).chain(sig.outs.iter().zip(&returned).zip(&mc.out_shardings));
    for (i, ((global, local), dims)) in pairs.enumerate() {
        let (g, l) = match (global, local) {
            (Type::Tensor(g), Type::Tensor(l)) => (g, l),
            // A token threaded through the body (an ordered effect inside shard_map): no data.
            (Type::Token, Type::Token) if dims.is_empty() => continue,
            _ => return Err(Error::unimplemented("sdy.manual_computation over tuples, or a token against a tensor")),
        };
        if g.elem != l.elem {
            return Err(err(format!("sdy.manual_computation value {i}: global {g} but local {l}")));
        }
        mc.check_sharding(dims, &g.shape, &l.shape).map_err(|m| err(format!("sdy.manual_computation value {i} ({g} / {l}): {m}")))?;
    }
    Ok(())
}
