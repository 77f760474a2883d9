//! The client's topology: its devices as a whole, with a fingerprint that is the same for every
//! client of the same size.

use super::{fnv1a, PLATFORM_NAME};

pub struct Topology {
    pub num_devices: usize,
    pub fingerprint: u64,
}

impl Topology {
    pub fn new(num_devices: usize) -> Topology {
        Topology { num_devices, fingerprint: fnv1a(&[PLATFORM_NAME.as_bytes(), &(num_devices as u64).to_le_bytes()]) }
    }
}
