//! The validator on ill-typed programs written as StableHLO text: each error names the function,
//! the op, its location and the types involved.

use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;

/// A module whose @main takes %arg0: tensor<8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2x8xf32>.
fn module(body: &str, ret: &str) -> String {
    format!(
        "module @m {{\n  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2x8xf32>) -> {ret} {{\n{body}\n  }}\n  func.func private @id(%arg0: tensor<4xf32>) -> tensor<4xf32> {{\n    return %arg0 : tensor<4xf32>\n  }}\n}}\n"
    )
}

/// Parses (must succeed) and validates (must fail); returns the full error text.
fn invalid(body: &str, ret: &str) -> String {
    let m = parse_module(&module(body, ret)).unwrap_or_else(|e| panic!("test program must parse: {e}"));
    validate(m).expect_err("program must not validate").to_string()
}

fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "missing {p:?} in:\n{text}");
    }
}

#[test]
fn valid_program_passes() {
    let m = parse_module(&module("    %0 = call @id(%arg1) : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>", "tensor<4xf32>")).unwrap();
    validate(m).unwrap();
}

#[test]
fn elementwise_operand_types_must_match() {
    let e = invalid("    %0 = stablehlo.add %arg0, %arg1 : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>", "tensor<8xf32>");
    assert_has(&e, &["operands must have the same type, got tensor<8xf32> and tensor<4xf32>", "in stablehlo.add at <text>:3:10", "in function @main"]);
}

#[test]
fn broadcast_in_dim_sizes() {
    let e = invalid("    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<2x8xf32>\n    return %0 : tensor<2x8xf32>", "tensor<2x8xf32>");
    assert_has(&e, &["operand dimension 0 (size 4) maps to result dimension 1 (size 8)", "broadcast_in_dim at <text>:3:10"]);
    let e = invalid("    %0 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<4xf32>) -> tensor<2x8xf32>\n    return %0 : tensor<2x8xf32>", "tensor<2x8xf32>");
    assert_has(&e, &["broadcast dimension 2 is out of range for rank 2"]);
}

#[test]
fn reshape_transpose_slice_concatenate() {
    let e = invalid("    %0 = stablehlo.reshape %arg0 : (tensor<8xf32>) -> tensor<3x3xf32>\n    return %0 : tensor<3x3xf32>", "tensor<3x3xf32>");
    assert_has(&e, &["cannot reshape tensor<8xf32> (8 elements) to tensor<3x3xf32> (9 elements)"]);
    let e = invalid("    %0 = stablehlo.transpose %arg2, dims = [0, 0] : (tensor<2x8xf32>) -> tensor<2x8xf32>\n    return %0 : tensor<2x8xf32>", "tensor<2x8xf32>");
    assert_has(&e, &["permutation entry 0 appears twice"]);
    let e = invalid("    %0 = stablehlo.slice %arg0 [2:9] : (tensor<8xf32>) -> tensor<7xf32>\n    return %0 : tensor<7xf32>", "tensor<7xf32>");
    assert_has(&e, &["slice 2:9:1 is out of bounds for size 8"]);
    let e = invalid("    %0 = stablehlo.slice %arg0 [0:8:3] : (tensor<8xf32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>", "tensor<2xf32>");
    assert_has(&e, &["gives shape [3], result is tensor<2xf32>"]);
    let e = invalid("    %0 = stablehlo.concatenate %arg0, %arg2, dim = 0 : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<10xf32>\n    return %0 : tensor<10xf32>", "tensor<10xf32>");
    assert_has(&e, &["operand #1 tensor<2x8xf32> does not match operand #0 tensor<8xf32>"]);
}

#[test]
fn dot_general_dimensions() {
    let e = invalid(
        "    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>",
        "tensor<2xf32>",
    );
    assert_has(&e, &["lhs dimension 1 (size 8) and rhs dimension 0 (size 4) must match (tensor<2x8xf32> vs tensor<4xf32>)", "dot_general at"]);
    let e = invalid(
        "    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x1xf32>\n    return %0 : tensor<2x1xf32>",
        "tensor<2x1xf32>",
    );
    assert_has(&e, &["gives shape [2], result is tensor<2x1xf32>"]);
}

#[test]
fn compare_convert_iota_dynamic_slice() {
    let e = invalid("    %0 = stablehlo.compare LT, %arg0, %arg0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>", "tensor<8xf32>");
    assert_has(&e, &["result must be a tensor of i1, got tensor<8xf32>"]);
    let e = invalid("    %0 = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<4xi32>\n    return %0 : tensor<4xi32>", "tensor<4xi32>");
    assert_has(&e, &["convert: shapes differ (tensor<8xf32> vs tensor<4xi32>)"]);
    let e = invalid("    %0 = stablehlo.iota dim = 2 : tensor<2x3xi32>\n    return %0 : tensor<2x3xi32>", "tensor<2x3xi32>");
    assert_has(&e, &["iota_dimension 2 is out of range for rank 2"]);
    let e = invalid(
        "    %c = stablehlo.constant dense<0> : tensor<i32>\n    %0 = stablehlo.dynamic_slice %arg0, %c, sizes = [9] : (tensor<8xf32>, tensor<i32>) -> tensor<9xf32>\n    return %0 : tensor<9xf32>",
        "tensor<9xf32>",
    );
    assert_has(&e, &["slice size 9 of dimension 0 exceeds the operand's size 8"]);
}

#[test]
fn reduce_dimensions_and_body_signature() {
    let e = invalid(
        "    %c = stablehlo.constant dense<0.0> : tensor<f32>\n    %0 = stablehlo.reduce(%arg2 init: %c) applies stablehlo.add across dimensions = [2] : (tensor<2x8xf32>, tensor<f32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>",
        "tensor<2xf32>",
    );
    assert_has(&e, &["reduce dimensions [2] must be distinct dimensions of tensor<2x8xf32>"]);
    let e = invalid(
        "    %c = stablehlo.constant dense<0.0> : tensor<f32>\n    %0 = \"stablehlo.reduce\"(%arg2, %c) <{dimensions = array<i64: 1>}> ({\n    ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n      \"stablehlo.return\"(%a) : (tensor<i32>) -> ()\n    }) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2xf32>\n    return %0 : tensor<2xf32>",
        "tensor<2xf32>",
    );
    assert_has(&e, &["reduce body takes (tensor<i32>, tensor<i32>) but must take (tensor<f32>, tensor<f32>)"]);
}

#[test]
fn while_and_case_regions() {
    let e = invalid(
        "    %0 = stablehlo.while(%it = %arg0) : tensor<8xf32>\n    cond {\n      stablehlo.return %it : tensor<8xf32>\n    } do {\n      stablehlo.return %it : tensor<8xf32>\n    }\n    return %0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    assert_has(&e, &["while cond returns (tensor<8xf32>) but must return (tensor<i1>)", "while at <text>:3:10"]);
    let e = invalid(
        "    %i = stablehlo.constant dense<0> : tensor<i32>\n    %0 = \"stablehlo.case\"(%i) ({\n      stablehlo.return %arg0 : tensor<8xf32>\n    }, {\n      stablehlo.return %arg1 : tensor<4xf32>\n    }) : (tensor<i32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    assert_has(&e, &["case branch 1 returns (tensor<4xf32>) but the op's results are (tensor<8xf32>)"]);
}

#[test]
fn call_signatures_and_function_results() {
    let e = invalid("    %0 = call @id(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>", "tensor<8xf32>");
    assert_has(&e, &["call signature (tensor<8xf32>) -> (tensor<8xf32>) does not match @id: (tensor<4xf32>) -> (tensor<4xf32>)"]);
    let e = invalid("    %0 = call @nothere(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>", "tensor<8xf32>");
    assert_has(&e, &["call to unknown function @nothere"]);
    let e = invalid("    return %arg1 : tensor<4xf32>", "tensor<8xf32>");
    assert_has(&e, &["returns (tensor<4xf32>) but the signature says (tensor<8xf32>)", "in function @main"]);
}

#[test]
fn gather_result_shape() {
    let e = invalid(
        "    %i = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi32>\n    %0 = \"stablehlo.gather\"(%arg2, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<2x8xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n    return %0 : tensor<2x4xf32>",
        "tensor<2x4xf32>",
    );
    assert_has(&e, &["gives shape [2, 8], result is tensor<2x4xf32>"]);
}

#[test]
fn values_used_outside_their_region_are_rejected() {
    let text = module(
        "    %0 = stablehlo.while(%it = %arg0) : tensor<8xf32>\n    cond {\n      %c = stablehlo.constant dense<true> : tensor<i1>\n      stablehlo.return %c : tensor<i1>\n    } do {\n      %n = stablehlo.negate %it : tensor<8xf32>\n      stablehlo.return %n : tensor<8xf32>\n    }\n    return %0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    let mut m = parse_module(&text).unwrap();
    let main = m.entry;
    let inner = m.functions[main].body.ops[0].regions[1].ops[0].results[0];
    m.functions[main].body.results = vec![inner];
    let e = validate(m).unwrap_err().to_string();
    assert_has(&e, &["is used before its definition or outside its region", "function @main"]);
}

#[test]
fn error_text_reads_well() {
    let e = invalid("    %0 = stablehlo.reshape %arg0 : (tensor<8xf32>) -> tensor<3x3xf32>\n    return %0 : tensor<3x3xf32>", "tensor<3x3xf32>");
    assert_eq!(
        e,
        "cannot reshape tensor<8xf32> (8 elements) to tensor<3x3xf32> (9 elements)\n  in stablehlo.reshape at <text>:3:10\n  in function @main"
    );
}

#[test]
fn linalg_fft_and_select_and_scatter_rules() {
    let e = invalid("    %0 = \"stablehlo.cholesky\"(%arg2) <{lower = true}> : (tensor<2x8xf32>) -> tensor<2x8xf32>\n    return %0 : tensor<2x8xf32>", "tensor<2x8xf32>");
    assert_has(&e, &["cholesky operand must be a batch of square matrices, got tensor<2x8xf32>"]);
    let e = invalid(
        "    %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<8xcomplex<f32>>\n    return %arg0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    assert_has(&e, &["Rfft with fft_length [8] cannot map tensor<8xf32> to tensor<8xcomplex<f32>>"]);
    let e = invalid(
        "    %0 = stablehlo.fft %arg0, type = RFFT, length = [-8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>\n    return %arg0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    assert_has(&e, &["fft_length [-8] has a negative entry"]);
    let e = invalid(
        "    %c = stablehlo.constant dense<0.0> : tensor<f32>\n    %0 = \"stablehlo.select_and_scatter\"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      stablehlo.return %a : tensor<f32>\n    }, {\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %s = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n    }) : (tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>",
        "tensor<8xf32>",
    );
    assert_has(&e, &["select region is (tensor<f32>, tensor<f32>) -> (tensor<f32>) but must be (tensor<f32>, tensor<f32>) -> (tensor<i1>)"]);
}

#[test]
fn comparison_type_must_fit_the_element_type() {
    let e = invalid("    %0 = stablehlo.compare LT, %arg0, %arg0, SIGNED : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>\n    return %arg0 : tensor<8xf32>", "tensor<8xf32>");
    assert_has(&e, &["comparison type Some(Signed) does not fit operands of f32"]);
}
