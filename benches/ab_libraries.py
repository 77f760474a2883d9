"""Two builds of libapu.so against each other and against XLA:CPU, in one process.

The machine's speed drifts by more than most changes are worth, so comparing two separate bench runs
says little. Here both libraries are registered as JAX platforms of their own ("apua", "apub"), the
same inputs are placed on each and on XLA:CPU, and rounds of back-to-back calls alternate A, B, CPU;
each ratio is the median of the per-round ratios, so a slow minute hits all three alike.

    python benches/ab_libraries.py BEFORE.so AFTER.so [--only SUBSTRING] [--pairs N] [--loops | --zoo MODELS]

(copy `target/release/libapu.so` aside before rebuilding: a library cannot be registered twice from
one path). Prints per workload: A, B and XLA:CPU medians, A/CPU, B/CPU and B/A.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

os.environ.setdefault("JAX_PLATFORMS", "")
from jax._src import xla_bridge  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--only", default="", help="time only workloads whose name contains this")
    ap.add_argument("--pairs", type=int, default=11, help="rounds per library")
    ap.add_argument("--round-seconds", type=float, default=0.1)
    ap.add_argument("--loops", action="store_true",
                    help="time the general loops of benches/loops_vs_xla.py instead of the main table's workloads")
    ap.add_argument("--zoo", metavar="MODELS",
                    help="time the training and inference steps of these model-zoo models (comma-separated names "
                         "of benches/zoo_models.py; needs the zoo venv with flax and optax)")
    args = ap.parse_args()
    for name, path in (("apua", args.a), ("apub", args.b)):
        if not os.path.exists(path):
            sys.exit(f"no library at {path}")
        xla_bridge.register_plugin(name, priority=1, library_path=os.path.abspath(path))

    import jax
    import numpy as np
    import jax_vs_xla as bench

    if args.zoo:
        import zoo_models
        workloads = []
        for model in args.zoo.split(","):
            steps = zoo_models.steps(zoo_models.BY_NAME[model])
            workloads += [(f"{model} train", steps.train, steps.train_args), (f"{model} infer", steps.infer, steps.infer_args)]
    elif args.loops:
        import loops_vs_xla
        workloads = loops_vs_xla.workloads(np.random.default_rng(0), quick=False)
    else:
        workloads = bench.workloads(np.random.default_rng(0), quick=False)
    devices = {k: jax.devices(k)[0] for k in ("apua", "apub", "cpu")}
    for name, fn, inputs in workloads:
        if args.only not in name:
            continue
        placed = {k: jax.device_put(inputs, d) for k, d in devices.items()}
        t = bench.time_rounds(jax.jit(fn), placed, args.round_seconds * args.pairs, args.pairs)

        def ratio(x, y):
            return bench.median_ratio(t[x], t[y])

        med = {k: bench.fmt(statistics.median(v)) for k, v in t.items()}
        print(f"{name:<36} A {med['apua']:>10}  B {med['apub']:>10}  XLA:CPU {med['cpu']:>10}   "
              f"A/CPU {ratio('apua', 'cpu'):.3f}  B/CPU {ratio('apub', 'cpu'):.3f}  B/A {ratio('apub', 'apua'):.3f}",
              flush=True)


if __name__ == "__main__":
    main()
