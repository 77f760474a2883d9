//! Arbitrary bytes into the VHLO bytecode reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = apu_compiler::vhlo::read_vhlo_bytecode(data) {
        check::exercise(m);
    }
});
