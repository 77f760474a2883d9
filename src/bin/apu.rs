//! `apu`: inspect and run programs from the command line.
fn main() {
    eprintln!("apu: no commands yet");
    std::process::exit(2);
}
