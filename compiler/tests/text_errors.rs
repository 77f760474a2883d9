//! Malformed StableHLO text: errors name line:column and what was expected; hostile input
//! (truncation, garbage, deep nesting) gives errors, never panics.

use apu_compiler::error::ErrorKind;
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::text::parse_module;

fn wrap(body: &str) -> String {
    format!("module @m {{\n  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {{\n{body}\n  }}\n}}\n")
}

/// Parses, expects an error, and checks that it starts with `line:col:`.
fn error_of(text: &str) -> apu_compiler::Error {
    let e = parse_module(text).expect_err("malformed input must not parse");
    let (pos, _) = e.message.split_once(": ").unwrap_or_else(|| panic!("no position in {:?}", e.message));
    let (l, c) = pos.split_once(':').unwrap_or_else(|| panic!("no line:col in {:?}", e.message));
    assert!(l.parse::<usize>().is_ok() && c.parse::<usize>().is_ok(), "bad position in {:?}", e.message);
    e
}

#[test]
fn undefined_value_names_position_and_value() {
    let e = error_of(&wrap("    %0 = stablehlo.add %arg0, %nope : tensor<8xf32>\n    return %0 : tensor<8xf32>"));
    assert!(e.message.starts_with("3:31: use of undefined value %nope"), "{}", e.message);
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
}

#[test]
fn missing_colon_says_what_was_expected() {
    let e = error_of(&wrap("    %0 = stablehlo.add %arg0, %arg0\n    return %0 : tensor<8xf32>"));
    assert!(e.message.starts_with("4:5: expected ':', found 'return'"), "{}", e.message);
}

#[test]
fn dense_shape_mismatch() {
    let e = error_of(&wrap("    %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>\n    return %arg0 : tensor<8xf32>"));
    assert!(e.message.contains("dimension 0 has 3 elements in the list but the type says 2"), "{}", e.message);
}

#[test]
fn generic_operand_type_mismatch() {
    let e = error_of(&wrap("    %0 = \"stablehlo.negate\"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n    return %arg0 : tensor<8xf32>"));
    assert!(e.message.contains("operand #0 is declared tensor<4xf32> but the value has type tensor<8xf32>"), "{}", e.message);
}

#[test]
fn unknown_ops_and_dynamic_shapes_are_unimplemented() {
    let e = error_of(&wrap("    %0 = stablehlo.frobnicate %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>"));
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{}", e.message);
    assert!(e.message.contains("frobnicate"), "{}", e.message);
    let e = error_of("module {\n  func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n    return %arg0 : tensor<?xf32>\n  }\n}");
    assert_eq!(e.kind, ErrorKind::Unimplemented);
    assert!(e.message.starts_with("2:33: dynamic dimensions"), "{}", e.message);
    let e = error_of(&wrap("    %0 = chlo.bessel_i1e %arg0 : tensor<8xf32> -> tensor<8xf32>\n    return %0 : tensor<8xf32>"));
    assert_eq!(e.kind, ErrorKind::Unimplemented);
}

#[test]
fn redefinition_and_missing_terminator() {
    let e = error_of(&wrap("    %0 = stablehlo.negate %arg0 : tensor<8xf32>\n    %0 = stablehlo.negate %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>"));
    assert!(e.message.contains("redefinition of %0"), "{}", e.message);
    let e = error_of(&wrap("    %0 = stablehlo.negate %arg0 : tensor<8xf32>"));
    assert!(e.message.contains("region ends without a terminator"), "{}", e.message);
}

#[test]
fn unterminated_string_and_bad_character() {
    let e = error_of("module @m attributes {x = \"abc\n}");
    assert!(e.message.starts_with("1:27: unterminated string"), "{}", e.message);
    let e = error_of("module @m { ` }");
    assert!(e.message.starts_with("1:13: unexpected character"), "{}", e.message);
}

#[test]
fn no_main_function() {
    let e = parse_module("module {\n  func.func private @f(%arg0: tensor<f32>) -> tensor<f32> {\n    return %arg0 : tensor<f32>\n  }\n}").unwrap_err();
    assert!(e.message.contains("no @main"), "{}", e.message);
}

#[test]
fn read_program_routes_text_and_rejects_non_utf8() {
    let text = wrap("    %0 = stablehlo.negate %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>");
    let m = read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap();
    assert_eq!(m.entry_function().body.ops.len(), 1);
    let e = read_program(ProgramFormat::Mlir, b"module \xff\xfe").unwrap_err();
    assert!(e.message.contains("invalid byte at offset 7"), "{}", e.message);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let e = error_of(&wrap(&format!("    %0 = stablehlo.constant dense<{deep}> : tensor<f32>\n    return %arg0 : tensor<8xf32>")));
    assert!(e.message.contains("nesting deeper"), "{}", e.message);
    let deep_ty = format!("{}tensor<f32>{}", "tuple<".repeat(5000), ">".repeat(5000));
    let e = error_of(&format!("module {{\n  func.func @main(%arg0: {deep_ty}) {{\n    return\n  }}\n}}"));
    assert!(e.message.contains("nesting deeper"), "{}", e.message);
}

/// A tiny deterministic generator, so that failures reproduce.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn truncation_and_garbage_never_panic() {
    // The project's own fixtures (in the repository, so the test fuzzes the same texts wherever
    // the checkout is).
    let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/programs"));
    let mut texts = vec![wrap("    %0 = stablehlo.negate %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>")];
    for name in ["while_loop", "conv2d_nhwc", "gather", "scatter", "sort"] {
        for suffix in ["stablehlo.mlir", "stablehlo_generic.mlir"] {
            let path = dir.join(format!("{name}.{suffix}"));
            texts.push(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
        }
    }
    // `APU_FUZZ_ITERS` / `APU_FUZZ_SEED` widen the search when hunting for panics.
    let iters: usize = std::env::var("APU_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut rng = Lcg(std::env::var("APU_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(7));
    let junk: &[u8] = b"%#@^!\"<>()[]{}:,=-x0129.e?*abc \n\\";
    let mut cases = 0;
    for t in &texts {
        let bytes = t.as_bytes();
        for cut in (0..bytes.len()).step_by(53.max(bytes.len() / 300)) {
            let _ = read_program(ProgramFormat::Mlir, &bytes[..cut]);
            cases += 1;
        }
        for _ in 0..iters {
            let mut b = bytes.to_vec();
            for _ in 0..(1 + rng.next() % 4) {
                let i = (rng.next() as usize) % b.len();
                b[i] = junk[(rng.next() as usize) % junk.len()];
            }
            // Every third case also swaps one number for an extreme value.
            if rng.next() % 3 == 0 {
                let digits: Vec<usize> = (0..b.len()).filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric())).collect();
                if !digits.is_empty() {
                    let at = digits[(rng.next() as usize) % digits.len()];
                    let end = (at..b.len()).find(|&i| !b[i].is_ascii_digit()).unwrap_or(b.len());
                    let extreme: &[&[u8]] = &[b"0", b"9223372036854775807", b"18446744073709551616", b"4294967296", b"1"];
                    let pick = extreme[(rng.next() as usize) % extreme.len()];
                    b.splice(at..end, pick.iter().copied());
                }
            }
            // Whatever parses must also survive validation and printing.
            if let Ok(m) = read_program(ProgramFormat::Mlir, &b) {
                let _ = apu_compiler::print::print_module(&m);
                let _ = apu_compiler::valid::validate(m);
            }
            cases += 1;
        }
    }
    assert!(cases > 1000);
}

#[test]
fn huge_shapes_and_attribute_values_are_errors_not_overflows() {
    let e = error_of("func.func @main(%arg0: tensor<99999999999x99999999999xf32>) {\n  return\n}");
    assert!(e.message.contains("too many elements"), "{}", e.message);
    // Attribute values near i64::MAX must not overflow the validator's shape arithmetic.
    let text = wrap(
        "    %c = stablehlo.constant dense<0.0> : tensor<f32>\n    %0 = stablehlo.pad %arg0, %c, low = [9223372036854775807], high = [9223372036854775807], interior = [9223372036854775807] : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>\n    %1 = stablehlo.slice %arg0 [0:8:9223372036854775807] : (tensor<8xf32>) -> tensor<1xf32>\n    return %0 : tensor<8xf32>",
    );
    let m = parse_module(&text).unwrap();
    let e = apu_compiler::valid::validate(m).unwrap_err();
    assert!(e.message.contains("out of range"), "{e}");
}

#[test]
fn mhlo_text_of_the_pjrt_c_api_test() {
    // The shape of the program XLA's PJRT C API `Compile` test sends (MHLO ops, format "mlir").
    let text = "module {\nfunc.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n  %0 = \"mhlo.copy\"(%arg0) : (tensor<f32>) -> tensor<f32>\n  %1 = mhlo.constant dense<1.000000e+00> : tensor<f32>\n  %2 = mhlo.add %0, %1 : tensor<f32>\n  return %2 : tensor<f32>\n}}";
    let m = read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap();
    let kinds: Vec<&str> = m.entry_function().body.ops.iter().map(|o| o.kind.name()).collect();
    assert_eq!(kinds, ["reshape", "constant", "add"]);
    apu_compiler::valid::validate(m).unwrap();
    let old = "module {\n  func @main(%arg0: tensor<2xf32>) -> tensor<3x2xf32> {\n    %0 = \"mhlo.broadcast\"(%arg0) {broadcast_sizes = dense<[3]> : tensor<1xi64>} : (tensor<2xf32>) -> tensor<3x2xf32>\n    return %0 : tensor<3x2xf32>\n  }\n}";
    let m = parse_module(old).unwrap();
    assert_eq!(m.entry_function().body.ops[0].kind, apu_compiler::ir::OpKind::BroadcastInDim { broadcast_dimensions: vec![1] });
    apu_compiler::valid::validate(m).unwrap();
}

/// `depth` nested `case` ops, each returning the one inside it.
fn nested_cases(depth: usize) -> String {
    let mut body = String::from("stablehlo.return %arg0 : tensor<i32>");
    for level in 0..depth {
        let term = if level + 1 == depth { "return" } else { "stablehlo.return" };
        body = format!("%r = \"stablehlo.case\"(%arg0) ({{\n{body}\n}}) : (tensor<i32>) -> tensor<i32>\n{term} %r : tensor<i32>");
    }
    format!("func.func @main(%arg0: tensor<i32>) -> tensor<i32> {{\n{body}\n}}\n")
}

#[test]
fn deeply_nested_regions_are_an_error_not_a_stack_overflow() {
    let e = error_of(&nested_cases(1000));
    assert!(e.message.contains("nesting deeper"), "{}", e.message);
    // Just below the limit the program parses, validates and prints (on this 2 MiB test thread).
    let text = nested_cases(45);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
    let printed = apu_compiler::print::print_module(&m);
    apu_compiler::valid::validate(m).unwrap();
    parse_module(&printed).unwrap();
    // Unterminated pretty while loops nested deeply.
    let mut text = String::from("func.func @main(%arg0: tensor<i32>) -> tensor<i32> {\n");
    for _ in 0..1000 {
        text.push_str("%r = stablehlo.while(%it = %arg0) : tensor<i32>\ncond {\n%p = stablehlo.compare LT, %it, %it : (tensor<i32>, tensor<i32>) -> tensor<i1>\nstablehlo.return %p : tensor<i1>\n} do {\n");
    }
    let e = error_of(&text);
    assert!(e.message.contains("nesting deeper"), "{}", e.message);
}

#[test]
fn composite_prints_in_pretty_form_and_round_trips() {
    let text = "module @m {\n  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n    %0 = stablehlo.composite \"chlo.erf\" %arg0 {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n  func.func private @chlo.erf.impl(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n    return %arg0 : tensor<3xf32>\n  }\n}\n";
    let m = parse_module(text).unwrap();
    let printed = apu_compiler::print::print_module(&m);
    assert!(printed.contains("%0 = stablehlo.composite \"chlo.erf\" %arg0 {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>"), "{printed}");
    let again = parse_module(&printed).unwrap();
    assert_eq!(again.entry_function().body.ops[0].kind, m.entry_function().body.ops[0].kind);
    assert_eq!(apu_compiler::print::print_module(&again), printed);
    apu_compiler::valid::validate(m).unwrap();
}

/// flax's bf16 attention (jax 0.12) writes `dot_general ... algorithm = <...>`: read and checked, as
/// the VHLO reader does; a malformed algorithm is an error naming the field.
#[test]
fn dot_general_algorithms_are_read_and_checked() {
    let dot = |algorithm: &str| {
        format!(
            "func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xbf16> {{\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <{algorithm}> : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>\n  return %0 : tensor<2x4xbf16>\n}}\n"
        )
    };
    let good = "lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false";
    read_program(ProgramFormat::Mlir, dot(good).as_bytes()).unwrap();
    let e = read_program(ProgramFormat::Mlir, dot("lhs_precision_type = i8").as_bytes()).unwrap_err();
    assert!(e.message.contains("lhs_precision_type"), "{e}");
    let e = read_program(ProgramFormat::Mlir, dot("num_primitive_operations = 0").as_bytes()).unwrap_err();
    assert!(e.message.contains("num_primitive_operations"), "{e}");
    let e = read_program(ProgramFormat::Mlir, dot("speed = fast").as_bytes()).unwrap_err();
    assert!(e.message.contains("speed"), "{e}");
}
