//! A virtual APU device: its identity, its memory spaces (one per [`MemoryKind`]), its in-order
//! work queue and the accounting of the bytes its live buffers hold.

use super::memory::MemoryKind;
use crate::{DeviceQueue, MemoryStats};
use std::sync::Arc;

/// The device kind frameworks show (`device.device_kind`).
pub const DEVICE_KIND: &str = "apu";
/// One of a device's memory spaces (all of them host memory).
pub struct MemorySpace {
    /// Unique in the client: `device index * 3 + kind position`.
    pub id: usize,
    pub device_index: usize,
    pub kind: MemoryKind,
    pub debug_string: String,
    pub to_string: String,
}

pub struct Device {
    pub index: usize,
    pub id: i32,
    pub process_index: i32,
    pub debug_string: String,
    pub to_string: String,
    /// Position in the (one-dimensional) device mesh.
    pub coords: Vec<i64>,
    /// One per kind, in the order of [`MemoryKind::ALL`]: the default (`device`) first.
    pub memories: Vec<MemorySpace>,
    pub queue: DeviceQueue,
    /// Bytes held by the live buffers of this device.
    pub memory_stats: Arc<MemoryStats>,
}

impl Device {
    pub fn new(index: usize) -> Device {
        Device {
            index,
            id: index as i32,
            process_index: 0,
            debug_string: format!("{DEVICE_KIND}:{index}"),
            to_string: format!("ApuDevice(id={index})"),
            coords: vec![index as i64],
            memories: MemoryKind::ALL.into_iter().map(|kind| MemorySpace::new(index, kind)).collect(),
            queue: DeviceQueue::new(format!("apu-device-{index}")),
            memory_stats: Arc::new(MemoryStats::default()),
        }
    }
}

impl Device {
    /// This device's memory space of `kind`.
    pub fn memory(&self, kind: MemoryKind) -> &MemorySpace {
        &self.memories[kind.position()]
    }
}

impl MemorySpace {
    fn new(device_index: usize, kind: MemoryKind) -> MemorySpace {
        let upper = kind.name().to_uppercase();
        MemorySpace {
            id: device_index * MemoryKind::ALL.len() + kind.position(),
            device_index,
            kind,
            debug_string: format!("apu:{device_index} {} memory", kind.name()),
            to_string: format!("APU_{upper}_MEMORY_{device_index}"),
        }
    }
}
