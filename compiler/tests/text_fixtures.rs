//! A wider JAX program (`tests/fixtures/wide.*`, made by `tests/fixtures/gen_wide.py` with jax 0.10.2):
//! pretty, debug-info and generic printouts parse, validate, agree, and print to a fixed point.

use apu_compiler::print::print_module;
use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/").to_string() + name).unwrap()
}

#[test]
fn wide_program_all_forms_agree_and_round_trip() {
    let mut printed = Vec::new();
    for file in ["wide.stablehlo.mlir", "wide.debug.mlir", "wide.stablehlo_generic.mlir"] {
        let m = parse_module(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let once = print_module(&m);
        let again = parse_module(&once).unwrap_or_else(|e| panic!("{file}: printed text does not parse: {e}\n{once}"));
        assert_eq!(once, print_module(&again), "{file}: print is not a fixed point");
        validate(m).unwrap_or_else(|e| panic!("{file}: {e}"));
        printed.push(once);
    }
    assert_eq!(printed[0], printed[1], "pretty vs debug-info pretty");
    assert_eq!(printed[0], printed[2], "pretty vs generic");
}

#[test]
fn sharded_program_keeps_donation_and_skips_shardy_annotations() {
    let pretty = parse_module(&fixture("sharded.stablehlo.mlir")).unwrap();
    let generic = parse_module(&fixture("sharded.stablehlo_generic.mlir")).unwrap();
    assert_eq!(print_module(&pretty), print_module(&generic));
    let main = pretty.entry_function();
    assert_eq!(main.arg_attrs[0].aliasing_output, Some(0));
    assert_eq!(main.arg_attrs[1].aliasing_output, None);
    assert!(print_module(&pretty).contains("%arg0: tensor<4x4xf32> {tf.aliasing_output = 0 : i32}"));
    validate(pretty).unwrap();
}
