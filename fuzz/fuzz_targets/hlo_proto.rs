//! Arbitrary bytes into the HloModuleProto reader (plain and with-config forms).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = apu_compiler::hlo::read_hlo_module_proto(data) {
        check::exercise(m);
    }
    if let Ok(m) = apu_compiler::hlo::read_hlo_module_proto_with_config(data) {
        check::exercise(m);
    }
});
