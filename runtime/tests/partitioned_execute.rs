//! Partitioned programs through the device model (decision 64): JAX's pmap / shard_map programs for 4
//! devices (`fixtures/manual`, VHLO as jit sends them) compiled with their `mhlo.num_partitions = 4`,
//! loaded on a 4-device client and executed with one argument list per device holding that
//! device's piece; the devices' result pieces, put together, must equal XLA:CPU's global outputs, and
//! each piece must live on its own device.

use apu_runtime::client::{Client, ExecuteOptions, Executable, LoadedExecutable, ProgramSource};
use apu_runtime::{npz, DeviceBuffer, Tensor};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/manual")
}

/// The fixture `name` as jax `jax` sends it (VHLO), compiled.
fn compiled(name: &str, jax: &str) -> Arc<Executable> {
    let code = std::fs::read(dir().join(format!("{name}.{jax}.vhlo.mlirbc"))).unwrap();
    Executable::compile(ProgramSource { format: "mlir".into(), code, options: Vec::new() }).unwrap_or_else(|e| panic!("{name} {jax}: {e}"))
}

fn pick(io: &[(String, Tensor)], prefix: &str) -> Vec<Tensor> {
    let mut v: Vec<(usize, Tensor)> =
        io.iter().filter_map(|(k, t)| k.strip_prefix(prefix).and_then(|n| n.parse().ok()).map(|n| (n, t.clone()))).collect();
    v.sort_by_key(|e| e.0);
    v.into_iter().map(|e| e.1).collect()
}

#[test]
fn jax_pmap_and_shard_map_programs_run_over_four_devices_like_xla_cpu() {
    let client = Client::new(4);
    let mut seen = 0;
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".io.npz") else { continue };
        let io: Vec<(String, Tensor)> = npz::load_npz(&path).unwrap().into_iter().collect();
        let (inputs, outputs) = (pick(&io, "in"), pick(&io, "out"));
        let code = std::fs::read(dir().join(format!("{stem}.vhlo.mlirbc"))).unwrap();
        let exe = Executable::compile(ProgramSource { format: "mlir".into(), code, options: Vec::new() })
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(exe.num_partitions, 4, "{stem}");
        let part = exe.partitioning.clone().expect("partitioned");
        let loaded = LoadedExecutable::load(exe.clone(), client.clone()).unwrap();
        assert_eq!(loaded.device_indices, vec![0, 1, 2, 3], "{stem}");
        // Each device's argument list: its piece of every input, on that device.
        let mut lists: Vec<Vec<Arc<DeviceBuffer>>> = vec![Vec::new(); 4];
        for (pieces, input) in part.params.iter().zip(&inputs) {
            for (d, piece) in pieces.split(input).unwrap().into_iter().enumerate() {
                lists[d].push(DeviceBuffer::ready(piece, d));
            }
        }
        let got: Arc<Mutex<Vec<(usize, Vec<Arc<DeviceBuffer>>, apu_runtime::Event)>>> = Arc::default();
        let sink = got.clone();
        loaded
            .execute(lists, &ExecuteOptions::default(), |d, outs, done| {
                sink.lock().unwrap().push((d, outs.iter().map(|p| p.buffer().clone()).collect(), done.clone()))
            })
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let got = std::mem::take(&mut *got.lock().unwrap());
        assert_eq!(got.len(), 4);
        let mut per_device: Vec<Vec<Tensor>> = vec![Vec::new(); 4];
        for (d, bufs, done) in got {
            done.wait().unwrap_or_else(|e| panic!("{stem}: device {d}: {e}"));
            for b in bufs {
                assert_eq!(b.device(), d, "{stem}: a piece of device {d} lives elsewhere");
                per_device[d].push(b.wait_tensor().unwrap());
            }
        }
        for (r, (pieces, want)) in part.results.iter().zip(&outputs).enumerate() {
            let mine: Vec<Tensor> = per_device.iter().map(|outs| outs[r].clone()).collect();
            let whole = pieces.assemble(&mine).unwrap();
            assert_eq!(whole.ty, want.ty, "{stem}: result {r}");
            assert_eq!(whole.bytes(), want.bytes(), "{stem}: result {r} differs from XLA:CPU");
        }
        seen += 1;
    }
    assert!(seen >= 10, "fixtures missing: {seen}");
}

#[test]
fn a_jit_of_shard_map_takes_its_unannotated_shardings_from_the_manual_computation() {
    // JAX leaves @main's parameter and result of `jit(shard_map(ring, in_specs=P("x"),
    // out_specs=P("x")))` without `sdy.sharding`; XLA's propagation gives them the manual
    // computation's, so JAX places (and expects) pieces of 2 of the 8 elements on each device.
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("ring", jax);
        let text = std::fs::read_to_string(dir().join(format!("ring.{jax}.stablehlo.mlir"))).unwrap();
        let main = text.lines().find(|l| l.contains("@main(")).unwrap();
        assert!(!main.contains("sdy.sharding"), "{jax}: the fixture annotates @main: {main}");
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.params[0].local.shape, vec![2], "{jax}: parameter piece");
        assert_eq!(part.results[0].local.shape, vec![2], "{jax}: result piece");
        assert_eq!(part.params[0].offsets, vec![vec![0], vec![2], vec![4], vec![6]], "{jax}");
    }
}

#[test]
fn results_computed_elementwise_from_a_sharded_parameter_keep_its_sharding() {
    // `jit(lambda a, b: (a * 2 + 1, sin(a) - b), in_shardings=(P("x"), P()))` on 4 devices: JAX sends
    // the results unannotated and XLA:CPU reports both as P("x") (checked with jaxlib 0.12.0.1).
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("propagate", jax);
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.params[0].local.shape, vec![2], "{jax}: parameter 0 is split");
        assert_eq!(part.params[1].local.shape, vec![8], "{jax}: parameter 1 is replicated");
        for (r, pieces) in part.results.iter().enumerate() {
            assert_eq!(pieces.local.shape, vec![2], "{jax}: result {r}");
            assert_eq!(pieces.offsets, vec![vec![0], vec![2], vec![4], vec![6]], "{jax}: result {r}");
        }
    }
}

#[test]
fn a_constrained_result_is_reported_where_the_constraint_puts_it() {
    // `jit(lambda a: with_sharding_constraint(a @ a.T + 1, P("x")) * 2)` with a replicated argument:
    // XLA:CPU reports the result as P("x"); the constraint is read from the portable artifact.
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("constrained", jax);
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.params[0].local.shape, vec![8, 4], "{jax}: the parameter is replicated");
        assert_eq!(part.results[0].local.shape, vec![2, 8], "{jax}: the result is split over x");
        assert_eq!(part.results[0].offsets, vec![vec![0, 0], vec![2, 0], vec![4, 0], vec![6, 0]], "{jax}");
    }
}

#[test]
fn buffer_donors_alias_the_first_output_of_their_piece_type() {
    // `jit(lambda a, b: (a * 2, b + 1), in_shardings=(P("x"), P()), donate_argnums=(0, 1))`: JAX
    // marks both arguments `jax.buffer_donor` instead of naming outputs; each aliases the output
    // whose per-device type is its own, so Execute consumes both (XLA:CPU deletes both arrays).
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("donated", jax);
        assert_eq!(exe.aliasing_outputs, vec![Some(0), Some(1)], "{jax}");
    }
}

#[test]
fn a_mesh_in_another_device_order_places_pieces_by_its_device_ids() {
    // The parameter's mesh has device_ids [0, 2, 1, 3]: partition p holds the piece at the mesh
    // position of p (partition 1 is position 2, so elements 4..6); the result's mesh is in order.
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("permuted", jax);
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.params[0].offsets, vec![vec![0], vec![4], vec![2], vec![6]], "{jax}: parameter");
        assert_eq!(part.results[0].offsets, vec![vec![0], vec![2], vec![4], vec![6]], "{jax}: result");
    }
}

#[test]
fn a_partially_manual_result_keeps_the_free_axes_of_an_operand_shaped_like_it() {
    // `jit(shard_map(partial, in_specs=P("a"), out_specs=P("a"), axis_names={"a"}), in_shardings=P("a", "b"))`
    // on a 2 x 2 mesh: XLA:CPU reports the result as P("a", "b") (checked with jaxlib 0.12.0.1).
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("partial_sharded", jax);
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.results[0].local.shape, vec![2, 2], "{jax}: split over a and b");
        assert_eq!(part.results[0].offsets, vec![vec![0, 0], vec![0, 2], vec![2, 0], vec![2, 2]], "{jax}");
    }
}

#[test]
fn a_constraint_that_does_not_split_evenly_leaves_the_result_whole() {
    // `with_sharding_constraint(a * 2, P("x"))` on 9 elements over 4 devices: XLA pads the pieces;
    // apu reports the result replicated (a correct placement) instead of refusing the program.
    for jax in ["0.10.2", "0.12.0.1"] {
        let exe = compiled("constrained_uneven", jax);
        let part = exe.partitioning.clone().expect("partitioned");
        assert_eq!(part.results[0].local.shape, vec![9], "{jax}");
    }
}
