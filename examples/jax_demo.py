#!/usr/bin/env python3
"""apu demo: runs a few jitted JAX programs on the APU and checks them against JAX's CPU backend.

    python examples/jax_demo.py                       # needs the apu-plugin wheel installed
    APU_E2E_PLATFORM=cpu python examples/jax_demo.py  # the same demo with CPU standing in for the APU

Prints the devices, each program's result summary, its largest difference from CPU and the median run time
on both backends. Exits 1 if the platform is missing or any result is outside tolerance.
"""

from __future__ import annotations

import os
import pathlib
import statistics
import sys
import time

PLATFORM = os.environ.get("APU_E2E_PLATFORM", "apu")
os.environ["JAX_PLATFORMS"] = PLATFORM if PLATFORM == "cpu" else f"{PLATFORM},cpu"
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from programs import mlp_forward, mlp_loss, mlp_params  # noqa: E402
from tolerance import assert_close, max_difference  # noqa: E402

REPEATS = 20


def tanh_chain(x):
    for _ in range(4):
        x = jnp.tanh(x * 1.5 + 0.25)
    return x


def matmul(a, b):
    return a @ b


def mlp_forward_and_grad(w1, b1, w2, b2, x, y):
    params = (w1, b1, w2, b2)
    return mlp_forward(params, x), jax.grad(mlp_loss)(params, x, y)


def demo_programs():
    r = np.random.default_rng(0)
    x = r.standard_normal((64, 64)).astype(np.float32)
    a = r.standard_normal((128, 96)).astype(np.float32)
    b = r.standard_normal((96, 64)).astype(np.float32)
    mlp_inputs = [*mlp_params(r), r.standard_normal((32, 8)).astype(np.float32),
                  r.standard_normal((32, 4)).astype(np.float32)]
    return [
        ("tanh chain", tanh_chain, [x], "transcendental"),
        ("matmul 128x96 @ 96x64", matmul, [a, b], "accumulate"),
        ("mlp forward + grad", mlp_forward_and_grad, mlp_inputs, "accumulate"),
    ]


def run(fn, args, device):
    """(outputs as numpy, median seconds per call after compilation)."""
    placed = [jax.device_put(a, device) for a in args]
    jitted = jax.jit(fn)
    outputs = jax.block_until_ready(jitted(*placed))  # compiles
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*placed))
        times.append(time.perf_counter() - start)
    leaves = jax.tree.leaves(outputs)
    wrong = [str(o.devices()) for o in leaves if o.devices() != {device}]
    if wrong:
        raise RuntimeError(f"outputs landed on {wrong}, not {device}")
    return [np.asarray(o) for o in leaves], statistics.median(times)


def main() -> int:
    try:
        print(f"jax {jax.__version__}; jax.devices(): {jax.devices()}")
        dev = jax.devices(PLATFORM)[0]
    except Exception as exc:  # noqa: BLE001 - any failure means the platform is not there
        print(f"error: platform {PLATFORM!r} not available: {exc}", file=sys.stderr)
        return 1
    cpu = jax.devices("cpu")[0]
    print(f"device under test: {dev} (platform {dev.platform}, kind {dev.device_kind}); reference: {cpu}\n")

    failures = 0
    header = f"{'program':<24} {'outputs':<34} {'max |diff|':>11} {PLATFORM + ' ms':>9} {'cpu ms':>9}  result"
    print(header)
    print("-" * len(header))
    for name, fn, args, cls in demo_programs():
        try:
            got, t_dev = run(fn, args, dev)
            want, t_cpu = run(fn, args, cpu)
            diff = max(max_difference(g, w) for g, w in zip(got, want))
            for i, (g, w) in enumerate(zip(got, want)):
                assert_close(g, w, cls, f"{name} output {i}")
            verdict = "ok"
        except Exception as exc:  # noqa: BLE001 - report every kind of failure and carry on
            failures += 1
            print(f"{name:<24} FAILED: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            continue
        shapes = ", ".join(f"{g.dtype}{list(g.shape)}" for g in got)
        if len(shapes) > 34:
            shapes = shapes[:31] + "..."
        print(f"{name:<24} {shapes:<34} {diff:>11.3g} {t_dev * 1e3:>9.3f} {t_cpu * 1e3:>9.3f}  {verdict}")
        print(f"{'':<24} first values: {np.ravel(got[0])[:4]}")
    print()
    if failures:
        print(f"{failures} program(s) failed on {PLATFORM}", file=sys.stderr)
        return 1
    print(f"all programs match CPU on {PLATFORM}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
