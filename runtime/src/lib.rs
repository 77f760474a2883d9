//! apu's runtime: tensors in host memory, the reference interpreter (the semantic oracle), and the
//! plan executor, which splits large kernels across a rayon pool. Never sees FFI.

pub mod buffer;
pub mod client;
pub mod collectives;
pub mod device;
pub mod error;
pub mod event;
pub mod exec;
pub mod ffi;
pub mod host_callback;
pub mod interp;
pub mod layout;
pub mod linalg;
pub mod memory_stats;
pub mod npz;
mod pages;
pub mod profile;
pub mod rng;
pub mod tensor;
pub mod values;

pub use error::{Code, Error, Result};
pub use buffer::{BufferPromise, DeviceBuffer};
pub use device::DeviceQueue;
pub use event::{Event, Outcome};
pub use memory_stats::{MemoryStats, MemoryStatsSnapshot};
pub use tensor::{AlignedBytes, Tensor};
