//! The apu plugin: PJRT C API handlers over the compiler and runtime crates.

pub mod version;
pub mod tf;
