//! Control flow, calls, tuples, composites, argument checks and UNIMPLEMENTED reporting.

mod common;

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{BinaryOp, ElementType::*, OpKind, Type};
use apu_runtime::interp;
use common::*;

#[test]
fn case_out_of_range_index_runs_last_branch() {
    for (index, want) in [(0, 10.0), (1, 20.0), (2, 30.0), (7, 30.0), (-1, 30.0)] {
        let mut b = FnBuilder::new("main");
        let i = b.param(tt(&[], S32));
        let branches = [10.0f32, 20.0, 30.0]
            .iter()
            .map(|&v| b.region(&[], |b, _| vec![b.constant(&f32s(&[], &[v]))]))
            .collect();
        let r = b.ops(OpKind::Case, &[i], &[tt(&[], F32)], branches)[0];
        let m = module(vec![b.finish(&[r])]);
        assert_eq!(to_f32(&interp::run(&m, &[i32s(&[], &[index])]).unwrap()[0]), [want], "index {index}");
    }
}

#[test]
fn while_counts_and_tuples_round_trip() {
    let mut b = FnBuilder::new("main");
    let n = b.param(tt(&[], S32));
    let zero = b.constant(&i32s(&[], &[0]));
    let state = [tt(&[], S32), tt(&[], S32)];
    let cond = b.region(&state, |b, p| {
        vec![b.op(OpKind::Compare { direction: apu_compiler::ir::ComparisonDirection::Lt, compare_type: None }, &[p[0], p[1]], tt(&[], Pred))]
    });
    let body = b.region(&state, |b, p| {
        let one = b.constant(&i32s(&[], &[1]));
        vec![b.op(OpKind::Binary(BinaryOp::Add), &[p[0], one], tt(&[], S32)), p[1]]
    });
    let r = b.ops(OpKind::While, &[zero, n], &state, vec![cond, body]);
    let tuple_ty = Type::Tuple(vec![tt(&[], S32), tt(&[], S32)]);
    let t = b.op(OpKind::Tuple, &[r[0], r[1]], tuple_ty);
    let g = b.op(OpKind::GetTupleElement { index: 0 }, &[t], tt(&[], S32));
    let m = module(vec![b.finish(&[g, t])]);
    let out = interp::run(&m, &[i32s(&[], &[5])]).unwrap();
    // Tuple results are flattened.
    assert_eq!(out.len(), 3);
    assert_eq!([to_i32(&out[0]), to_i32(&out[1]), to_i32(&out[2])], [[5], [5], [5]]);
}

#[test]
fn composite_runs_its_decomposition_and_call_passes_arguments() {
    let mut dec = FnBuilder::new("my.square.impl");
    let x = dec.param(tt(&[2], F32));
    let r = dec.op(OpKind::Binary(BinaryOp::Multiply), &[x, x], tt(&[2], F32));
    let dec = dec.finish(&[r]);
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    let kind = OpKind::Composite { name: "my.square".into(), decomposition: "my.square.impl".into(), version: 0, attributes: vec![] };
    let c = b.op(kind, &[x], tt(&[2], F32));
    let barrier = b.ops(OpKind::OptimizationBarrier, &[c], &[tt(&[2], F32)], vec![])[0];
    let m = module(vec![b.finish(&[barrier]), dec]);
    assert_eq!(to_f32(&interp::run(&m, &[f32s(&[2], &[3.0, -4.0])]).unwrap()[0]), [9.0, 16.0]);
}

#[test]
fn arguments_are_checked_by_count_and_type() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    let m = module(vec![b.finish(&[x])]);
    let e = interp::run(&m, &[]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("takes 1 arguments, got 0"), "{e}");
    let e = interp::run(&m, &[i32s(&[2], &[1, 2])]).unwrap_err();
    assert!(e.message.contains("argument 0") && e.message.contains("tensor<2xf32>") && e.message.contains("tensor<2xi32>"), "{e}");
}

#[test]
fn custom_call_is_unimplemented_at_compile_and_run_time() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    let kind = OpKind::CustomCall {
        call_target_name: "lapack_sgetrf".into(),
        has_side_effect: false,
        backend_config: None,
        api_version: 4,
        called_computations: vec![],
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    };
    let r = b.op(kind, &[x], tt(&[2], F32));
    let m = module(vec![b.finish(&[r])]);
    let at_compile = interp::check_supported(&m).unwrap_err();
    assert_eq!(at_compile.kind, ErrorKind::Unimplemented);
    assert!(at_compile.message.contains("lapack_sgetrf"));
    assert!(at_compile.to_string().contains("function @main"), "{at_compile}");
    let at_run = interp::run(&m, &[f32s(&[2], &[1.0, 2.0])]).unwrap_err();
    assert_eq!(at_run.message, at_compile.message);
}

#[test]
fn single_device_collectives_are_identity() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    let add = b.binary_region(BinaryOp::Add, F32);
    let r = b.ops(OpKind::AllReduce { groups: Default::default() }, &[x], &[tt(&[2], F32)], vec![add])[0];
    let id = b.op(OpKind::ReplicaId, &[], tt(&[], U32));
    let m = module(vec![b.finish(&[r, id])]);
    let out = interp::run(&m, &[f32s(&[2], &[1.5, 2.5])]).unwrap();
    assert_eq!(to_f32(&out[0]), [1.5, 2.5]);
    assert_eq!(to_u32(&out[1]), [0]);
}

/// A chain of `depth` functions, each calling the next; the last returns its argument.
fn call_chain(depth: usize) -> apu_compiler::valid::ValidModule {
    let mut fs = Vec::new();
    for i in 0..depth {
        let mut f = FnBuilder::new(if i == 0 { "main" } else { "" });
        let x = f.param(tt(&[], F32));
        let r = if i + 1 < depth { f.op(OpKind::Call { callee: format!("f{}", i + 1) }, &[x], tt(&[], F32)) } else { x };
        let mut func = f.finish(&[r]);
        if i > 0 {
            func.name = format!("f{i}");
        }
        fs.push(func);
    }
    module(fs)
}

#[test]
fn deep_call_chains_fit_a_default_thread_stack_and_overdeep_ones_fail_cleanly() {
    let ok = call_chain(100);
    let too_deep = call_chain(400);
    // Rust's spawned threads get 2 MiB of stack by default: runs must fit in that.
    std::thread::spawn(move || {
        assert_eq!(to_f32(&interp::run(&ok, &[f32s(&[], &[4.0])]).unwrap()[0]), [4.0]);
        let e = interp::run(&too_deep, &[f32s(&[], &[4.0])]).unwrap_err();
        assert!(e.message.contains("nest deeper"), "{e}");
    })
    .join()
    .unwrap();
}

#[test]
fn a_result_that_contradicts_its_declared_type_is_an_error() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    // reverse keeps the operand type, so declaring tensor<3xf32> is inconsistent.
    // The validator catches it before any executor sees the module.
    let r = b.op(OpKind::Reverse { dimensions: vec![0] }, &[x], tt(&[3], F32));
    let f = b.finish(&[r]);
    let e = apu_compiler::valid::validate(apu_compiler::ir::Module {
        name: "test".into(),
        functions: vec![f],
        entry: 0,
        num_replicas: 1,
        num_partitions: 1,
    })
    .unwrap_err();
    assert!(e.message.contains("tensor<3xf32>") && e.message.contains("tensor<2xf32>"), "{e}");
}

#[test]
fn tuple_and_token_parameters_take_flattened_arguments() {
    let mut b = FnBuilder::new("main");
    let p = b.param(Type::Tuple(vec![tt(&[], F32), Type::Tuple(vec![tt(&[2], S32)])]));
    let _tok = b.param(Type::Token);
    let q = b.param(tt(&[], F32));
    let x = b.op(OpKind::GetTupleElement { index: 0 }, &[p], tt(&[], F32));
    let inner = b.op(OpKind::GetTupleElement { index: 1 }, &[p], Type::Tuple(vec![tt(&[2], S32)]));
    let y = b.op(OpKind::GetTupleElement { index: 0 }, &[inner], tt(&[2], S32));
    let s = b.op(OpKind::Binary(BinaryOp::Add), &[x, q], tt(&[], F32));
    let m = module(vec![b.finish(&[s, y])]);
    let out = interp::run(&m, &[f32s(&[], &[1.5]), i32s(&[2], &[7, 8]), f32s(&[], &[2.0])]).unwrap();
    assert_eq!(to_f32(&out[0]), [3.5]);
    assert_eq!(to_i32(&out[1]), [7, 8]);
    let e = interp::run(&m, &[f32s(&[], &[1.5]), f32s(&[2], &[7.0, 8.0]), f32s(&[], &[2.0])]).unwrap_err();
    assert!(e.message.contains("argument 1") && e.message.contains("tensor<2xi32>"), "{e}");
}

#[test]
fn sharding_annotations_are_identity_on_one_device() {
    let mut b = FnBuilder::new("main");
    let x = b.param(tt(&[2], F32));
    let kind = OpKind::CustomCall {
        call_target_name: "Sharding".into(),
        has_side_effect: false,
        backend_config: None,
        api_version: 1,
        called_computations: vec![],
        ffi_attributes: None,
        output_operand_aliases: vec![],
        operand_layouts: vec![],
        result_layouts: vec![],
    };
    let r = b.op(kind, &[x], tt(&[2], F32));
    let m = module(vec![b.finish(&[r])]);
    interp::check_supported(&m).unwrap();
    assert_eq!(to_f32(&interp::run(&m, &[f32s(&[2], &[1.0, 2.0])]).unwrap()[0]), [1.0, 2.0]);
}
