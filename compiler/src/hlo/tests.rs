//! Reading the real HloModuleProto samples (JAX and TensorFlow) in shared/samples.

use super::*;
use crate::ir::{ElementType, Function, Op, OpKind, Region, ValueId};
use std::collections::HashSet;
use std::path::PathBuf;

/// `shared/samples`, searched upward from this crate; `None` (and a notice) when absent.
pub(crate) fn samples_dir() -> Option<PathBuf> {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = here.ancestors().map(|a| a.join("shared/samples")).find(|p| p.is_dir());
    if found.is_none() {
        eprintln!("skipped: samples not found (no shared/samples above {})", here.display());
    }
    found
}

/// Every `*.hlo.pb` of jax/ and tensorflow/.
fn hlo_samples(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["jax", "tensorflow"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().ends_with(".hlo.pb") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// HLO text spelling of an element type, as in `f32[2,3]`.
fn hlo_name(e: ElementType) -> String {
    match e {
        ElementType::Pred => "pred".into(),
        ElementType::C64 => "c64".into(),
        ElementType::C128 => "c128".into(),
        other => {
            let s = other.stablehlo_name();
            // i32 -> s32, ui8 -> u8, f32 stays, bf16 stays.
            if let Some(rest) = s.strip_prefix("ui") {
                format!("u{rest}")
            } else if let Some(rest) = s.strip_prefix('i') {
                format!("s{rest}")
            } else {
                s.to_string()
            }
        }
    }
}

fn render(t: &crate::ir::Type) -> String {
    let t = t.as_tensor().expect("entry values are tensors");
    let dims: Vec<String> = t.shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", hlo_name(t.elem), dims.join(","))
}

/// The leaf array shapes (`f32[5]`, layouts dropped) of a fragment of an HLO text signature.
fn leaf_shapes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'[' {
                let close = text[i..].find(']').expect("closing bracket") + i;
                out.push(text[start..=close].to_string());
                i = close + 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// (parameters, results) of the `entry_computation_layout={(...)->...}` header of an .hlo.txt.
fn expected_signature(hlo_txt: &str) -> (Vec<String>, Vec<String>) {
    let header = hlo_txt.lines().next().expect("header line");
    let layout = header.split("entry_computation_layout={").nth(1).expect("entry_computation_layout");
    // Layouts `{1,0}` are inside the signature; the arrow splits parameters from results.
    let (params, results) = layout.split_once(")->").expect("->");
    (leaf_shapes(params), leaf_shapes(results))
}

#[test]
fn every_sample_reads_with_the_expected_entry_signature() {
    let Some(dir) = samples_dir() else { return };
    let samples = hlo_samples(&dir);
    assert!(samples.len() >= 17, "expected 15 JAX + 2 TF samples, found {}", samples.len());
    for pb in samples {
        let bytes = std::fs::read(&pb).unwrap();
        let txt = std::fs::read_to_string(pb.with_extension("").with_extension("hlo.txt")).unwrap();
        let module = read_hlo_module_proto(&bytes).unwrap_or_else(|e| panic!("{}: {e}", pb.display()));
        let entry = module.entry_function();
        let got_params: Vec<String> = entry.param_types().iter().map(render).collect();
        let got_results: Vec<String> = entry.result_types.iter().map(render).collect();
        let (want_params, want_results) = expected_signature(&txt);
        assert_eq!(got_params, want_params, "{} parameters", pb.display());
        assert_eq!(got_results, want_results, "{} results", pb.display());
        assert!(entry.public);
        for f in &module.functions {
            check_dominance(f).unwrap_or_else(|e| panic!("{} @{}: {e}", pb.display(), f.name));
        }
        crate::valid::validate(module).unwrap_or_else(|e| panic!("{}: {e}", pb.display()));
    }
}

/// Every operand is a parameter or an earlier result of an enclosing region, every value is
/// defined once, and every region result is defined.
fn check_dominance(f: &Function) -> std::result::Result<(), String> {
    let mut defined = HashSet::new();
    let mut seen = HashSet::new();
    check_region(f, &f.body, &mut defined, &mut seen)?;
    if f.result_types.len() != f.body.results.len() {
        return Err("result_types and body results differ in length".into());
    }
    Ok(())
}

fn check_region(f: &Function, r: &Region, defined: &mut HashSet<ValueId>, seen: &mut HashSet<ValueId>) -> std::result::Result<(), String> {
    let outer = defined.clone();
    for &p in &r.params {
        define(f, p, defined, seen)?;
    }
    for op in &r.ops {
        check_op(f, op, defined, seen)?;
    }
    for v in &r.results {
        if !defined.contains(v) {
            return Err(format!("region result {v} is not defined"));
        }
    }
    *defined = outer;
    Ok(())
}

fn check_op(f: &Function, op: &Op, defined: &mut HashSet<ValueId>, seen: &mut HashSet<ValueId>) -> std::result::Result<(), String> {
    for v in &op.operands {
        if !defined.contains(v) {
            return Err(format!("{} uses {v} before its definition", op.kind.name()));
        }
    }
    for r in &op.regions {
        check_region(f, r, defined, seen)?;
    }
    for &v in &op.results {
        define(f, v, defined, seen)?;
    }
    Ok(())
}

fn define(f: &Function, v: ValueId, defined: &mut HashSet<ValueId>, seen: &mut HashSet<ValueId>) -> std::result::Result<(), String> {
    if v.index() >= f.values.len() {
        return Err(format!("{v} is outside the value arena"));
    }
    if !seen.insert(v) {
        return Err(format!("{v} is defined twice"));
    }
    defined.insert(v);
    Ok(())
}

fn read_sample(sub: &str, name: &str) -> Option<Module> {
    let dir = samples_dir()?;
    let bytes = std::fs::read(dir.join(sub).join(format!("{name}.hlo.pb"))).unwrap();
    Some(read_hlo_module_proto(&bytes).unwrap())
}

fn all_ops<'a>(r: &'a Region, out: &mut Vec<&'a Op>) {
    for op in &r.ops {
        out.push(op);
        op.regions.iter().for_each(|r| all_ops(r, out));
    }
}

fn ops_of(f: &Function) -> Vec<&Op> {
    let mut out = Vec::new();
    all_ops(&f.body, &mut out);
    out
}

#[test]
fn tensorflow_jit_f_structure() {
    let Some(m) = read_sample("tensorflow", "jit_f") else { return };
    let entry = m.entry_function();
    assert_eq!(m.functions.len(), 1);
    // tuple + get-tuple-element fold away: the result is the reshape of the add.
    let names: Vec<&str> = entry.body.ops.iter().map(|o| o.kind.name()).collect();
    assert_eq!(names, ["reshape", "reshape", "multiply", "constant", "broadcast_in_dim", "add", "reshape"]);
    let last = entry.body.ops.last().unwrap();
    assert_eq!(entry.body.results, last.results);
    let OpKind::Constant(lit) = &entry.body.ops[3].kind else { panic!("constant expected") };
    assert_eq!(&*lit.bytes, &1.0f32.to_le_bytes());
}

#[test]
fn tensorflow_eager_const_returns_the_tuple_element() {
    let Some(m) = read_sample("tensorflow", "eager_const") else { return };
    let entry = m.entry_function();
    assert_eq!(entry.result_types.len(), 1, "a 1-tuple root becomes one result");
    assert_eq!(entry.body.ops.len(), 2);
}

#[test]
fn jax_cond_becomes_case_with_two_closed_branches() {
    let Some(m) = read_sample("jax", "cond") else { return };
    let entry = m.entry_function();
    let case = entry.body.ops.iter().find(|o| o.kind == OpKind::Case).expect("case");
    assert_eq!(case.regions.len(), 2);
    assert!(case.regions.iter().all(|r| r.params.is_empty() && r.results.len() == 1));
    // Branch 0 is cosine (region_0), branch 1 sine: the s32 index form keeps the order.
    assert_eq!(case.regions[0].ops[0].kind.name(), "cosine");
    assert_eq!(case.regions[1].ops[0].kind.name(), "sine");
}

#[test]
fn jax_scan_while_carries_flattened_state() {
    let Some(m) = read_sample("jax", "scan_cumsum") else { return };
    let entry = m.entry_function();
    let w = entry.body.ops.iter().find(|o| o.kind == OpKind::While).expect("while");
    assert_eq!(w.operands.len(), 4, "(s32, f32, f32[5], f32[5]) flattened");
    assert_eq!(w.results.len(), 4);
    let [cond, body] = &w.regions[..] else { panic!("two regions") };
    assert_eq!((cond.params.len(), cond.results.len()), (4, 1));
    assert_eq!((body.params.len(), body.results.len()), (4, 4));
    // The body calls three private functions.
    let calls = body.ops.iter().filter(|o| matches!(o.kind, OpKind::Call { .. })).count();
    assert_eq!(calls, 3);
    assert!(m.functions.iter().filter(|f| !f.public).count() >= 3);
}

#[test]
fn jax_misc_ops_erf_is_a_composite_with_a_decomposition() {
    let Some(m) = read_sample("jax", "misc_ops") else { return };
    let entry = m.entry_function();
    let erf = entry.body.ops.iter().find(|o| matches!(&o.kind, OpKind::Composite { name, .. } if name == "chlo.erf"));
    let Some(Op { kind: OpKind::Composite { decomposition, .. }, .. }) = erf else { panic!("no chlo.erf composite") };
    let f = m.function(decomposition).expect("decomposition function exists");
    assert_eq!(f.param_types(), f.result_types);
    // Reduce with a two-input combiner (argmax) and reduce_window (cumsum) are present.
    let all: Vec<&Op> = m.functions.iter().flat_map(ops_of).collect();
    assert!(all.iter().any(|o| matches!(o.kind, OpKind::Reduce { .. }) && o.operands.len() == 4 && o.results.len() == 2));
    assert!(all.iter().any(|o| matches!(&o.kind, OpKind::ReduceWindow { padding, .. } if padding[0] == (5, 0))));
}

#[test]
fn every_op_kind_in_the_samples_is_mapped() {
    let Some(dir) = samples_dir() else { return };
    let mut kinds = std::collections::BTreeSet::new();
    for pb in hlo_samples(&dir) {
        let m = read_hlo_module_proto(&std::fs::read(&pb).unwrap()).unwrap();
        for f in &m.functions {
            kinds.extend(ops_of(f).iter().map(|o| o.kind.name()));
        }
    }
    for k in ["dot_general", "convolution", "gather", "scatter", "sort", "while", "case", "call", "iota", "dynamic_slice"] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
}

#[test]
fn read_program_dispatches_hlo_and_hlo_with_config() {
    use crate::program::{read_program, ProgramFormat};
    use prost::Message;
    let Some(dir) = samples_dir() else { return };
    let bytes = std::fs::read(dir.join("jax/matmul.hlo.pb")).unwrap();
    let plain = read_program(ProgramFormat::Hlo, &bytes).unwrap();
    assert_eq!(plain.entry_function().result_types.len(), 1);

    let wrapped = proto::HloModuleProtoWithConfig {
        hlo_module: Some(proto::HloModuleProto::decode(bytes.as_slice()).unwrap()),
        config: Some(proto::HloModuleConfigProto { replica_count: 1, num_partitions: 2, ..Default::default() }),
    };
    let m = read_program(ProgramFormat::HloWithConfig, &wrapped.encode_to_vec()).unwrap();
    assert_eq!((m.num_replicas, m.num_partitions), (1, 2));
    assert_eq!(m.functions, plain.functions);
    let empty = proto::HloModuleProtoWithConfig::default().encode_to_vec();
    assert!(read_program(ProgramFormat::HloWithConfig, &empty).is_err());
}

#[test]
fn unknown_custom_call_is_unimplemented_and_names_the_target() {
    use prost::Message;
    let Some(dir) = samples_dir() else { return };
    let mut p = proto::HloModuleProto::decode(std::fs::read(dir.join("jax/add.hlo.pb")).unwrap().as_slice()).unwrap();
    let entry = p.computations.iter_mut().find(|c| c.id == p.entry_computation_id).unwrap();
    let add = entry.instructions.iter_mut().find(|i| i.opcode == "add").unwrap();
    add.opcode = "custom-call".into();
    add.custom_call_target = "lapack_sgetrf_ffi".into();
    let err = module_from_proto(&p).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::Unimplemented);
    assert!(err.to_string().contains("lapack_sgetrf_ffi"), "{err}");

    add_opcode(&mut p, "frobnicate");
    let err = module_from_proto(&p).unwrap_err();
    assert!(err.to_string().contains("\"frobnicate\""), "{err}");
}

fn add_opcode(p: &mut proto::HloModuleProto, opcode: &str) {
    let id = p.entry_computation_id;
    let entry = p.computations.iter_mut().find(|c| c.id == id).unwrap();
    let inst = entry.instructions.iter_mut().find(|i| i.opcode == "custom-call").unwrap();
    inst.opcode = opcode.into();
}

#[test]
fn self_calling_computation_is_rejected() {
    use prost::Message;
    let Some(dir) = samples_dir() else { return };
    let mut p = proto::HloModuleProto::decode(std::fs::read(dir.join("jax/add.hlo.pb")).unwrap().as_slice()).unwrap();
    let id = p.entry_computation_id;
    let entry = p.computations.iter_mut().find(|c| c.id == id).unwrap();
    let add = entry.instructions.iter_mut().find(|i| i.opcode == "add").unwrap();
    add.opcode = "call".into();
    add.called_computation_ids = vec![id];
    let err = module_from_proto(&p).unwrap_err();
    assert!(err.to_string().contains("calls itself"), "{err}");
}

/// Truncations and bit flips of every sample: the reader returns (Ok or) an error, never panics.
#[test]
fn corrupt_samples_never_panic() {
    let Some(dir) = samples_dir() else { return };
    let mut tried = 0usize;
    for pb in hlo_samples(&dir) {
        let bytes = std::fs::read(&pb).unwrap();
        // Every prefix of small files, a spread of prefixes of large ones.
        let step = (bytes.len() / 500).max(1);
        for len in (0..bytes.len()).step_by(step) {
            let _ = read_hlo_module_proto(&bytes[..len]);
            tried += 1;
        }
        // Flip each of a few bits in a spread of bytes.
        let step = (bytes.len() / 250).max(1);
        let mut corrupt = bytes.clone();
        for at in (0..bytes.len()).step_by(step) {
            for bit in [0x01u8, 0x04, 0x40, 0x80] {
                corrupt[at] ^= bit;
                let _ = read_hlo_module_proto(&corrupt);
                corrupt[at] ^= bit;
                tried += 1;
            }
        }
        // The matching compile options.
        let options = pb.with_extension("").with_extension("compile_options.pb");
        if let Ok(bytes) = std::fs::read(options) {
            let step = (bytes.len() / 200).max(1);
            for len in (0..bytes.len()).step_by(step) {
                let _ = crate::options::CompileOptions::decode(&bytes[..len]);
            }
            let mut corrupt = bytes.clone();
            for at in (0..bytes.len()).step_by(step) {
                corrupt[at] ^= 0x81;
                let _ = crate::options::CompileOptions::decode(&corrupt);
                corrupt[at] ^= 0x81;
            }
        }
    }
    assert!(tried > 10_000, "only {tried} corruptions tried");
}

/// A chain of computations each calling the next is cut off at the nesting bound with an error.
#[test]
fn deep_call_chains_are_bounded() {
    use proto::{HloComputationProto, HloInstructionProto, PrimitiveType, ShapeProto};
    let scalar = ShapeProto { element_type: PrimitiveType::F32 as i32, ..Default::default() };
    let n = 200;
    let computations: Vec<HloComputationProto> = (0..n)
        .map(|c| {
            let param = HloInstructionProto {
                name: format!("p{c}"),
                opcode: "parameter".into(),
                shape: Some(scalar.clone()),
                id: 1,
                ..Default::default()
            };
            let mut instructions = vec![param];
            if c + 1 < n {
                instructions.push(HloInstructionProto {
                    name: format!("call{c}"),
                    opcode: "call".into(),
                    shape: Some(scalar.clone()),
                    id: 2,
                    operand_ids: vec![1],
                    called_computation_ids: vec![c + 1],
                    ..Default::default()
                });
            }
            let root_id = instructions.last().unwrap().id;
            HloComputationProto { name: format!("c{c}"), id: c, root_id, instructions, ..Default::default() }
        })
        .collect();
    let p = proto::HloModuleProto { name: "deep".into(), entry_computation_name: "c0".into(), computations, ..Default::default() };
    let err = module_from_proto(&p).unwrap_err();
    assert!(err.to_string().contains("nested deeper than"), "{err}");

    // A short chain reads: one function per computation.
    let mut short = p.clone();
    short.computations.truncate(5);
    short.computations[4].instructions.truncate(1);
    short.computations[4].root_id = 1;
    assert_eq!(module_from_proto(&short).unwrap().functions.len(), 5);
}

#[test]
fn input_output_alias_marks_the_flattened_parameter() {
    use prost::Message;
    use proto::hlo_input_output_alias_proto::AliasEntryProto;
    let Some(dir) = samples_dir() else { return };
    // while_loop: parameters (f32[3], s32[]), results (s32[], f32[3]).
    let mut p = proto::HloModuleProto::decode(std::fs::read(dir.join("jax/while_loop.hlo.pb")).unwrap().as_slice()).unwrap();
    p.input_output_alias = Some(proto::HloInputOutputAliasProto {
        entries: vec![AliasEntryProto { output_shape_index: vec![1], parameter_number: 0, ..Default::default() }],
    });
    let m = module_from_proto(&p).unwrap();
    let attrs: Vec<Option<u32>> = m.entry_function().arg_attrs.iter().map(|a| a.aliasing_output).collect();
    assert_eq!(attrs, [Some(1), None]);

    p.input_output_alias.as_mut().unwrap().entries[0].output_shape_index = vec![7];
    assert!(module_from_proto(&p).is_err(), "an alias to a missing output is rejected");
}
