//! The front door: bytes + a PJRT program format → a module. Format detection lives here so that the
//! plugin and the command-line tool agree on it.

use crate::ir::Module;
use crate::{Error, Result};

/// The program formats PJRT clients send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramFormat {
    /// `"mlir"`: MLIR bytecode (a StableHLO portable artifact) or MLIR text.
    Mlir,
    /// `"hlo"`: a serialized `xla.HloModuleProto`.
    Hlo,
    /// `"hlo_with_config"`: a serialized `xla.HloModuleProtoWithConfig`.
    HloWithConfig,
}

impl ProgramFormat {
    pub fn parse(format: &str) -> Result<Self> {
        match format {
            "mlir" => Ok(ProgramFormat::Mlir),
            "hlo" => Ok(ProgramFormat::Hlo),
            "hlo_with_config" => Ok(ProgramFormat::HloWithConfig),
            other => Err(Error::invalid(format!(
                "unknown program format {other:?}; apu reads \"mlir\" (bytecode or text), \"hlo\" and \"hlo_with_config\""
            ))),
        }
    }
}

/// The magic number that starts MLIR bytecode.
pub const MLIR_BYTECODE_MAGIC: &[u8; 4] = b"ML\xefR";

/// Reads a program in the given PJRT format into a module.
pub fn read_program(format: ProgramFormat, code: &[u8]) -> Result<Module> {
    match format {
        ProgramFormat::Mlir if code.starts_with(MLIR_BYTECODE_MAGIC) => crate::vhlo::read_vhlo_bytecode(code),
        ProgramFormat::Mlir => Err(Error::unimplemented("StableHLO text reader is not built yet")),
        ProgramFormat::Hlo => crate::hlo::read_hlo_module_proto(code),
        ProgramFormat::HloWithConfig => crate::hlo::read_hlo_module_proto_with_config(code),
    }
}
