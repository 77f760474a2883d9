//! Locating the shared sample programs (`<repo>/../shared/samples/jax`) and the suite's own
//! fixtures (`tests/conformance/fixtures`).
use std::path::PathBuf;

pub fn jax_samples_dir() -> Option<PathBuf> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared/samples/jax");
        if candidate.join("add.hlo.pb").is_file() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/fixtures").join(name)
}

/// Reads a sample file; a missing samples directory is reported as a skip reason.
pub fn jax_sample(name: &str) -> Result<Vec<u8>, super::runner::Skip> {
    let dir = jax_samples_dir().ok_or_else(|| super::runner::Skip("samples not found (shared/samples/jax)".into()))?;
    std::fs::read(dir.join(name)).map_err(|e| super::runner::Skip(format!("sample {name}: {e}")))
}
