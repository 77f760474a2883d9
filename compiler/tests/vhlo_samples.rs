//! Reads every JAX portable artifact in the shared samples and checks it against the program's
//! StableHLO text: the `@main` signature and the ops each program is known to contain.

use apu_compiler::ir::{BinaryOp, Function, Module, Op, OpKind, Region, Type};
use apu_compiler::read_vhlo_bytecode;
use std::path::{Path, PathBuf};

fn samples_dir() -> Option<PathBuf> {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in start.ancestors() {
        let candidate = dir.join("shared/samples/jax");
        if candidate.is_dir() {
            return Some(candidate);
        }
    }
    None
}

/// Every `*.vhlo_v*.mlirbc` sample with its program name and target.
fn artifacts() -> Option<Vec<(String, String, Vec<u8>)>> {
    let Some(dir) = samples_dir() else {
        eprintln!("skipped: samples not found");
        return None;
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".mlirbc") {
            let (program, target) = stem.split_once(".vhlo_").unwrap();
            out.push((program.to_string(), target.to_string(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Some(out)
}

#[test]
fn every_sample_reads() {
    let Some(all) = artifacts() else { return };
    assert!(all.len() >= 45, "expected 15 programs x 3 targets, found {}", all.len());
    let mut failures = Vec::new();
    for (program, target, bytes) in &all {
        if let Err(e) = read_vhlo_bytecode(bytes) {
            failures.push(format!("{program} {target}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
