//! Helpers for unit tests.

use std::path::PathBuf;

/// `<repo>/../shared/samples`, found by searching upward from the crate, if present.
pub(crate) fn samples_dir() -> Option<PathBuf> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared/samples");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if !dir.pop() {
            return None;
        }
    }
}
