//! Typed FFI custom calls through the plan and the interpreter: a `custom_call` with an
//! `mhlo.backend_config` dictionary (what `jax.ffi.ffi_call` writes) plans an FFI step (no interpreter
//! step), hands the handler a call frame of XLA's layout with attributes sorted by name and typed as
//! written, takes its results, and turns its error into the run's error. The C++ side (jaxlib's own
//! `ffi.h` decoding this frame) is tested end to end in tests/e2e/test_ffi.py.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::ffi::abi::{self, Buffer, ByteSpan, CallFrame, ErrorCreateArgs, FfiError, Scalar};
use apu_runtime::ffi::registry;
use apu_runtime::Tensor;

const PROGRAM: &str = r#"
func.func public @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = stablehlo.custom_call @apu_rust_affine(%x) {backend_config = "", mhlo.backend_config = {factor = 3.0 : f32, bias = 2 : i32}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = stablehlo.custom_call @apu_rust_fail(%y) {backend_config = "", mhlo.backend_config = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}
"#;

unsafe fn name(span: *mut ByteSpan) -> String {
    (*span).to_string_lossy()
}

/// y = x * factor + bias, checking the frame the way a handler built on XLA's headers would.
unsafe extern "C" fn affine(frame: *mut CallFrame) -> *mut FfiError {
    let f = &*frame;
    assert_eq!(f.struct_size, 168, "XLA_FFI_CallFrame's size as handlers check it");
    assert_eq!(f.stage, abi::STAGE_EXECUTE);
    assert_eq!((f.args.size, f.rets.size, f.attrs.size), (1, 1, 2));
    // Sorted by name: "bias" before "factor", though the program wrote them the other way round.
    assert_eq!(name(*f.attrs.names), "bias");
    assert_eq!(name(*f.attrs.names.add(1)), "factor");
    let (bias, factor) = (&*(*f.attrs.attrs).cast::<Scalar>(), &*(*f.attrs.attrs.add(1)).cast::<Scalar>());
    assert_eq!((*f.attrs.types, bias.dtype, factor.dtype), (abi::ATTR_SCALAR, 4, 11), "s32 and f32 scalars");
    let (bias, factor) = (*bias.value.cast::<i32>() as f32, *factor.value.cast::<f32>());
    let (x, y) = (&*(*f.args.args).cast::<Buffer>(), &*(*f.rets.rets).cast::<Buffer>());
    assert_eq!((x.dtype, x.rank, *x.dims, *x.dims.add(1)), (11, 2, 2, 3));
    let (x, y) = (std::slice::from_raw_parts(x.data.cast::<f32>(), 6), std::slice::from_raw_parts_mut(y.data.cast::<f32>(), 6));
    for (o, v) in y.iter_mut().zip(x) {
        *o = v * factor + bias;
    }
    std::ptr::null_mut()
}

/// Fails if any input exceeds 100, through the API table's Error_Create; otherwise copies.
unsafe extern "C" fn fail_when_large(frame: *mut CallFrame) -> *mut FfiError {
    let f = &*frame;
    let (x, y) = (&*(*f.args.args).cast::<Buffer>(), &*(*f.rets.rets).cast::<Buffer>());
    let (x, y) = (std::slice::from_raw_parts(x.data.cast::<f32>(), 6), std::slice::from_raw_parts_mut(y.data.cast::<f32>(), 6));
    if x.iter().any(|&v| v > 100.0) {
        let mut args = ErrorCreateArgs {
            struct_size: abi::struct_size!(ErrorCreateArgs, errc),
            extension_start: std::ptr::null_mut(),
            message: c"an input above 100".as_ptr(),
            errc: abi::code::INVALID_ARGUMENT,
        };
        return ((*f.api).error_create)(&mut args);
    }
    y.copy_from_slice(x);
    std::ptr::null_mut()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn input(values: [f32; 6]) -> Tensor {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(vec![2, 3], ElementType::F32), &bytes).unwrap()
}

#[test]
fn ffi_calls_plan_as_ffi_steps_and_match_the_interpreter() {
    let module = validate(parse_module(PROGRAM).unwrap()).unwrap();
    let options = |interpret| Options { interpret, threads: 2, ..Options::from_env() };
    // Before the handlers exist, compiling names the missing one.
    let err = Program::compile_with(&module, &options(false)).err().expect("no handler is registered yet");
    assert!(err.to_string().contains("apu_rust_affine"), "{err}");

    registry::register("apu_rust_affine", affine).unwrap();
    registry::register("apu_rust_fail", fail_when_large).unwrap();
    // The same function again is fine; another function under a taken name is not.
    registry::register("apu_rust_affine", affine).unwrap();
    assert!(registry::register("apu_rust_affine", fail_when_large).is_err());

    let planned = Program::compile_with(&module, &options(false)).unwrap();
    let summary = planned.plan().expect("plans").summary();
    assert!(summary.contains("0 fallback") && summary.contains("2 host callback or FFI call"), "{summary}");
    let interpreted = Program::compile_with(&module, &options(true)).unwrap();

    let x = input([1.0, 2.0, 3.0, -1.0, 0.5, 10.0]);
    let want = vec![5.0, 8.0, 11.0, -1.0, 3.5, 32.0];
    assert_eq!(f32s(&planned.run(&[x.clone()]).unwrap()[0]), want);
    assert_eq!(f32s(&interpreted.run(&[x]).unwrap()[0]), want);

    let large = input([1.0, 2.0, 40.0, 0.0, 0.0, 0.0]);
    for program in [&planned, &interpreted] {
        let err = program.run(&[large.clone()]).err().expect("the handler fails on 40 * 3 + 2");
        let message = err.to_string();
        assert!(message.contains("apu_rust_fail") && message.contains("an input above 100"), "{message}");
    }
}

/// JAX writes its own targets that apu implements (here `lax.dce_sink`) with the same dictionary mark;
/// they stay apu's and never look for a handler.
#[test]
fn apus_own_targets_are_not_foreign_calls() {
    let text = r#"
func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  stablehlo.custom_call @dce_sink(%x) {backend_config = "", has_side_effect = true, mhlo.backend_config = {}} : (tensor<3xf32>) -> ()
  return %x : tensor<3xf32>
}
"#;
    let module = validate(parse_module(text).unwrap()).unwrap();
    let program = Program::compile_with(&module, &Options { interpret: false, threads: 2, ..Options::from_env() }).unwrap();
    let summary = program.plan().expect("plans").summary();
    assert!(!summary.contains("FFI call"), "{summary}");
    let x = input([1.0; 6]);
    let x = Tensor::from_bytes(TensorType::new(vec![3], ElementType::F32), &x.bytes()[..12]).unwrap();
    assert_eq!(f32s(&program.run(&[x]).unwrap()[0]), vec![1.0; 3]);
}
