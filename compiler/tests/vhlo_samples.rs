//! Reads every JAX portable artifact in the shared samples and checks it against the program's
//! StableHLO text: the `@main` signature, the module structure, and the ops each program is known
//! to contain. Also checks that the three serialization targets of a program read to the same IR.

mod common;

use apu_compiler::ir::{BinaryOp, ComparisonDirection, GatherDims, Module, Op, OpKind, ScatterDims, Type, UnaryOp};
use apu_compiler::read_vhlo_bytecode;
use common::*;

const TARGETS: [&str; 3] = ["v1_0_0", "v1_13_7", "v1_17_0"];

/// Every shared sample artifact: (program, target, bytes), or `None` when the samples are absent.
fn artifacts() -> Option<Vec<(String, String, Vec<u8>)>> {
    let Some(dir) = samples_dir() else {
        eprintln!("skipped: samples not found");
        return None;
    };
    Some(artifacts_in(&dir))
}

fn sample_text(program: &str) -> String {
    std::fs::read_to_string(samples_dir().unwrap().join(format!("{program}.stablehlo.mlir"))).unwrap()
}

fn read_sample(program: &str, target: &str) -> Option<Module> {
    let path = samples_dir()?.join(format!("{program}.vhlo_{target}.mlirbc"));
    let bytes = std::fs::read(&path).unwrap();
    Some(read_vhlo_bytecode(&bytes).unwrap_or_else(|e| panic!("{program} {target}: {e}")))
}

#[test]
fn every_sample_reads_with_the_text_signature() {
    let Some(all) = artifacts() else { return };
    assert!(all.len() >= 45, "expected 15 programs x 3 targets, found {}", all.len());
    let mut failures = Vec::new();
    for (program, target, bytes) in &all {
        let module = match read_vhlo_bytecode(bytes) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{program} {target}: {e}"));
                continue;
            }
        };
        let main = module.entry_function();
        assert_eq!(main.name, "main", "{program} {target}");
        assert!(main.public, "{program} {target}: main is public");
        let (params, results) = text_signature(&sample_text(program));
        let got_params: Vec<String> = main.param_types().iter().map(Type::to_string).collect();
        let got_results: Vec<String> = main.result_types.iter().map(Type::to_string).collect();
        assert_eq!(got_params, params, "{program} {target}: parameter types");
        assert_eq!(got_results, results, "{program} {target}: result types");
        assert_eq!(module.name, format!("jit_{program}"), "{program} {target}: module name");
        assert_eq!((module.num_replicas, module.num_partitions), (1, 1), "{program} {target}");
        for f in &module.functions {
            check_values(f);
            assert_eq!(f.public, f.name == "main", "{program} {target}: only @main is public (@{})", f.name);
        }
        apu_compiler::valid::validate(module).unwrap_or_else(|e| panic!("{program} {target}: {e}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}


#[test]
fn all_targets_of_a_program_read_to_the_same_ir() {
    let Some(all) = artifacts() else { return };
    let mut programs: Vec<&str> = all.iter().map(|a| a.0.as_str()).collect();
    programs.dedup();
    for program in programs {
        let mut modules: Vec<Module> = TARGETS.iter().map(|t| read_sample(program, t).unwrap()).collect();
        modules.iter_mut().for_each(strip_locations);
        assert_eq!(modules[0], modules[1], "{program}: 1.0.0 vs 1.13.7");
        assert_eq!(modules[1], modules[2], "{program}: 1.13.7 vs 1.17.0");
    }
}

#[test]
fn add_is_one_add() {
    for target in TARGETS {
        let Some(m) = read_sample("add", target) else { return };
        let main = m.entry_function();
        assert_eq!(main.body.ops.len(), 1);
        let op = &main.body.ops[0];
        assert_eq!(op.kind, OpKind::Binary(BinaryOp::Add));
        assert_eq!(op.operands, main.body.params);
        assert_eq!(main.body.results, op.results);
        assert!(!op.location.text.is_empty(), "locations are kept");
    }
}

#[test]
fn tanh_chain_constants_are_splat_scalars() {
    for target in TARGETS {
        let Some(m) = read_sample("tanh_chain", target) else { return };
        let main = m.entry_function();
        let tanhs = main.body.ops.iter().filter(|o| o.kind == OpKind::Unary(UnaryOp::Tanh)).count();
        assert_eq!(tanhs, 2);
        // The serializer may reorder constants (they are hoisted), so compare as a sorted list.
        let mut constants: Vec<f32> = main
            .body
            .ops
            .iter()
            .filter_map(|o| match &o.kind {
                OpKind::Constant(l) => Some(f32::from_le_bytes(l.to_dense_bytes()[..4].try_into().unwrap())),
                _ => None,
            })
            .collect();
        constants.sort_by(f32::total_cmp);
        assert_eq!(constants, vec![1.0, 2.0]);
    }
}

#[test]
fn mlp_relu_softmax_structure() {
    for target in TARGETS {
        let Some(m) = read_sample("mlp_relu_softmax", target) else { return };
        assert_eq!(count(&m, "dot_general"), 2, "{target}");
        assert_eq!(count(&m, "reduce"), 2, "{target}");
        assert_eq!(count(&m, "call"), 1, "{target}");
        let main = m.entry_function();
        let reduces: Vec<&Op> = main.body.ops.iter().filter(|o| matches!(o.kind, OpKind::Reduce { .. })).collect();
        for r in &reduces {
            assert_eq!(r.kind, OpKind::Reduce { dimensions: vec![1] });
            assert_eq!(r.regions.len(), 1);
            assert_eq!(r.regions[0].params.len(), 2, "combiner takes (acc, x)");
            assert_eq!(r.regions[0].results.len(), 1);
        }
        let combiners: Vec<&OpKind> = reduces.iter().map(|r| &r.regions[0].ops[0].kind).collect();
        assert_eq!(combiners, vec![&OpKind::Binary(BinaryOp::Maximum), &OpKind::Binary(BinaryOp::Add)]);
        let relu = m.function("relu").expect("@relu");
        assert!(!relu.public);
        let call = main.body.ops.iter().find(|o| matches!(o.kind, OpKind::Call { .. })).unwrap();
        assert_eq!(call.kind, OpKind::Call { callee: "relu".into() });
        match &main.body.ops.iter().find(|o| matches!(o.kind, OpKind::DotGeneral { .. })).unwrap().kind {
            OpKind::DotGeneral { dims, .. } => {
                assert_eq!((dims.lhs_contracting.as_slice(), dims.rhs_contracting.as_slice()), (&[1][..], &[0][..]));
                assert!(dims.lhs_batch.is_empty() && dims.rhs_batch.is_empty());
            }
            other => panic!("first op is {other:?}"),
        }
    }
}

#[test]
fn control_flow_regions() {
    for target in TARGETS {
        let Some(w) = read_sample("while_loop", target) else { return };
        let main = w.entry_function();
        let wh = main.body.ops.iter().find(|o| o.kind == OpKind::While).expect("while");
        assert_eq!(wh.regions.len(), 2, "cond and body");
        assert_eq!(wh.operands.len(), wh.results.len());
        let cond = &wh.regions[0];
        assert_eq!(cond.results.len(), 1);
        assert!(cond.ops.iter().any(|o| matches!(o.kind, OpKind::Compare { direction: ComparisonDirection::Lt, .. })));
        assert_eq!(wh.regions[1].results.len(), wh.operands.len());

        let c = read_sample("cond", target).unwrap();
        let case = c.entry_function().body.ops.iter().find(|o| o.kind == OpKind::Case).expect("case");
        assert_eq!(case.regions.len(), 2);
        let branch_ops: Vec<&OpKind> = case.regions.iter().map(|r| &r.ops[0].kind).collect();
        assert_eq!(branch_ops, vec![&OpKind::Unary(UnaryOp::Cosine), &OpKind::Unary(UnaryOp::Sine)]);

        let s = read_sample("sort", target).unwrap();
        let sorts: Vec<&Op> = {
            let mut v = Vec::new();
            for f in &s.functions {
                walk(&f.body, &mut |op| {
                    if matches!(op.kind, OpKind::Sort { .. }) {
                        v.push(op)
                    }
                });
            }
            v
        };
        assert_eq!(sorts.iter().map(|o| o.operands.len()).collect::<Vec<_>>().len(), 2);
        for op in sorts {
            assert_eq!(op.regions[0].params.len(), 2 * op.operands.len(), "comparator takes pairs");
        }
    }
}

#[test]
fn convolution_gather_scatter_attributes() {
    for target in TARGETS {
        let Some(m) = read_sample("conv2d_nhwc", target) else { return };
        match &m.entry_function().body.ops[0].kind {
            OpKind::Convolution { window_strides, padding, dims, feature_group_count, .. } => {
                assert_eq!(window_strides, &vec![1, 1]);
                assert_eq!(padding, &vec![(1, 1), (1, 1)]);
                assert_eq!((dims.input_batch, dims.input_feature, &dims.input_spatial), (0, 3, &vec![1, 2]));
                assert_eq!((dims.kernel_input_feature, dims.kernel_output_feature), (2, 3));
                assert_eq!(*feature_group_count, 1);
            }
            other => panic!("{target}: {other:?}"),
        }
        let g = read_sample("gather", target).unwrap();
        assert_eq!(count(&g, "gather"), 1);
        let sc = read_sample("scatter_add", target).unwrap();
        let mut scatter = None;
        walk(&sc.entry_function().body, &mut |op| {
            if matches!(op.kind, OpKind::Scatter { .. }) {
                scatter = Some(op)
            }
        });
        let scatter = scatter.expect("scatter");
        assert_eq!(scatter.operands.len(), 3);
        assert_eq!(scatter.regions[0].ops[0].kind, OpKind::Binary(BinaryOp::Add));
    }
}

#[test]
fn misc_ops_composite_keeps_its_decomposition() {
    for target in TARGETS {
        let Some(m) = read_sample("misc_ops", target) else { return };
        let mut composite = None;
        walk(&m.entry_function().body, &mut |op| {
            if let OpKind::Composite { .. } = op.kind {
                composite = Some(op.kind.clone())
            }
        });
        match composite.expect("composite") {
            OpKind::Composite { name, decomposition, version, attributes } => {
                assert_eq!((name.as_str(), decomposition.as_str(), version), ("chlo.erf", "chlo.erf.impl", 1));
                assert!(attributes.is_empty());
                assert!(m.function(&decomposition).is_some_and(|f| !f.public));
            }
            _ => unreachable!(),
        }
        assert_eq!(count(&m, "reduce_window"), 1, "{target}: cumsum");
        assert!(count(&m, "concatenate") >= 1 && count(&m, "slice") >= 1);
    }
}


#[test]
fn op_counts_match_the_stablehlo_text() {
    let Some(all) = artifacts() else { return };
    let mut programs: Vec<&str> = all.iter().map(|a| a.0.as_str()).collect();
    programs.dedup();
    let mut compared = 0;
    for program in programs {
        let text = sample_text(program);
        if text.contains("chlo.") {
            // CHLO ops are rewritten by the serializer (composites, polynomial expansions).
            continue;
        }
        let m = read_sample(program, "v1_13_7").unwrap();
        assert_op_counts_match(&m, &text, program);
        compared += 1;
    }
    assert!(compared >= 12, "only {compared} programs without CHLO");
}

#[test]
fn read_program_dispatches_bytecode_to_the_vhlo_reader() {
    use apu_compiler::program::{read_program, ProgramFormat};
    let Some(dir) = samples_dir() else { return };
    let bytes = std::fs::read(dir.join("add.vhlo_v1_13_7.mlirbc")).unwrap();
    let via_program = read_program(ProgramFormat::parse("mlir").unwrap(), &bytes).unwrap();
    assert_eq!(via_program, read_vhlo_bytecode(&bytes).unwrap());
    // Text is not bytecode: it goes to the text reader, not the bytecode reader.
    let text = sample_text("add");
    let via_text = read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap();
    assert_eq!(via_text, apu_compiler::text::parse_module(&text).unwrap());
}

#[test]
fn gather_scatter_reduce_window_sort_attributes_match_the_text() {
    for target in TARGETS {
        let Some(g) = read_sample("gather", target) else { return };
        let gather = all_ops(&g).into_iter().find(|o| matches!(o.kind, OpKind::Gather { .. })).unwrap();
        let expected = OpKind::Gather {
            dims: GatherDims {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0],
                index_vector_dim: 1,
                ..Default::default()
            },
            slice_sizes: vec![1, 5],
            indices_are_sorted: false,
        };
        assert_eq!(gather.kind, expected, "{target}");

        let s = read_sample("scatter_add", target).unwrap();
        let scatter = all_ops(&s).into_iter().find(|o| matches!(o.kind, OpKind::Scatter { .. })).unwrap();
        let expected = OpKind::Scatter {
            dims: ScatterDims {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                ..Default::default()
            },
            indices_are_sorted: false,
            unique_indices: false,
        };
        assert_eq!(scatter.kind, expected, "{target}");

        let m = read_sample("misc_ops", target).unwrap();
        let rw = all_ops(&m).into_iter().find(|o| matches!(o.kind, OpKind::ReduceWindow { .. })).unwrap();
        let expected = OpKind::ReduceWindow {
            window_dimensions: vec![6, 1],
            window_strides: vec![1, 1],
            base_dilations: vec![1, 1],
            window_dilations: vec![1, 1],
            padding: vec![(5, 0), (0, 0)],
        };
        assert_eq!(rw.kind, expected, "{target}");

        let so = read_sample("sort", target).unwrap();
        for op in all_ops(&so).into_iter().filter(|o| matches!(o.kind, OpKind::Sort { .. })) {
            assert_eq!(op.kind, OpKind::Sort { dimension: 1, is_stable: true }, "{target}");
        }
    }
}
