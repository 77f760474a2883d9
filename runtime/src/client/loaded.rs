//! An executable bound to devices of a client: which device runs each (replica, partition).

use super::{default_assignment, Client, Executable};
use crate::{Error, Result};
use apu_compiler::options::DeviceAssignment;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct LoadedExecutable {
    pub exe: Arc<Executable>,
    pub client: Arc<Client>,
    /// Device index of each addressable (replica, partition), replica-major.
    pub device_indices: Vec<usize>,
    /// The (replica, partition) of each entry of `device_indices`.
    pub logical_ids: Vec<(usize, usize)>,
    /// The assignment as an `xla.DeviceAssignmentProto` (device ids).
    device_assignment: Vec<u8>,
    deleted: AtomicBool,
}

impl LoadedExecutable {
    /// Binds an executable to devices: the compile options' device assignment if present, else
    /// `device_ordinal` for a single-device program, else the default assignment.
    pub fn load(exe: Arc<Executable>, client: Arc<Client>) -> Result<LoadedExecutable> {
        let n = client.num_devices();
        let (replicas, partitions) = (exe.num_replicas, exe.num_partitions);
        // assignment[replica][partition] = device index
        let assignment: Vec<Vec<usize>> = match &exe.options.device_assignment {
            Some(da) if !da.devices.is_empty() => {
                let mut out = vec![vec![0usize; partitions]; replicas];
                for (p, computation) in da.devices.iter().enumerate().take(partitions) {
                    for (r, &id) in computation.iter().enumerate().take(replicas) {
                        out[r][p] = usize::try_from(id).ok().filter(|&i| i < n).ok_or_else(|| {
                            Error::invalid(format!(
                                "compile options assign replica {r} partition {p} to device {id}, but the client has {n} device(s)"
                            ))
                        })?;
                    }
                }
                out
            }
            _ => match exe.options.device_ordinal {
                d if d >= 0 && replicas * partitions == 1 => {
                    let d = usize::try_from(d).ok().filter(|&i| i < n).ok_or_else(|| {
                        Error::invalid(format!("device_ordinal {d} is out of range for {n} device(s)"))
                    })?;
                    vec![vec![d]]
                }
                _ => default_assignment(replicas, partitions, n)?,
            },
        };
        let device_indices: Vec<usize> = assignment.concat();
        let logical_ids = (0..replicas).flat_map(|r| (0..partitions).map(move |p| (r, p))).collect();
        let proto = DeviceAssignment {
            replica_count: replicas as u32,
            computation_count: partitions as u32,
            devices: (0..partitions)
                .map(|p| (0..replicas).map(|r| client.device(assignment[r][p]).id as i64).collect())
                .collect(),
        };
        Ok(LoadedExecutable {
            exe,
            client,
            device_indices,
            logical_ids,
            device_assignment: proto.encode(),
            deleted: AtomicBool::new(false),
        })
    }

    pub fn device_assignment(&self) -> &[u8] {
        &self.device_assignment
    }

    pub fn is_deleted(&self) -> bool {
        self.deleted.load(Ordering::Acquire)
    }

    /// Marks the executable deleted: later executions fail (FAILED_PRECONDITION).
    pub fn delete(&self) {
        self.deleted.store(true, Ordering::Release);
    }
}
