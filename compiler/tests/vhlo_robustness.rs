//! The reader must answer every input with `Ok` or `Err`, never a panic: truncations and bit flips
//! of the real samples, and hand-built files with cycles and deep nesting.

use apu_compiler::read_vhlo_bytecode;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The shared samples and this crate's fixtures (which add bytecode version 0 and more ops).
fn samples() -> Vec<(String, Vec<u8>)> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![here.join("tests/fixtures/vhlo")];
    match here.ancestors().map(|d| d.join("shared/samples/jax")).find(|c| c.is_dir()) {
        Some(d) => dirs.push(d),
        None => eprintln!("skipped the shared samples: not found"),
    }
    let mut out = Vec::new();
    for dir in dirs {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.extension().is_some_and(|x| x == "mlirbc") {
                out.push((path.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs the reader and reports a panic as a test failure message.
fn survives(bytes: &[u8]) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| read_vhlo_bytecode(bytes).is_ok())).map_err(|p| {
        p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
    })
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let samples = samples();
    for (name, bytes) in &samples {
        // Every length for the default target, a stride for the others (they share their layout).
        let stride = if name.contains("v1_13_7") || name.contains("v0_9_0") { 1 } else { 7 };
        for len in (0..bytes.len()).step_by(stride) {
            match survives(&bytes[..len]) {
                Ok(true) => panic!("{name} truncated to {len} bytes was accepted"),
                Ok(false) => {}
                Err(msg) => panic!("{name} truncated to {len} bytes panicked: {msg}"),
            }
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let samples = samples();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        // xorshift64*: deterministic, so a failure reproduces.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut accepted = 0;
    let mut total = 0;
    for (name, bytes) in &samples {
        for _ in 0..300 {
            let mut mutated = bytes.clone();
            let flips = 1 + (next() % 3) as usize;
            for _ in 0..flips {
                let pos = (next() % mutated.len() as u64) as usize;
                mutated[pos] ^= 1 << (next() % 8);
            }
            total += 1;
            match survives(&mutated) {
                Ok(ok) => accepted += ok as usize,
                Err(msg) => panic!("{name} with bit flips panicked: {msg}"),
            }
        }
    }
    // Flips in string bytes or locations may still read; most must not.
    eprintln!("{accepted} of {total} mutated files still read");
}

/// A minimal bytecode writer for hand-built files.
fn varint(out: &mut Vec<u8>, v: u64) {
    if v < 1 << 7 {
        out.push(((v << 1) | 1) as u8);
    } else if v < 1 << 14 {
        out.extend_from_slice(&(((v << 2) | 0b10) as u16).to_le_bytes());
    } else {
        out.push(0);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn section(out: &mut Vec<u8>, id: u8, payload: &[u8]) {
    out.push(id);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A version-6 file whose only op is a region-less `builtin.module` located at attribute 0, with
/// the given builtin attribute payloads.
fn file_with_attrs(attrs: &[Vec<u8>]) -> Vec<u8> {
    file_with(attrs, 0)
}

/// Like [`file_with_attrs`], with `depth` levels of single-region ops nested inside the module; the
/// innermost op is located at attribute 0, so attribute decoding happens at the deepest point.
fn file_with(attrs: &[Vec<u8>], depth: usize) -> Vec<u8> {
    let mut f = b"ML\xefR".to_vec();
    varint(&mut f, 6);
    f.extend_from_slice(b"test\0");
    let mut strings = Vec::new();
    varint(&mut strings, 2);
    varint(&mut strings, 7); // "module\0" (sizes are written last string first)
    varint(&mut strings, 8); // "builtin\0"
    strings.extend_from_slice(b"builtin\0module\0");
    section(&mut f, 0, &strings);
    let mut dialects = Vec::new();
    varint(&mut dialects, 1);
    varint(&mut dialects, 0); // name "builtin", no version
    varint(&mut dialects, 1); // one op name in total
    varint(&mut dialects, 0); // dialect 0
    varint(&mut dialects, 1); // one name
    varint(&mut dialects, (1 << 1) | 1); // "module", registered
    section(&mut f, 1, &dialects);
    let mut offsets = Vec::new();
    varint(&mut offsets, attrs.len() as u64);
    varint(&mut offsets, 0);
    varint(&mut offsets, 0);
    varint(&mut offsets, attrs.len() as u64);
    let mut payload = Vec::new();
    for a in attrs {
        varint(&mut offsets, ((a.len() as u64) << 1) | 1);
        payload.extend_from_slice(a);
    }
    section(&mut f, 3, &offsets);
    section(&mut f, 2, &payload);
    let mut ir = Vec::new();
    varint(&mut ir, 1 << 1); // one op, no block arguments
    for _ in 0..depth {
        varint(&mut ir, 0); // op name 0
        ir.push(0x10); // mask: regions
        varint(&mut ir, attrs.len() as u64 - 1); // location: the last (shallow) attribute
        varint(&mut ir, 1 << 1); // one region, not isolated
        varint(&mut ir, 1); // one block
        varint(&mut ir, 0); // no values
        varint(&mut ir, 1 << 1); // one op, no arguments
    }
    varint(&mut ir, 0); // op name 0
    ir.push(0); // mask: nothing
    varint(&mut ir, 0); // location: attribute 0
    section(&mut f, 4, &ir);
    let mut props = Vec::new();
    varint(&mut props, 0);
    section(&mut f, 8, &props);
    f
}

fn array_attr(elems: &[u64]) -> Vec<u8> {
    let mut a = Vec::new();
    varint(&mut a, 0); // ArrayAttr
    varint(&mut a, elems.len() as u64);
    for &e in elems {
        varint(&mut a, e);
    }
    a
}

#[test]
fn hand_built_file_reaches_the_module_check() {
    let unknown_loc = vec![0x1F]; // kind 15
    let err = read_vhlo_bytecode(&file_with_attrs(&[unknown_loc])).unwrap_err();
    assert!(err.message.contains("one region"), "{err}");
}

#[test]
fn attribute_cycles_are_rejected() {
    let err = read_vhlo_bytecode(&file_with_attrs(&[array_attr(&[1]), array_attr(&[0])])).unwrap_err();
    assert!(err.message.contains("refers to itself"), "{err}");
}

/// Reads `file` on a 2 MiB stack, as a plugin thread might have.
fn read_on_small_stack(file: Vec<u8>) -> apu_compiler::Error {
    std::thread::Builder::new()
        .stack_size(1 << 21)
        .spawn(move || read_vhlo_bytecode(&file).unwrap_err())
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn long_attribute_chains_in_index_order_are_read() {
    // Attribute i references i + 1, 5000 deep (JAX's call-site location chains look like this, in
    // either direction): decoding in index order resolves them without deep recursion, so the file
    // gets as far as the module check.
    let n = 5000u64;
    let mut attrs: Vec<Vec<u8>> = (0..n - 1).map(|i| array_attr(&[i + 1])).collect();
    attrs.push(vec![0x1F]);
    let err = read_on_small_stack(file_with_attrs(&attrs));
    assert!(err.message.contains("one region"), "{err}");
}

#[test]
fn deep_attribute_nesting_is_bounded() {
    // A chain that visits the table in a scrambled order cannot be resolved by decoding in index
    // order from either end; the depth bound must stop it before the stack runs out.
    let n = 5000usize;
    let mut order: Vec<usize> = (0..n).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    // The op's location is attribute 0: make it the head of the chain.
    let head = order.iter().position(|&a| a == 0).unwrap();
    order.swap(0, head);
    let mut attrs: Vec<Vec<u8>> = vec![Vec::new(); n];
    for pair in order.windows(2) {
        attrs[pair[0]] = array_attr(&[pair[1] as u64]);
    }
    attrs[*order.last().unwrap()] = vec![0x1F];
    let err = read_on_small_stack(file_with_attrs(&attrs));
    assert!(err.message.contains("deeper than"), "{err}");
}

#[test]
fn deep_regions_with_deep_attributes_fit_a_small_stack() {
    // Just inside both bounds: 32 nested regions, 63 nested attributes at the bottom.
    let mut attrs: Vec<Vec<u8>> = (0..62u64).map(|i| array_attr(&[i + 1])).collect();
    attrs.push(vec![0x1F]);
    let within = file_with(&attrs, 32);
    let too_deep = file_with(&attrs, 33);
    let (a, b) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || (read_vhlo_bytecode(&within).unwrap_err(), read_vhlo_bytecode(&too_deep).unwrap_err()))
        .unwrap()
        .join()
        .unwrap();
    // Within bounds the file parses and fails only at the module check.
    assert!(a.message.contains("builtin.module") || a.message.contains("region"), "{a}");
    assert!(b.message.contains("regions nest deeper"), "{b}");
}

#[test]
fn wrong_magic_and_future_versions_are_named() {
    let err = read_vhlo_bytecode(b"MLIR....").unwrap_err();
    assert!(err.message.contains("magic"), "{err}");
    let mut f = file_with_attrs(&[vec![0x1F]]);
    f[4] = (7 << 1) | 1;
    let err = read_vhlo_bytecode(&f).unwrap_err();
    assert!(err.message.contains("version 7"), "{err}");
}
