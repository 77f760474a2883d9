//! The device model: what a framework's client sees of apu — devices with their memories and work
//! queues, compiled executables, loaded executables and their execution — in plain Rust, with no
//! FFI. The plug-in's C views (`src/pjrt`) only convert between C structs and these objects; every
//! policy (device count, assignment, donation, when a run happens inline, how errors reach events)
//! is decided here.
//!
//! ```text
//! compile::compile(source) ──► Executable ──load──► LoadedExecutable ──execute──► promises + Event
//!     read → validate → simplify → validate → lower → prepare
//! ```

pub mod compile;
mod device;
mod envelope;
mod executable;
mod execute;
mod fingerprint;
mod host_bound;
mod loaded;
mod memory;
pub mod partition;
mod topology;

pub use device::{Device, MemorySpace, DEVICE_KIND};
pub use executable::{Executable, ProgramSource};
pub use execute::{ExecuteOptions, INLINE_BELOW_NS};
pub use fingerprint::fnv1a;
pub use loaded::LoadedExecutable;
pub use memory::MemoryKind;
pub use topology::Topology;

use crate::{Error, Result};
use std::sync::Arc;

/// The platform name frameworks show (`jax.devices()[0].platform`).
pub const PLATFORM_NAME: &str = "apu";

/// Upper bound on virtual devices: each one has a worker thread.
pub const MAX_DEVICES: i64 = 256;

/// One client: its devices (each with three memory spaces and a worker thread) and their topology.
pub struct Client {
    devices: Vec<Device>,
    topology: Topology,
}

impl Client {
    pub fn new(num_devices: usize) -> Arc<Client> {
        Arc::new(Client {
            devices: (0..num_devices).map(Device::new).collect(),
            topology: Topology::new(num_devices),
        })
    }

    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    pub fn device(&self, index: usize) -> &Device {
        &self.devices[index]
    }

    pub fn num_devices(&self) -> usize {
        self.devices.len()
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The device with this id, if the client has one.
    pub fn lookup_device(&self, id: i64) -> Option<&Device> {
        usize::try_from(id).ok().and_then(|i| self.devices.get(i))
    }
}

/// How many devices a new client gets: the count a caller asked for (`requested`, with where it
/// came from, for messages), else the `APU_NUM_DEVICES` environment variable, else 1.
pub fn device_count(requested: Option<(i64, String)>) -> Result<usize> {
    let mut count = requested;
    if count.is_none() {
        if let Ok(s) = std::env::var("APU_NUM_DEVICES") {
            let n = s
                .trim()
                .parse::<i64>()
                .map_err(|_| Error::invalid(format!("APU_NUM_DEVICES={s:?} is not an integer")))?;
            count = Some((n, "APU_NUM_DEVICES".into()));
        }
    }
    match count {
        None => Ok(1),
        Some((n, _)) if (1..=MAX_DEVICES).contains(&n) => Ok(n as usize),
        Some((n, source)) => Err(Error::invalid(format!("{source} = {n}: apu supports 1 to {MAX_DEVICES} devices"))),
    }
}

/// Replica-major assignment of consecutive device ids. Fewer devices than replicas × partitions
/// is an error, as in XLA: wrapping around would put two partitions, whose collectives must meet,
/// on one device (issue 33).
pub fn default_assignment(num_replicas: usize, num_partitions: usize, num_devices: usize) -> Result<Vec<Vec<usize>>> {
    let needed = num_replicas * num_partitions;
    if needed > num_devices {
        return Err(Error::invalid(format!(
            "{num_replicas} replica(s) x {num_partitions} partition(s) need {needed} devices; the client has {num_devices} \
             (apu's device count comes from APU_NUM_DEVICES or the create option num_devices)"
        )));
    }
    Ok((0..num_replicas).map(|r| (0..num_partitions).map(|p| r * num_partitions + p).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_assignment_is_replica_major_and_never_wraps() {
        assert_eq!(default_assignment(2, 1, 4).unwrap(), vec![vec![0], vec![1]]);
        assert_eq!(default_assignment(2, 2, 4).unwrap(), vec![vec![0, 1], vec![2, 3]]);
        // Was wrap-around ([[0], [1], [0]]) before partitioned programs ran: now an error naming the counts.
        let e = default_assignment(3, 1, 2).unwrap_err();
        assert_eq!(e.code, crate::Code::InvalidArgument);
        assert!(e.message.contains("need 3 devices; the client has 2"), "{}", e.message);
    }

    #[test]
    fn device_count_is_bounded() {
        assert_eq!(device_count(Some((3, "x".into()))).unwrap(), 3);
        let e = device_count(Some((0, "create option num_devices".into()))).unwrap_err();
        assert_eq!(e.code, crate::Code::InvalidArgument);
        assert_eq!(e.message, "create option num_devices = 0: apu supports 1 to 256 devices");
        assert!(device_count(Some((MAX_DEVICES + 1, "x".into()))).is_err());
    }

    #[test]
    fn devices_have_ids_and_a_memory_of_each_kind() {
        let c = Client::new(2);
        assert_eq!(c.num_devices(), 2);
        let mut ids = std::collections::HashSet::new();
        for (i, d) in c.devices().iter().enumerate() {
            assert_eq!((d.index, d.id), (i, i as i32));
            assert_eq!(d.memories.len(), 3);
            assert_eq!(d.memories[0].kind, MemoryKind::Device, "the default memory comes first");
            for kind in MemoryKind::ALL {
                let m = d.memory(kind);
                assert_eq!((m.device_index, m.kind), (i, kind));
                assert!(ids.insert(m.id), "memory id {} is unique in the client", m.id);
            }
        }
        assert_eq!(c.topology().num_devices, 2);
        assert!(c.lookup_device(2).is_none() && c.lookup_device(-1).is_none());
    }
}
