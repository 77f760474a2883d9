//! The StableHLO text reader: MLIR text (generic op form and the pretty forms JAX prints) → IR.
//!
//! Layout: `lexer` (tokens with byte spans), `parser` (types, attributes, locations), `ops`
//! (modules, functions, regions, generic ops), `pretty` (custom op forms), `opdefs` (op name +
//! attributes ↔ [`crate::ir::OpKind`], shared with the printer), `literal_text` (`dense<...>`
//! values, narrow floats through [`crate::ir::minifloat`]), `chlo` (CHLO ops expanded into IR ops at read time by the shared
//! [`crate::chlo`] expansions: erf, erf_inv, erfc, lgamma, digamma, top_k, inverse
//! trigonometric/hyperbolic functions, ...).
//!
//! Errors name `line:column` and what was expected; unsupported constructs (dynamic shapes,
//! quantized types, unknown ops) are UNIMPLEMENTED errors. Ops without a `loc(...)` get the
//! location `<text>:line:col`. Nesting is bounded and parsing runs on its own large-stack thread,
//! so hostile input gives an error, never a crash. MHLO spellings (`mhlo.add`, `mhlo.copy`,
//! `mhlo.broadcast`) and the old `func` keyword are accepted for hand-written and test programs.

pub mod attr;
mod chlo;
mod ffi_attrs;
pub mod lexer;
pub mod literal_text;
pub mod opdefs;
mod ops;
mod parser;
mod pretty;
mod sdy;

use crate::ir::Module;
use crate::Result;

/// Stack for the parsing thread. The parser is recursive descent and bounds its nesting depth
/// (`parser::MAX_DEPTH`); unoptimized builds need several hundred KiB per nested region, more than
/// a default 2 MiB thread has. Only the pages actually touched are committed.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// Parses StableHLO/MLIR text into a module whose entry is `@main`.
pub fn parse_module(text: &str) -> Result<Module> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("apu-text-parser".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || parser::Parser::new(text)?.parse_top_level())
            .map_err(|e| crate::Error::internal(format!("cannot start the text parser thread: {e}")))?;
        worker.join().map_err(|_| crate::Error::internal("the text parser panicked"))?
    })
}
