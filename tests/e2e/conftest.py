"""End-to-end tests of a JAX device: every test runs work on the device under test and compares with CPU.

The platform under test comes from `APU_E2E_PLATFORM` (default `apu`). Setting it to `cpu` runs the whole
suite against JAX's own CPU backend, which proves the tests themselves are right. JAX reads `JAX_PLATFORMS`
when it first creates backends, so it is set here, before any test module imports jax.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

PLATFORM = os.environ.get("APU_E2E_PLATFORM", "apu")
os.environ["JAX_PLATFORMS"] = PLATFORM if PLATFORM == "cpu" else f"{PLATFORM},cpu"

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"
sys.path.insert(0, str(FIXTURES))

import jax  # noqa: E402
import pytest  # noqa: E402


def _devices_under_test():
    """The platform's devices, or a loud failure: with apu, the wheel is supposed to be installed."""
    try:
        return jax.devices(PLATFORM)
    except Exception as exc:  # noqa: BLE001 - report whatever JAX raised
        raise RuntimeError(
            f"platform {PLATFORM!r} is not available to JAX ({type(exc).__name__}: {exc}). "
            f"For apu, install the apu-plugin wheel (scripts/test.sh does); "
            f"set APU_E2E_PLATFORM=cpu to check the tests against JAX's CPU backend."
        ) from exc


def pytest_report_header(config):
    try:
        found = ", ".join(str(d) for d in _devices_under_test())
    except RuntimeError as exc:
        found = f"UNAVAILABLE: {exc}"
    return [f"apu e2e: platform under test {PLATFORM!r}, JAX_PLATFORMS={os.environ['JAX_PLATFORMS']}, "
            f"jax {jax.__version__}", f"apu e2e: devices: {found}"]


@pytest.fixture(scope="session")
def platform() -> str:
    return PLATFORM


@pytest.fixture(scope="session")
def dev():
    """The first device of the platform under test. Fails (never skips) when the platform is missing."""
    try:
        return _devices_under_test()[0]
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def cpu():
    """JAX's CPU device: the reference every result is compared with."""
    return jax.devices("cpu")[0]


@pytest.fixture(scope="session")
def run_python():
    """Runs a Python snippet in a fresh interpreter (for settings JAX reads once per process).

    Returns the CompletedProcess; the snippet sees the same platform settings as this session plus `env`.
    """
    def run(code: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        full_env = dict(os.environ)
        full_env.update(env or {})
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env, capture_output=True,
                              text=True, timeout=timeout)
    return run
