//! The case table machinery: each case is a function over a loaded plugin; a table says whether
//! it must hold for every conforming plugin ("shared", checked against XLA's own CPU plugin too)
//! or only for apu.
use super::plugin::Plugin;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A case that could not run here (missing sample, ...). Returned as an error; the runner
/// reports it as skipped rather than failed.
#[derive(Debug)]
pub struct Skip(pub String);

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped: {}", self.0)
    }
}

impl std::error::Error for Skip {}

pub type CaseResult = anyhow::Result<()>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Must behave alike on apu and on XLA's CPU plugin.
    Shared,
    /// apu's own choices (name, exact version, ...).
    ApuOnly,
}

pub struct Case {
    pub name: &'static str,
    pub scope: Scope,
    pub run: fn(&Plugin) -> CaseResult,
}

#[derive(Default)]
pub struct Report {
    pub passed: Vec<&'static str>,
    pub failed: Vec<(&'static str, String)>,
    pub skipped: Vec<(&'static str, String)>,
}

/// Runs every case whose scope is in `scopes` (and whose name contains `APU_CONFORMANCE_CASES`
/// when set), isolating panics so that one broken case does not hide the others.
pub fn run(plugin: &Plugin, label: &str, cases: &[Case], scopes: &[Scope]) -> Report {
    let filter = std::env::var("APU_CONFORMANCE_CASES").ok();
    let mut report = Report::default();
    for case in cases.iter().filter(|c| scopes.contains(&c.scope)) {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| (case.run)(plugin)));
        match outcome {
            Ok(Ok(())) => {
                println!("[{label}] {} ... ok", case.name);
                report.passed.push(case.name);
            }
            Ok(Err(e)) if e.downcast_ref::<Skip>().is_some() => {
                let why = e.downcast_ref::<Skip>().map(|s| s.0.clone()).unwrap_or_default();
                println!("[{label}] {} ... skipped: {why}", case.name);
                report.skipped.push((case.name, why));
            }
            Ok(Err(e)) => {
                println!("[{label}] {} ... FAILED: {e:#}", case.name);
                report.failed.push((case.name, format!("{e:#}")));
            }
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                println!("[{label}] {} ... FAILED (panic): {message}", case.name);
                report.failed.push((case.name, format!("panic: {message}")));
            }
        }
    }
    println!(
        "[{label}] {} passed, {} failed, {} skipped",
        report.passed.len(),
        report.failed.len(),
        report.skipped.len()
    );
    report
}
