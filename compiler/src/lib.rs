//! apu's compiler: one IR at StableHLO level, the readers that produce it, the validator that
//! turns a [`ir::Module`] into a [`valid::ValidModule`], the passes that simplify it and the
//! planner that lowers it. The compile pipeline that runs them in order is the runtime's
//! `client::compile`.
//!
//! This crate never sees FFI: the plugin hands it bytes and a format string.

pub mod bytecode;
pub mod chlo;
pub mod cost;
pub mod error;
pub mod hlo;
pub mod ir;
pub mod options;
pub mod passes;
pub mod plan;
pub mod print;
pub mod program;
pub mod text;
pub mod valid;
pub mod vhlo;

pub use error::{Error, Result};
pub use vhlo::read_vhlo_bytecode;
