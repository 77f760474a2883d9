//! `chlo.erf` / `chlo.erf_inv` are expanded into IR ops by the text reader. A tiny elementwise
//! evaluator runs the expansion here and compares with known values of erf.

use apu_compiler::ir::*;
use apu_compiler::text::parse_module;

/// Evaluates a function made only of elementwise f32/i1 ops on one input vector.
fn run(text: &str, input: &[f32]) -> Vec<f32> {
    let m = parse_module(text).unwrap();
    let f = m.entry_function();
    let mut vals: Vec<Option<Vec<f32>>> = vec![None; f.values.len()];
    vals[f.body.params[0].index()] = Some(input.to_vec());
    let n = input.len();
    for op in &f.body.ops {
        let arg = |i: usize| vals[op.operands[i].index()].clone().expect("defined");
        let zip = |a: Vec<f32>, b: Vec<f32>, g: fn(f32, f32) -> f32| a.iter().zip(&b).map(|(x, y)| g(*x, *y)).collect::<Vec<f32>>();
        let out: Vec<f32> = match &op.kind {
            OpKind::Constant(l) => {
                assert!(l.splat && l.ty.elem == ElementType::F32);
                vec![f32::from_le_bytes(l.bytes[..4].try_into().unwrap()); n]
            }
            OpKind::Binary(BinaryOp::Add) => zip(arg(0), arg(1), |x, y| x + y),
            OpKind::Binary(BinaryOp::Subtract) => zip(arg(0), arg(1), |x, y| x - y),
            OpKind::Binary(BinaryOp::Multiply) => zip(arg(0), arg(1), |x, y| x * y),
            OpKind::Binary(BinaryOp::Divide) => zip(arg(0), arg(1), |x, y| x / y),
            OpKind::Unary(UnaryOp::Negate) => arg(0).iter().map(|x| -x).collect(),
            OpKind::Unary(UnaryOp::Abs) => arg(0).iter().map(|x| x.abs()).collect(),
            OpKind::Unary(UnaryOp::Sqrt) => arg(0).iter().map(|x| x.sqrt()).collect(),
            OpKind::Unary(UnaryOp::LogPlusOne) => arg(0).iter().map(|x| x.ln_1p()).collect(),
            OpKind::Clamp => {
                let (lo, x, hi) = (arg(0), arg(1), arg(2));
                (0..n).map(|i| x[i].max(lo[i]).min(hi[i])).collect()
            }
            OpKind::Compare { direction: ComparisonDirection::Lt, .. } => zip(arg(0), arg(1), |x, y| (x < y) as u8 as f32),
            OpKind::Compare { direction: ComparisonDirection::Eq, .. } => zip(arg(0), arg(1), |x, y| (x == y) as u8 as f32),
            OpKind::Select => {
                let (p, a, b) = (arg(0), arg(1), arg(2));
                (0..n).map(|i| if p[i] != 0.0 { a[i] } else { b[i] }).collect()
            }
            other => panic!("unexpected op in expansion: {other:?}"),
        };
        vals[op.results[0].index()] = Some(out);
    }
    vals[f.body.results[0].index()].clone().unwrap()
}

fn program(op: &str) -> String {
    format!("func.func @main(%arg0: tensor<5xf32>) -> tensor<5xf32> {{\n  %0 = {op} %arg0 : tensor<5xf32> -> tensor<5xf32>\n  return %0 : tensor<5xf32>\n}}\n")
}

// erf at 0, ±0.5, 1.5, 2 (standard table values).
const XS: [f32; 5] = [0.0, 0.5, -0.5, 1.5, 2.0];
const ERF: [f32; 5] = [0.0, 0.520_499_9, -0.520_499_9, 0.966_105_1, 0.995_322_3];

#[test]
fn erf_expansion_matches_erf() {
    let got = run(&program("chlo.erf"), &XS);
    for i in 0..5 {
        assert!((got[i] - ERF[i]).abs() < 2e-6, "erf({}) = {} expected {}", XS[i], got[i], ERF[i]);
    }
}

#[test]
fn erf_inv_expansion_inverts_erf() {
    let got = run(&program("chlo.erf_inv"), &ERF);
    for i in 0..5 {
        assert!((got[i] - XS[i]).abs() < 2e-5 * XS[i].abs().max(1.0), "erf_inv({}) = {} expected {}", ERF[i], got[i], XS[i]);
    }
    let edge = run(&program("chlo.erf_inv"), &[1.0, -1.0, 0.0, 0.9, -0.9]);
    assert_eq!((edge[0], edge[1], edge[2]), (f32::INFINITY, f32::NEG_INFINITY, 0.0));
    assert!((edge[3] - 1.163_087_2).abs() < 1e-5, "{}", edge[3]);
}

#[test]
fn other_types_and_bf16() {
    let e = parse_module("func.func @main(%arg0: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n  %0 = chlo.erf %arg0 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>\n  return %0 : tensor<2xcomplex<f32>>\n}").unwrap_err();
    assert_eq!(e.kind, apu_compiler::error::ErrorKind::Unimplemented, "{e}");
    let m = parse_module("func.func @main(%arg0: tensor<2xf64>) -> tensor<2xf64> {\n  %0 = chlo.erf_inv %arg0 : tensor<2xf64> -> tensor<2xf64>\n  return %0 : tensor<2xf64>\n}").unwrap();
    apu_compiler::valid::validate(m).unwrap();
    let m = parse_module("func.func @main(%arg0: tensor<2xbf16>) -> tensor<2xbf16> {\n  %0 = chlo.erf %arg0 : tensor<2xbf16> -> tensor<2xbf16>\n  return %0 : tensor<2xbf16>\n}").unwrap();
    let ops = &m.entry_function().body.ops;
    assert_eq!(ops.first().map(|o| o.kind.clone()), Some(OpKind::Convert));
    assert_eq!(ops.last().map(|o| o.kind.clone()), Some(OpKind::Convert));
    apu_compiler::valid::validate(m).unwrap();
}

#[test]
fn top_k_is_a_sort_and_slices() {
    let m = parse_module("func.func @main(%arg0: tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xi32>) {\n  %v, %i = chlo.top_k(%arg0, k = 2) : tensor<5x3xf32> -> (tensor<5x2xf32>, tensor<5x2xi32>)\n  return %v, %i : tensor<5x2xf32>, tensor<5x2xi32>\n}").unwrap();
    let kinds: Vec<&str> = m.entry_function().body.ops.iter().map(|o| o.kind.name()).collect();
    assert_eq!(kinds, ["iota", "sort", "slice", "slice"]);
    apu_compiler::valid::validate(m).unwrap();
}

#[test]
fn every_expansion_validates_in_every_float_type() {
    let ops = ["erf", "erf_inv", "erfc", "lgamma", "digamma", "tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh"];
    for op in ops {
        for ty in ["f32", "f64", "f16", "bf16"] {
            let t = format!("tensor<3x{ty}>");
            let text = format!("func.func @main(%arg0: {t}) -> {t} {{\n  %0 = chlo.{op} %arg0 : {t} -> {t}\n  return %0 : {t}\n}}\n");
            let m = parse_module(&text).unwrap_or_else(|e| panic!("chlo.{op} on {ty}: {e}"));
            apu_compiler::valid::validate(m).unwrap_or_else(|e| panic!("chlo.{op} on {ty}: {e}"));
        }
    }
    for op in ["is_inf", "is_pos_inf", "is_neg_inf"] {
        let text = format!("func.func @main(%arg0: tensor<3xf32>) -> tensor<3xi1> {{\n  %0 = chlo.{op} %arg0 : tensor<3xf32> -> tensor<3xi1>\n  return %0 : tensor<3xi1>\n}}\n");
        apu_compiler::valid::validate(parse_module(&text).unwrap()).unwrap();
    }
}

#[test]
fn two_operand_expansions_validate_in_every_float_type() {
    for op in ["zeta", "polygamma", "next_after"] {
        for ty in ["f32", "f64", "f16", "bf16"] {
            let t = format!("tensor<3x{ty}>");
            let text = format!("func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{\n  %0 = chlo.{op} %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}\n}}\n");
            let m = parse_module(&text).unwrap_or_else(|e| panic!("chlo.{op} on {ty}: {e}"));
            apu_compiler::valid::validate(m).unwrap_or_else(|e| panic!("chlo.{op} on {ty}: {e}"));
        }
    }
    // Mismatched operand types are an error naming the op, not a panic.
    let e = parse_module("func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf64>) -> tensor<3xf32> {\n  %0 = chlo.zeta %arg0, %arg1 : tensor<3xf32>, tensor<3xf64> -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n").unwrap_err();
    assert!(e.to_string().contains("zeta"), "{e}");
}

#[test]
fn square_expansion_is_x_times_x() {
    let got = run(&program("chlo.square"), &XS);
    for i in 0..5 {
        assert_eq!(got[i], XS[i] * XS[i], "square({})", XS[i]);
    }
}
