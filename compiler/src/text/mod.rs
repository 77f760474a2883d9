//! The StableHLO text reader: MLIR text (generic op form and the pretty forms JAX prints) → IR.
//!
//! Layout: `lexer` (tokens with byte spans), `parser` (types, attributes, locations), `ops`
//! (modules, functions, regions, generic ops), `pretty` (custom op forms), `opdefs` (op name +
//! attributes ↔ [`crate::ir::OpKind`]), `literal_text` and `minifloat` (`dense<...>` values),
//! `chlo` (CHLO ops expanded to IR ops). Errors name `line:column` and what was expected.

pub mod attr;
mod chlo;
mod chlo_f64;
mod chlo_gamma;
mod chlo_math;
pub mod lexer;
pub mod literal_text;
mod minifloat;
pub mod opdefs;
mod ops;
mod parser;
mod pretty;

use crate::ir::Module;
use crate::Result;

/// Parses StableHLO/MLIR text into a module whose entry is `@main`.
pub fn parse_module(text: &str) -> Result<Module> {
    let mut p = parser::Parser::new(text)?;
    p.parse_top_level()
}
