"""Stateful random ops on an NPD device: TensorFlow lowers them to HLO `rng`, which apu runs.

Sample sizes are 20000, so the standard error of a mean is sigma/141; the tolerances below are
about 5 standard errors (a failure by chance is below one in a million).
"""
import math
import os
import subprocess
import sys

import pytest

from conftest import HERE, Run
from test_modes import npd_active

N = 20000


@pytest.fixture(scope="module")
def npd_random():
    """random_ops.py's report, run once for this module in a fresh interpreter in NPD mode."""
    env = {k: v for k, v in os.environ.items() if k not in ("APU_ENABLE_NEXTPLUGGABLE_DEVICE", "TF_XLA_FLAGS")}
    env["APU_ENABLE_NEXTPLUGGABLE_DEVICE"] = "1"
    proc = subprocess.run([sys.executable, str(HERE / "random_ops.py")], env=env, capture_output=True, text=True, timeout=600)
    run = Run(proc)
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {run.mode_line()}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result is not None, run.stdout[-2000:]
    return run.result


def check(r, dtype, mean, std, lo=-math.inf, hi=math.inf):
    assert "error" not in r, r
    assert r["device"].endswith("device:APU:0"), r
    assert r["dtype"] == dtype and r["shape"] in ([N], [100, N // 100]), r
    assert abs(r["mean"] - mean) < 5 * std / math.sqrt(N), r
    assert abs(r["std"] - std) < 0.03 * std, r
    assert lo <= r["min"] and r["max"] < hi, r


def test_normal(npd_random):
    check(npd_random["normal"], "float32", 0.0, 1.0)
    assert npd_random["normal"]["distinct"] > N * 0.99


def test_normal_with_mean_and_stddev(npd_random):
    check(npd_random["normal_scaled"], "float32", 2.0, 3.0)


def test_normal_f64(npd_random):
    check(npd_random["normal_f64"], "float64", 0.0, 1.0)


def test_uniform(npd_random):
    check(npd_random["uniform"], "float32", 1.0, 4 / math.sqrt(12), lo=-1.0, hi=3.0)


def test_uniform_int(npd_random):
    # Uniform on {0..9}: mean 4.5, variance (10^2 - 1)/12.
    r = npd_random["uniform_int"]
    check(r, "int32", 4.5, math.sqrt(99 / 12), lo=0, hi=10)
    assert r["distinct"] == 10, r


def test_truncated_normal(npd_random):
    # A standard normal truncated to [-2, 2]: stddev ~0.8796.
    check(npd_random["truncated_normal"], "float32", 0.0, 0.8796, lo=-2.0, hi=2.0 + 1e-6)


def test_each_call_draws_new_numbers(npd_random):
    r = npd_random["twice"]
    assert "error" not in r and r["device"].endswith("device:APU:0") and r["differ"], r
