//! Helpers shared by the VHLO reader tests: locating sample files, reading the `@main` signature and
//! op counts of StableHLO text, and walking IR.
#![allow(dead_code)]

use apu_compiler::ir::{BinaryOp, Function, Location, Module, Op, OpKind, Region};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `<repo>/../shared/samples/jax`, searched upward from this crate.
pub fn samples_dir() -> Option<PathBuf> {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    start.ancestors().map(|d| d.join("shared/samples/jax")).find(|c| c.is_dir())
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vhlo")
}

/// Every `*.vhlo_<target>.mlirbc` in `dir`: (program, target, bytes), sorted.
pub fn artifacts_in(dir: &Path) -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".mlirbc") {
            let (program, target) = stem.split_once(".vhlo_").unwrap();
            out.push((program.to_string(), target.to_string(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// The `tensor<…>` and token types of the `@main` line of a StableHLO text file: (params, results).
pub fn text_signature(text: &str) -> (Vec<String>, Vec<String>) {
    let line = text.lines().find(|l| l.contains("func.func public @main(")).expect("@main line");
    let (params, results) = line.split_once(") -> ").expect("signature arrow");
    (tensor_types(params), tensor_types(results))
}

fn tensor_types(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let token = rest.find("!stablehlo.token");
        let tensor = rest.find("tensor<");
        if let Some(t) = token.filter(|&t| tensor.map_or(true, |s| t < s)) {
            out.push("!stablehlo.token".to_string());
            rest = &rest[t + "!stablehlo.token".len()..];
            continue;
        }
        let Some(start) = tensor else { break };
        // Nested brackets only occur in complex<…> element types.
        let mut depth = 0;
        let mut end = start;
        for (i, c) in rest[start..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(rest[start..end].to_string());
        rest = &rest[end..];
    }
    out
}

/// Op counts of pretty StableHLO text: every `stablehlo.<name>` token except `return`, attributes
/// (`#stablehlo.…`) and types (`!stablehlo.…`). The `applies stablehlo.x` reducer shorthand counts,
/// as the IR keeps the reducer as one op in a region.
pub fn text_op_counts(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut rest = text;
    while let Some(i) = rest.find("stablehlo.") {
        let sigil = rest[..i].ends_with('#') || rest[..i].ends_with('!');
        rest = &rest[i + "stablehlo.".len()..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if name != "return" && !name.is_empty() && !sigil {
            *counts.entry(name).or_default() += 1;
        }
    }
    counts
}

/// Calls `f` on every op of a region, nested regions included.
pub fn walk<'m>(region: &'m Region, f: &mut impl FnMut(&'m Op)) {
    for op in &region.ops {
        f(op);
        for r in &op.regions {
            walk(r, f);
        }
    }
}

pub fn all_ops(module: &Module) -> Vec<&Op> {
    let mut out = Vec::new();
    for func in &module.functions {
        walk(&func.body, &mut |op| out.push(op));
    }
    out
}

pub fn op_counts(module: &Module) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for op in all_ops(module) {
        *counts.entry(op.kind.name().to_string()).or_default() += 1;
    }
    counts
}

pub fn count(module: &Module, name: &str) -> usize {
    op_counts(module).get(name).copied().unwrap_or(0)
}

/// Compares IR op counts with the text's; constants only bounded (the serializer merges equal ones).
pub fn assert_op_counts_match(module: &Module, text: &str, what: &str) {
    let mut ir = op_counts(module);
    let mut expected = text_op_counts(text);
    ir.remove("call");
    let (got, max) = (ir.remove("constant").unwrap_or(0), expected.remove("constant").unwrap_or(0));
    assert!(got <= max && (got > 0) == (max > 0), "{what}: {got} constants for {max} in the text");
    assert_eq!(ir, expected, "{what}");
}

/// Every value is defined exactly once (as a parameter or result) before it is used, and elementwise
/// binary ops see operands of their result's type: catches value-numbering mistakes.
pub fn check_values(func: &Function) {
    fn visit(func: &Function, region: &Region, defined: &mut Vec<bool>) {
        for p in &region.params {
            assert!(!std::mem::replace(&mut defined[p.index()], true), "@{}: {p} defined twice", func.name);
        }
        for op in &region.ops {
            for v in &op.operands {
                assert!(defined[v.index()], "@{}: {} uses {v} before its definition", func.name, op.kind.name());
            }
            for r in &op.regions {
                visit(func, r, defined);
            }
            for v in &op.results {
                assert!(!std::mem::replace(&mut defined[v.index()], true), "@{}: {v} defined twice", func.name);
            }
            if let OpKind::Binary(b) = op.kind {
                if b != BinaryOp::Complex {
                    let t = func.value_type(op.results[0]);
                    assert_eq!(func.value_type(op.operands[0]), t, "@{}: {:?} operand type", func.name, b);
                    assert_eq!(func.value_type(op.operands[1]), t, "@{}: {:?} operand type", func.name, b);
                }
            }
        }
        for v in &region.results {
            assert!(defined[v.index()], "@{}: returns undefined {v}", func.name);
        }
    }
    let mut defined = vec![false; func.values.len()];
    visit(func, &func.body, &mut defined);
}

/// Clears locations, which legitimately differ between targets (file ranges vs file:line:col).
pub fn strip_locations(module: &mut Module) {
    fn strip(region: &mut Region) {
        for op in &mut region.ops {
            op.location = Location::default();
            for r in &mut op.regions {
                strip(r);
            }
        }
    }
    for f in &mut module.functions {
        strip(&mut f.body);
    }
}
