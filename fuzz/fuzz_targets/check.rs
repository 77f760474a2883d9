//! What every target does with a module a reader accepted: print it, validate it, and read the
//! printed text back. None of these may panic, whatever the reader produced; errors are fine.

use apu_compiler::ir::Module;

pub fn exercise(module: Module) {
    let text = apu_compiler::print::print_module(&module);
    if apu_compiler::valid::validate(module).is_ok() {
        let _ = apu_compiler::text::parse_module(&text);
    }
}
