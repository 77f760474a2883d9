"""scripts/jax_suite_cpu_only.py: with it on, a test JAX keeps to CPU runs on the platform under test.

    ~/.cache/apu/venvs/jax-suite/bin/python -m pytest -q tests/jax_suite   (jax and absl-py: the suite venv)
"""

import pathlib
import sys
import unittest

import pytest

jtu = pytest.importorskip("jax._src.test_util")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import jax_suite_cpu_only  # noqa: E402


@pytest.fixture
def on_apu(monkeypatch):
    """JAX's device filters see an `apu` device under test; run_on_devices is restored afterwards."""
    monkeypatch.setattr(jtu, "_get_device_tags", lambda: {"apu"})
    monkeypatch.setattr(jtu, "run_on_devices", jtu.run_on_devices)


def outcome(decorator):
    @decorator
    def test(self):
        return "ran"

    try:
        return test(None)
    except unittest.SkipTest:
        return "skipped"


def test_off_by_default_a_cpu_only_test_skips(on_apu, monkeypatch):
    monkeypatch.setenv("JAX_PLATFORMS", "apu,cpu")
    monkeypatch.delenv("APU_SUITE_CPU_ONLY_TOO", raising=False)
    jax_suite_cpu_only.pytest_configure(None)
    assert outcome(jtu.run_on_devices("cpu")) == "skipped"


def test_on_it_runs_cpu_only_tests_and_nothing_else_changes(on_apu, monkeypatch):
    monkeypatch.setenv("JAX_PLATFORMS", "apu,cpu")
    monkeypatch.setenv("APU_SUITE_CPU_ONLY_TOO", "1")
    jax_suite_cpu_only.pytest_configure(None)
    assert outcome(jtu.run_on_devices("cpu")) == "ran"
    assert outcome(jtu.run_on_devices("cpu", "gpu")) == "ran"
    assert outcome(jtu.run_on_devices("gpu")) == "skipped"
    assert outcome(jtu.run_on_devices("apu")) == "ran"
    # Questions asked inside a test body still get the true answer.
    assert not jtu.test_device_matches(["cpu"])
