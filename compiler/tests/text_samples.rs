//! The StableHLO text reader and the printer on every JAX sample: both forms parse and validate,
//! pretty and generic forms give the same IR, printing is a fixed point, and three printed modules
//! match committed snapshots (regenerate with `BLESS=1`).

use apu_compiler::print::print_module;
use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;
use std::path::PathBuf;

fn samples_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/jax"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: samples not found at {}", dir.display());
        None
    }
}

fn sample_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".stablehlo.mlir").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn read(dir: &std::path::Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

#[test]
fn every_sample_parses_validates_and_both_forms_agree() {
    let Some(dir) = samples_dir() else { return };
    let names = sample_names(&dir);
    assert!(names.len() >= 15, "expected the 15 JAX samples, found {names:?}");
    for name in &names {
        let pretty = parse_module(&read(&dir, &format!("{name}.stablehlo.mlir"))).unwrap_or_else(|e| panic!("{name} pretty: {e}"));
        let generic = parse_module(&read(&dir, &format!("{name}.stablehlo_generic.mlir"))).unwrap_or_else(|e| panic!("{name} generic: {e}"));
        assert_eq!(pretty.entry_function().name, "main");
        assert_eq!((pretty.num_replicas, pretty.num_partitions), (1, 1));
        let p = print_module(&pretty);
        let g = print_module(&generic);
        assert_eq!(p, g, "{name}: pretty and generic forms print differently");
        validate(pretty).unwrap_or_else(|e| panic!("{name} pretty does not validate: {e}"));
        validate(generic).unwrap_or_else(|e| panic!("{name} generic does not validate: {e}"));
    }
}

#[test]
fn printing_is_a_fixed_point() {
    let Some(dir) = samples_dir() else { return };
    for name in sample_names(&dir) {
        for file in [format!("{name}.stablehlo.mlir"), format!("{name}.stablehlo_generic.mlir")] {
            let m = parse_module(&read(&dir, &file)).unwrap();
            let once = print_module(&m);
            let reparsed = parse_module(&once).unwrap_or_else(|e| panic!("{file}: printed text does not parse: {e}\n{once}"));
            let twice = print_module(&reparsed);
            assert_eq!(once, twice, "{file}: print -> parse -> print changed the text");
            // Locations aside, the IR itself survives the round trip.
            assert_eq!(strip_locations(m), strip_locations(reparsed), "{file}: IR changed in the round trip");
        }
    }
}

fn strip_locations(mut m: apu_compiler::ir::Module) -> apu_compiler::ir::Module {
    fn walk(r: &mut apu_compiler::ir::Region) {
        for op in &mut r.ops {
            op.location.text.clear();
            for sub in &mut op.regions {
                walk(sub);
            }
        }
    }
    for f in &mut m.functions {
        walk(&mut f.body);
    }
    m
}

#[test]
fn pretty_text_locations_are_positions_and_generic_ones_are_names() {
    let Some(dir) = samples_dir() else { return };
    let m = parse_module(&read(&dir, "add.stablehlo.mlir")).unwrap();
    assert_eq!(m.entry_function().body.ops[0].location.text, "<text>:3:10");
    let g = parse_module(&read(&dir, "add.stablehlo_generic.mlir")).unwrap();
    assert_eq!(g.entry_function().body.ops[0].location.text, "jit(add)/add (regenerate.py:85:11)");
}

#[test]
fn snapshots_match() {
    let Some(dir) = samples_dir() else { return };
    let snap_dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
    let bless = std::env::var_os("BLESS").is_some();
    for name in ["misc_ops", "rng_normal", "scan_cumsum"] {
        let m = parse_module(&read(&dir, &format!("{name}.stablehlo.mlir"))).unwrap();
        let printed = print_module(&m);
        let path = snap_dir.join(format!("{name}.printed.mlir"));
        if bless {
            std::fs::create_dir_all(&snap_dir).unwrap();
            std::fs::write(&path, &printed).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing snapshot {}; run with BLESS=1", path.display()));
        assert_eq!(printed, golden, "{name}: printed IR differs from {} (rerun with BLESS=1 if intended)", path.display());
    }
}

/// JAX's text without what apu does not keep: result attributes (`{jax.result_info = ...}`).
fn without_result_attrs(jax: &str) -> String {
    let mut out = String::new();
    for line in jax.lines() {
        let mut l = line.to_string();
        while let Some(at) = l.find(" {jax.result_info = \"") {
            let end = l[at..].find("\"}").map(|e| at + e + 2).unwrap_or(l.len());
            l.replace_range(at..end, "");
        }
        // `-> (tensor<...>)` with one result prints without parentheses.
        if let Some(at) = l.find(") -> (") {
            let rest = &l[at + 6..];
            if let Some(close) = rest.rfind(") {") {
                let inner = &rest[..close];
                if !inner.contains(", ") {
                    l = format!("{}) -> {}{}", &l[..at], inner, &rest[close + 1..]);
                }
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[test]
fn printer_reproduces_jax_text() {
    let Some(dir) = samples_dir() else { return };
    let mut same = Vec::new();
    let mut differ = Vec::new();
    for name in sample_names(&dir) {
        let jax = read(&dir, &format!("{name}.stablehlo.mlir"));
        let printed = print_module(&parse_module(&jax).unwrap());
        let want = without_result_attrs(&jax);
        if printed == want {
            same.push(name);
        } else {
            let first = printed.lines().zip(want.lines()).find(|(a, b)| a != b).map(|(a, b)| format!("apu: {a}\njax: {b}"));
            differ.push((name, first));
        }
    }
    // Samples whose text goes through a CHLO expansion cannot match; every other one must.
    let expanded = ["misc_ops", "rng_normal"];
    for (name, diff) in &differ {
        assert!(expanded.contains(&name.as_str()), "{name} prints differently from JAX:\n{}", diff.clone().unwrap_or_default());
    }
    assert!(same.len() >= 13, "only {same:?} match");
}
