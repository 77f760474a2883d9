//! TensorFlow support: the same library is a PluggableDevice (`SE_InitPlugin` + `TF_InitKernel`) or a
//! NextPluggableDevice (`TFNPD_InitPlugin` + `GetPjrtApi`), chosen once per process (see [`config`]).
//! TensorFlow functions are looked up at run time ([`symbols`]), never linked.

pub mod config;
pub mod entry;
pub mod guard;
pub mod kernels;
pub mod npd;
pub mod pd;
pub mod symbols;
