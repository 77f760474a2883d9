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
fn jax_misc_ops_erf_is_expanded_inline() {
    let Some(m) = read_sample("jax", "misc_ops") else { return };
    let entry = m.entry_function();
    // The shared CHLO expansion: erf is the clamped rational polynomial, with no composite or
    // helper function left behind.
    assert!(!entry.body.ops.iter().any(|o| matches!(o.kind, OpKind::Composite { .. })));
    assert!(entry.body.ops.iter().any(|o| o.kind == OpKind::Clamp));
    assert!(entry.body.ops.iter().any(|o| o.kind == OpKind::Binary(crate::ir::BinaryOp::Divide)));
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
    let text = err.to_string();
    assert!(text.contains("lapack_sgetrf_ffi"), "{text}");
    assert!(text.contains("in add.1 = custom-call at jit(add)/add regenerate.py:"), "{text}");
    assert!(text.contains("in computation main.1") && text.contains("in HLO module jit_add"), "{text}");

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

#[test]
fn locations_name_the_jax_op_and_source_line() {
    let Some(m) = read_sample("jax", "add") else { return };
    let add = &m.entry_function().body.ops[0];
    let text = &add.location.text;
    assert!(text.starts_with("jit(add)/add regenerate.py:"), "{text}");
    assert!(text.ends_with("(hlo add.1)"), "{text}");
}

/// The first op of `kind` anywhere in the module.
fn find_op<'m>(m: &'m Module, kind: &str) -> &'m Op {
    m.functions
        .iter()
        .flat_map(|f| {
            let mut v = Vec::new();
            all_ops(&f.body, &mut v);
            v
        })
        .find(|o| o.kind.name() == kind)
        .unwrap_or_else(|| panic!("no {kind} op"))
}

#[test]
fn attributes_match_the_hlo_text() {
    use crate::ir::{ConvDims, DotDims, GatherDims, ScatterDims};
    let Some(conv) = read_sample("jax", "conv2d_nhwc") else { return };
    // window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
    let OpKind::Convolution { window_strides, padding, lhs_dilation, rhs_dilation, dims, feature_group_count, batch_group_count, .. } =
        &find_op(&conv, "convolution").kind
    else {
        unreachable!()
    };
    assert_eq!((window_strides.as_slice(), padding.as_slice()), (&[1, 1][..], &[(1, 1), (1, 1)][..]));
    assert_eq!((lhs_dilation.as_slice(), rhs_dilation.as_slice()), (&[1, 1][..], &[1, 1][..]));
    assert_eq!((*feature_group_count, *batch_group_count), (1, 1));
    let want = ConvDims {
        input_batch: 0,
        input_feature: 3,
        input_spatial: vec![1, 2],
        kernel_input_feature: 2,
        kernel_output_feature: 3,
        kernel_spatial: vec![0, 1],
        output_batch: 0,
        output_feature: 3,
        output_spatial: vec![1, 2],
    };
    assert_eq!(dims, &want);

    let m = read_sample("jax", "gather").unwrap();
    let OpKind::Gather { dims, slice_sizes, .. } = &find_op(&m, "gather").kind else { unreachable!() };
    let want = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    assert_eq!((dims, slice_sizes.as_slice()), (&want, &[1, 5][..]));

    let m = read_sample("jax", "scatter_add").unwrap();
    let scatter = find_op(&m, "scatter");
    let OpKind::Scatter { dims, .. } = &scatter.kind else { unreachable!() };
    let want = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    assert_eq!(dims, &want);
    assert_eq!((scatter.operands.len(), scatter.regions[0].params.len()), (3, 2));

    let m = read_sample("jax", "sort").unwrap();
    let two = m
        .functions
        .iter()
        .flat_map(ops_of)
        .find(|o| matches!(o.kind, OpKind::Sort { dimension: 1, is_stable: true }) && o.operands.len() == 2)
        .expect("two-operand sort");
    assert_eq!((two.results.len(), two.regions[0].params.len()), (2, 4));

    let m = read_sample("jax", "matmul").unwrap();
    let OpKind::DotGeneral { dims, .. } = &find_op(&m, "dot_general").kind else { unreachable!() };
    assert_eq!(dims, &DotDims { lhs_contracting: vec![1], rhs_contracting: vec![0], ..Default::default() });
}

#[test]
fn pred_conditional_swaps_branches() {
    use prost::Message;
    let Some(dir) = samples_dir() else { return };
    // cond: conditional(convert(p), x, x) with branches {cos, sin}. Feed the pred directly: then
    // computation 0 is the true branch (cos) and must become case index 1.
    let mut p = proto::HloModuleProto::decode(std::fs::read(dir.join("jax/cond.hlo.pb")).unwrap().as_slice()).unwrap();
    let id = p.entry_computation_id;
    let entry = p.computations.iter_mut().find(|c| c.id == id).unwrap();
    let pred_id = entry.instructions.iter().find(|i| i.opcode == "parameter" && i.parameter_number == 0).unwrap().id;
    let cond = entry.instructions.iter_mut().find(|i| i.opcode == "conditional").unwrap();
    cond.operand_ids[0] = pred_id;
    let m = module_from_proto(&p).unwrap();
    let case = find_op(&m, "case");
    assert_eq!(case.regions[0].ops[0].kind.name(), "sine");
    assert_eq!(case.regions[1].ops[0].kind.name(), "cosine");
    let entry = m.entry_function();
    let index_ty = entry.value_type(case.operands[0]).as_tensor().unwrap();
    assert_eq!(index_ty.elem, ElementType::S32);
}

mod synthetic {
    //! Hand-built modules for opcodes the samples do not contain.
    use super::super::*;
    use super::{check_dominance, find_op};
    use crate::ir::{OpKind, RngAlgorithm};
    use proto::{HloComputationProto, HloInstructionProto, LiteralProto, PrimitiveType, ShapeProto};

    fn array(elem: PrimitiveType, dims: &[i64]) -> ShapeProto {
        ShapeProto { element_type: elem as i32, dimensions: dims.to_vec(), ..Default::default() }
    }
    fn tuple(parts: Vec<ShapeProto>) -> ShapeProto {
        ShapeProto { element_type: PrimitiveType::Tuple as i32, tuple_shapes: parts, ..Default::default() }
    }
    fn inst(id: i64, opcode: &str, shape: ShapeProto, operands: &[i64]) -> HloInstructionProto {
        HloInstructionProto {
            name: format!("{opcode}.{id}"),
            opcode: opcode.into(),
            shape: Some(shape),
            id,
            operand_ids: operands.to_vec(),
            ..Default::default()
        }
    }
    fn comp(id: i64, name: &str, instructions: Vec<HloInstructionProto>) -> HloComputationProto {
        let root_id = instructions.last().unwrap().id;
        HloComputationProto { name: name.into(), id, root_id, instructions, ..Default::default() }
    }
    fn module(entry: i64, computations: Vec<HloComputationProto>) -> proto::HloModuleProto {
        proto::HloModuleProto { name: "synthetic".into(), entry_computation_id: entry, computations, ..Default::default() }
    }

    /// `topk` with `largest` false sorts ascending; a k beyond the last dimension is an error.
    #[test]
    fn topk_smallest_and_bad_k() {
        use PrimitiveType::{F32, S32};
        let topk = |k: i64, largest: bool| {
            let mut t = inst(2, "topk", tuple(vec![array(F32, &[3, 2]), array(S32, &[3, 2])]), &[1]);
            t.k = k;
            t.largest = largest;
            module(1, vec![comp(1, "entry", vec![inst(1, "parameter", array(F32, &[3, 5]), &[]), t])])
        };
        let m = module_from_proto(&topk(2, false)).unwrap();
        let f = m.entry_function();
        let kinds: Vec<&str> = f.body.ops.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["iota", "sort", "slice", "slice"]);
        let sort = &f.body.ops[1];
        let cmp = &sort.regions[0].ops[0].kind;
        assert!(matches!(cmp, OpKind::Compare { direction: crate::ir::ComparisonDirection::Lt, .. }), "{cmp:?}");
        assert_eq!(f.result_types.len(), 2);
        crate::valid::validate(m).unwrap();

        let e = module_from_proto(&topk(6, true)).unwrap_err();
        assert!(e.to_string().contains("k = 6"), "{e}");
    }

    #[test]
    fn movement_ops_fusion_and_tuple_constants() {
        use PrimitiveType::{F32, S32, U32, U64};
        let f4 = array(F32, &[4]);
        // Fused computation: negate its parameter.
        let fused = comp(2, "fused", vec![inst(1, "parameter", f4.clone(), &[]), inst(2, "negate", f4.clone(), &[1])]);
        let mut pad = inst(3, "pad", array(F32, &[7]), &[1, 2]);
        pad.padding_config = Some(proto::PaddingConfig {
            dimensions: vec![proto::padding_config::PaddingConfigDimension {
                edge_padding_low: 1,
                edge_padding_high: 0,
                interior_padding: 1,
            }],
        });
        let mut rev = inst(4, "reverse", array(F32, &[7]), &[3]);
        rev.dimensions = vec![0];
        let mut iota = inst(5, "iota", array(S32, &[4]), &[]);
        iota.dimensions = vec![0];
        let mut slice = inst(6, "slice", array(F32, &[2]), &[4]);
        slice.slice_dimensions = vec![proto::hlo_instruction_proto::SliceDimensions { start: 1, limit: 5, stride: 2 }];
        let mut fusion = inst(7, "fusion", f4.clone(), &[1]);
        fusion.called_computation_ids = vec![2];
        let mut zero = inst(2, "constant", array(F32, &[]), &[]);
        zero.literal = Some(LiteralProto { f32s: vec![0.0], ..Default::default() });
        let mut pair = inst(8, "constant", tuple(vec![array(S32, &[]), array(U32, &[2])]), &[]);
        pair.literal = Some(LiteralProto {
            tuple_literals: vec![
                LiteralProto { s32s: vec![7], ..Default::default() },
                LiteralProto { u32s: vec![1, 2], ..Default::default() },
            ],
            ..Default::default()
        });
        let state = array(U64, &[2]);
        let mut rng = inst(9, "rng-bit-generator", tuple(vec![state.clone(), array(U32, &[4])]), &[10]);
        rng.rng_algorithm = proto::RandomAlgorithm::RngPhilox as i32;
        let mut key = inst(10, "parameter", state, &[]);
        key.parameter_number = 1;
        let gte = |id, index, shape, of| {
            let mut i = inst(id, "get-tuple-element", shape, &[of]);
            i.tuple_index = index;
            i
        };
        let root = inst(
            20,
            "tuple",
            tuple(vec![array(F32, &[2]), array(S32, &[4]), f4.clone(), array(U32, &[2]), array(U32, &[4])]),
            &[6, 5, 7, 12, 11],
        );
        let entry = comp(
            1,
            "entry",
            vec![
                inst(1, "parameter", f4, &[]),
                zero,
                key,
                pad,
                rev,
                iota,
                slice,
                fusion,
                pair,
                rng,
                gte(11, 1, array(U32, &[4]), 9),
                gte(12, 1, array(U32, &[2]), 8),
                root,
            ],
        );
        let m = module_from_proto(&module(1, vec![entry, fused])).unwrap();
        assert_eq!(m.functions.len(), 1, "the fusion is inlined, not a function");
        let f = m.entry_function();
        check_dominance(f).unwrap();
        assert_eq!(f.body.params.len(), 2);
        assert_eq!(f.result_types.len(), 5);
        let OpKind::Pad { edge_padding_low, interior_padding, .. } = &find_op(&m, "pad").kind else { unreachable!() };
        assert_eq!((edge_padding_low.as_slice(), interior_padding.as_slice()), (&[1][..], &[1][..]));
        let OpKind::Slice { start_indices, limit_indices, strides } = &find_op(&m, "slice").kind else { unreachable!() };
        assert_eq!((start_indices[0], limit_indices[0], strides[0]), (1, 5, 2));
        assert!(matches!(find_op(&m, "iota").kind, OpKind::Iota { dimension: 0 }));
        assert!(matches!(find_op(&m, "reverse").kind, OpKind::Reverse { .. }));
        let rng = find_op(&m, "rng_bit_generator");
        assert!(matches!(rng.kind, OpKind::RngBitGenerator { algorithm: RngAlgorithm::Philox }));
        assert_eq!(rng.results.len(), 2);
        // Result 3 is element 1 of the tuple constant, result 4 the generator's output.
        assert_eq!(f.body.results[4], rng.results[1]);
        let OpKind::Constant(lit) = &f.body.ops.iter().find(|o| o.results[0] == f.body.results[3]).unwrap().kind else {
            panic!("result 3 is a constant")
        };
        assert_eq!(&*lit.bytes, &[1, 0, 0, 0, 2, 0, 0, 0]);
        // The fused negate applies to parameter 0.
        let neg = find_op(&m, "negate");
        assert_eq!((neg.operands[0], neg.results[0]), (f.body.params[0], f.body.results[2]));
    }

    #[test]
    fn select_and_scatter_map_and_reduce_window_regions() {
        use PrimitiveType::{Pred, F32};
        let s = array(F32, &[]);
        let ge = {
            let mut c = inst(3, "compare", array(Pred, &[]), &[1, 2]);
            c.comparison_direction = "GE".into();
            c
        };
        let mut p1 = inst(2, "parameter", s.clone(), &[]);
        p1.parameter_number = 1;
        let select = comp(2, "select", vec![inst(1, "parameter", s.clone(), &[]), p1.clone(), ge]);
        let add = comp(3, "add", vec![inst(1, "parameter", s.clone(), &[]), p1, inst(3, "add", s.clone(), &[1, 2])]);
        let window = proto::Window {
            dimensions: vec![proto::WindowDimension { size: 2, stride: 2, ..Default::default() }],
        };
        let mut sas = inst(4, "select-and-scatter", array(F32, &[4]), &[1, 2, 3]);
        sas.window = Some(window.clone());
        sas.called_computation_ids = vec![2, 3];
        let mut map = inst(5, "map", array(F32, &[4]), &[4, 1]);
        map.called_computation_ids = vec![3];
        let mut rw = inst(6, "reduce-window", array(F32, &[2]), &[5, 3]);
        rw.window = Some(window);
        rw.called_computation_ids = vec![3];
        let mut src = inst(2, "parameter", array(F32, &[2]), &[]);
        src.parameter_number = 1;
        let mut init = inst(3, "parameter", s, &[]);
        init.parameter_number = 2;
        let entry = comp(1, "entry", vec![inst(1, "parameter", array(F32, &[4]), &[]), src, init, sas, map, rw]);
        let m = module_from_proto(&module(1, vec![entry, select, add])).unwrap();
        check_dominance(m.entry_function()).unwrap();
        let sas = find_op(&m, "select_and_scatter");
        assert_eq!(sas.regions.len(), 2);
        assert_eq!(sas.regions[0].ops[0].kind.name(), "compare");
        assert_eq!(sas.regions[1].ops[0].kind.name(), "add");
        let OpKind::SelectAndScatter { window_dimensions, window_strides, padding } = &sas.kind else { unreachable!() };
        assert_eq!((window_dimensions[0], window_strides[0], padding[0]), (2, 2, (0, 0)));
        assert!(matches!(&find_op(&m, "map").kind, OpKind::Map { dimensions } if dimensions == &[0]));
        let OpKind::ReduceWindow { base_dilations, window_dilations, .. } = &find_op(&m, "reduce_window").kind else {
            unreachable!()
        };
        assert_eq!((base_dilations[0], window_dilations[0]), (1, 1), "0 in the proto means 1");
    }
}
