//! The `apu` command-line tool: `inspect` prints IR, `run` executes with npz inputs and writes npz outputs.

use std::path::PathBuf;
use std::process::Command;

fn samples() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/samples/jax"));
    p.is_dir().then_some(p)
}

#[test]
fn inspect_prints_the_entry_function_of_each_format() {
    let Some(dir) = samples() else {
        eprintln!("skipped: samples not found");
        return;
    };
    for file in ["add.vhlo_v1_13_7.mlirbc", "add.stablehlo.mlir", "add.stablehlo_generic.mlir"] {
        let out = Command::new(env!("CARGO_BIN_EXE_apu")).arg("inspect").arg(dir.join(file)).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("func.func public @main"), "{file}: {text}");
        assert!(text.contains("stablehlo.add"), "{file}: {text}");
    }
}

#[test]
fn run_writes_outputs_equal_to_jax() {
    let Some(dir) = samples() else {
        eprintln!("skipped: samples not found");
        return;
    };
    let out_path = std::env::temp_dir().join(format!("apu-cli-{}.npz", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_apu"))
        .arg("run")
        .arg(dir.join("while_loop.vhlo_v1_13_7.mlirbc"))
        .arg("--inputs")
        .arg(dir.join("while_loop.io.npz"))
        .arg("--out")
        .arg(&out_path)
        .status()
        .unwrap();
    assert!(status.success());
    let got = apu_runtime::npz::load_npz(&out_path).unwrap();
    std::fs::remove_file(&out_path).ok();
    let want = apu_runtime::npz::load_npz(&dir.join("while_loop.io.npz")).unwrap();
    // The loop counter is exact; the f32 state went through the same 10 multiply-adds as on CPU.
    for (name, t) in &got {
        let w = &want.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(t.ty, w.ty, "{name}");
        assert_eq!(t.bytes(), w.bytes(), "{name}");
    }
    assert_eq!(got.len(), 2);
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    let path = std::env::temp_dir().join(format!("apu-cli-bad-{}.mlirbc", std::process::id()));
    std::fs::write(&path, b"ML\xefR\x06garbage").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_apu")).arg("inspect").arg(&path).output().unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("malformed MLIR bytecode"), "{}", String::from_utf8_lossy(&out.stderr));
}
