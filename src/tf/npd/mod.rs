//! The NextPluggableDevice side: `TFNPD_InitPlugin`'s parameters and table, with apu's PJRT table
//! (`GetPjrtApi`, implemented in `crate::pjrt`) doing the work.

pub mod abi;
pub mod client;
pub mod eager_const;
pub mod host;
pub mod plugin;
pub mod shape;
