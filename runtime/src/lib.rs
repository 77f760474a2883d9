//! apu's runtime: tensors in host memory, the reference interpreter (the semantic oracle), and (later)
//! the plan executor on a rayon pool. Never sees FFI.

pub mod exec;
pub mod interp;
pub mod npz;
pub mod tensor;

pub use apu_compiler::{Error, Result};
pub use tensor::{AlignedBytes, Tensor};
