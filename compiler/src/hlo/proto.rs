//! Rust types generated (by `build.rs`) from apu's own `.proto` subset in `proto/`.

#![allow(clippy::all, missing_docs, rustdoc::all)]

include!(concat!(env!("OUT_DIR"), "/xla.rs"));

/// The encoded `FileDescriptorSet` of apu's `.proto` files, for the wire-compatibility test.
#[cfg(test)]
pub(crate) const APU_DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/apu_xla_descriptors.binpb"));
