//! Arbitrary bytes (UTF-8 only: the reader takes `&str`) into the StableHLO text reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(m) = apu_compiler::text::parse_module(text) {
        check::exercise(m);
    }
});
