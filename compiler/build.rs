//! Generates the Rust types of apu's own XLA `.proto` subset (`../proto/*.proto`) with prost,
//! using protox as the protobuf compiler so that building needs no `protoc` binary.

use std::path::PathBuf;

fn main() {
    let proto_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let files = ["xla_data.proto", "hlo.proto", "compile_options.proto"];
    for f in &files {
        println!("cargo:rerun-if-changed={}", proto_dir.join(f).display());
    }
    let descriptors = protox::compile(files, [&proto_dir]).unwrap_or_else(|e| {
        panic!("compiling {}: {e}", proto_dir.display());
    });

    // Our own descriptor set, kept for the wire-compatibility test.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let encoded = prost::Message::encode_to_vec(&descriptors);
    std::fs::write(out_dir.join("apu_xla_descriptors.binpb"), encoded).expect("writing descriptor set");

    prost_build::Config::new()
        .compile_fds(descriptors)
        .unwrap_or_else(|e| panic!("generating Rust for the xla protos: {e}"));
}
