#!/usr/bin/env python3
"""Linear algebra on apu vs XLA:CPU, side by side in one process (not among issue 4's workloads).

    python benches/linalg_vs_xla.py [--quick] [--write docs/performance-linalg.md]

On apu these run through apu's custom calls (`Qr`, `Eigh`, `LuDecomposition`, cholesky, triangular_solve) and
JAX's platform-independent lowering of SVD (QDWH); on XLA:CPU through LAPACK. Same timing method as
benches/jax_vs_xla.py (interleaved rounds, median ratio); results are checked against each other first,
as invariants where the factors are unique only up to signs or phases.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys

os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg  # noqa: E402
from jax import lax  # noqa: E402

from jax_vs_xla import NOTES_HEADING, block, fmt, time_pair  # noqa: E402


def spd(r, n):
    x = r.standard_normal((n, n), np.float32)
    return (x @ x.T / n + np.eye(n, dtype=np.float32)).astype(np.float32)


def hermitian(r, n, complex_=False):
    x = r.standard_normal((n, n), np.float32)
    if complex_:
        x = x + 1j * r.standard_normal((n, n), np.float32)
    return ((x + np.conj(x.T)) / 2).astype(np.complex64 if complex_ else np.float32)


def workloads(r, quick):
    sizes = [128] if quick else [256, 512]
    items = []
    for n in sizes:
        items += [
            (f"eigh f32 {n}", lambda a: jnp.linalg.eigh(a)[0], (hermitian(r, n),)),
            (f"eigh c64 {n}", lambda a: jnp.linalg.eigh(a)[0], (hermitian(r, n, True),)),
            (f"svd f32 {n} (values)", lambda a: jnp.linalg.svd(a, compute_uv=False), (r.standard_normal((n, n), np.float32),)),
            # Eigenvalue order and Schur vectors are not unique: compare sorted |w| and T's Frobenius norm.
            (f"eigvals f32 {n}", lambda a: jnp.sort(jnp.abs(jnp.linalg.eigvals(a))), (r.standard_normal((n, n), np.float32),)),
            (f"schur f32 {n} (|T|)", lambda a: jnp.linalg.norm(jax.scipy.linalg.schur(a)[0]), (r.standard_normal((n, n), np.float32),)),
            (f"qr f32 {2 * n}x{n} (R)", lambda a: jnp.abs(jnp.linalg.qr(a)[1]), (r.standard_normal((2 * n, n), np.float32),)),
            (f"cholesky f32 {n}", jnp.linalg.cholesky, (spd(r, n),)),
            (f"solve f32 {n}", jnp.linalg.solve, (spd(r, n), r.standard_normal((n, 16), np.float32))),
            (f"triangular solve f32 {n}, {n} rhs",
             lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
             (np.tril(spd(r, n)), r.standard_normal((n, n), np.float32))),
        ]
    # sqrtm's triangular recurrence is a triple fori_loop of complex scalar arithmetic: it measures
    # per-iteration overhead of one-element kernels, so one size (n^3 / 6 inner iterations) is enough.
    m = 48 if quick else 100
    items.append((f"sqrtm f32 {m} (loops of complex scalars)", jax.scipy.linalg.sqrtm, (spd(r, m),)))
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, short timing (for smoke runs)")
    ap.add_argument("--write", help="write the markdown table to this file")
    opts = ap.parse_args()
    apu, cpu = jax.devices("apu")[0], jax.devices("cpu")[0]
    r = np.random.default_rng(0)
    rows = []
    for name, fn, args in workloads(r, opts.quick):
        jitted = jax.jit(fn)
        on = {d.platform: jax.device_put(args, d) for d in (apu, cpu)}
        a = np.asarray(block(jitted(*on["apu"])))
        c = np.asarray(block(jitted(*on["cpu"])))
        scale = max(1.0, float(np.max(np.abs(c))))
        np.testing.assert_allclose(a, c, rtol=2e-3, atol=2e-3 * scale, err_msg=name)
        t_apu, t_cpu, ratio = time_pair(jitted, on["apu"], on["cpu"], 0.4 if opts.quick else 3.0)
        rows.append((name, t_apu, t_cpu, ratio))
        print(f"{name:36s} apu {fmt(t_apu):>10s}   XLA:CPU {fmt(t_cpu):>10s}   ratio {ratio:6.2f}", flush=True)
    if opts.write:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        lines = [
            "# Linear algebra: apu vs XLA:CPU",
            "",
            f"Measured by `scripts/bench.sh` (`benches/linalg_vs_xla.py{' --quick' if opts.quick else ''}`) on "
            f"{datetime.date.today()}, commit {rev}, {os.cpu_count()} cores, jaxlib {jax.__version__}; timing as in "
            "performance.md. XLA:CPU runs LAPACK; apu runs its own custom calls (`Eigh`, `Qr`, `LuDecomposition`, `ApuEig`, "
            "`ApuSchur`, cholesky, triangular_solve, in f64 arithmetic) and JAX's generic lowering of svd (QDWH).",
            "",
            "| workload | apu | XLA:CPU | ratio |",
            "|---|---|---|---|",
        ]
        lines += [f"| {n} | {fmt(a)} | {fmt(c)} | {q:.2f} |" for n, a, c, q in rows]
        # Keep the hand-written analysis below the table across reruns.
        try:
            old = open(opts.write).read()
            if NOTES_HEADING in old:
                lines += ["", old[old.index(NOTES_HEADING):].rstrip("\n")]
        except OSError:
            pass
        with open(opts.write, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {opts.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
