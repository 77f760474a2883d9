//! apu's kernels for the PluggableDevice: each TensorFlow op is lowered to a single-op IR module and run
//! by apu (see [`run::run_single_op`]). Registered by `TF_InitKernel` for device type `APU`.

pub mod attrs;
pub mod builder;
pub mod lower;
pub mod ops;
pub mod registry;
pub mod run;
pub mod tf_io;

pub use run::run_single_op;
