//! Elementwise arithmetic on bf16, f16 and 8/16-bit integers runs on plan kernels (computed on
//! f32 / 32-bit lanes, decision 99) and gives the interpreter's bits: every bf16 and f16 pattern
//! (NaNs, infinities, subnormals, ties) through the correctly rounded ops, conversions that round,
//! wrap and saturate, and integer ops that wrap, on 1 and 3 threads.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};

const N: i64 = 65536;

/// Every 16-bit pattern in order, and the same patterns shuffled (an odd multiplier permutes them).
fn patterns(shuffled: bool) -> Vec<u16> {
    (0..N as u32).map(|i| if shuffled { i.wrapping_mul(40503).wrapping_add(12345) as u16 } else { i as u16 }).collect()
}

fn tensor(elem: ElementType, bytes: Vec<u8>) -> Tensor {
    Tensor::from_bytes(TensorType::new(vec![N], elem), &bytes).unwrap()
}

fn sixteen(elem: ElementType, shuffled: bool) -> Tensor {
    tensor(elem, patterns(shuffled).iter().flat_map(|p| p.to_le_bytes()).collect())
}

fn eight(elem: ElementType, shuffled: bool) -> Tensor {
    tensor(elem, patterns(shuffled).iter().map(|&p| (p & 0xff) as u8).collect())
}

fn f32s() -> Tensor {
    // Values around the narrow types' rounding points, ranges and subnormals.
    let v: Vec<f32> = (0..N as u32).map(|i| f32::from_bits(i.wrapping_mul(2654435761) ^ (i << 7))).collect();
    tensor(ElementType::F32, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// Runs `program` on the interpreter and on the plan (1 and 3 threads); the plan must have no
/// fallback step and give the same bytes (NaNs compared as NaNs of the same sign).
fn same_bits(program: &str, inputs: &[Tensor]) {
    let module = validate(read_program(ProgramFormat::Mlir, program.as_bytes()).unwrap()).unwrap();
    let want = interp::run(&module, inputs).unwrap();
    for threads in [1, 3] {
        let options = Options { threads, min_parallel_work: 1, interpret: false, row_block_bytes: 1 };
        let p = Program::compile_with(&module, &options).unwrap();
        let plan = p.plan().expect("a plan");
        assert!(plan.fallbacks().is_empty(), "fallbacks: {:?}", plan.fallbacks());
        let got = p.run(inputs).unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.ty, w.ty);
            let size = g.ty.elem.byte_size();
            let nan = |c: &[u8]| match g.ty.elem {
                ElementType::BF16 => half::bf16::from_le_bytes(c.try_into().unwrap()).is_nan(),
                ElementType::F16 => half::f16::from_le_bytes(c.try_into().unwrap()).is_nan(),
                ElementType::F32 => f32::from_le_bytes(c.try_into().unwrap()).is_nan(),
                _ => false,
            };
            let sign = |c: &[u8]| c[size - 1] & 0x80;
            let bad = g.bytes().chunks(size).zip(w.bytes().chunks(size)).position(|(a, b)| a != b && !(nan(a) && nan(b) && sign(a) == sign(b)));
            if let Some(k) = bad {
                panic!("result {i} ({}) element {k} at {threads} threads: plan {:?}, interpreter {:?}", g.ty, &g.bytes()[k * size..][..size], &w.bytes()[k * size..][..size]);
            }
        }
    }
}

#[test]
fn narrow_float_arithmetic_gives_the_interpreters_bits() {
    for ty in ["bf16", "f16"] {
        let elem = if ty == "bf16" { ElementType::BF16 } else { ElementType::F16 };
        let t = format!("tensor<{N}x{ty}>");
        let p = format!(
            "func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, tensor<{N}xi1>, {t}) {{\n\
             %0 = stablehlo.add %a, %b : {t}\n\
             %1 = stablehlo.subtract %a, %b : {t}\n\
             %2 = stablehlo.multiply %a, %b : {t}\n\
             %3 = stablehlo.divide %a, %b : {t}\n\
             %4 = stablehlo.sqrt %a : {t}\n\
             %5 = stablehlo.maximum %a, %b : {t}\n\
             %6 = stablehlo.negate %a : {t}\n\
             %7 = stablehlo.multiply %0, %2 : {t}\n\
             %8 = stablehlo.add %7, %a : {t}\n\
             %9 = stablehlo.compare LT, %a, %b : ({t}, {t}) -> tensor<{N}xi1>\n\
             %10 = stablehlo.select %9, %8, %4 : tensor<{N}xi1>, {t}\n\
             return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, tensor<{N}xi1>, {t}\n}}\n"
        );
        same_bits(&p, &[sixteen(elem, false), sixteen(elem, true)]);
    }
}

#[test]
fn conversions_round_wrap_and_saturate_as_the_interpreter_does() {
    let n = N;
    let p = format!(
        "func.func @main(%x: tensor<{n}xf32>, %h: tensor<{n}xf16>, %i: tensor<{n}xi16>) -> (tensor<{n}xbf16>, tensor<{n}xf16>, tensor<{n}xbf16>, tensor<{n}xi8>, tensor<{n}xui8>, tensor<{n}xi8>, tensor<{n}xbf16>, tensor<{n}xf16>, tensor<{n}xi16>, tensor<{n}xbf16>) {{\n\
         %0 = stablehlo.convert %x : (tensor<{n}xf32>) -> tensor<{n}xbf16>\n\
         %1 = stablehlo.convert %x : (tensor<{n}xf32>) -> tensor<{n}xf16>\n\
         %2 = stablehlo.convert %h : (tensor<{n}xf16>) -> tensor<{n}xbf16>\n\
         %3 = stablehlo.convert %h : (tensor<{n}xf16>) -> tensor<{n}xi8>\n\
         %4 = stablehlo.convert %x : (tensor<{n}xf32>) -> tensor<{n}xui8>\n\
         %5 = stablehlo.convert %i : (tensor<{n}xi16>) -> tensor<{n}xi8>\n\
         %6 = stablehlo.convert %i : (tensor<{n}xi16>) -> tensor<{n}xbf16>\n\
         %7 = stablehlo.iota dim = 0 : tensor<{n}xf16>\n\
         %8 = stablehlo.convert %2 : (tensor<{n}xbf16>) -> tensor<{n}xi16>\n\
         %9 = stablehlo.iota dim = 0 : tensor<{n}xbf16>\n\
         return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<{n}xbf16>, tensor<{n}xf16>, tensor<{n}xbf16>, tensor<{n}xi8>, tensor<{n}xui8>, tensor<{n}xi8>, tensor<{n}xbf16>, tensor<{n}xf16>, tensor<{n}xi16>, tensor<{n}xbf16>\n}}\n"
    );
    same_bits(&p, &[f32s(), sixteen(ElementType::F16, false), sixteen(ElementType::S16, true)]);
}

#[test]
fn narrow_integer_arithmetic_wraps_as_the_interpreter_does() {
    for (ty, elem, unsigned) in [("i8", ElementType::S8, false), ("ui8", ElementType::U8, true), ("i16", ElementType::S16, false), ("ui16", ElementType::U16, true)] {
        let t = format!("tensor<{N}x{ty}>");
        let shift = if unsigned { "shift_right_logical" } else { "shift_right_arithmetic" };
        let p = format!(
            "func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, tensor<{N}xi1>) {{\n\
             %0 = stablehlo.add %a, %b : {t}\n\
             %1 = stablehlo.multiply %a, %b : {t}\n\
             %2 = stablehlo.divide %a, %b : {t}\n\
             %3 = stablehlo.remainder %a, %b : {t}\n\
             %4 = stablehlo.shift_left %a, %b : {t}\n\
             %5 = stablehlo.{shift} %a, %b : {t}\n\
             %6 = stablehlo.negate %a : {t}\n\
             %7 = stablehlo.abs %a : {t}\n\
             %8 = stablehlo.xor %a, %b : {t}\n\
             %9 = stablehlo.minimum %0, %1 : {t}\n\
             %10 = stablehlo.compare GT, %a, %b : ({t}, {t}) -> tensor<{N}xi1>\n\
             return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}, tensor<{N}xi1>\n}}\n"
        );
        let inputs = match elem.byte_size() {
            1 => [eight(elem, false), eight(elem, true)],
            _ => [sixteen(elem, false), sixteen(elem, true)],
        };
        same_bits(&p, &inputs);
    }
}
