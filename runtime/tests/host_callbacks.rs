//! Host callbacks and tokens through the plan: a program with token parameters and results and
//! `custom_call @apu_host_callback` inside a loop plans no interpreter step, calls the host once per
//! iteration in order, and takes the host's results.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::text::parse_module;
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::host_callback::{install, HostArray};
use apu_runtime::Tensor;
use std::ffi::{c_char, c_int};
use std::sync::Mutex;

const PROGRAM: &str = r#"
func.func public @main(%tok: !stablehlo.token, %x: tensor<3xf32>) -> (!stablehlo.token, tensor<3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %t = %tok, %v = %x) : tensor<i32>, !stablehlo.token, tensor<3xf32>
    cond {
      %p = stablehlo.compare LT, %i, %c4 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %y = stablehlo.custom_call @apu_host_callback(%v) {backend_config = "7", has_side_effect = true, api_version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
      %t2 = stablehlo.after_all %t : !stablehlo.token
      %n = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %n, %t2, %y : tensor<i32>, !stablehlo.token, tensor<3xf32>
    }
  return %r#1, %r#2 : !stablehlo.token, tensor<3xf32>
}
"#;

/// Sums of the arrays the host saw, in call order.
static SEEN: Mutex<Vec<f32>> = Mutex::new(Vec::new());

unsafe extern "C" fn double_it(
    callback: u64,
    _num_args: usize,
    args: *const HostArray,
    _num_results: usize,
    results: *const HostArray,
    _error: *mut c_char,
    _error_len: usize,
) -> c_int {
    assert_eq!(callback, 7);
    let (a, r) = unsafe { (&*args, &*results) };
    let x = unsafe { std::slice::from_raw_parts(a.data as *const f32, 3) };
    SEEN.lock().unwrap().push(x.iter().sum());
    let out = unsafe { std::slice::from_raw_parts_mut(r.data as *mut f32, 3) };
    for (o, v) in out.iter_mut().zip(x) {
        *o = 2.0 * v;
    }
    0
}

#[test]
fn a_loop_with_a_token_and_a_host_callback_runs_as_a_plan_in_order() {
    let module = validate(parse_module(PROGRAM).unwrap()).unwrap();
    let program = Program::compile_with(&module, &Options { interpret: false, threads: 2, ..Options::from_env() }).unwrap();
    let plan = program.plan().expect("a program with tokens and host callbacks plans");
    let summary = plan.summary();
    assert!(summary.contains("0 fallback") && summary.contains("1 host callback"), "{summary}");

    install(Some(double_it));
    let token = Tensor::zeroed(TensorType::new(vec![0], ElementType::Pred));
    let bytes: Vec<u8> = [1.0f32, 2.0, 3.5].iter().flat_map(|v| v.to_le_bytes()).collect();
    let x = Tensor::from_bytes(TensorType::new(vec![3], ElementType::F32), &bytes).unwrap();
    let out = program.run(&[token, x]).unwrap();
    install(None);
    assert_eq!(out[0].ty, TensorType::new(vec![0], ElementType::Pred));
    let got: Vec<f32> = out[1].bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, vec![16.0, 32.0, 56.0]);
    assert_eq!(*SEEN.lock().unwrap(), vec![6.5, 13.0, 26.0, 52.0]);
}
