//! Rough timings of the plan executor on the workloads of the performance anchors
//! (`cargo run --release -p apu-runtime --example plan_bench`). Median of 5 runs after a warm-up.

use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::Tensor;
use std::time::Instant;

#[path = "support/cpu_time.rs"]
mod cpu_time;
use cpu_time::process_cpu_seconds;

fn f32_tensor(shape: &[i64], n: usize) -> Tensor {
    let v: Vec<u8> = (0..n).flat_map(|i| (((i * 7919) % 1000) as f32 / 500.0 - 1.0).to_le_bytes()).collect();
    Tensor::from_bytes(apu_compiler::ir::TensorType::new(shape.to_vec(), apu_compiler::ir::ElementType::F32), &v).unwrap()
}

/// Times `text` on the inputs `args` makes (only built when the name matches the filter, so that
/// profiles of one workload do not show the others' input setup).
fn bench(name: &str, text: &str, args: impl FnOnce() -> Vec<Tensor>, threads: usize) {
    if let Some(filter) = std::env::args().nth(1) {
        // A filter ending in '$' must match the whole name ("tanh chain 1000000$").
        let matches = match filter.strip_suffix('$') {
            Some(exact) => name == exact,
            None => name.contains(&filter),
        };
        if !matches {
            return;
        }
    }
    let args = &args()[..];
    let module = validate(read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap()).unwrap();
    let options = Options { threads, ..Options::from_env() };
    let p = Program::compile_with(&module, &options).unwrap();
    p.run(args).unwrap();
    // APU_BENCH_RUNS: more timed runs (e.g. for a profiler); the median is printed.
    let runs = std::env::var("APU_BENCH_RUNS").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(5).max(1);
    let mut cpu: Vec<f64> = Vec::with_capacity(runs);
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let c = process_cpu_seconds();
            let t = Instant::now();
            let out = p.run(args).unwrap();
            let dt = t.elapsed().as_secs_f64();
            cpu.push(process_cpu_seconds() - c);
            drop(out);
            dt
        })
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    cpu.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<28} {threads}T {:>12.1} us  (cpu {:>10.1} us, fastest {:>10.1} us)   [{}]",
        times[runs / 2] * 1e6,
        cpu[runs / 2] * 1e6,
        times[0] * 1e6,
        p.plan().map_or("interp".into(), |p| p.summary())
    );
}

fn chain(n: usize) -> String {
    format!(
        "func.func public @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %c2 = stablehlo.constant dense<2.0> : tensor<{n}xf32>
  %c1 = stablehlo.constant dense<1.0> : tensor<{n}xf32>
  %c3 = stablehlo.constant dense<3.0> : tensor<{n}xf32>
  %0 = stablehlo.multiply %x, %c2 : tensor<{n}xf32>
  %1 = stablehlo.add %0, %c1 : tensor<{n}xf32>
  %2 = stablehlo.tanh %1 : tensor<{n}xf32>
  %3 = stablehlo.multiply %2, %x : tensor<{n}xf32>
  %4 = stablehlo.subtract %3, %c3 : tensor<{n}xf32>
  return %4 : tensor<{n}xf32>
}}"
    )
}

fn main() {
    // APU_BENCH_THREADS=2: only that thread count (default: 1 and 2).
    let counts: Vec<usize> = match std::env::var("APU_BENCH_THREADS").ok().and_then(|v| v.parse().ok()) {
        Some(n) => vec![n],
        None => vec![1, 2],
    };
    for threads in counts {
        bench(
            "loop 1000 steps f32[128]",
            "func.func public @main(%x: tensor<128xf32>) -> tensor<128xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<128xf32>
  cond {
    %n = stablehlo.constant dense<1000> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.constant dense<1.01> : tensor<128xf32>
    %b = stablehlo.constant dense<1.0> : tensor<128xf32>
    %m = stablehlo.multiply %v, %a : tensor<128xf32>
    %v1 = stablehlo.add %m, %b : tensor<128xf32>
    stablehlo.return %i1, %v1 : tensor<i32>, tensor<128xf32>
  }
  return %0#1 : tensor<128xf32>
}",
            || vec![f32_tensor(&[128], 128)],
            threads,
        );
        // What JAX 0.10.2 sends for `lax.scan(lambda c, _: (tanh(c * 0.5 + 0.1), ()), x,
        // length=1000)` (its constants defined before the loop and read inside it).
        bench(
            "scan 1000 steps tanh f32[128]",
            "func.func public @main(%arg0: tensor<128xf32>) -> tensor<128xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<1000> : tensor<i32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c, %v = %arg0) : tensor<i32>, tensor<128xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %1 = func.call @closed_call(%v) : (tensor<128xf32>) -> tensor<128xf32>
    %2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %2, %1 : tensor<i32>, tensor<128xf32>
  }
  return %0#1 : tensor<128xf32>
}
func.func private @closed_call(%x: tensor<128xf32>) -> tensor<128xf32> {
  %h = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<128xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<128xf32>
  %t = stablehlo.constant dense<1.000000e-01> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<128xf32>
  %3 = stablehlo.add %1, %2 : tensor<128xf32>
  %4 = stablehlo.tanh %3 : tensor<128xf32>
  return %4 : tensor<128xf32>
}",
            || vec![f32_tensor(&[128], 128)],
            threads,
        );
        bench(
            "dispatch f32[16]",
            "func.func public @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.add %x, %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}",
            || vec![f32_tensor(&[16], 16)],
            threads,
        );
        bench(
            "conv2d NHWC 56x56x64 3x3x64",
            "func.func public @main(%x: tensor<1x56x56x64xf32>, %k: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}",
            || vec![f32_tensor(&[1, 56, 56, 64], 56 * 56 * 64), f32_tensor(&[3, 3, 64, 64], 9 * 64 * 64)],
            threads,
        );
        for n in [1_000_000usize, 10_000_000] {
            bench(&format!("tanh chain {n}"), &chain(n), || vec![f32_tensor(&[n as i64], n)], threads);
        }
        let n = 10_000_000usize;
        bench(
            "sum 1e7",
            &format!(
                "func.func public @main(%x: tensor<{n}xf32>) -> tensor<f32> {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<{n}xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}}"
            ),
            || vec![f32_tensor(&[n as i64], n)],
            threads,
        );
        bench(
            "sum last axis 4096^2",
            "func.func public @main(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}",
            || vec![f32_tensor(&[4096, 4096], 4096 * 4096)],
            threads,
        );
        bench(
            // As jax.nn.softmax lowers it (JAX 0.10).
            "softmax 1024^2",
            "func.func public @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %ninfs = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> tensor<1024xf32>
  %0 = stablehlo.maximum %ninfs, %m : tensor<1024xf32>
  %k = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1024xf32>) -> tensor<1024x1xf32>
  %1 = stablehlo.broadcast_in_dim %k, dims = [0, 1] : (tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  %2 = stablehlo.subtract %x, %1 : tensor<1024x1024xf32>
  %3 = stablehlo.exponential %2 : tensor<1024x1024xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %4 = stablehlo.reduce(%3 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1024xf32>) -> tensor<1024x1024xf32>
  %6 = stablehlo.divide %3, %5 : tensor<1024x1024xf32>
  return %6 : tensor<1024x1024xf32>
}",
            || vec![f32_tensor(&[1024, 1024], 1024 * 1024)],
            threads,
        );
        // The gradient of the benchmark MLP (784-512-512-10, batch 256), as JAX lowers it.
        let mlp_shapes: [&[i64]; 8] = [&[784, 512], &[512], &[512, 512], &[512], &[512, 10], &[10], &[256, 784], &[256, 10]];
        let mlp_args = || mlp_shapes.iter().map(|s| f32_tensor(s, s.iter().product::<i64>() as usize)).collect();
        bench("MLP grad B256", include_str!("data/mlp_grad_b256.mlir"), mlp_args, threads);
        for n in [256usize, 1024, 2048] {
            bench(
                &format!("matmul {n}"),
                &format!(
                    "func.func public @main(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %0 : tensor<{n}x{n}xf32>
}}"
                ),
                || vec![f32_tensor(&[n as i64, n as i64], n * n), f32_tensor(&[n as i64, n as i64], n * n)],
                threads,
            );
        }
    }
}
