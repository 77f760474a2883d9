//! Runs the text reader and validator over a directory of `.mlir` files named by the environment
//! variable `APU_TEXT_CORPUS` (for example a checkout of StableHLO's `testdata`), and reports which
//! files fail and why. Ignored by default: `APU_TEXT_CORPUS=dir cargo test -p apu-compiler --test text_corpus -- --ignored --nocapture`.

use apu_compiler::error::ErrorKind;
use apu_compiler::print::print_module;
use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "mlir") {
            out.push(p);
        }
    }
}

#[test]
#[ignore]
fn corpus_report() {
    let Some(dir) = std::env::var_os("APU_TEXT_CORPUS") else {
        eprintln!("skipped: set APU_TEXT_CORPUS");
        return;
    };
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files);
    files.sort();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let (class, msg) = match parse_module(&text) {
            Err(e) if e.kind == ErrorKind::Unimplemented => ("unimplemented", e.message),
            Err(e) => ("parse error", e.message),
            Ok(m) => {
                let printed = print_module(&m);
                match parse_module(&printed) {
                    Err(e) => ("reprint does not parse", e.message),
                    Ok(again) if print_module(&again) != printed => ("print not a fixed point", String::new()),
                    Ok(_) => match validate(m) {
                        Err(e) => ("invalid", e.to_string()),
                        Ok(_) => ("ok", String::new()),
                    },
                }
            }
        };
        *counts.entry(class).or_default() += 1;
        if class != "ok" {
            // Group by the message without positions and numbers.
            let key: String = msg.split(": ").skip(1).collect::<Vec<_>>().join(": ").chars().filter(|c| !c.is_ascii_digit()).take(90).collect();
            let entry = reasons.entry(format!("{class}: {key}")).or_insert((0, f.display().to_string()));
            entry.0 += 1;
        }
    }
    eprintln!("{counts:?}");
    let mut rs: Vec<_> = reasons.into_iter().collect();
    rs.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (k, (n, example)) in rs.iter().take(60) {
        eprintln!("{n:5}  {k}\n       e.g. {example}");
    }
}

#[test]
#[ignore]
fn corpus_one_file() {
    let Some(f) = std::env::var_os("APU_TEXT_FILE") else { return };
    let text = std::fs::read_to_string(f).unwrap();
    match parse_module(&text) {
        Err(e) => eprintln!("parse: {e}"),
        Ok(m) => match validate(m) {
            Err(e) => eprintln!("validate: {e}"),
            Ok(_) => eprintln!("ok"),
        },
    }
}

#[test]
#[ignore]
fn large_program_timing() {
    // 100k chained adds: parse, validate and print must stay linear.
    let n = 100_000;
    let mut text = String::from("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n");
    for i in 1..n {
        text.push_str(&format!("  %{i} = stablehlo.add %{}, %arg0 : tensor<4xf32> loc(\"f.py\":{i}:1)\n", i - 1));
    }
    text.push_str(&format!("  return %{} : tensor<4xf32>\n}}\n", n - 1));
    let t = std::time::Instant::now();
    let m = parse_module(&text).unwrap();
    let parsed = t.elapsed();
    let printed = print_module(&m);
    let p = t.elapsed();
    validate(m).unwrap();
    eprintln!("{} bytes: parse {:?}, print {:?}, validate {:?}", text.len(), parsed, p - parsed, t.elapsed() - p);
    assert!(printed.len() > text.len() / 2);
}

#[test]
#[ignore]
fn print_one_file() {
    let Some(f) = std::env::var_os("APU_TEXT_FILE") else { return };
    let m = parse_module(&std::fs::read_to_string(f).unwrap()).unwrap();
    print!("{}", print_module(&m));
}
