//! The op-coverage scoreboard, `docs/op-coverage.md`, computed from real serialized programs: for each of
//! the 145 VHLO op definitions, which artifacts contain it, whether the VHLO reader maps it (or rejects it with
//! a named UNIMPLEMENTED error), and whether the interpreter accepts the programs that contain it.
//! `BLESS=1` rewrites the file; without it the test fails when the file is stale, and always fails when a
//! count went down (the scoreboard only goes up).

use apu_compiler::bytecode::{self, RawOp};
use apu_compiler::vhlo::dialect::{SdyDecoder, VhloDecoder};
use apu_compiler::vhlo::op_table::OP_PROPERTIES;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The shared JAX samples, found beside the checkout or above it, or None when this checkout has none
/// (a clone under /tmp, say): the scoreboard counts them, so without them it cannot be judged.
fn shared_jax_samples() -> Option<PathBuf> {
    Path::new(ROOT).ancestors().map(|d| d.join("shared/samples/jax")).find(|c| c.is_dir())
}

fn artifact_dirs(samples: PathBuf) -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    vec![
        samples,
        root.join("tests/fixtures/programs"),
        root.join("tests/fixtures/programs_jax12"),
        root.join("compiler/tests/fixtures/vhlo"),
        root.join("compiler/tests/fixtures/vhlo_ops"),
    ]
}

fn collect_names(op: &RawOp<'_>, out: &mut BTreeSet<String>) {
    out.insert(op.name.to_string());
    for r in &op.regions {
        for b in &r.blocks {
            for o in &b.ops {
                collect_names(o, out);
            }
        }
    }
}

#[derive(Default)]
struct OpStatus {
    files: usize,
    read_ok: usize,
    run_ok: usize,
    rejection: Option<String>,
}

#[test]
fn op_coverage_scoreboard_is_current_and_never_goes_down() {
    let Some(samples) = shared_jax_samples() else {
        eprintln!("skipped: no shared/samples/jax beside or above {ROOT}, and the scoreboard counts those programs");
        return;
    };
    let (vhlo, sdy) = (VhloDecoder, SdyDecoder);
    let mut status: BTreeMap<String, OpStatus> = BTreeMap::new();
    let mut files = 0;
    for dir in artifact_dirs(samples) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "mlirbc")) {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(file) = bytecode::read(&bytes, &[("vhlo", &vhlo as &dyn bytecode::DialectDecoder), ("sdy", &sdy)])
            else {
                continue;
            };
            files += 1;
            let mut names = BTreeSet::new();
            for op in &file.ops {
                collect_names(op, &mut names);
            }
            let read = apu_compiler::read_vhlo_bytecode(&bytes);
            let runs = match &read {
                Ok(m) => apu_compiler::valid::validate(m.clone())
                    .and_then(|v| apu_runtime::interp::check_supported(&v))
                    .is_ok(),
                Err(_) => false,
            };
            for name in names.iter().filter_map(|n| n.strip_prefix("vhlo.")) {
                let s = status.entry(name.to_string()).or_default();
                s.files += 1;
                match &read {
                    Ok(_) => {
                        s.read_ok += 1;
                        s.run_ok += runs as usize;
                    }
                    Err(e) if e.message.contains(name) || e.context.iter().any(|c| c.contains(name)) => {
                        s.rejection.get_or_insert_with(|| e.message.lines().next().unwrap_or("").to_string());
                    }
                    Err(_) => {}
                }
            }
        }
    }

    let mut rows = Vec::new();
    let (mut seen, mut mapped, mut runnable, mut rejected) = (0, 0, 0, 0);
    for (name, _) in OP_PROPERTIES {
        let s = status.get(*name);
        let (seen_in, reader, interp) = match s {
            None => ("0".to_string(), "not seen in a real program yet".to_string(), String::new()),
            Some(s) => {
                seen += 1;
                let reader = if s.read_ok > 0 {
                    mapped += 1;
                    "mapped".to_string()
                } else if let Some(r) = &s.rejection {
                    rejected += 1;
                    format!("rejected: {}", r.replace('|', "\\|"))
                } else {
                    "fails (see tests)".to_string()
                };
                let interp = if s.run_ok > 0 {
                    runnable += 1;
                    "runs".to_string()
                } else if s.read_ok > 0 {
                    "UNIMPLEMENTED in the executor".to_string()
                } else {
                    String::new()
                };
                (s.files.to_string(), reader, interp)
            }
        };
        rows.push(format!("| `vhlo.{name}` | {seen_in} | {reader} | {interp} |"));
    }
    let doc = format!(
        "# Op coverage\n\n\
         Generated by `runtime/tests/op_coverage.rs` from {files} real serialized programs (the shared JAX samples, \
         the project's fixtures in `tests/fixtures/programs` and, as jax 0.12.0.1 sends them, `tests/fixtures/programs_jax12`, the VHLO reader's fixtures in `compiler/tests/fixtures/vhlo`, and the hand-written \
         one-op-family programs in `compiler/tests/fixtures/vhlo_ops`, serialized by jaxlib 0.10.2 for targets 0.9.0 to \
         1.17.0 and by jaxlib 0.12.0.1 for 1.22.0, the newest target, whose VHLO vocabulary is the 145 definitions of this table). Regenerate with `BLESS=1 cargo test -p apu-runtime --test op_coverage`; \
         the test fails when this file is stale or when a count goes down.\n\n\
         - VHLO op definitions: {total}\n\
         - seen in a real program: {seen}\n\
         - mapped by the VHLO reader: {mapped}\n\
         - rejected with a named UNIMPLEMENTED error: {rejected}\n\
         - run by the executor (a program containing the op passes `check_supported`): {runnable}\n\n\
         | op | artifacts containing it | VHLO reader | executor |\n|---|---|---|---|\n{rows}\n",
        total = OP_PROPERTIES.len(),
        rows = rows.join("\n"),
    );

    let path = Path::new(ROOT).join("docs/op-coverage.md");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let count = |text: &str, key: &str| -> usize {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("- {key}: ")).and_then(|v| v.trim().parse().ok()))
            .unwrap_or(0)
    };
    for key in ["seen in a real program", "mapped by the VHLO reader"] {
        assert!(count(&doc, key) >= count(&old, key), "op coverage went down: {key} {} -> {}", count(&old, key), count(&doc, key));
    }
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &doc).unwrap();
    } else {
        assert!(old == doc, "docs/op-coverage.md is stale: rerun with BLESS=1");
    }
}
