//! apu's kernels for the PluggableDevice: each TensorFlow op is lowered to a single-op IR module,
//! compiled once per input types into a plan-executor program ([`cache`], [`compile`]) and run (see
//! [`run::run_single_op`]). Registered by `TF_InitKernel` for device type `APU`.

pub mod attrs;
pub mod builder;
pub mod cache;
pub mod compile;
pub mod lower;
pub mod lower_more;
pub mod lower_train;
pub mod ops;
pub mod registry;
pub mod run;
pub mod tf_io;

pub use run::run_single_op;
#[cfg(test)]
mod plan_check;
