//! CHLO expansions run by the interpreter: `chlo.next_after` against Rust's own next_up/next_down,
//! and `sinh`/`cosh` where e^|x| overflows but the result does not.

mod common;

use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;
use apu_runtime::interp;
use apu_runtime::Tensor;
use common::{f32s, f64s, to_f32};

fn run_text(text: &str, args: &[Tensor]) -> Vec<Tensor> {
    let m = validate(parse_module(text).unwrap()).unwrap();
    interp::check_supported(&m).unwrap();
    interp::run(&m, args).unwrap()
}

fn next_after_program(ty: &str, n: usize) -> String {
    let t = format!("tensor<{n}x{ty}>");
    format!("func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{\n  %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}\n}}\n")
}

fn reference_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else if x == y {
        y
    } else if x < y {
        x.next_up()
    } else {
        x.next_down()
    }
}

#[test]
fn next_after_f32_matches_next_up_and_down() {
    let xs = [1.0f32, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, f32::MAX, f32::INFINITY, 3.5, f32::NAN, 2.0, 1e-45, -1e-45];
    let ys = [2.0f32, 0.0, -2.0, 5.0, 1.0, -1.0, -0.0, f32::INFINITY, 0.0, f32::NAN, 1.0, 2.0, 0.0, 0.0];
    let got = to_f32(&run_text(&next_after_program("f32", xs.len()), &[f32s(&[14], &xs), f32s(&[14], &ys)])[0]);
    for i in 0..xs.len() {
        let want = reference_f32(xs[i], ys[i]);
        let same = (want.is_nan() && got[i].is_nan()) || want.to_bits() == got[i].to_bits();
        assert!(same, "next_after({}, {}) = {} ({:#x}), expected {} ({:#x})", xs[i], ys[i], got[i], got[i].to_bits(), want, want.to_bits());
    }
}

#[test]
fn next_after_f64_steps_one_ulp() {
    let xs = [1.0f64, 1.0, -0.0, 1e300];
    let ys = [2.0f64, -3.0, 1.0, f64::INFINITY];
    let out = &run_text(&next_after_program("f64", 4), &[f64s(&[4], &xs), f64s(&[4], &ys)])[0];
    let got: Vec<f64> = out.bytes().chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, [1.0f64.next_up(), 1.0f64.next_down(), f64::from_bits(1), 1e300f64.next_up()]);
}

#[test]
fn sinh_and_cosh_stay_finite_past_exp_overflow() {
    let t = "tensor<4xf32>";
    let text = format!("func.func @main(%arg0: {t}) -> ({t}, {t}) {{\n  %0 = chlo.sinh %arg0 : {t} -> {t}\n  %1 = chlo.cosh %arg0 : {t} -> {t}\n  return %0, %1 : {t}, {t}\n}}\n");
    let xs = [0.5f32, -20.0, 89.0, -89.0];
    let out = run_text(&text, &[f32s(&[4], &xs)]);
    let (sinh, cosh) = (to_f32(&out[0]), to_f32(&out[1]));
    for i in 0..4 {
        let x = xs[i] as f64;
        for (name, got, want) in [("sinh", sinh[i] as f64, x.sinh()), ("cosh", cosh[i] as f64, x.cosh())] {
            assert!(got.is_finite() && ((got - want) / want).abs() < 2e-6, "{name}({x}) = {got}, expected {want}");
        }
    }
}

fn binary_f64(op: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
    let t = format!("tensor<{}xf64>", a.len());
    let text = format!("func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{\n  %0 = chlo.{op} %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}\n}}\n");
    let n = [a.len() as i64];
    let out = &run_text(&text, &[f64s(&n, a), f64s(&n, b)])[0];
    out.bytes().chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || ((g - w) / w).abs() < 1e-13;
        assert!(ok, "{what}[{i}] = {g}, expected {w}");
    }
}

#[test]
fn zeta_and_polygamma_match_known_values() {
    use std::f64::consts::PI;
    const ZETA3: f64 = 1.202_056_903_159_594_3; // Apéry's constant
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    let zeta = binary_f64("zeta", &[2.0, 3.0, 2.0, 1.0, 0.5, 2.0], &[1.0, 1.0, 0.5, 3.0, 1.0, -2.0]);
    assert_close("zeta", &zeta, &[PI * PI / 6.0, ZETA3, PI * PI / 2.0, f64::INFINITY, f64::NAN, f64::INFINITY]);
    let pg = binary_f64("polygamma", &[1.0, 1.0, 2.0, 0.0, 1.5, -1.0], &[1.0, 0.5, 1.0, 1.0, 1.0, 1.0]);
    assert_close("polygamma", &pg, &[PI * PI / 6.0, PI * PI / 2.0, -2.0 * ZETA3, -EULER_GAMMA, f64::NAN, f64::NAN]);
}
