//! A virtual APU device: its identity, its one memory space, its in-order work queue and the
//! accounting of the bytes its live buffers hold.

use crate::{DeviceQueue, MemoryStats};
use std::sync::Arc;

/// The device kind frameworks show (`device.device_kind`).
pub const DEVICE_KIND: &str = "apu";
/// The kind of every device's memory space, as JAX expects for device buffers.
pub const MEMORY_KIND: &str = "device";
/// A stable, non-zero id for [`MEMORY_KIND`].
pub const MEMORY_KIND_ID: i32 = 1;

/// A device's memory space (host memory, of kind [`MEMORY_KIND`]).
pub struct MemorySpace {
    pub id: usize,
    pub device_index: usize,
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
    pub memory: MemorySpace,
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
            memory: MemorySpace {
                id: index,
                device_index: index,
                debug_string: format!("apu:{index} device memory"),
                to_string: format!("APU_DEVICE_MEMORY_{index}"),
            },
            queue: DeviceQueue::new(format!("apu-device-{index}")),
            memory_stats: Arc::new(MemoryStats::default()),
        }
    }
}
