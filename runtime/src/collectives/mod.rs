//! In-process collectives (decision 65): the instances of a manual computation run concurrently,
//! one dedicated thread each, and meet at a rendezvous for every collective they execute.
//!
//! Every instance counts the collectives it has executed; the n-th collective of each member of a
//! group is the same op (SPMD programs run the same ops in the same order, loops included), so the
//! members meet under the key (n, members). Waiting happens on the instances' own threads (never on
//! the kernels' rayon pool, which only ever runs kernel pieces), so a collective inside a `while`
//! body cannot starve: there are always as many threads as instances. An instance that fails wakes
//! the others, which fail too instead of waiting forever.

pub mod data;
mod manual;

pub use manual::{run_instances, run_manual};

use crate::Tensor;
use apu_compiler::ir::collective::participants;
use apu_compiler::ir::{GroupMode, OpKind};
use apu_compiler::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// One meeting: the members' contributions as they arrive, and (for a reduction) the combined
/// value, computed once by the first member and shared by all.
struct Meeting {
    parts: Vec<Option<Vec<Tensor>>>,
    arrived: usize,
    left: usize,
    combined: Option<Vec<Tensor>>,
}

#[derive(Default)]
struct State {
    meetings: HashMap<(u64, Vec<i64>), Meeting>,
    failed: Option<String>,
}

/// The rendezvous shared by the instances of one launch.
#[derive(Default)]
pub struct Communicator {
    state: Mutex<State>,
    arrived: Condvar,
}

impl Communicator {
    pub fn new() -> Arc<Communicator> {
        Arc::new(Communicator::default())
    }

    /// Marks the launch failed and wakes every waiting instance.
    pub fn fail(&self, why: &str) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.failed.get_or_insert_with(|| why.to_string());
        self.arrived.notify_all();
    }

    /// Contributes `mine` as member `pos` of `members` to their `seq`-th collective, then waits until
    /// `ready` gives something for the meeting; returns it with the lock still held.
    fn contribute_and_wait<T>(
        &self,
        seq: u64,
        members: &[i64],
        pos: usize,
        mine: Vec<Tensor>,
        mut ready: impl FnMut(&mut Meeting) -> Option<T>,
    ) -> Result<(MutexGuard<'_, State>, T)> {
        let key = (seq, members.to_vec());
        let n = members.len();
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        {
            let m = s.meetings.entry(key.clone()).or_insert_with(|| Meeting { parts: vec![None; n], arrived: 0, left: 0, combined: None });
            if m.parts[pos].is_some() {
                return Err(Error::internal(format!("instance {} joined collective {seq} twice", members[pos])));
            }
            m.parts[pos] = Some(mine);
            m.arrived += 1;
            if m.arrived == n {
                self.arrived.notify_all();
            }
        }
        loop {
            if let Some(why) = &s.failed {
                return Err(Error::invalid(format!("another instance failed: {why}")));
            }
            let m = s.meetings.get_mut(&key).ok_or_else(|| Error::internal("a collective's meeting vanished"))?;
            if let Some(t) = ready(m) {
                return Ok((s, t));
            }
            s = self.arrived.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Contributes `mine` as member `pos` of `members` to their `seq`-th collective and returns
    /// every member's contribution, in member order, once all have arrived.
    fn exchange(&self, seq: u64, members: &[i64], pos: usize, mine: Vec<Tensor>) -> Result<Vec<Vec<Tensor>>> {
        let n = members.len();
        let all_of = |m: &mut Meeting| (m.arrived == n).then(|| m.parts.iter().map(|p| p.clone().unwrap_or_default()).collect());
        let (mut s, all) = self.contribute_and_wait(seq, members, pos, mine, all_of)?;
        Self::leave(&mut s, &(seq, members.to_vec()), n);
        Ok(all)
    }

    /// As [`Communicator::exchange`], for a reduction: member 0 computes `combine` of every member's
    /// contribution once (outside the lock, so other groups keep meeting) and every member gets that
    /// result. An all-reduce over n instances thus reads each contribution once instead of n times.
    fn exchange_combined(
        &self,
        seq: u64,
        members: &[i64],
        pos: usize,
        mine: Vec<Tensor>,
        combine: &dyn Fn(&[Vec<Tensor>]) -> Result<Vec<Tensor>>,
    ) -> Result<Vec<Tensor>> {
        let (n, key) = (members.len(), (seq, members.to_vec()));
        if pos != 0 {
            let (mut s, combined) = self.contribute_and_wait(seq, members, pos, mine, |m| m.combined.clone())?;
            Self::leave(&mut s, &key, n);
            return Ok(combined);
        }
        // Member 0 takes the contributions once all have arrived; the meeting stays open for the others.
        let take_all = |m: &mut Meeting| (m.arrived == n).then(|| m.parts.iter_mut().map(|p| p.take().unwrap_or_default()).collect::<Vec<_>>());
        let (s, all) = self.contribute_and_wait(seq, members, 0, mine, take_all)?;
        drop(s);
        let result = combine(&all);
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match &result {
            Ok(r) => {
                if let Some(m) = s.meetings.get_mut(&key) {
                    m.combined = Some(r.clone());
                }
            }
            Err(e) => {
                s.failed.get_or_insert_with(|| format!("instance {}: {}", members[0], e.message));
            }
        }
        Self::leave(&mut s, &key, n);
        self.arrived.notify_all();
        result
    }

    /// One member is done with meeting `key` of `n` members; the last one removes it.
    fn leave(s: &mut State, key: &(u64, Vec<i64>), n: usize) {
        if let Some(m) = s.meetings.get_mut(key) {
            m.left += 1;
            if m.left == n {
                s.meetings.remove(key);
            }
        }
    }
}

/// The instance the current thread runs.
pub struct Instance {
    pub comm: Arc<Communicator>,
    /// Global id: `replica * partitions + partition`.
    pub id: i64,
    pub replicas: i64,
    pub partitions: i64,
    /// Collectives this instance has executed.
    seq: Cell<u64>,
}

thread_local! {
    static CURRENT: RefCell<Option<Instance>> = const { RefCell::new(None) };
}

impl Instance {
    pub fn new(comm: Arc<Communicator>, id: i64, replicas: i64, partitions: i64) -> Instance {
        Instance { comm, id, replicas, partitions, seq: Cell::new(0) }
    }

    /// Runs `f` with this instance bound to the current thread.
    pub fn enter<T>(self, f: impl FnOnce() -> T) -> T {
        let outer = CURRENT.with(|c| c.replace(Some(self)));
        let r = f();
        CURRENT.with(|c| *c.borrow_mut() = outer);
        r
    }
}

/// Runs `f` on a new thread (`builder`'s) that carries the current thread's instance, if any:
/// the interpreter evaluates on a thread with a larger stack, which must meet the same peers.
pub fn spawn_carrying<T: Send>(builder: std::thread::Builder, f: impl FnOnce() -> T + Send) -> std::io::Result<std::thread::Result<T>> {
    let mine = CURRENT.with(|c| c.borrow_mut().take());
    let out = std::thread::scope(|s| {
        let h = builder.spawn_scoped(s, move || match mine {
            Some(inst) => {
                let outer = CURRENT.with(|c| c.replace(Some(inst)));
                let r = f();
                let inst = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
                (r, inst)
            }
            None => (f(), None),
        })?;
        Ok(h.join())
    });
    match out {
        Ok(Ok((r, inst))) => {
            CURRENT.with(|c| *c.borrow_mut() = inst);
            Ok(Ok(r))
        }
        Ok(Err(p)) => Ok(Err(p)),
        Err(e) => Err(e),
    }
}

/// Whether the current thread runs an instance of a launch.
pub fn in_instance() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

/// `(id, replicas, partitions)` of the current instance, if the thread runs one.
pub fn current_instance() -> Option<(i64, i64, i64)> {
    CURRENT.with(|c| c.borrow().as_ref().map(|i| (i.id, i.replicas, i.partitions)))
}

/// Meets the instances `members` (global ids, this one among them) as this instance's next
/// collective and returns every member's tensors in member order.
pub fn meet_members(members: &[i64], mine: Vec<Tensor>) -> Result<Vec<Vec<Tensor>>> {
    CURRENT.with(|c| {
        let c = c.borrow();
        let inst = c.as_ref().ok_or_else(|| Error::internal("a meeting of instances outside any instance"))?;
        let seq = inst.seq.get();
        inst.seq.set(seq + 1);
        let pos = members.iter().position(|&m| m == inst.id).ok_or_else(|| Error::internal("an instance outside its own group"))?;
        inst.comm.exchange(seq, members, pos, mine)
    })
}

/// `(replica_id, partition_id)` of the current instance; (0, 0) outside any.
pub fn current_ids() -> (u32, u32) {
    CURRENT.with(|c| match &*c.borrow() {
        Some(i) => ((i.id / i.partitions) as u32, (i.id % i.partitions) as u32),
        None => (0, 0),
    })
}

/// The group mode of a collective op (see [`apu_compiler::ir::collective`]).
fn mode_of(kind: &OpKind) -> Option<(GroupMode, &[Vec<i64>])> {
    Some(match kind {
        OpKind::AllToAll { groups, .. } | OpKind::CollectiveBroadcast { groups } => {
            (if groups.channel_id.is_some() { GroupMode::CrossPartition } else { GroupMode::CrossReplica }, &groups.groups)
        }
        OpKind::AllReduce { groups } | OpKind::AllGather { groups, .. } | OpKind::ReduceScatter { groups, .. } => (groups.mode(), &groups.groups),
        _ => return None,
    })
}

/// The members of the group `kind` puts instance `inst` in, in group order.
fn members_of(kind: &OpKind, inst: &Instance) -> Result<Vec<i64>> {
    Ok(match kind {
        // Everyone of the same replica (channel: partitions meet) or partition meets; each
        // takes what its source sent.
        OpKind::CollectivePermute { channel_id, .. } => {
            let mode = if channel_id.is_some() { GroupMode::CrossPartition } else { GroupMode::CrossReplica };
            participants(mode, &[], inst.id, inst.replicas, inst.partitions).unwrap_or_default()
        }
        _ => {
            let (mode, groups) = mode_of(kind).ok_or_else(|| Error::internal(format!("{} is not a collective", kind.name())))?;
            participants(mode, groups, inst.id, inst.replicas, inst.partitions)
                .ok_or_else(|| Error::invalid(format!("{}: instance {} is in no replica group", kind.name(), inst.id)))?
        }
    })
}

/// Meets the other members of this collective and returns (every member's operands in group
/// order, this instance's position). Outside an instance the op runs alone, which the validator
/// allows only for groups of one.
pub fn meet(kind: &OpKind, operands: Vec<Tensor>) -> Result<(Vec<Vec<Tensor>>, usize)> {
    CURRENT.with(|c| {
        let c = c.borrow();
        let Some(inst) = c.as_ref() else {
            return match kind {
                OpKind::CollectivePermute { pairs, .. } if !pairs.iter().any(|p| *p == (0, 0)) => Ok((Vec::new(), 0)),
                _ => Ok((vec![operands], 0)),
            };
        };
        let seq = inst.seq.get();
        inst.seq.set(seq + 1);
        let members = members_of(kind, inst)?;
        let pos = members.iter().position(|&m| m == inst.id).ok_or_else(|| Error::internal("an instance outside its own group"))?;
        let all = inst.comm.exchange(seq, &members, pos, operands)?;
        Ok((all, pos))
    })
}

/// Meets the other members of a reduction and returns (`combine` of every member's operands,
/// computed once for the group, this instance's position, the group's size).
fn meet_combined(kind: &OpKind, operands: Vec<Tensor>, combine: &dyn Fn(&[Vec<Tensor>]) -> Result<Vec<Tensor>>) -> Result<(Vec<Tensor>, usize, usize)> {
    CURRENT.with(|c| {
        let c = c.borrow();
        let Some(inst) = c.as_ref() else {
            return Ok((combine(&[operands])?, 0, 1));
        };
        let seq = inst.seq.get();
        inst.seq.set(seq + 1);
        let members = members_of(kind, inst)?;
        let pos = members.iter().position(|&m| m == inst.id).ok_or_else(|| Error::internal("an instance outside its own group"))?;
        let combined = inst.comm.exchange_combined(seq, &members, pos, operands, combine)?;
        Ok((combined, pos, members.len()))
    })
}

/// This instance's id in the space a collective_permute's pairs name.
pub fn permute_id(channel: bool) -> i64 {
    CURRENT.with(|c| match &*c.borrow() {
        Some(i) if channel => i.id % i.partitions,
        Some(i) => i.id / i.partitions,
        None => 0,
    })
}

/// Runs a collective op given how to combine tensors elementwise (the interpreter and the plan
/// pass their own reductions). Each result has the type in `result_types`.
pub fn run(kind: &OpKind, operands: Vec<Tensor>, reduce: &dyn Fn(&[&Tensor]) -> Result<Tensor>) -> Result<Vec<Tensor>> {
    // Reductions: the group's sums are computed once and shared (see `exchange_combined`).
    if matches!(kind, OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. }) {
        let count = operands.len();
        let sums = |all: &[Vec<Tensor>]| -> Result<Vec<Tensor>> {
            (0..count).map(|i| reduce(&all.iter().filter_map(|p| p.get(i)).collect::<Vec<_>>())).collect()
        };
        let (summed, pos, n) = meet_combined(kind, operands, &sums)?;
        return match kind {
            OpKind::ReduceScatter { scatter_dimension, .. } => {
                summed.iter().map(|t| data::piece(t, *scatter_dimension as usize, n as i64, pos as i64)).collect()
            }
            _ => Ok(summed),
        };
    }
    let (all, pos) = meet(kind, operands.clone())?;
    let column = |i: usize| -> Vec<&Tensor> { all.iter().filter_map(|p| p.get(i)).collect() };
    let n = all.len() as i64;
    (0..operands.len())
        .map(|i| match kind {
            OpKind::AllGather { all_gather_dim, .. } => data::concat(&column(i), *all_gather_dim as usize),
            OpKind::AllToAll { split_dimension, concat_dimension, .. } => {
                let pieces = column(i)
                    .into_iter()
                    .map(|t| data::piece(t, *split_dimension as usize, n, pos as i64))
                    .collect::<Result<Vec<_>>>()?;
                data::concat(&pieces.iter().collect::<Vec<_>>(), *concat_dimension as usize)
            }
            OpKind::CollectiveBroadcast { .. } => Ok(column(i)[0].clone()),
            OpKind::CollectivePermute { pairs, channel_id } => {
                let me = permute_id(channel_id.is_some());
                // Members of a permute are ordered by id, so the source's position is its id.
                match pairs.iter().find(|p| p.1 == me) {
                    Some(p) => all
                        .get(p.0 as usize)
                        .and_then(|x| x.get(i))
                        .cloned()
                        .ok_or_else(|| Error::invalid(format!("collective_permute from {} which does not exist", p.0))),
                    None => Ok(Tensor::zeroed(operands[i].ty.clone())),
                }
            }
            other => Err(Error::internal(format!("{} is not a collective", other.name()))),
        })
        .collect()
}
