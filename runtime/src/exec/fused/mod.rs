//! Evaluation of fused elementwise expressions ([`apu_compiler::plan::Expr`]) over ranges of a
//! kernel's flat index space, CHUNK elements at a time, so that every intermediate stays in L1 and
//! each instruction is a tight loop over a small array the compiler can vectorise.

pub const CHUNK: usize = 1024;

/// Rows at least this long end chunks where they end, when a per-row operand has a scalar form:
/// a chunk within one row then takes the scalar form, where one straddling rows looks the value up
/// per element. Shorter rows straddle (more, smaller chunks would cost more than the lookups).
pub(super) const MIN_ROW_CUT: usize = 256;

mod analysis;
mod capabilities;
mod compiled;
mod compute;
mod cpu;
mod dispatch;
pub(super) mod fastmath;
mod registers;
#[cfg(test)]
mod tests;

use analysis::*;
pub use capabilities::*;
pub use compiled::*;
pub use compute::*;
pub(crate) use cpu::*;
pub use dispatch::*;
pub use registers::*;
