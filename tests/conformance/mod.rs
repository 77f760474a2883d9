//! The PJRT C-ABI conformance suite: drives a plugin library through `GetPjrtApi` exactly as a
//! framework would, using apu's bindings (`apu_pjrt_api`). See docs/conformance-suite.md.
// `pjrt_args!` takes `field: value` pairs only, so `device: device` is the macro syntax.
#![allow(dead_code, non_upper_case_globals, clippy::redundant_field_names)]
pub mod apu_pending;
pub mod cases;
pub mod handles;
pub mod npz;
pub mod plugin;
pub mod runner;
pub mod samples;
