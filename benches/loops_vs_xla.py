#!/usr/bin/env python3
"""General `while` loops on apu vs XLA:CPU, side by side in one process (not among issue 4's workloads).

    python benches/loops_vs_xla.py [--quick]

Loop bodies of one-element work as JAX writes them: integer helpers (`//`, `%`), index normalization
and `dynamic_slice` / `dynamic_update_slice` / scatter of single elements or rows. apu runs these bodies
on buffers the loop owns, its runs of one-element kernels as register programs (docs/decisions.md 54 and
55; a `lax.scan` whose body is all elementwise is in benches/jax_vs_xla.py); XLA:CPU compiles the loop.
Timing as in benches/jax_vs_xla.py; results are compared first.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg  # noqa: E402
from jax import lax  # noqa: E402

from jax_vs_xla import block, fmt, time_pair  # noqa: E402


def recurrence(x):
    """y[i] = 0.5 y[i - 1] + x[i]: a scatter of one element per step."""
    return lax.fori_loop(1, x.shape[0], lambda i, y: y.at[i].set(0.5 * y[i - 1] + x[i]), x)


def collatz(n):
    """Steps of the Collatz sequence from n: scalar `%`, `//` and a data-dependent trip count."""
    def body(s):
        v, k = s
        return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), k + 1
    return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))[1]


def row_scan(a):
    """Running maximum over rows through dynamic_slice and dynamic_update_slice."""
    def body(i, acc):
        r = lax.dynamic_slice_in_dim(a, i, 1, 0)
        prev = lax.dynamic_slice_in_dim(acc, i - 1, 1, 0)
        return lax.dynamic_update_slice_in_dim(acc, jnp.maximum(r, prev), i, 0)
    return lax.fori_loop(1, a.shape[0], body, a)


def workloads(r, quick):
    n = 100 if quick else 1000
    x = r.standard_normal((30, 30)).astype(np.float32)
    spd = (x @ x.T / 30 + np.eye(30, dtype=np.float32)).astype(np.float32)
    return [
        (f"fori_loop y.at[i].set, {n} steps", recurrence, (r.random(n).astype(np.float32),)),
        ("while_loop Collatz from 77031 (350 steps)", collatz, (np.int32(77031),)),
        (f"fori_loop row scan, {n // 4}x64", row_scan, (r.random((n // 4, 64)).astype(np.float32),)),
        ("sqrtm 30 (a triple fori_loop)", jax.scipy.linalg.sqrtm, (spd,)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, short timing (for smoke runs)")
    opts = ap.parse_args()
    apu, cpu = jax.devices("apu")[0], jax.devices("cpu")[0]
    for name, fn, args in workloads(np.random.default_rng(0), opts.quick):
        jitted = jax.jit(fn)
        on = {d.platform: jax.device_put(args, d) for d in (apu, cpu)}
        a = np.asarray(block(jitted(*on["apu"])))
        c = np.asarray(block(jitted(*on["cpu"])))
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4, err_msg=name)
        t_apu, t_cpu, ratio = time_pair(jitted, on["apu"], on["cpu"], 0.4 if opts.quick else 3.0)
        print(f"{name:44s} apu {fmt(t_apu):>10s}   XLA:CPU {fmt(t_cpu):>10s}   ratio {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()
