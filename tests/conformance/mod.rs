//! The PJRT C-ABI conformance suite: drives a plugin library through `GetPjrtApi` exactly as a
//! framework would, using apu's bindings (`apu_pjrt_api`). See docs/conformance-suite.md.
#![allow(dead_code, non_upper_case_globals)]
pub mod cases;
pub mod handles;
pub mod npz;
pub mod plugin;
pub mod runner;
pub mod samples;
