#!/usr/bin/env python3
"""apu vs XLA:CPU, side by side in one process: the workloads of issue 4, timed on both backends.

    python benches/jax_vs_xla.py [--quick] [--only SUBSTRING] [--write docs/performance.md]

Needs the apu-plugin wheel installed (scripts/bench.sh does that). Each workload is jitted once per backend,
warmed up, then timed as the median of several rounds of back-to-back calls (interleaved apu/cpu rounds so
that machine noise hits both alike). Results are checked against each other before timing. Prints a table
with times and apu/XLA ratios (< 1 means apu is faster) and optionally writes it as markdown.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

# Compile times must measure compiles, not cache reads.
jax.config.update("jax_enable_compilation_cache", False)
from jax import lax  # noqa: E402


def chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * x - 3.0


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def mlp_loss(params, x, y):
    (w1, b1), (w2, b2), (w3, b3) = params
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    logits = h @ w3 + b3
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def mlp_inputs(r):
    def layer(n, m):
        return (r.standard_normal((n, m), np.float32) * np.float32(1 / np.sqrt(n)), np.zeros(m, np.float32))
    params = (layer(784, 512), layer(512, 512), layer(512, 10))
    x = r.standard_normal((256, 784), np.float32)
    y = np.eye(10, dtype=np.float32)[r.integers(0, 10, 256)]
    return params, x, y


def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def depthwise_grads(x, w):
    """A depthwise 3x3 convolution's input and filter gradients (MobileNet's backward pass)."""
    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=x.shape[-1])
        return jnp.sum(y * y)
    return jax.grad(loss, argnums=(0, 1))(x, w)


def scan(x):
    def step(c, _):
        c = jnp.tanh(c * 0.5 + 0.1)
        return c, ()
    return lax.scan(step, x, None, length=1000)[0]


def workloads(r, quick):
    f32 = np.float32
    big = 1_000_000 if quick else 10_000_000
    items = [
        ("dispatch: scalar add", lambda a, b: a + b, (f32(1.0), f32(2.0))),
        ("tanh(x*2+1)*x-3, f32 1e6", chain, (r.standard_normal(1_000_000, f32),)),
    ]
    if not quick:
        items.append(("tanh(x*2+1)*x-3, f32 1e7", chain, (r.standard_normal(big, f32),)))
    items += [
        (f"sum of {big:.0e}".replace("e+0", "e"), jnp.sum, (r.standard_normal(big, f32),)),
        ("sum over last axis, 4096x4096", lambda x: jnp.sum(x, axis=-1), (r.standard_normal((4096, 4096), f32),)),
        # BatchNorm's statistics on NHWC: a sum over the outer axes (a column reduce of 16K rows).
        ("sum over N,H,W, 16x32x32x64", lambda x: jnp.sum(x, axis=(0, 1, 2)),
         (r.standard_normal((16, 32, 32, 64), f32),)),
        ("softmax 1024x1024", softmax, (r.standard_normal((1024, 1024), f32),)),
        ("matmul 256", jnp.matmul, (r.standard_normal((256, 256), f32), r.standard_normal((256, 256), f32))),
        ("matmul 1024", jnp.matmul, (r.standard_normal((1024, 1024), f32), r.standard_normal((1024, 1024), f32))),
    ]
    if not quick:
        items.append(("matmul 2048", jnp.matmul,
                      (r.standard_normal((2048, 2048), f32), r.standard_normal((2048, 2048), f32))))
    items += [
        ("MLP 784-512-512-10 B256 fwd+bwd", jax.grad(mlp_loss), mlp_inputs(r)),
        ("conv2d NHWC 1x56x56x64, 64 3x3", conv,
         (r.standard_normal((1, 56, 56, 64), f32), r.standard_normal((3, 3, 64, 64), f32) * f32(0.05))),
        ("depthwise 3x3 grads, 16x32x32x64", depthwise_grads,
         (r.standard_normal((16, 32, 32, 64), f32), r.standard_normal((3, 3, 1, 64), f32) * f32(0.3))),
        ("lax.scan 1000 steps, f32[128]", scan, (r.standard_normal(128, f32),)),
    ]
    return items


NOTES_HEADING = "## Where apu stands"


def block(out):
    return jax.tree_util.tree_map(lambda a: a.block_until_ready(), out)


ROUNDS = 7


def time_rounds(fn, args_by_key, budget_s, rounds=ROUNDS):
    """Seconds per call of `fn` on each key's arguments: {key: [one figure per round]}.

    Each round is a run of back-to-back calls (~budget_s/rounds long, the count calibrated per key
    by one timed call); the keys' rounds alternate, so a slow spell of the shared machine hits all
    of them alike.
    """
    per_round = {}
    for key, args in args_by_key.items():
        block(fn(*args))
        t0 = time.perf_counter()
        block(fn(*args))
        one = max(time.perf_counter() - t0, 1e-7)
        per_round[key] = max(1, min(10_000, int(budget_s / rounds / one)))

    def one_round(key):
        n = per_round[key]
        t0 = time.perf_counter()
        for _ in range(n):
            out = fn(*args_by_key[key])
        block(out)
        return (time.perf_counter() - t0) / n

    times = {key: [] for key in args_by_key}
    for _ in range(rounds):
        for key in args_by_key:
            times[key].append(one_round(key))
    return times


def median_ratio(xs, ys):
    """The median of the per-round ratios x/y."""
    return statistics.median(x / y for x, y in zip(xs, ys))


def time_pair(fn, args_apu, args_cpu, budget_s, rounds=ROUNDS):
    """(apu seconds per call, XLA:CPU seconds per call, ratio) from `rounds` interleaved round pairs:
    the medians of each backend's rounds, and the median of the per-pair ratios."""
    t = time_rounds(fn, {"apu": args_apu, "cpu": args_cpu}, budget_s, rounds)
    return statistics.median(t["apu"]), statistics.median(t["cpu"]), median_ratio(t["apu"], t["cpu"])


def fmt(s):
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def compile_times(fn_factory, args, devices, rounds):
    """Per device: (median `.lower()` seconds, median `.compile()` seconds) over `rounds` fresh compiles.

    Each round builds a new function object (`fn_factory()`), so neither JAX's tracing/lowering caches nor
    its compiled-executable cache can serve it; devices are interleaved within a round so that machine
    noise hits both alike. Only `.compile()` is the backend's work: `.lower()` (tracing and StableHLO
    emission) is the same Python for every backend and is reported separately.
    """
    placed = {d: jax.device_put(args, d) for d in devices}
    samples = {d: ([], []) for d in devices}
    for _ in range(rounds + 1):  # the first round warms up JAX itself and is dropped
        for d in devices:
            t0 = time.perf_counter()
            lowered = jax.jit(fn_factory()).lower(*placed[d])
            t1 = time.perf_counter()
            lowered.compile()
            t2 = time.perf_counter()
            samples[d][0].append(t1 - t0)
            samples[d][1].append(t2 - t1)
    return {d: (statistics.median(lo[1:]), statistics.median(co[1:])) for d, (lo, co) in samples.items()}


def probe(when, probes):
    """Runs the machine probe `scripts/bench.sh` built (APU_BENCH_PROBE, benches/hw/read_bw.c), if any:
    this shared machine's memory speed, and whether its two CPUs share a cache, change from hour to
    hour, and the memory-bound rows of the table with them."""
    path = os.environ.get("APU_BENCH_PROBE")
    if not path:
        return
    try:
        done = subprocess.run([path], capture_output=True, text=True, timeout=120)
        out = done.stdout.strip() if done.returncode == 0 else f"probe failed (exit status {done.returncode})"
    except (OSError, subprocess.SubprocessError) as e:
        out = f"probe failed: {e}"
    print(f"machine {when}: {out}", flush=True)
    probes.append((when, out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes, shorter timing (for smoke runs)")
    ap.add_argument("--write", help="write the markdown table to this file")
    ap.add_argument("--only", help="time only the workloads whose name contains this (nothing is written)")
    opts = ap.parse_args()
    if opts.only:
        opts.write = None

    apu, cpu = jax.devices("apu")[0], jax.devices("cpu")[0]
    probes = []
    probe("before", probes)
    r = np.random.default_rng(0)
    budget = 0.2 if opts.quick else 1.0
    rows = []
    for name, fn, args in workloads(r, opts.quick):
        if opts.only and opts.only not in name:
            continue
        jitted = jax.jit(fn)
        on = {d.platform: jax.device_put(args, d) for d in (apu, cpu)}
        a = jax.tree_util.tree_leaves(block(jitted(*on["apu"])))
        c = jax.tree_util.tree_leaves(block(jitted(*on["cpu"])))
        for x, y in zip(a, c):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=2e-3, atol=2e-3, err_msg=name)
        t_apu, t_cpu, ratio = time_pair(jitted, on["apu"], on["cpu"], 2 * budget)
        rows.append((name, t_apu, t_cpu, ratio))
        print(f"{name:36s} apu {fmt(t_apu):>10s}   XLA:CPU {fmt(t_cpu):>10s}   ratio {ratio:6.2f}", flush=True)

    probe("after", probes)
    if opts.only and opts.only not in "compile time, MLP gradient":
        return 0
    params, x, y = mlp_inputs(np.random.default_rng(1))
    grad = jax.grad(mlp_loss)
    rounds = 5 if opts.quick else 9
    times = compile_times(lambda: (lambda *a: grad(*a)), (params, x, y), (apu, cpu), rounds)
    (l_apu, c_apu), (l_cpu, c_cpu) = times[apu], times[cpu]
    rows.append(("compile time, MLP gradient", c_apu, c_cpu, c_apu / c_cpu))
    print(f"{'compile time, MLP gradient':36s} apu {fmt(c_apu):>10s}   XLA:CPU {fmt(c_cpu):>10s}   ratio {c_apu / c_cpu:6.2f}")
    lowering_note = (
        f"Compile time is `jax.jit(f).lower(...).compile()` minus the lowering: the `.compile()` call alone, median "
        f"of {rounds} fresh compiles (a new function object each time; JAX's persistent compilation cache off). "
        f"JAX's lowering (`.lower()`, the same Python for both backends) took a further {fmt(l_apu)} (apu) and "
        f"{fmt(l_cpu)} (XLA:CPU)."
    )
    print(lowering_note)

    if opts.write:
        threads = os.environ.get("APU_NUM_THREADS", str(os.cpu_count()))
        try:
            rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        except OSError:
            rev = "unknown"
        cpu_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
        lines = [
            "# Performance: apu vs XLA:CPU",
            "",
            f"Measured by `scripts/bench.sh` (`benches/jax_vs_xla.py{' --quick' if opts.quick else ''}`) on "
            f"{datetime.date.today()}, commit {rev}: {cpu_name}, {os.cpu_count()} cores, apu threads = {threads}, "
            f"XLA:CPU from jaxlib {jax.__version__} in the same process; Python {platform.python_version()}.",
            f"Times are medians of {ROUNDS} rounds of back-to-back calls, apu's and XLA:CPU's rounds alternating; "
            f"ratio = apu / XLA:CPU, the median of the {ROUNDS} per-pair ratios (below 1: apu is faster).",
            "The machine is shared: differences under ~15 % (compute) or ~30 % (memory-bound) are noise.",
            lowering_note,
        ]
        lines += [f"Machine {when} the timings (`benches/hw/read_bw.c`): {text}" for when, text in probes]
        lines += [
            "",
            "| workload | apu | XLA:CPU | ratio |",
            "|---|---|---|---|",
        ]
        lines += [f"| {n} | {fmt(a)} | {fmt(c)} | {r:.2f} |" for n, a, c, r in rows]
        lines.append("")
        # Keep the hand-written analysis below the table across reruns.
        try:
            old = open(opts.write).read()
            keep = old[old.index(NOTES_HEADING):] if NOTES_HEADING in old else ""
        except OSError:
            keep = ""
        if keep:
            lines.append(keep.rstrip("\n"))
            lines.append("")
        with open(opts.write, "w") as f:
            f.write("\n".join(lines))
        print(f"wrote {opts.write}")


if __name__ == "__main__":
    sys.exit(main())
