//! PJRT C-ABI conformance suite (cases in tests/conformance/, documented in
//! docs/conformance-suite.md).
//!
//! - `apu_plugin`: every case against apu's own library: `APU_PJRT_PLUGIN`, or else the newest
//!   of `target/{debug,release}/libapu.so` (build it first: `cargo build --lib`). Skipped while
//!   that library does not exist or does not export `GetPjrtApi`.
//! - `xla_cpu_plugin`: the shared cases against XLA's own CPU plugin: `APU_XLA_CPU_PLUGIN`, or
//!   else the copy fetched by `scripts/fetch-xla-cpu-plugin.sh`. Skipped when absent.
//!
//! `APU_CONFORMANCE_CASES=<substring>` runs only the matching cases.
#[path = "conformance/mod.rs"]
mod conformance;

use conformance::cases::CASES;
use conformance::plugin::{Flavor, LoadError, Plugin};
use conformance::runner::{run, Scope};
use std::path::PathBuf;
use std::sync::OnceLock;

fn apu_library() -> (PathBuf, bool) {
    if let Some(path) = std::env::var_os("APU_PJRT_PLUGIN") {
        return (PathBuf::from(path), true);
    }
    // Integration tests link the rlib; the cdylib exists only after `cargo build` (debug) or
    // `cargo build --release`. Take the most recently built one.
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    let candidates = [target.join("debug/libapu.so"), target.join("release/libapu.so")];
    let newest = candidates
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p.clone())))
        .max()
        .map(|(_, p)| p)
        .unwrap_or_else(|| candidates[0].clone());
    warn_if_stale(&newest);
    (newest, false)
}

/// A library older than the sources it was built from tests yesterday's code.
fn warn_if_stale(library: &std::path::Path) {
    let Ok(built) = std::fs::metadata(library).and_then(|m| m.modified()) else { return };
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let newest_source = walk_newest(&src);
    if newest_source.is_some_and(|t| t > built) {
        println!(
            "warning: {} is older than src/; run `cargo build --lib` (or set APU_PJRT_PLUGIN)",
            library.display()
        );
    }
}

fn walk_newest(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() { walk_newest(&path) } else { entry.metadata().ok()?.modified().ok() };
        newest = newest.max(t);
    }
    newest
}

fn xla_cpu_library() -> (PathBuf, bool) {
    if let Some(path) = std::env::var_os("APU_XLA_CPU_PLUGIN") {
        return (PathBuf::from(path), true);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    (home.join(".cache/apu/xla-cpu-plugin/lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so"), false)
}

/// Loads each plugin at most once per process (libraries are never unloaded).
fn load_once(cell: &'static OnceLock<Result<Plugin, String>>, path: PathBuf, flavor: Flavor, explicit: bool) -> Option<&'static Plugin> {
    let loaded = cell.get_or_init(|| Plugin::load(&path, flavor).map_err(|e| e.to_string()));
    match loaded {
        Ok(plugin) => Some(plugin),
        Err(why) => {
            let explicitly_requested_but_missing = explicit && !why.contains("does not export GetPjrtApi");
            assert!(!explicitly_requested_but_missing, "{why}");
            println!("skipped: {why}");
            None
        }
    }
}

fn assert_passed(label: &str, report: conformance::runner::Report) {
    assert!(
        report.failed.is_empty(),
        "{label}: {} case(s) failed:\n{}",
        report.failed.len(),
        report.failed.iter().map(|(n, e)| format!("  {n}: {e}")).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn xla_cpu_plugin() {
    static PLUGIN: OnceLock<Result<Plugin, String>> = OnceLock::new();
    let (path, explicit) = xla_cpu_library();
    let Some(plugin) = load_once(&PLUGIN, path, Flavor::XlaCpu, explicit) else {
        println!("skipped: XLA CPU plugin not found (run scripts/fetch-xla-cpu-plugin.sh or set APU_XLA_CPU_PLUGIN)");
        return;
    };
    assert_passed("xla-cpu", run(plugin, "xla-cpu", CASES, &[Scope::Shared]));
}

#[test]
fn apu_plugin() {
    static PLUGIN: OnceLock<Result<Plugin, String>> = OnceLock::new();
    let (path, explicit) = apu_library();
    let Some(plugin) = load_once(&PLUGIN, path, Flavor::Apu, explicit) else {
        println!("skipped: apu plugin cases (library not usable yet)");
        return;
    };
    let mut report = run(plugin, "apu", CASES, &[Scope::Shared, Scope::ApuOnly]);
    let pending = conformance::apu_pending::APU_PENDING;
    for name in pending.iter().filter(|n| report.passed.contains(n)) {
        println!("[apu] {name} passes now: remove it from tests/conformance/apu_pending.rs");
    }
    report.failed.retain(|(name, why)| {
        let is_pending = pending.contains(name);
        if is_pending {
            println!("[apu] {name} ... pending (still fails: {why})");
        }
        !is_pending
    });
    assert_passed("apu", report);
}

/// Keeps LoadError's variants referenced for readers of this file.
#[allow(dead_code)]
fn _load_error_kinds(e: LoadError) -> String {
    e.to_string()
}
