#!/usr/bin/env python3
"""The model zoo: real flax nnx + optax models (benches/zoo_models.py), trained and run on apu and on XLA:CPU.

    python benches/model_zoo.py [--quick] [--models a,b] [--no-memory] [--write docs/performance.md]
    python benches/model_zoo.py --memory MODEL --backend apu|cpu     (one measurement; prints one JSON line)
    python benches/model_zoo.py --dump DIR                            (StableHLO text of every step)

Needs the apu-plugin wheel in the venv (scripts/bench.sh makes the pinned venv: jax 0.12.0.1, flax 0.12.12,
optax 0.2.8, Python 3.13). For each model, in one process: a jitted training step (forward, backward, Adam
update, BatchNorm statistics carried) and a jitted inference step, each placed on apu and on XLA:CPU. Both
backends' results are checked against each other first (loss, updated parameters, optimizer state, outputs),
so a fast wrong answer is caught; then rounds of back-to-back calls alternate apu and XLA:CPU (as in
benches/jax_vs_xla.py) and the medians and the median per-round ratio are printed. Compile time is the
`.compile()` call of fresh jits. Then an inference batch-size sweep of one model (small-batch latency), and
peak resident memory of each training step, apu and XLA:CPU each in a process of its own.

A model that fails on apu (compile or run) is reported as "fails: <error>" and the bench goes on; a model
whose results disagree is reported as "DISAGREES" and the bench exits with status 1 after writing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback


def _early_platforms():
    # A memory measurement runs one backend alone, and a dump needs no apu: JAX_PLATFORMS is read when
    # jax initialises its backends, so it is set before jax is imported.
    argv = sys.argv[1:]
    if "--memory" in argv and "--backend" in argv:
        backend = argv[argv.index("--backend") + 1]
        os.environ["JAX_PLATFORMS"] = "apu" if backend == "apu" else "cpu"
    elif "--dump" in argv:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    else:
        os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")


_early_platforms()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import jax  # noqa: E402

import jax_vs_xla as bench  # noqa: E402  (timing helpers; turns JAX's compilation cache off)
import zoo_models as zoo  # noqa: E402

SECTION_START = "<!-- model-zoo:start (written by benches/model_zoo.py) -->"
SECTION_END = "<!-- model-zoo:end -->"
SWEEP_MODEL = "lenet"
SWEEP_BATCHES = (1, 8, 64)
MEMORY_STEPS = 5


# --- agreement --------------------------------------------------------------------------------------------

def leaf_error(a, c, floor=1e-6):
    """max |a - c| / (max |c| + floor) over a leaf (0 or inf for integer leaves: they must be equal)."""
    a, c = np.asarray(a), np.asarray(c)
    if a.shape != c.shape:
        return float("inf")
    if not np.issubdtype(c.dtype, np.floating):
        return 0.0 if np.array_equal(a, c) else float("inf")
    if not np.array_equal(np.isnan(a), np.isnan(c)):
        return float("inf")
    a, c = np.nan_to_num(a.astype(np.float64)), np.nan_to_num(c.astype(np.float64))
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - c)) / (np.max(np.abs(c)) + floor))


# Relative to each leaf's largest magnitude. Parameters after one Adam step move by ~lr * sign(gradient)
# per element, so an element whose gradient is ~0 may move by +lr on one backend and -lr on the other:
# their check allows 2.5 lr absolute; the optimizer state holds the gradient itself (mu = 0.1 g after the
# first step) and is checked relatively, as are the loss and the inference outputs.
TOLERANCE = 5e-3


def disagreements(kind, out_apu, out_cpu, tolerance=TOLERANCE, floor=1e-6):
    """A list of "what: error" strings where apu's results are outside the tolerance of XLA:CPU's."""
    bad = []

    def check(what, a, c, tol=tolerance, absolute=0.0):
        la, lc = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(c)
        if len(la) != len(lc):
            bad.append(f"{what}: {len(la)} leaves vs {len(lc)}")
            return 0.0
        worst = 0.0
        for i, (x, y) in enumerate(zip(la, lc)):
            if absolute:
                x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
                err = float(np.max(np.abs(x - y), initial=0.0))
                if not err <= absolute + tol * float(np.max(np.abs(y), initial=0.0)):
                    bad.append(f"{what}[{i}] max abs error {err:.3g}")
                continue
            err = leaf_error(x, y, floor)
            worst = max(worst, err)
            if not err <= tol:
                bad.append(f"{what}[{i}] error {err:.3g}")
        return worst

    if kind == "train":
        params_a, rest_a, opt_a, loss_a = out_apu
        params_c, rest_c, opt_c, loss_c = out_cpu
        worst = check("loss", loss_a, loss_c, tol=1e-3)
        worst = max(worst, check("optimizer state", opt_a, opt_c), check("batch statistics", rest_a, rest_c))
        check("parameters", params_a, params_c, tol=1e-4, absolute=2.5 * zoo.LEARNING_RATE)
    else:
        worst = check("outputs", out_apu, out_cpu)
    return bad, worst


# --- timing -----------------------------------------------------------------------------------------------

def first_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    line = text[0] if text else type(e).__name__
    return line if len(line) <= 200 else line[:197] + "..."


def run_step(name, kind, fn, args, devices, budget, compile_rounds):
    """One row: times, ratio, compile times and agreement of `fn` on apu and XLA:CPU."""
    apu, cpu = devices
    row = {"model": name, "step": kind}
    jitted = jax.jit(fn)
    placed = {}
    outs = {}
    for d in (cpu, apu):
        try:
            placed[d.platform] = jax.device_put(args, d)
            outs[d.platform] = bench.block(jitted(*placed[d.platform]))
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            row["fails"] = f"{d.platform}: {first_line(e)}"
            print(f"{name} {kind}: fails on {d.platform}:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
            return row
    spec = zoo.BY_NAME[name]
    bad, worst = disagreements(kind, outs["apu"], outs["cpu"], spec.tolerance, spec.floor)
    row["error"] = worst
    if bad:
        row["disagrees"] = "; ".join(bad[:3]) + (f" (+{len(bad) - 3} more)" if len(bad) > 3 else "")
    t_apu, t_cpu, ratio = bench.time_pair(jitted, placed["apu"], placed["cpu"], budget)
    row.update(apu=t_apu, cpu=t_cpu, ratio=ratio)
    if compile_rounds:
        times = bench.compile_times(lambda: (lambda *a: fn(*a)), args, (apu, cpu), compile_rounds)
        row.update(compile_apu=times[apu][1], compile_cpu=times[cpu][1])
    return row


def show(row):
    head = f"{row['model'] + ' ' + row['step']:24s}"
    if "fails" in row:
        return f"{head} fails: {row['fails']}"
    text = (f"{head} apu {bench.fmt(row['apu']):>10s}   XLA:CPU {bench.fmt(row['cpu']):>10s}   "
            f"ratio {row['ratio']:6.2f}")
    if "compile_apu" in row:
        text += (f"   compile {bench.fmt(row['compile_apu']):>9s} / {bench.fmt(row['compile_cpu']):>9s}"
                 f" = {row['compile_apu'] / row['compile_cpu']:.2f}")
    text += f"   max rel. diff {row['error']:.1e}"
    if "disagrees" in row:
        text += f"   DISAGREES: {row['disagrees']}"
    return text


# --- memory -----------------------------------------------------------------------------------------------

def proc_status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak():
    """Resets VmHWM to the current resident size (Linux: 5 into clear_refs); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure_memory(name):
    """In this process (one backend): build the model, compile its training step, then reset the peak and
    run MEMORY_STEPS steps as a training loop does (each step's state feeds the next). Prints JSON."""
    s = zoo.steps(zoo.BY_NAME[name])
    device = jax.devices()[0]
    args = jax.device_put(s.train_args, device)
    step = jax.jit(s.train).lower(*args).compile()
    before_kib = proc_status_kib("VmHWM")
    base_kib = proc_status_kib("VmRSS")
    reset = reset_peak()
    params, rest, opt, batch = args
    for _ in range(MEMORY_STEPS):
        params, rest, opt, loss = step(params, rest, opt, batch)
    bench.block((params, rest, opt, loss))
    peak_kib = proc_status_kib("VmHWM")
    print(json.dumps({"model": name, "platform": device.platform, "base_kib": base_kib, "peak_kib": peak_kib,
                      "peak_before_steps_kib": before_kib, "reset": reset}))


def memory_rows(names):
    rows = []
    for name in names:
        row = {"model": name}
        for backend in ("apu", "cpu"):
            cmd = [sys.executable, os.path.abspath(__file__), "--memory", name, "--backend", backend]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                if done.returncode != 0:
                    tail = [l for l in done.stderr.strip().splitlines() if l.strip()][-1:] or ["no output"]
                    row["fails"] = f"{backend}: exit {done.returncode}: {tail[0][:160]}"
                    break
                row[backend] = json.loads(done.stdout.strip().splitlines()[-1])
            except (OSError, subprocess.SubprocessError, ValueError, IndexError) as e:
                row["fails"] = f"{backend}: {first_line(e)}"
                break
        if "fails" in row:
            print(f"memory {name:12s} fails: {row['fails']}", flush=True)
        else:
            a, c = row["apu"], row["cpu"]
            print(f"memory {name:12s} peak apu {a['peak_kib'] / 1024:7.1f} MiB  XLA:CPU {c['peak_kib'] / 1024:7.1f} MiB"
                  f"  ratio {a['peak_kib'] / c['peak_kib']:.2f}   growth during steps apu "
                  f"{(a['peak_kib'] - a['base_kib']) / 1024:6.1f} MiB  XLA:CPU {(c['peak_kib'] - c['base_kib']) / 1024:6.1f} MiB",
                  flush=True)
        rows.append(row)
    return rows


# --- dumps ------------------------------------------------------------------------------------------------

def dump(directory, names):
    """Writes <model>_train.mlir and <model>_infer.mlir (StableHLO text of the jitted steps)."""
    os.makedirs(directory, exist_ok=True)
    for name in names:
        s = zoo.steps(zoo.BY_NAME[name])
        for kind, fn, args in (("train", s.train, s.train_args), ("infer", s.infer, s.infer_args)):
            text = jax.jit(fn).lower(*args).as_text()
            path = os.path.join(directory, f"{name}_{kind}.mlir")
            with open(path, "w") as f:
                f.write(text)
            print(f"{path}: {len(text) / 1024:.1f} KiB")


# --- the markdown section ---------------------------------------------------------------------------------

def versions():
    import flax
    import jaxlib
    import optax
    return f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, flax {flax.__version__}, optax {optax.__version__}"


def section(rows, sweep, memory, opts):
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = "unknown"
    cpu_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    threads = os.environ.get("APU_NUM_THREADS", str(os.cpu_count()))
    quick = " --quick" if opts.quick else ""
    lines = [
        SECTION_START,
        "## Model zoo: real flax models (issue 32)",
        "",
        f"Measured by `scripts/bench.sh` (`benches/model_zoo.py{quick}`, models in `benches/zoo_models.py`) on "
        f"{datetime.date.today()}, commit {rev}: {cpu_name}, {os.cpu_count()} cores, apu threads = {threads}; "
        f"{versions()}, Python {platform.python_version()}, XLA:CPU from that jaxlib in the same process.",
        f"Each step is jitted once per backend; times are medians of {bench.ROUNDS} rounds of back-to-back calls, "
        f"apu's and XLA:CPU's rounds alternating; ratio = apu / XLA:CPU, the median of the {bench.ROUNDS} per-round "
        f"ratios (below 1: apu is faster). Compile = the `.compile()` call of a fresh jit, median of "
        f"{opts.compile_rounds} (after one dropped). Training step = forward, backward and Adam update "
        f"(BatchNorm statistics carried); every result is checked against XLA:CPU's before timing (max rel. diff: "
        f"the largest difference relative to each result's largest magnitude, loss, optimizer state, statistics "
        f"and outputs).",
        "",
        "| model | step | apu | XLA:CPU | ratio | compile apu | compile XLA:CPU | compile ratio | max rel. diff |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    what = {m.name: m.what for m in zoo.MODELS}

    def line(row, label):
        if "fails" in row:
            return f"| {label} | {row['step']} | fails: {row['fails']} | | | | | | |"
        comp = ("| {} | {} | {:.2f} ".format(bench.fmt(row["compile_apu"]), bench.fmt(row["compile_cpu"]),
                                              row["compile_apu"] / row["compile_cpu"])
                if "compile_apu" in row else "| | | ")
        diff = f"{row['error']:.1e}" + (f" DISAGREES: {row['disagrees']}" if "disagrees" in row else "")
        return (f"| {label} | {row['step']} | {bench.fmt(row['apu'])} | {bench.fmt(row['cpu'])} | "
                f"{row['ratio']:.2f} {comp}| {diff} |")

    lines += [line(r, f"{r['model']}: {what[r['model']]}" if r["step"] == "train" else r["model"]) for r in rows]
    if sweep:
        lines += ["", f"Inference latency by batch size ({SWEEP_MODEL}: {what[SWEEP_MODEL]}, batch varied):", "",
                  "| batch | apu | XLA:CPU | ratio | max rel. diff |", "|---|---|---|---|---|"]
        for r in sweep:
            if "fails" in r:
                lines.append(f"| {r['batch']} | fails: {r['fails']} | | | |")
            else:
                lines.append(f"| {r['batch']} | {bench.fmt(r['apu'])} | {bench.fmt(r['cpu'])} | {r['ratio']:.2f} | "
                             f"{r['error']:.1e}{' DISAGREES' if 'disagrees' in r else ''} |")
    if memory:
        lines += ["", f"Peak resident memory of the training step (`--memory MODEL --backend apu|cpu`: each backend "
                  f"alone in a fresh process with JAX_PLATFORMS set to it; the model is built and its step compiled, "
                  f"then VmHWM is reset and {MEMORY_STEPS} steps run as a training loop; peak = VmHWM after them, "
                  f"growth = peak minus the resident size before the first step):", "",
                  "| model | peak apu | peak XLA:CPU | ratio | growth apu | growth XLA:CPU | growth ratio |",
                  "|---|---|---|---|---|---|---|"]
        for r in memory:
            if "fails" in r:
                lines.append(f"| {r['model']} | fails: {r['fails']} | | | | | |")
                continue
            a, c = r["apu"], r["cpu"]
            ga, gc = a["peak_kib"] - a["base_kib"], c["peak_kib"] - c["base_kib"]
            lines.append(f"| {r['model']} | {a['peak_kib'] / 1024:.1f} MiB | {c['peak_kib'] / 1024:.1f} MiB | "
                         f"{a['peak_kib'] / c['peak_kib']:.2f} | {ga / 1024:.1f} MiB | {gc / 1024:.1f} MiB | "
                         f"{ga / gc:.2f} |" if gc > 0 else
                         f"| {r['model']} | {a['peak_kib'] / 1024:.1f} MiB | {c['peak_kib'] / 1024:.1f} MiB | "
                         f"{a['peak_kib'] / c['peak_kib']:.2f} | {ga / 1024:.1f} MiB | {gc / 1024:.1f} MiB | - |")
    load = opts.load_before, os.getloadavg()[0]
    lines += ["", f"Load average (1 min) before and after the timings: {load[0]:.1f}, {load[1]:.1f} (the machine has "
              f"{os.cpu_count()} cores; above ~0.5 other jobs were running and every figure is noise).",
              "", verdict(rows, sweep, memory), "", SECTION_END]
    return "\n".join(lines)


def verdict(rows, sweep, memory):
    """The honest line: everything not yet at <= 1.0 (time, compile, memory), failures and disagreements."""
    slow = [f"{r['model']} {r['step']} {r['ratio']:.2f}" for r in rows if "ratio" in r and r["ratio"] > 1.0]
    slow += [f"{SWEEP_MODEL} infer B{r['batch']} {r['ratio']:.2f}" for r in sweep if "ratio" in r and r["ratio"] > 1.0]
    compile_slow = [f"{r['model']} {r['step']} {r['compile_apu'] / r['compile_cpu']:.2f}" for r in rows
                    if "compile_apu" in r and r["compile_apu"] > r["compile_cpu"]]
    mem = [f"{r['model']} {r['apu']['peak_kib'] / r['cpu']['peak_kib']:.2f}" for r in memory
           if "apu" in r and "cpu" in r and r["apu"]["peak_kib"] > r["cpu"]["peak_kib"]]
    failed = [f"{r['model']} {r.get('step', 'memory')} ({r['fails']})" for r in rows + memory if "fails" in r]
    wrong = [f"{r['model']} {r['step']}" for r in rows + sweep if "disagrees" in r]
    parts = [f"**Where apu is not yet at <= 1.0 (time):** {', '.join(slow) if slow else 'none'}."]
    if compile_slow:
        parts.append(f"Compile slower than XLA:CPU: {', '.join(compile_slow)}.")
    parts.append(f"Peak memory above XLA:CPU's: {', '.join(mem) if mem else 'none'}.")
    growth = [f"{r['model']} {(r['apu']['peak_kib'] - r['apu']['base_kib']) / (r['cpu']['peak_kib'] - r['cpu']['base_kib']):.2f}"
              for r in memory if "apu" in r and "cpu" in r and r["cpu"]["peak_kib"] > r["cpu"]["base_kib"]
              and r["apu"]["peak_kib"] - r["apu"]["base_kib"] > r["cpu"]["peak_kib"] - r["cpu"]["base_kib"]]
    if growth:
        parts.append(f"Memory growth during the steps above XLA:CPU's: {', '.join(growth)}.")
    if failed:
        parts.append(f"Fails: {'; '.join(failed)}.")
    if wrong:
        parts.append(f"Disagrees with XLA:CPU: {', '.join(wrong)}.")
    return " ".join(parts)


def write_section(path, text):
    try:
        old = open(path).read()
    except OSError:
        old = ""
    if SECTION_START in old and SECTION_END in old:
        head, rest = old.split(SECTION_START, 1)
        new = head + text + rest.split(SECTION_END, 1)[1]
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + text + "\n"
    with open(path, "w") as f:
        f.write(new)


# --- main -------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="shorter timing, one compile round (smoke runs)")
    ap.add_argument("--models", help="comma-separated model names (default: all)")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory measurements")
    ap.add_argument("--write", help="write the model-zoo section into this markdown file")
    ap.add_argument("--memory", metavar="MODEL", help="measure one model's training-step memory in this process")
    ap.add_argument("--backend", choices=("apu", "cpu"), help="the backend of --memory")
    ap.add_argument("--dump", metavar="DIR", help="write each model's steps as StableHLO text into DIR")
    opts = ap.parse_args()

    names = opts.models.split(",") if opts.models else [m.name for m in zoo.MODELS]
    unknown = [n for n in names if n not in zoo.BY_NAME]
    if unknown:
        ap.error(f"unknown models {unknown}; the zoo has {', '.join(zoo.BY_NAME)}")
    if opts.memory:
        if not opts.backend:
            ap.error("--memory needs --backend apu|cpu")
        measure_memory(opts.memory)
        return 0
    if opts.dump:
        dump(opts.dump, names)
        return 0

    opts.compile_rounds = 1 if opts.quick else 3
    opts.load_before = os.getloadavg()[0]
    budget = 0.5 if opts.quick else 1.5
    devices = (jax.devices("apu")[0], jax.devices("cpu")[0])
    print(f"model zoo: {versions()}, Python {platform.python_version()}", flush=True)
    rows = []
    for name in names:
        try:
            s = zoo.steps(zoo.BY_NAME[name])
        except Exception as e:  # noqa: BLE001
            rows.append({"model": name, "step": "train", "fails": f"building the model: {first_line(e)}"})
            print(show(rows[-1]), flush=True)
            continue
        for kind, fn, args in (("train", s.train, s.train_args), ("infer", s.infer, s.infer_args)):
            rows.append(run_step(name, kind, fn, args, devices, budget, opts.compile_rounds))
            print(show(rows[-1]), flush=True)

    sweep = []
    if SWEEP_MODEL in names:
        for n in SWEEP_BATCHES:
            s = zoo.steps(zoo.BY_NAME[SWEEP_MODEL], infer_batch=n)
            row = run_step(SWEEP_MODEL, f"infer B{n}", s.infer, s.infer_args, devices, budget, 0)
            row["batch"] = n
            sweep.append(row)
            print(show(row), flush=True)

    memory = [] if opts.no_memory else memory_rows(names)
    summary = verdict(rows, sweep, memory)
    print(summary)
    if opts.write:
        write_section(opts.write, section(rows, sweep, memory, opts))
        print(f"wrote the model-zoo section of {opts.write}")
    return 1 if any("disagrees" in r for r in rows + sweep) else 0


if __name__ == "__main__":
    sys.exit(main())
