//! `apu`: inspect and run programs from the command line.
//!
//! ```text
//! apu inspect FILE                       print the IR of a program (VHLO bytecode, StableHLO text or HloModuleProto)
//! apu run FILE --inputs in.npz [--out out.npz]
//!                                        execute it on the APU (inputs in0, in1, … in @main order)
//! ```

use apu_compiler::program::detect_format;
use apu_runtime::client::compile::{compile, read_valid, Compiled};
use apu_runtime::{npz, Tensor};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage:\n  apu inspect FILE\n  apu run FILE --inputs IN.npz [--out OUT.npz]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("apu: {msg}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("inspect") if args.len() == 2 => inspect(Path::new(&args[1])),
        Some("run") if args.len() >= 2 => {
            let opts = RunOptions::parse(&args[2..])?;
            run(Path::new(&args[1]), &opts)
        }
        _ => Err(USAGE.to_string()),
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Compiles a program file through the plug-in's pipeline (`APU_EXECUTOR=interp` selects the
/// reference interpreter).
fn load(path: &Path) -> Result<Compiled, String> {
    let code = read(path)?;
    compile(detect_format(&code).name(), &code).map_err(|e| format!("{}: {e}", path.display()))
}

fn inspect(path: &Path) -> Result<(), String> {
    let code = read(path)?;
    let module = read_valid(detect_format(&code).name(), &code).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{}", apu_compiler::print::print_module(&module));
    Ok(())
}

struct RunOptions {
    inputs: Option<PathBuf>,
    out: Option<PathBuf>,
}

impl RunOptions {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut opts = RunOptions { inputs: None, out: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = || it.clone().next().cloned().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
            match flag.as_str() {
                "--inputs" => opts.inputs = Some(PathBuf::from(value()?)),
                "--out" => opts.out = Some(PathBuf::from(value()?)),
                other => return Err(format!("unknown option {other}\n{USAGE}")),
            }
            it.next();
        }
        Ok(opts)
    }
}

fn run(path: &Path, opts: &RunOptions) -> Result<(), String> {
    let program = load(path)?.program;
    let inputs: Vec<Tensor> = match &opts.inputs {
        Some(p) => {
            let entries = npz::load_npz(p).map_err(|e| format!("{}: {e}", p.display()))?;
            (0..)
                .map_while(|i| entries.iter().find(|(n, _)| *n == format!("in{i}")).map(|(_, t)| t.clone()))
                .collect()
        }
        None => Vec::new(),
    };
    let outputs = program.run(&inputs).map_err(|e| e.to_string())?;
    match &opts.out {
        Some(p) => {
            let named: Vec<(String, Tensor)> =
                outputs.into_iter().enumerate().map(|(i, t)| (format!("out{i}"), t)).collect();
            npz::save_npz(p, &named).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        None => {
            for (i, t) in outputs.iter().enumerate() {
                println!("out{i}: {} = {}", t.ty, render(t));
            }
        }
    }
    Ok(())
}

/// A short printable form of a tensor's values (at most 16 elements).
fn render(t: &Tensor) -> String {
    use apu_compiler::ir::ElementType as E;
    let b = t.bytes();
    let w = t.ty.elem.byte_size();
    let n = t.ty.num_elements().min(16);
    let vals: Vec<String> = (0..n)
        .map(|i| {
            let c = &b[i * w..(i + 1) * w];
            match t.ty.elem {
                E::F32 => f32::from_le_bytes(c.try_into().unwrap()).to_string(),
                E::F64 => f64::from_le_bytes(c.try_into().unwrap()).to_string(),
                E::S32 => i32::from_le_bytes(c.try_into().unwrap()).to_string(),
                E::S64 => i64::from_le_bytes(c.try_into().unwrap()).to_string(),
                E::U32 => u32::from_le_bytes(c.try_into().unwrap()).to_string(),
                E::Pred => (c[0] != 0).to_string(),
                _ => format!("0x{}", c.iter().rev().map(|x| format!("{x:02x}")).collect::<String>()),
            }
        })
        .collect();
    let more = if t.ty.num_elements() > n { ", …" } else { "" };
    format!("[{}{more}]", vals.join(", "))
}
