#!/usr/bin/env python3
"""Runs JAX's own test suite from a jax-ml/jax checkout on apu and on CPU, and compares with known failures.

    scripts/jax_conformance.py CHECKOUT [--jax 0.10.2|0.11.0] [--files lax_test.py ... | --all-files]
                               [--x64 off|on|both] [--max-minutes 60] [-k EXPR] [--platforms apu,cpu]
                               [--cases 10] [--cpu-only-too] [--wheel WHEEL] [--no-report]

CHECKOUT is a jax-ml/jax source tree at the tag of the chosen JAX (`--jax`, default 0.10.2: tag jax-v0.10.2;
0.11.0: tag jax-v0.11.0, the newest tag whose tests run here), e.g. from
`git clone --depth 1 --branch jax-v0.11.0 https://github.com/jax-ml/jax ~/.cache/apu/jax-src-0.11.0` (only its
`tests/`, `conftest.py` and `pyproject.toml` are used; nothing is copied into apu). The tests run with pytest in a
separate pinned venv per JAX version (`$APU_CACHE/venvs/jax-suite` for 0.10.2 on Python 3.11,
`jax-suite-0.11.0-py3.13` for 0.11.0 on Python 3.13 from pyenv; created on first use) so that their extra
dependencies (absl-py, hypothesis, ...) stay out of apu's own environment.
`--all-files` runs every `tests/*_test.py` of the checkout except the ones in NOT_RUN (each with its reason: GPU or
TPU only, packaging checks, several processes). `--x64 both` runs every file twice, with JAX_ENABLE_X64 off and on;
x64 runs are recorded under the platform name `<platform>+x64`. For the apu run the apu-plugin wheel is installed into that venv
(`--wheel`, default: the newest `target/wheels/apu_plugin-*.whl`).

How JAX's harness picks the device (jax/_src/test_util.py at jax-v0.10.2): tests run on JAX's default backend,
so `JAX_PLATFORMS=<platform>,cpu` selects it and still loads CPU, as a user's process has it;
`jtu.device_under_test()` returns the `--jax_test_dut` absl flag if given (argv only, there is no environment
variable for it, and pytest rejects unknown options) and otherwise the default backend's platform name, i.e.
`apu`. An unknown platform name gets the full dtype list (x64 types only with JAX_ENABLE_X64).
`JAX_NUM_GENERATED_CASES` (default 10) sets how many sampled cases each parameterised test generates (`--cases`).
`--cpu-only-too` also runs the tests JAX keeps to CPU on the other platforms (scripts/jax_suite_cpu_only.py).

Every (file, platform) run writes `<out>/<platform>/<file>.xml` (junitxml), `.log` and `.journal`: outcomes are
taken from the journal (see scripts/jax_suite_journal.py), which survives crashes. When the process dies inside
a test, that test counts as failed ("crashed") and pytest is started again on the file's remaining tests. A
file that exceeds its share of `--max-minutes` is interrupted (SIGINT, so pytest still writes its junitxml). The apu results are compared with `tests/jax_suite/known_failures.txt`
(lines `<test id> <reason>`; the id is `tests/<file>::<class>::<test>` as pytest prints it, and may contain `*` wildcards; `#` starts a
comment). Exit status 1 if apu fails any test not listed there or a run crashed or timed out; the summary table
goes to docs/conformance.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import fnmatch
import glob
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))
from jax_suite_journal import read_journal  # noqa: E402
CACHE = pathlib.Path(os.environ.get("APU_CACHE", pathlib.Path.home() / ".cache" / "apu"))
KNOWN_FAILURES = ROOT / "tests" / "jax_suite" / "known_failures.txt"
DOC = ROOT / "docs" / "conformance.md"

DEFAULT_FILES = ["lax_test.py", "lax_numpy_test.py", "lax_numpy_reducers_test.py", "lax_numpy_indexing_test.py",
                 "lax_control_flow_test.py", "lax_autodiff_test.py", "nn_test.py", "random_test.py"]


@dataclasses.dataclass(frozen=True)
class Suite:
    """One JAX version's test suite: its tag, the venv its tests run in and that venv's interpreter."""
    tag: str
    venv: str
    python: list  # the command that makes the venv's interpreter
    pins: str


SUITES = {
    # apu's own pins (scripts/lib.sh) plus what JAX's tests import, at the versions in
    # build/requirements_lock_3_11.txt of jax-v0.10.2 (pytest < 9 per its build/test-requirements.txt).
    "0.10.2": Suite("jax-v0.10.2", "jax-suite", [sys.executable],
                    "jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 ml_dtypes==0.6.0 scipy==1.17.1 opt_einsum==3.4.0 "
                    "pytest==8.4.2 absl-py==2.4.0 hypothesis==6.142.1 cloudpickle==3.1.2 filelock==3.29.0 "
                    "flatbuffers==25.12.19 portpicker==1.6.0 mpmath==1.3.0 psutil==7.2.2"),
    # The versions in build/requirements_lock_3_13.txt of jax-v0.11.0 (jax 0.11 needs Python >= 3.11; 3.13 is the
    # newest the image has, from pyenv, as for apu's jax 0.12 venv).
    "0.11.0": Suite("jax-v0.11.0", "jax-suite-0.11.0-py3.13", ["env", "PYENV_VERSION=3.13.0", "python3.13"],
                    "jax==0.11.0 jaxlib==0.11.0 numpy==2.1.3 ml_dtypes==0.5.4 scipy==1.17.1 opt_einsum==3.4.0 "
                    "pytest==9.1.0 absl-py==2.4.0 hypothesis==6.142.1 cloudpickle==3.1.2 filelock==3.29.4 "
                    "flatbuffers==25.12.19 portpicker==1.6.0 mpmath==1.3.0 psutil==7.2.2 pillow==12.2.0 "
                    "rich==15.0.0"),
}
DEFAULT_JAX = "0.10.2"

# Files of tests/ that `--all-files` leaves out, and why: none of them tests what a device plugin does on a host
# without GPUs or TPUs, or they need several processes (apu is one process; issue 33).
NOT_RUN = {
    "cudnn_fusion_test.py": "GPU only (cuDNN)",
    "fused_attention_stablehlo_test.py": "GPU only (cuDNN attention)",
    "fused_attention_stablehlo_multigpu_test.py": "GPU only (cuDNN attention)",
    "gpu_memory_flags_test.py": "GPU only (allocator flags)",
    "magma_linalg_test.py": "GPU only (MAGMA)",
    "mock_gpu_test.py": "GPU only (mock GPU topology)",
    "mock_gpu_topology_test.py": "GPU only (mock GPU topology)",
    "multiprocess_gpu_test.py": "GPU only, several processes",
    "mosaic_test.py": "TPU only (Mosaic)",
    "scaled_matmul_stablehlo_test.py": "GPU only (block-scaled matmul)",
    "distributed_initialize_test.py": "several processes (jax.distributed)",
    "distributed_test.py": "several processes (jax.distributed)",
    "local_wheel_smoke_test.py": "checks JAX's own built wheels",
    "package_structure_test.py": "checks JAX's own package layout",
    "documentation_coverage_test.py": "checks JAX's own documentation",
}
GRACE_SECONDS = 60  # after SIGINT, before SIGKILL
MAX_RESTARTS = 50  # per file: resuming after this many crashes is not worth it any more


def log(msg: str) -> None:
    print(f"[jax-conformance] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------------------------------------

def ensure_suite_venv(suite: Suite) -> pathlib.Path:
    """The suite venv's python; (re)created when its recorded pins differ from the suite's."""
    venv = CACHE / "venvs" / suite.venv
    python = venv / "bin" / "python"
    pins_file = venv / ".pins"
    if python.exists() and pins_file.exists() and pins_file.read_text().strip() == suite.pins:
        return python
    log(f"creating venv {venv} ({suite.pins})")
    subprocess.run(["rm", "-rf", str(venv)], check=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([*suite.python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *suite.pins.split()],
                   check=True)
    pins_file.write_text(suite.pins + "\n")
    return python


def all_test_files(checkout: pathlib.Path) -> list[str]:
    """Every `*_test.py` directly under tests/, less NOT_RUN."""
    return sorted(p.name for p in (checkout / "tests").glob("*_test.py") if p.name not in NOT_RUN)


def install_apu_wheel(python: pathlib.Path, wheel: str | None) -> None:
    if wheel is None:
        found = sorted(glob.glob(str(ROOT / "target" / "wheels" / "apu_plugin-*.whl")), key=os.path.getmtime)
        wheel = found[-1] if found else None
    if wheel is None:
        probe = subprocess.run([str(python), "-c", "import apu_plugin"], capture_output=True)
        if probe.returncode != 0:
            raise SystemExit("error: no apu-plugin wheel (build one with scripts/test.sh or pass --wheel), and "
                             f"apu_plugin is not installed in {python}")
        log("no wheel found; using the apu_plugin already installed in the suite venv")
        return
    log(f"installing {wheel} into the suite venv")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--force-reinstall",
                    "--no-deps", wheel], check=True)


def checkout_commit(checkout: pathlib.Path) -> str:
    """The checkout's commit: from git if it is a work tree, else from a `.jax_commit` file next to tests/."""
    try:
        out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except FileNotFoundError:
        pass
    marker = checkout / ".jax_commit"
    return marker.read_text().strip() if marker.exists() else "unknown"


# ---------------------------------------------------------------------------------------------------------
# Running one file
# ---------------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Run:
    file: str
    platform: str
    passed_ids: list = dataclasses.field(default_factory=list)
    failed: list = dataclasses.field(default_factory=list)  # test ids (failures and errors)
    skipped: int = 0
    seconds: float = 0.0
    crashes: int = 0
    crashed_ids: list = dataclasses.field(default_factory=list)
    status: str = "ok"  # ok | tests failed | timed out | crashed | no results
    note: str = ""

    @property
    def passed(self) -> int:
        return len(self.passed_ids)


def run_file(python, checkout, file, label, out_dir, timeout, keyword, cases, cpu_only_too=False,
             devices_like_cpu=False) -> Run:
    """Runs one test file; restarts pytest after a crash (skipping what already ran) until the file is done.
    `label` is the platform, with `+x64` when the run has JAX_ENABLE_X64 on."""
    platform, x64 = label.removesuffix("+x64"), label.endswith("+x64")
    base = out_dir / label / file
    base.parent.mkdir(parents=True, exist_ok=True)
    journal = pathlib.Path(f"{base}.journal")
    for stale in base.parent.glob(f"{file}.*"):
        stale.unlink()
    run = Run(file, label)
    deadline = time.monotonic() + timeout
    log(f"{label}: {file} (up to {timeout / 60:.1f} min)")
    for attempt in range(1, MAX_RESTARTS + 2):
        suffix = "" if attempt == 1 else f".{attempt}"
        cmd = [str(python), "-P", "-m", "pytest", f"tests/{file}", "-v", "-p", "no:cacheprovider",
               "-p", "jax_suite_journal", "-p", "jax_suite_cpu_only", "-p", "jax_suite_devices",
               f"--junitxml={base}{suffix}.xml",
               "-o", "junit_family=xunit1"]
        # -P: the checkout is not put on sys.path, so its jax/ source tree cannot shadow the installed jax.
        if keyword:
            cmd += ["-k", keyword]
        # A platform other than cpu runs with the CPU backend loaded behind it, as in a user's process where
        # JAX always has it: the platform listed first is the default backend (jax/_src/xla_bridge.py,
        # backends()), and JAX itself asks for "cpu" by name in places (lax.scan puts forwarded numpy inputs
        # on a CPU device, loops.py _maybe_put).
        jax_platforms = platform if platform == "cpu" else f"{platform},cpu"
        env = dict(os.environ, JAX_PLATFORMS=jax_platforms, JAX_NUM_GENERATED_CASES=str(cases),
                   JAX_ENABLE_X64="1" if x64 else "0",
                   APU_SUITE_JOURNAL=str(journal), APU_SUITE_CPU_ONLY_TOO="1" if cpu_only_too else "0",
                   APU_SUITE_DEVICES_LIKE_CPU="1" if devices_like_cpu else "0",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(SCRIPTS), os.environ.get("PYTHONPATH")])))
        rc, timed_out = run_pytest(cmd, env, checkout, f"{base}{suffix}.log", deadline - time.monotonic())
        states = read_journal(journal)
        running = [t for t, state in states.items() if state == "start"]
        if timed_out:
            run.status, run.note = "timed out", f"in {running[-1] if running else '?'}"
            break
        if rc in (0, 1, 5) and not running:
            if rc == 5 and not states:
                run.status = "no tests selected"
            break
        if not running:  # died outside any test (collection, import, interpreter start): nothing to resume
            run.status, run.note = "crashed", f"exit {rc} outside a test; see {base}{suffix}.log"
            break
        log(f"  crashed (exit {rc}) in {running[-1]}; resuming after it")
        with open(journal, "a") as f:
            f.write(f"crashed\t{running[-1]}\n")
        run.crashes += 1
        if time.monotonic() >= deadline:
            run.status, run.note = "timed out", "after a crash"
            break
    else:
        run.status, run.note = "crashed", f"gave up after {MAX_RESTARTS} restarts"
    run.seconds = timeout - max(0.0, deadline - time.monotonic())
    for test_id, state in read_journal(journal).items():
        if state == "passed":
            run.passed_ids.append(test_id)
        elif state == "skipped":
            run.skipped += 1
        elif state in ("failed", "crashed"):
            run.failed.append(test_id)
            if state == "crashed":
                run.crashed_ids.append(test_id)
    if run.status == "ok" and run.failed:
        run.status = "tests failed"
    if run.crashes and run.status in ("ok", "tests failed"):
        run.note = f"{run.crashes} crash(es), resumed"
    return run


def collect_run(out_dir: pathlib.Path, file: str, platform: str) -> Run | None:
    """Rebuilds a finished run from its journal and logs (for --from-runs), or None if it never ran there.
    Minutes come from pytest's closing line of each log; a test still marked `start` means the run was cut off."""
    journal = out_dir / platform / f"{file}.journal"
    if not journal.exists():
        return None
    run = Run(file, platform)
    for test_id, state in read_journal(journal).items():
        if state == "passed":
            run.passed_ids.append(test_id)
        elif state == "skipped":
            run.skipped += 1
        elif state in ("failed", "crashed"):
            run.failed.append(test_id)
            if state == "crashed":
                run.crashed_ids.append(test_id)
        elif state == "start":
            run.status, run.note = "timed out", f"in {test_id}"
    run.crashes = journal.read_text().count("crashed\t")
    for log_file in sorted((out_dir / platform).glob(f"{file}*.log")):
        found = re.findall(r" in ([0-9.]+)s(?: \([0-9:]+\))? =+\s*$", log_file.read_text(errors="replace"), re.M)
        run.seconds += float(found[-1]) if found else 0.0
    if run.status == "ok" and run.failed:
        run.status = "tests failed"
    if run.crashes and run.status in ("ok", "tests failed"):
        run.note = f"{run.crashes} crash(es), resumed"
    return run


def run_pytest(cmd, env, cwd, log_path, timeout) -> tuple[int, bool]:
    """(exit code, timed out). On timeout pytest gets SIGINT, so that it still writes its junitxml."""
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
                                env=env)
        try:
            return proc.wait(timeout=max(timeout, 1.0)), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                return proc.wait(timeout=GRACE_SECONDS), True
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                return proc.wait(), True


# ---------------------------------------------------------------------------------------------------------
# Known failures and the report
# ---------------------------------------------------------------------------------------------------------

def read_known_failures(path: pathlib.Path) -> dict[str, str]:
    """{test id or pattern: reason}."""
    known = {}
    if not path.exists():
        return known
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test_id, _, reason = line.partition(" ")
        if not reason.strip():
            raise SystemExit(f"error: {path}:{number}: `{test_id}` has no reason")
        known[test_id] = reason.strip()
    return known


def is_known(test_id: str, known: dict[str, str]) -> bool:
    return test_id in known or any("*" in k and fnmatch.fnmatchcase(test_id, k) for k in known)


def compare_with_cpu(runs) -> list[str]:
    """Per file run on both platforms: how many of the tests CPU passes apu passes too."""
    by_key = {(r.file, r.platform): r for r in runs}
    rows = []
    for r in runs:
        cpu = by_key.get((r.file, r.platform.replace("apu", "cpu")))
        if not r.platform.startswith("apu") or cpu is None or not cpu.passed_ids:
            continue
        cpu_passed, apu_passed = set(cpu.passed_ids), set(r.passed_ids)
        both = len(cpu_passed & apu_passed)
        rows.append(f"| {r.file} | {'on' if r.platform.endswith('+x64') else 'off'} | {len(cpu_passed)} | {both} | {100.0 * both / len(cpu_passed):.1f} % | "
                    f"{len(apu_passed - cpu_passed)} |")
    if not rows:
        return []
    return ["", "## apu against CPU", "",
            "Of the tests that pass on CPU, how many pass on apu (skips differ between platforms: JAX's tests skip "
            "some cases on `cpu` only, and apu runs them).", "",
            "| file | x64 | passed on CPU | of those, passed on apu | share | passed on apu, not run or failed on CPU |",
            "|---|---|---:|---:|---:|---:|", *rows, *total_row(runs)]


def total_row(runs) -> list[str]:
    """All files together, per x64 mode: the acceptance figure of issue 35."""
    rows = []
    for suffix, mode in (("", "off"), ("+x64", "on")):
        cpu = {(r.file, t) for r in runs if r.platform == "cpu" + suffix for t in r.passed_ids}
        apu = {(r.file, t) for r in runs if r.platform == "apu" + suffix for t in r.passed_ids}
        files = {r.file for r in runs if r.platform == "apu" + suffix}
        cpu = {k for k in cpu if k[0] in files}
        if cpu:
            both = len(cpu & apu)
            rows.append(f"| **all {len(files)} files** | {mode} | {len(cpu)} | {both} | {100.0 * both / len(cpu):.2f} % | "
                        f"{len(apu - cpu)} |")
    return rows


def known_failures_seen(runs, known: dict[str, str]) -> list[str]:
    """The apu failures this run matched in the manifest, grouped by reason."""
    by_reason: dict[str, list[str]] = {}
    for r in runs:
        if not r.platform.startswith("apu"):
            continue
        for t in r.failed:
            pattern = next((k for k in known if k == t or ("*" in k and fnmatch.fnmatchcase(t, k))), None)
            if pattern is not None:
                by_reason.setdefault(known[pattern], []).append(t)
    if not by_reason:
        return []
    lines = ["", "## Known failures on apu in this run", "", "| tests | reason |", "|---:|---|"]
    for reason, tests in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {len(tests)} | {reason} |")
    return lines


def write_report(path, runs, checkout, commit, args, unexpected, stale, apu_ran, crashed) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Conformance with JAX's own test suite",
        "",
        "Generated by `scripts/jax_conformance.py`; do not edit by hand.",
        "",
        f"- date: {now}",
        f"- checkout: `{checkout}` at commit `{commit}` (expected tag `{SUITES[args.jax].tag}`); "
        f"suite venv pins: `{SUITES[args.jax].pins}`",
        f"- options: {len(args.files)} files ({' '.join(args.files)}); x64 {args.x64}; " + (f"`-k {args.k}`; " if args.k else "")
        + ("tests kept to CPU run on apu too (`--cpu-only-too`); " if args.cpu_only_too else "")
        + ("apu gets the device count CPU gets (`--devices-like-cpu`); " if args.devices_like_cpu else "")
        + f"JAX_NUM_GENERATED_CASES={args.cases}; time budget {args.max_minutes} min; platforms {args.platforms}",
    ]
    lines += ["", "| file | platform | passed | failed | skipped | minutes | status |",
              "|---|---|---:|---:|---:|---:|---|"]
    for r in runs:
        status = r.status + (f" ({r.note})" if r.note else "")
        lines.append(f"| {r.file} | {r.platform} | {r.passed} | {len(r.failed)} | {r.skipped} | "
                     f"{r.seconds / 60:.1f} | {status} |")
    lines += compare_with_cpu(runs)
    if apu_ran:
        lines += known_failures_seen(runs, read_known_failures(args.known_failures))
        lines += ["", f"Failures on apu not listed in `{args.known_failures.name}`: {len(unexpected)}"]
        lines += [f"- `{t}`" + (" (crashed the process)" if t in crashed else "") for t in unexpected[:200]]
        if len(unexpected) > 200:
            lines.append(f"- ... and {len(unexpected) - 200} more")
        if stale:
            lines += ["", f"Listed as known failures but passed on apu this time: {len(stale)}"]
            lines += [f"- `{t}`" for t in stale[:100]]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", type=pathlib.Path, help="jax-ml/jax source tree at the tag of --jax")
    ap.add_argument("--jax", choices=sorted(SUITES), default=DEFAULT_JAX,
                    help="the JAX version whose suite runs (the checkout must be at its tag)")
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="test files under CHECKOUT/tests")
    ap.add_argument("--all-files", action="store_true", help="every tests/*_test.py except NOT_RUN")
    ap.add_argument("--x64", choices=["off", "on", "both"], default="off", help="JAX_ENABLE_X64 for the runs")
    ap.add_argument("--max-minutes", type=float, default=120.0, help="time budget for all runs together")
    ap.add_argument("-k", help="pytest -k expression, passed through")
    ap.add_argument("--platforms", default="apu,cpu", help="comma-separated, run in this order")
    ap.add_argument("--cases", type=int, default=10, help="JAX_NUM_GENERATED_CASES")
    ap.add_argument("--cpu-only-too", action="store_true",
                    help="also run the tests JAX keeps to CPU (@jtu.run_on_devices(\"cpu\")) on the other platforms "
                         "(scripts/jax_suite_cpu_only.py)")
    ap.add_argument("--devices-like-cpu", action="store_true",
                    help="give apu as many devices as each test module requests for CPU (scripts/jax_suite_devices.py)")
    ap.add_argument("--wheel", help="apu-plugin wheel to install into the suite venv")
    ap.add_argument("--python", help="use this interpreter instead of the pinned suite venv")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "target" / "jax-suite", help="junitxml/log dir")
    ap.add_argument("--known-failures", type=pathlib.Path, default=KNOWN_FAILURES)
    ap.add_argument("--report", type=pathlib.Path, default=DOC, help="where the summary table goes")
    ap.add_argument("--no-report", action="store_true", help="do not write the summary file")
    ap.add_argument("--from-runs", type=pathlib.Path, nargs="+", metavar="DIR",
                    help="run nothing: rebuild the summary from the journals and logs of earlier runs' --out "
                         "directories (a later directory wins for the same file and platform)")
    args = ap.parse_args()

    checkout = args.checkout.resolve()
    if args.all_files:
        args.files = all_test_files(checkout)
    missing = [f for f in args.files if not (checkout / "tests" / f).exists()]
    if missing:
        raise SystemExit(f"error: not in {checkout}/tests: {', '.join(missing)}")
    platforms = [p.strip() for p in args.platforms.split(",") if p.strip()]
    modes = {"off": [""], "on": ["+x64"], "both": ["", "+x64"]}[args.x64]
    platforms = [p + m for m in modes for p in platforms]
    known = read_known_failures(args.known_failures)
    commit = checkout_commit(checkout)
    runs: list[Run] = []
    jobs = [(p, f) for p in platforms for f in args.files]
    if args.from_runs:
        for platform, file in jobs:
            found = [r for d in args.from_runs if (r := collect_run(d, file, platform))]
            runs.append(found[-1] if found else Run(file, platform, status="not run", note="no journal"))
        jobs = []
    else:
        python = pathlib.Path(args.python) if args.python else ensure_suite_venv(SUITES[args.jax])
        if any(p.startswith("apu") for p in platforms):
            install_apu_wheel(python, args.wheel)
    deadline = time.monotonic() + args.max_minutes * 60
    for index, (platform, file) in enumerate(jobs):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            runs.append(Run(file, platform, status="not run", note="time budget used up"))
            continue
        share = remaining / (len(jobs) - index)
        runs.append(run_file(python, checkout, file, platform, args.out, share, args.k, args.cases,
                             args.cpu_only_too and not platform.startswith("cpu"), args.devices_like_cpu))
        r = runs[-1]
        log(f"  {r.status}: {r.passed} passed, {len(r.failed)} failed, {r.skipped} skipped, {r.seconds:.0f}s")

    apu_runs = [r for r in runs if r.platform.startswith("apu")]
    cpu_failed = {t for r in runs if r.platform.startswith("cpu") for t in r.failed}
    crashed = {t for r in apu_runs for t in r.crashed_ids}
    apu_failed = [t for r in apu_runs for t in r.failed]
    unexpected = [t for t in apu_failed if not is_known(t, known)]
    apu_passed = {t for r in apu_runs for t in r.passed_ids}
    stale = sorted(k for k in known if k in apu_passed or ("*" in k and any(fnmatch.fnmatchcase(t, k) for t in
                                                                           apu_passed)))

    print()
    print(f"{'file':<30} {'platform':<8} {'passed':>7} {'failed':>7} {'skipped':>8} {'min':>6}  status")
    for r in runs:
        print(f"{r.file:<30} {r.platform:<8} {r.passed:>7} {len(r.failed):>7} {r.skipped:>8} "
              f"{r.seconds / 60:>6.1f}  {r.status}{' (' + r.note + ')' if r.note else ''}")
    if apu_runs:
        print(f"\napu failures not in {args.known_failures.name}: {len(unexpected)}")
        for t in unexpected[:50]:
            print(f"  {t}{'   (crashed the process)' if t in crashed else ''}"
                  f"{'   (fails on cpu too)' if t in cpu_failed else ''}")
        if len(unexpected) > 50:
            print(f"  ... and {len(unexpected) - 50} more (see {args.out}/apu/*.xml)")
    if not args.no_report:
        write_report(args.report, runs, checkout, commit, args, unexpected, stale, bool(apu_runs), crashed)
        log(f"summary written to {args.report}")

    broken = [r for r in apu_runs if r.status in ("timed out", "crashed", "no results", "not run")]
    if unexpected or broken:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
