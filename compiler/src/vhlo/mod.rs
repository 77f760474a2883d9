//! The StableHLO portable-artifact reader: MLIR bytecode whose ops are in the VHLO dialect (what
//! `jax.jit` hands a PJRT plugin as format `"mlir"`), turned into apu's IR.

mod convert;
mod dot_algorithm;
mod ffi_attrs;
pub mod dialect;
mod manual;
mod module;
mod op_ctx;
pub mod op_table;
pub(crate) mod ops;
mod region;
mod sharding;

use crate::bytecode::{self, DialectDecoder};
use crate::ir::Module;
use crate::Result;

pub use module::split_version;

/// Reads a StableHLO portable artifact into a module whose entry is `@main`.
pub fn read_vhlo_bytecode(bytes: &[u8]) -> Result<Module> {
    let vhlo = dialect::VhloDecoder;
    let sdy = dialect::SdyDecoder;
    let stablehlo = dialect::StablehloDecoder;
    let decoders: [(&str, &dyn DialectDecoder); 3] = [("vhlo", &vhlo), ("sdy", &sdy), ("stablehlo", &stablehlo)];
    let mut file = bytecode::read(bytes, &decoders)?;
    let producer = file.producer.to_string();
    module::build_module(&file.ops, &mut file.table).map_err(|e| e.context(format!("StableHLO artifact (producer {producer:?})")))
}
