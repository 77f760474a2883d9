#!/usr/bin/env python3
"""Collectives and data-parallel training on N apu devices vs N XLA:CPU devices, side by side in one
process (issue 33).

    python benches/collectives_vs_xla.py [--quick] [--devices 8]

- machine memory bandwidth: numpy copies of a buffer as large as one device's all-reduce operand
  (the reference an in-process all-reduce is measured against);
- all-reduce (`psum` in `shard_map`) of a 64 MiB f32 buffer per device over N devices;
- a data-parallel training step (MLP, batch split over the devices, parameters replicated, gradients
  averaged by the partitioner) over 2 and N devices.

apu runs every device's instance in one process over shared host memory (decisions 64, 65, 91); XLA:CPU
does the same with its own runtime. Results are compared first; timing is benches/jax_vs_xla.py's:
interleaved rounds, medians, the median of the per-round ratios (apu / XLA:CPU; below 1 apu is faster).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

N_DEFAULT = 8
os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")
os.environ.setdefault("APU_NUM_DEVICES", str(N_DEFAULT))
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={N_DEFAULT}"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

from jax_vs_xla import fmt, time_pair  # noqa: E402


def memory_bandwidth(nbytes, rounds=5):
    """GB/s of numpy copying `nbytes` (read + write counted once each)."""
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    return 2 * nbytes / statistics.median(times) / 1e9


def all_reduce(mesh):
    return jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"), out_specs=P()))


def mlp_step(params, x, y):
    def loss(p):
        h = jnp.tanh(x @ p[0])
        return jnp.mean((h @ p[1] - y) ** 2)
    grads = jax.grad(loss)(params)
    return [w - 0.01 * g for w, g in zip(params, grads)]


def placed_step(mesh, r, batch, width):
    """The jitted step and its arguments on `mesh`: parameters replicated, the batch split."""
    rep, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
    params = [r.standard_normal((width, width)).astype(np.float32) / width ** 0.5,
              r.standard_normal((width, 16)).astype(np.float32) / width ** 0.5]
    x = r.standard_normal((batch, width)).astype(np.float32)
    y = r.standard_normal((batch, 16)).astype(np.float32)
    step = jax.jit(mlp_step, in_shardings=([rep, rep], split, split), out_shardings=[rep, rep])
    return step, (jax.device_put(params, rep), jax.device_put(x, split), jax.device_put(y, split))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, short timing (for smoke runs)")
    ap.add_argument("--devices", type=int, default=N_DEFAULT, help=f"devices of each platform (at most {N_DEFAULT})")
    opts = ap.parse_args()
    n = opts.devices
    apu, cpu = jax.devices("apu"), jax.devices("cpu")
    if len(apu) < n or len(cpu) < n:
        sys.exit(f"need {n} devices of each platform, have apu {len(apu)}, cpu {len(cpu)}")
    budget = 0.5 if opts.quick else 4.0
    call = lambda f, *args: f(*args)  # noqa: E731  one timing function for both platforms' programs

    per_device = (8 if opts.quick else 64) << 20
    print(f"machine memory bandwidth (numpy copy of {per_device >> 20} MiB): {memory_bandwidth(per_device):.1f} GB/s")

    meshes = {p: Mesh(np.array(ds[:n]), ("x",)) for p, ds in (("apu", apu), ("cpu", cpu))}
    rows = per_device // 4
    data = np.random.default_rng(0).standard_normal((n, rows), dtype=np.float32)
    args = {p: (all_reduce(m), jax.device_put(data, NamedSharding(m, P("x")))) for p, m in meshes.items()}
    got, want = (np.asarray(call(*args[p])) for p in ("apu", "cpu"))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    t_apu, t_cpu, ratio = time_pair(call, args["apu"], args["cpu"], budget)
    gbs = lambda t: n * per_device / t / 1e9  # noqa: E731  bytes reduced per second
    print(f"all-reduce {per_device >> 20} MiB x {n} devices   apu {fmt(t_apu):>10s} ({gbs(t_apu):5.1f} GB/s)   "
          f"XLA:CPU {fmt(t_cpu):>10s} ({gbs(t_cpu):5.1f} GB/s)   ratio {ratio:6.2f}", flush=True)

    batch, width = (64, 128) if opts.quick else (512, 512)
    for k in sorted({2, n}):
        pairs = {}
        for p, ds in (("apu", apu), ("cpu", cpu)):
            step, placed = placed_step(Mesh(np.array(ds[:k]), ("x",)), np.random.default_rng(1), batch, width)
            pairs[p] = (step, *placed)
        got, want = ([np.asarray(w) for w in call(*pairs[p])] for p in ("apu", "cpu"))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        t_apu, t_cpu, ratio = time_pair(call, pairs["apu"], pairs["cpu"], budget)
        print(f"data-parallel MLP step, batch {batch}, width {width}, {k} devices   apu {fmt(t_apu):>10s}   "
              f"XLA:CPU {fmt(t_cpu):>10s}   ratio {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()
