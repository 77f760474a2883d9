//! The version tag the Python package looks for in the library's bytes (see `python/apu_plugin`), so that a
//! wheel never loads a library from another build without exporting an extra symbol.

/// `apu-plugin-version:<crate version>\0`, kept in read-only data even though nothing reads it from Rust.
#[used]
static VERSION_TAG: [u8; TAG_LEN] = tag();

const PREFIX: &[u8] = b"apu-plugin-version:";
const VERSION: &[u8] = env!("CARGO_PKG_VERSION").as_bytes();
const TAG_LEN: usize = PREFIX.len() + VERSION.len() + 1;

const fn tag() -> [u8; TAG_LEN] {
    let mut out = [0u8; TAG_LEN];
    let mut i = 0;
    while i < PREFIX.len() {
        out[i] = PREFIX[i];
        i += 1;
    }
    let mut j = 0;
    while j < VERSION.len() {
        out[i + j] = VERSION[j];
        j += 1;
    }
    out
}
