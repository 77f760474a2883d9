//! `rng_bit_generator` against values XLA:CPU produced (jax 0.10.2,
//! `jax.jit(lambda k: lax.rng_bit_generator(k, shape, dtype, algorithm=...))`); the first case is
//! also the example in the StableHLO spec.

mod common;

use apu_compiler::ir::{ElementType, ElementType::*, OpKind, RngAlgorithm};
use apu_runtime::interp;
use apu_runtime::Tensor;
use common::*;

fn generate(alg: RngAlgorithm, state: &[u64], shape: &[i64], elem: ElementType) -> (Vec<u64>, Tensor) {
    let mut b = FnBuilder::new("main");
    let s = b.param(tt(&[state.len() as i64], U64));
    let r = b.ops(OpKind::RngBitGenerator { algorithm: alg }, &[s], &[tt(&[state.len() as i64], U64), tt(shape, elem)], vec![]);
    let m = module(vec![b.finish(&r)]);
    interp::check_supported(&m).unwrap();
    let out = interp::run(&m, &[u64s(&[state.len() as i64], state)]).unwrap();
    (to_u64(&out[0]), out[1].clone())
}

#[test]
fn threefry_u64_matches_spec_example() {
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[1, 2], &[2, 2], U64);
    assert_eq!(s, [1, 6]);
    assert_eq!(to_u64(&v), [9236835810183407956, 16087790271692313299, 18212823393184779219, 2658481902456610144]);
}

#[test]
fn threefry_u32_splits_largest_dimension_when_none_is_even() {
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[0x1234567890abcdef, 0xfffffffffffffffe], &[3, 5], U32);
    assert_eq!(s, [0x1234567890abcdef, 7]);
    assert_eq!(
        to_u32(&v),
        [
            2164865975, 1428727635, 1694148129, 3120065187, 314648704, 4286925907, 1343584, 1814508805, 3113210990,
            2375214461, 817778982, 2975882982, 954900450, 1328455069, 377580854
        ]
    );
}

#[test]
fn threefry_u32_even_dimension_and_scalar() {
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[7, 9], &[4, 3], U32);
    assert_eq!(s, [7, 15]);
    assert_eq!(
        to_u32(&v),
        [2148922066, 17873132, 2218545827, 1218255668, 884161837, 757886286, 1460919419, 2293606280, 239565225, 1895465418, 3915826976, 183408349]
    );
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[7, 9], &[], U32);
    assert_eq!(s, [7, 10]);
    assert_eq!(to_u32(&v), [2148922066]);
}

#[test]
fn threefry_narrow_types_truncate() {
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[7, 9], &[5], U8);
    assert_eq!(s, [7, 12]);
    assert_eq!(v.bytes(), [210, 52, 236, 45, 163]);
    let (s, v) = generate(RngAlgorithm::ThreeFry, &[3, 4], &[2, 3], U16);
    assert_eq!(s, [3, 7]);
    let got: Vec<u16> = v.bytes().chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    assert_eq!(got, [58690, 48227, 22265, 63674, 21371, 18483]);
}

#[test]
fn philox_u32_counter_wraps() {
    let (s, v) = generate(RngAlgorithm::Philox, &[5, u64::MAX], &[7], U32);
    assert_eq!(s, [5, 1]);
    assert_eq!(to_u32(&v), [1314562490, 4035658752, 2543735481, 4162936588, 64677483, 3635105107, 3931607701]);
}

#[test]
fn philox_u64_and_default_algorithm() {
    let (s, v) = generate(RngAlgorithm::Philox, &[5, 11], &[3], U64);
    assert_eq!(s, [5, 13]);
    assert_eq!(to_u64(&v), [2664744578259434195, 12680319967336903977, 7492846561746861034]);
    let (s, v) = generate(RngAlgorithm::Default, &[3, 4], &[2, 3], U32);
    assert_eq!(s, [3, 6]);
    assert_eq!(to_u32(&v), [3144060952, 1693593194, 2328100114, 3250740911, 514065308, 1112787925]);
}

#[test]
fn float_outputs_are_unimplemented_at_compile_time() {
    let mut b = FnBuilder::new("main");
    let s = b.param(tt(&[2], U64));
    let r = b.ops(OpKind::RngBitGenerator { algorithm: RngAlgorithm::ThreeFry }, &[s], &[tt(&[2], U64), tt(&[3], F32)], vec![]);
    let m = module(vec![b.finish(&r)]);
    let at_compile = interp::check_supported(&m).unwrap_err();
    let at_run = interp::run(&m, &[u64s(&[2], &[1, 2])]).unwrap_err();
    assert_eq!(at_compile.kind, apu_compiler::error::ErrorKind::Unimplemented);
    assert_eq!(at_compile.message, at_run.message);
}

// The legacy `rng` op (RNG_UNIFORM / RNG_NORMAL) is tested, on both engines, in exec_rng.rs.
