//! Typed FFI custom calls (`jax.ffi`): apu runs handlers written against XLA's FFI C API on its host
//! memory, with its own implementation of that API ([`api::API`], layouts in [`abi`]). Handlers are
//! registered by name ([`registry`]) and called by the `ffi call` plan step ([`call::call`]).

pub mod abi;
pub mod api;
pub mod call;
pub mod context;
pub mod registry;

/// The platform name handlers are registered for.
pub const PLATFORM: &str = "apu";

pub use call::call;
