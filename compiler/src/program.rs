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

/// The format of a program file, from its bytes (for files, which carry no format name): MLIR
/// bytecode by its magic, text if it is UTF-8 that looks like MLIR, else a serialized HloModuleProto.
pub fn detect_format(code: &[u8]) -> ProgramFormat {
    if code.starts_with(MLIR_BYTECODE_MAGIC) {
        return ProgramFormat::Mlir;
    }
    match std::str::from_utf8(code) {
        Ok(text) if text.contains("func") || text.trim_start().starts_with("module") => ProgramFormat::Mlir,
        _ => ProgramFormat::Hlo,
    }
}

impl ProgramFormat {
    /// The PJRT name of the format (what [`ProgramFormat::parse`] reads).
    pub fn name(self) -> &'static str {
        match self {
            ProgramFormat::Mlir => "mlir",
            ProgramFormat::Hlo => "hlo",
            ProgramFormat::HloWithConfig => "hlo_with_config",
        }
    }
}

/// Reads a program in the given PJRT format into a module.
pub fn read_program(format: ProgramFormat, code: &[u8]) -> Result<Module> {
    let mut module = read_format(format, code)?;
    // Calls XLA answers with plain ops become those ops here, for every reader and every path.
    crate::chlo::approx_top_k::expand_approx_top_k(&mut module)?;
    Ok(module)
}

fn read_format(format: ProgramFormat, code: &[u8]) -> Result<Module> {
    match format {
        ProgramFormat::Mlir if code.starts_with(MLIR_BYTECODE_MAGIC) => crate::vhlo::read_vhlo_bytecode(code),
        ProgramFormat::Mlir => {
            let text = std::str::from_utf8(code).map_err(|e| {
                Error::invalid(format!(
                    "MLIR program is neither bytecode (no 'ML\\xefR' magic) nor valid UTF-8 text: invalid byte at offset {}",
                    e.valid_up_to()
                ))
            })?;
            crate::text::parse_module(text)
        }
        ProgramFormat::Hlo => crate::hlo::read_hlo_module_proto(code),
        ProgramFormat::HloWithConfig => crate::hlo::read_hlo_module_proto_with_config(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_detected_from_bytes() {
        assert_eq!(detect_format(b"ML\xefR\x00rest"), ProgramFormat::Mlir);
        assert_eq!(detect_format(b"func.func @main() {\n}"), ProgramFormat::Mlir);
        assert_eq!(detect_format(b"  module @m {}"), ProgramFormat::Mlir);
        assert_eq!(detect_format(b"\x0a\x03abc"), ProgramFormat::Hlo);
        for f in [ProgramFormat::Mlir, ProgramFormat::Hlo, ProgramFormat::HloWithConfig] {
            assert_eq!(ProgramFormat::parse(f.name()).unwrap(), f);
        }
    }
}
