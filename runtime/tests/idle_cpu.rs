//! No thread of the runtime burns CPU while no work is pending (issue 31): after programs whose
//! kernels were split across the worker pool, run both on the calling thread and on a device's
//! worker, the process spends (almost) no CPU time over the next second.
//!
//! One test in its own binary, so that no other test's threads are counted.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{DeviceQueue, Tensor};
use std::sync::Arc;
use std::time::Duration;

const PROGRAM: &str = r#"
func.func @main(%x: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512xf32>) {
  %t = stablehlo.tanh %x : tensor<512x512xf32>
  %d = stablehlo.dot_general %t, %x, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [1] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  return %d, %r : tensor<512x512xf32>, tensor<512xf32>
}
"#;

/// User plus system CPU time of the whole process.
fn process_cpu_time() -> Duration {
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) }, 0);
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[test]
fn an_idle_second_after_split_runs_costs_almost_no_cpu_time() {
    let module = validate(read_program(ProgramFormat::Mlir, PROGRAM.as_bytes()).unwrap()).unwrap();
    // Two threads and a low split threshold, so that every kernel runs on the pool too.
    let options = Options { threads: 2, min_parallel_work: 1024, ..Options::from_env() };
    let program = Arc::new(Program::compile_with(&module, &options).unwrap());
    let x: Vec<u8> = (0..512 * 512).flat_map(|i| ((i % 17) as f32 * 0.01).to_le_bytes()).collect();
    let arg = Tensor::from_bytes(TensorType::new(vec![512, 512], ElementType::F32), &x).unwrap();
    for _ in 0..20 {
        program.run(std::slice::from_ref(&arg)).unwrap();
    }
    let device = DeviceQueue::new("idle-cpu-device");
    for _ in 0..20 {
        let (done, wait) = std::sync::mpsc::channel();
        let (p, a) = (program.clone(), arg.clone());
        device.submit(move || done.send(p.run(std::slice::from_ref(&a)).map(|_| ())).unwrap());
        wait.recv().unwrap().unwrap();
    }
    let before = process_cpu_time();
    std::thread::sleep(Duration::from_secs(1));
    let spent = process_cpu_time() - before;
    // A thread spinning through the second would cost ~1 s; a wake-up or two cost microseconds.
    assert!(spent < Duration::from_millis(20), "{spent:?} of CPU time over an idle second");
}
