//! `sdy.manual_computation` (shard_map, pmap) with collectives between its instances (decision
//! 65): StableHLO text programs as JAX writes them, run on the interpreter and on the plan (one
//! thread, and three splitting every kernel), against values computed here by hand. The plans must
//! hold no interpreter fallback.

use apu_compiler::error::ErrorKind;
use apu_compiler::ir::{ElementType as E, TensorType};
use apu_compiler::plan::{Step, StepKind};
use apu_compiler::valid::{validate, ValidModule};
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};

fn read(text: &str) -> apu_compiler::Result<ValidModule> {
    validate(apu_compiler::text::parse_module(text)?)
}

fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), E::F32), &bytes).unwrap()
}

fn i32s(shape: &[i64], v: &[i32]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), E::S32), &bytes).unwrap()
}

fn values(t: &Tensor) -> Vec<f64> {
    match t.ty.elem {
        E::F32 => t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        E::S32 => t.bytes().chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        E::U32 => t.bytes().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        E::Pred => t.bytes().iter().map(|&b| b as f64).collect(),
        other => panic!("no reader for {other}"),
    }
}

fn fallbacks(steps: &[Step]) -> usize {
    steps
        .iter()
        .map(|s| matches!(s.kind, StepKind::Fallback { .. }) as usize + s.kind.nested_steps().iter().map(|n| fallbacks(n)).sum::<usize>())
        .sum()
}

fn manual_steps(steps: &[Step]) -> usize {
    steps.iter().map(|s| matches!(s.kind, StepKind::Manual { .. }) as usize + s.kind.nested_steps().iter().map(|n| manual_steps(n)).sum::<usize>()).sum()
}

/// Runs `text` on the interpreter and on the plan (1 and 3 threads); every run must give `want`
/// (one list of values per result).
fn check(text: &str, args: &[Tensor], want: &[Vec<f64>]) {
    let m = read(text).unwrap_or_else(|e| panic!("read: {e}"));
    let got = interp::run(&m, args).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let got: Vec<Vec<f64>> = got.iter().map(values).collect();
    assert_eq!(got, want, "interpreter");
    for (threads, min_parallel_work) in [(1, usize::MAX), (3, 1)] {
        let options = Options { threads, min_parallel_work, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
        let p = Program::compile_with(&m, &options).unwrap_or_else(|e| panic!("compile: {e}"));
        let plan = p.plan().expect("a manual computation plans");
        assert_eq!(fallbacks(&plan.steps), 0, "interpreter steps in {}", plan.summary());
        assert_eq!(manual_steps(&plan.steps), 1, "{}", plan.summary());
        let got = p.run(args).unwrap_or_else(|e| panic!("plan ({threads} threads): {e}"));
        let got: Vec<Vec<f64>> = got.iter().map(values).collect();
        assert_eq!(got, want, "plan with {threads} threads");
    }
}

fn refused(text: &str) -> apu_compiler::Error {
    match read(text) {
        Err(e) => e,
        Ok(_) => panic!("accepted:\n{text}"),
    }
}

/// psum, all_gather, a ring ppermute and axis_index (partition_id) over 4 instances, in the
/// mesh-axes spelling of replica groups (JAX 0.12).
const PSUM_GATHER_PERMUTE: &str = r#"
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{}]>, <@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
      %3 = "stablehlo.all_gather"(%2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> : (tensor<1x2xf32>) -> tensor<4x2xf32>
      %4 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %5 = stablehlo.partition_id : tensor<ui32>
      %6 = stablehlo.divide %5, %c : tensor<ui32>
      %7 = stablehlo.remainder %6, %c_0 : tensor<ui32>
      %8 = stablehlo.convert %7 : (tensor<ui32>) -> tensor<i32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<2xf32>
      %10 = stablehlo.add %9, %4 : tensor<2xf32>
      %11 = stablehlo.convert %8 : (tensor<i32>) -> tensor<f32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %13 = stablehlo.add %10, %12 : tensor<2xf32>
      sdy.return %1, %13 : tensor<2xf32>, tensor<2xf32>
    } : (tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>)
    return %0#0, %0#1 : tensor<2xf32>, tensor<8xf32>
  }
}
"#;

#[test]
fn psum_all_gather_ppermute_and_axis_index_over_four_instances() {
    let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
    // psum of the four 2-element shards; the sum of the gathered shards is the same vector.
    let psum: Vec<f64> = (0..2).map(|j| (0..4).map(|d| x[2 * d + j] as f64).sum()).collect();
    // Instance d receives shard d-1 (ring) and adds its index.
    let second: Vec<f64> = (0..8).map(|i| {
        let (d, j) = (i / 2, i % 2);
        psum[j] + x[2 * ((d + 3) % 4) + j] as f64 + d as f64
    }).collect();
    check(PSUM_GATHER_PERMUTE, &[f32s(&[8], &x)], &[psum, second]);
}

/// The same program with the dense spelling of replica groups (JAX 0.10).
#[test]
fn dense_replica_groups_read_like_mesh_axes() {
    let dense = PSUM_GATHER_PERMUTE.replace(
        "#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = \"x\">]>",
        "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>",
    );
    let a = read(PSUM_GATHER_PERMUTE).unwrap();
    let b = read(&dense).unwrap();
    assert_eq!(a.module().entry_function().body, b.module().entry_function().body);
}

/// psum_scatter (reduce_scatter) and a tiled all_to_all over 4 instances.
#[test]
fn reduce_scatter_and_all_to_all() {
    let text = r#"
module @jit_g attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<8xf32>, tensor<32xf32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<8xf32>) {
      %1 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %3 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %3 : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<2xf32>
      %2 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8xf32>) -> tensor<8xf32>
      sdy.return %1, %2 : tensor<2xf32>, tensor<8xf32>
    } : (tensor<32xf32>) -> (tensor<8xf32>, tensor<32xf32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<32xf32>
  }
}
"#;
    let x: Vec<f32> = (0..32).map(|i| (i * i % 13) as f32).collect();
    // Instance d holds x[8d..8d+8]; the sum over instances, piece d of 4, lands on instance d.
    let scattered: Vec<f64> = (0..8).map(|i| (0..4).map(|d| x[8 * d + i] as f64).sum()).collect();
    // all_to_all: instance d's block s (2 elements) goes to instance s, which concatenates by source.
    let mut a2a = vec![0.0; 32];
    for dst in 0..4 {
        for src in 0..4 {
            for k in 0..2 {
                a2a[8 * dst + 2 * src + k] = x[8 * src + 2 * dst + k] as f64;
            }
        }
    }
    check(text, &[f32s(&[32], &x)], &[scattered, a2a]);
}

/// A ring ppermute inside a fori_loop (a while loop in the body), as JAX writes it.
#[test]
fn ppermute_inside_a_while_loop() {
    let text = r#"
module @jit_ring attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:3 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c, %iterArg_1 = %arg1) : tensor<2xf32>, tensor<i32>, tensor<2xf32>
      cond {
        %c_2 = stablehlo.constant dense<3> : tensor<i32>
        %2 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %2 = "stablehlo.collective_permute"(%iterArg_1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
        %3 = stablehlo.add %2, %iterArg : tensor<2xf32>
        %c_2 = stablehlo.constant dense<1> : tensor<i32>
        %4 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
        stablehlo.return %iterArg, %4, %3 : tensor<2xf32>, tensor<i32>, tensor<2xf32>
      }
      sdy.return %1#2 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
"#;
    let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
    // c_{k+1}[d] = c_k[d-1] + x[d], three times from c_0 = x (per shard).
    let mut c: Vec<Vec<f64>> = (0..4).map(|d| vec![x[2 * d] as f64, x[2 * d + 1] as f64]).collect();
    for _ in 0..3 {
        c = (0..4).map(|d| (0..2).map(|j| c[(d + 3) % 4][j] + x[2 * d + j] as f64).collect()).collect();
    }
    let want: Vec<f64> = c.concat();
    assert_eq!(want, vec![12., 16., 12., 16., 12., 16., 12., 16.], "XLA:CPU's answer (JAX 0.12, 4 CPU devices)");
    check(text, &[f32s(&[8], &x)], &[want]);
}

/// A 2x2 mesh: psum over "b" only (groups [[0,1],[2,3]]), an i32 max over "a" (mesh-axes groups
/// [[0,2],[1,3]]); the result is replicated over "b".
#[test]
fn two_dimensional_mesh_with_groups_per_axis() {
    let text = r#"
module @jit_h attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xi32>) -> (tensor<4x2xf32>, tensor<2x4xi32>) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"a"}, {"b"}]>, <@mesh, [{"a"}, {"b"}]>] out_shardings=[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {"b"}]>] manual_axes={"a", "b"} (%x: tensor<2x2xf32>, %y: tensor<2x2xi32>) {
      %1 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %2 = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %2 : tensor<f32>
      }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %3 = "stablehlo.all_reduce"(%y) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "a">]>, use_global_device_ids}> ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %4 = stablehlo.maximum %p, %q : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<2x2xi32>) -> tensor<2x2xi32>
      sdy.return %1, %3 : tensor<2x2xf32>, tensor<2x2xi32>
    } : (tensor<4x4xf32>, tensor<4x4xi32>) -> (tensor<4x2xf32>, tensor<2x4xi32>)
    return %0#0, %0#1 : tensor<4x2xf32>, tensor<2x4xi32>
  }
}
"#;
    let x: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let y: Vec<i32> = (0..16).map(|i| (i * 7 % 11) - 5).collect();
    // Row block a, column block b: summing over b adds the two column blocks of each row.
    let sum: Vec<f64> = (0..4).flat_map(|r| (0..2).map(move |c| (r, c))).map(|(r, c)| (x[4 * r + c] + x[4 * r + 2 + c]) as f64).collect();
    // Max over a: the two row blocks, elementwise.
    let max: Vec<f64> = (0..2).flat_map(|r| (0..4).map(move |c| (r, c))).map(|(r, c)| y[4 * r + c].max(y[4 * (r + 2) + c]) as f64).collect();
    check(text, &[f32s(&[4, 4], &x), i32s(&[4, 4], &y)], &[sum, max]);
}

/// collective_broadcast from the first member of each group, and a pmap-style psum of rank-0 pieces
/// with a product combiner.
#[test]
fn collective_broadcast_and_product_reduction() {
    let text = r#"
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]>
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>, <@mesh, [{"i"}]>] manual_axes={"i"} (%a: tensor<1xf32>) {
      %1 = "stablehlo.collective_broadcast"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>}> : (tensor<1xf32>) -> tensor<1xf32>
      %2 = stablehlo.reshape %a : (tensor<1xf32>) -> tensor<f32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %4 = stablehlo.multiply %p, %q : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %5 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<1xf32>
      sdy.return %1, %5 : tensor<1xf32>, tensor<1xf32>
    } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
  }
}
"#;
    let x = [2.0f32, 3.0, 5.0, 7.0];
    let product: f64 = x.iter().map(|&v| v as f64).product();
    check(text, &[f32s(&[4], &x)], &[vec![5., 3., 5., 3.], vec![product; 4]]);
}

#[test]
fn refusals_are_named_at_compile_time() {
    // A combiner that is not one binary op.
    let odd = PSUM_GATHER_PERMUTE.replacen("%14 = stablehlo.add %arg2, %arg3 : tensor<f32>", "%14 = stablehlo.atan2 %arg2, %arg3 : tensor<f32>", 1);
    let e = refused(&odd);
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
    assert!(e.to_string().contains("atan2"), "{e}");
    // partition_id in the global program of 4 partitions.
    let global = r#"
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> tensor<ui32> {
    %0 = stablehlo.partition_id : tensor<ui32>
    return %0 : tensor<ui32>
  }
}
"#;
    let e = refused(global);
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
    assert!(e.to_string().contains("partition_id outside a manual computation"), "{e}");
    // A nested computation that makes an enclosing computation's axis manual again.
    let again = r#"
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%x: tensor<2xf32>) {
      %1 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%y: tensor<1xf32>) {
        sdy.return %y : tensor<1xf32>
      } : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %1 : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"#;
    let e = refused(again);
    assert!(e.to_string().contains("axis \"a\" manual again"), "{e}");
    // Groups naming an instance that does not exist.
    let bad = PSUM_GATHER_PERMUTE.replace(
        "#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = \"x\">]>",
        "dense<[[0, 1, 2, 7]]> : tensor<1x4xi64>",
    );
    let e = refused(&bad);
    assert!(e.to_string().contains("outside 0..4"), "{e}");
    // Local shapes that do not split the global ones.
    let uneven = PSUM_GATHER_PERMUTE.replace("tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>)", "tensor<8xf32>) -> (tensor<2xf32>, tensor<4xf32>)");
    assert!(read(&uneven).is_err());
}

/// A partially manual region (decision 91): the instances along the free axis "b" hold the whole
/// value along it, the pieces come from coordinate 0 of "b", and partition ids stay global ids.
#[test]
fn partially_manual_region_keeps_free_axes_whole() {
    let text = r#"
module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {"b"}]>] out_shardings=[<@mesh, [{"a"}, {"b"}]>] manual_axes={"a"} (%x: tensor<2x2xf32>) {
      %p = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
      %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
      %s = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%l: tensor<f32>, %r: tensor<f32>):
        %t = stablehlo.add %l, %r : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %y = stablehlo.add %s, %b : tensor<2x2xf32>
      sdy.return %y : tensor<2x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
"#;
    // Rows 0-1 go to a=0 (ids 0, 1), rows 2-3 to a=1 (ids 2, 3); the psum over "a" adds them; the
    // result comes from b=0: ids 0 and 2.
    let x = f32s(&[4, 2], &[1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0]);
    check(text, &[x], &[vec![11.0, 22.0, 33.0, 44.0, 13.0, 24.0, 35.0, 46.0]]);
}

/// Outside a manual computation a collective runs alone: groups of one keep working as before.
#[test]
fn collectives_without_instances_are_single_device_identities() {
    // Outside a manual computation, one partition: groups of one, as before.
    let text = r#"
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>) {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0]]> : tensor<1x1xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %2 = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.partition_id : tensor<ui32>
    return %0, %1 : tensor<2xf32>, tensor<ui32>
  }
}
"#;
    let m = read(text).unwrap();
    let out = interp::run(&m, &[f32s(&[2], &[1.5, 2.5])]).unwrap();
    assert_eq!(values(&out[0]), vec![1.5, 2.5]);
    assert_eq!(values(&out[1]), vec![0.0]);
    let p = Program::compile(&m).unwrap();
    let out = p.run(&[f32s(&[2], &[1.5, 2.5])]).unwrap();
    assert_eq!(values(&out[0]), vec![1.5, 2.5]);
    assert_eq!(fallbacks(&p.plan().unwrap().steps), 0);
    // Groups spanning several devices in the global body of a partitioned program: refused by name.
    let partitions = text.replace("module @m {", "module @m attributes {mhlo.num_partitions = 2 : i32} {").replace("<{replica_groups = dense<[[0]]> : tensor<1x1xi64>}>", "<{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}>");
    let partitions = partitions.replace("    %1 = stablehlo.partition_id : tensor<ui32>\n", "    %1 = stablehlo.replica_id : tensor<ui32>\n");
    let e = refused(&partitions);
    assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
    assert!(e.to_string().contains("outside a manual computation"), "{e}");
}

/// A `num_replicas = 2` program whose all_reduce spans both replicas runs once per replica, both
/// together (`Program::run_replicated`); `replica_id` is each run's own. Alone, a replica refuses.
#[test]
fn replicas_run_together_with_their_collectives() {
    let text = r#"
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<ui32>, tensor<6xf32>) {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %2 = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    %1 = stablehlo.replica_id : tensor<ui32>
    %3 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<3xf32>) -> tensor<6xf32>
    return %0, %1, %3 : tensor<3xf32>, tensor<ui32>, tensor<6xf32>
  }
}
"#;
    let m = read(text).unwrap();
    let args = vec![vec![f32s(&[3], &[1., 2., 3.])], vec![f32s(&[3], &[10., 20., 30.])]];
    for interpret in [true, false] {
        let options = Options { threads: 1, min_parallel_work: usize::MAX, interpret, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
        let p = Program::compile_with(&m, &options).unwrap();
        assert_eq!(p.launch_replicas(), 2);
        let e = p.run(&args[0]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unimplemented, "{e}");
        let out = p.run_replicated(&args).unwrap();
        for (r, results) in out.iter().enumerate() {
            assert_eq!(values(&results[0]), vec![11., 22., 33.], "replica {r}");
            assert_eq!(values(&results[1]), vec![r as f64], "replica {r}");
            // The group lists replica 1 first.
            assert_eq!(values(&results[2]), vec![10., 20., 30., 1., 2., 3.], "replica {r}");
        }
    }
}

/// Eight instances on a machine with fewer cores, each all-reducing inside a 50-step loop: every
/// instance has its own thread, so none waits for a thread held by another's rendezvous.
#[test]
fn more_instances_than_cores_with_collectives_in_a_loop() {
    let text = r#"
module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]>
  func.func public @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<1xi32>) {
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%i = %c0, %v = %a) : tensor<i32>, tensor<1xi32>
      cond {
        %n = stablehlo.constant dense<50> : tensor<i32>
        %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %s = "stablehlo.all_reduce"(%v) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%x: tensor<i32>, %y: tensor<i32>):
          %m = stablehlo.maximum %x, %y : tensor<i32>
          stablehlo.return %m : tensor<i32>
        }) : (tensor<1xi32>) -> tensor<1xi32>
        %id = stablehlo.partition_id : tensor<ui32>
        %idi = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
        %idv = stablehlo.broadcast_in_dim %idi, dims = [] : (tensor<i32>) -> tensor<1xi32>
        %w = stablehlo.add %s, %idv : tensor<1xi32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %j, %w : tensor<i32>, tensor<1xi32>
      }
      sdy.return %1#1 : tensor<1xi32>
    } : (tensor<8xi32>) -> tensor<8xi32>
    return %0 : tensor<8xi32>
  }
}
"#;
    let x: Vec<i32> = vec![3, 9, 1, 4, 1, 5, 9, 2];
    // Each step: v[d] = max(v) + d; after the first the max is the last instance's value.
    let mut v: Vec<i64> = x.iter().map(|&a| a as i64).collect();
    for _ in 0..50 {
        let m = *v.iter().max().unwrap();
        v = (0..8).map(|d| m + d).collect();
    }
    check(text, &[i32s(&[8], &x)], &[v.iter().map(|&a| a as f64).collect()]);
}
