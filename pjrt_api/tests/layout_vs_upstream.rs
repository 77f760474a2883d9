//! Compares the ABI of apu's header with upstream PJRT headers found on this machine.
//!
//! For every struct, member and enumerator that both headers declare, a generated C program
//! prints `sizeof`/`offsetof`/values; it is compiled once against each header and the outputs
//! must agree. Names only one side has are not compared (upstream grows by appending), and a
//! struct's total size is compared only when both sides list the same members.
//!
//! Upstream headers come from `APU_UPSTREAM_PJRT_HEADERS` (paths separated by `:` or `,`), or
//! else from `$HOME/.cache/apu/headers-venv` as filled by `scripts/fetch-upstream-headers.sh`.
//! They are read at test time only and never committed.
#[path = "support/c_decls.rs"]
mod c_decls;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn our_header() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/apu_pjrt_c_api.h")
}

fn upstream_headers() -> Vec<PathBuf> {
    if let Ok(list) = std::env::var("APU_UPSTREAM_PJRT_HEADERS") {
        return list.split([':', ',']).filter(|s| !s.is_empty()).map(PathBuf::from).collect();
    }
    let Some(home) = std::env::var_os("HOME") else { return Vec::new() };
    let mut found = Vec::new();
    find_named(&PathBuf::from(home).join(".cache/apu/headers-venv"), "pjrt_c_api.h", 8, &mut found);
    // Wheels ship the same header under two include roots; compare each distinct text once.
    let mut seen = BTreeSet::new();
    found.sort();
    found.retain(|p| std::fs::read(p).map(|bytes| seen.insert(bytes)).unwrap_or(false));
    found
}

fn find_named(dir: &Path, name: &str, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && depth > 0 && entry.file_name() != "lib" && entry.file_name() != "wheels" {
            find_named(&path, name, depth - 1, out);
        } else if kind.is_file() && entry.file_name() == name {
            out.push(path);
        }
    }
}

fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    Command::new(&cc).arg("--version").output().ok().filter(|o| o.status.success()).map(|_| cc)
}

fn api_minor(text: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("#define PJRT_API_MINOR"))
        .map(|v| format!("0.{}", v.trim()))
        .unwrap_or_else(|| "unknown".into())
}

/// The probe lines (one printf each) for everything both headers declare.
struct Probe {
    statements: Vec<String>,
    structs: usize,
    members: usize,
    enumerators: usize,
}

fn shared_probe(ours: &c_decls::Declarations, theirs: &c_decls::Declarations) -> Probe {
    let mut probe = Probe { statements: Vec::new(), structs: 0, members: 0, enumerators: 0 };
    let size_consts = |d: &c_decls::Declarations| -> BTreeSet<String> {
        let mut s = d.struct_size_constants.clone();
        s.extend(d.enumerators.iter().filter(|e| e.ends_with("_STRUCT_SIZE")).cloned());
        s
    };
    let (our_sizes, their_sizes) = (size_consts(ours), size_consts(theirs));
    for (name, our_members) in &ours.structs {
        let Some(their_members) = theirs.structs.get(name) else { continue };
        probe.structs += 1;
        let theirs_set: BTreeSet<&String> = their_members.iter().collect();
        for member in our_members.iter().filter(|m| theirs_set.contains(m)) {
            probe.members += 1;
            probe.statements.push(format!(
                "printf(\"member {name}.{member} offset=%zu,size=%zu\\n\", \
                 offsetof(struct {name}, {member}), sizeof(((struct {name} *)0)->{member}));"
            ));
        }
        if our_members == their_members {
            probe.statements.push(format!("printf(\"sizeof {name} %zu\\n\", sizeof(struct {name}));"));
            let constant = format!("{name}_STRUCT_SIZE");
            if our_sizes.contains(&constant) && their_sizes.contains(&constant) {
                probe.statements.push(format!("printf(\"{constant} %zu\\n\", (size_t){constant});"));
            }
        }
    }
    for name in ours.enumerators.intersection(&theirs.enumerators) {
        if name.ends_with("_STRUCT_SIZE") {
            continue;
        }
        probe.enumerators += 1;
        probe.statements.push(format!("printf(\"enum {name} %lld\\n\", (long long){name});"));
    }
    probe
}

fn run_probe(cc: &str, header: &Path, statements: &[String], work: &Path, tag: &str) -> BTreeMap<String, String> {
    let source = work.join(format!("probe_{tag}.c"));
    let binary = work.join(format!("probe_{tag}"));
    let program = format!(
        "#include <stddef.h>\n#include <stdio.h>\n#include \"{}\"\nint main(void) {{\n{}\nreturn 0;\n}}\n",
        header.display(),
        statements.join("\n")
    );
    std::fs::write(&source, program).expect("write probe source");
    let compiled = Command::new(cc)
        .args(["-std=gnu11", "-w", "-o"])
        .arg(&binary)
        .arg(&source)
        .output()
        .expect("run C compiler");
    assert!(
        compiled.status.success(),
        "probe did not compile against {}:\n{}",
        header.display(),
        String::from_utf8_lossy(&compiled.stderr)
    );
    let ran = Command::new(&binary).output().expect("run probe");
    assert!(ran.status.success(), "probe failed for {}", header.display());
    String::from_utf8_lossy(&ran.stdout)
        .lines()
        .filter_map(|l| l.rsplit_once(' ').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

#[test]
fn shared_declarations_have_identical_layout() {
    let headers = upstream_headers();
    if headers.is_empty() {
        println!("skipped: no upstream header (run scripts/fetch-upstream-headers.sh or set APU_UPSTREAM_PJRT_HEADERS)");
        return;
    }
    let Some(cc) = c_compiler() else {
        println!("skipped: no C compiler (set CC)");
        return;
    };
    let ours_text = std::fs::read_to_string(our_header()).expect("our header");
    let ours = c_decls::read(&ours_text);
    assert!(ours.structs.len() > 150, "reader found only {} structs in our header", ours.structs.len());

    let work = std::env::temp_dir().join(format!("apu-layout-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("temp dir");
    let mut failures = Vec::new();
    for (i, header) in headers.iter().enumerate() {
        let text = std::fs::read_to_string(header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
        let theirs = c_decls::read(&text);
        let probe = shared_probe(&ours, &theirs);
        assert!(
            probe.structs >= 100 && probe.members >= 500,
            "{} shares too little with our header ({} structs, {} members): not a PJRT header?",
            header.display(),
            probe.structs,
            probe.members
        );
        let ours_out = run_probe(&cc, &our_header(), &probe.statements, &work, &format!("{i}_ours"));
        let theirs_out = run_probe(&cc, header, &probe.statements, &work, &format!("{i}_theirs"));
        assert_eq!(ours_out.len(), probe.statements.len(), "every probe line printed");
        let mut differences = 0;
        for (key, our_value) in &ours_out {
            let their_value = theirs_out.get(key).map(String::as_str).unwrap_or("<missing>");
            if our_value != their_value {
                differences += 1;
                failures.push(format!("{} (PJRT {}): {key}: ours {our_value}, upstream {their_value}",
                    header.display(), api_minor(&text)));
            }
        }
        println!(
            "compared against {} (PJRT {}): {} structs, {} members, {} enumerators, {} differences",
            header.display(),
            api_minor(&text),
            probe.structs,
            probe.members,
            probe.enumerators,
            differences
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(failures.is_empty(), "ABI differences:\n{}", failures.join("\n"));
}
