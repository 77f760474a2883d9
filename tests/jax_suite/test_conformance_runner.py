"""scripts/jax_conformance.py on a fake checkout whose tests pass, fail, skip and crash the interpreter.

    python -m pytest -q tests/jax_suite
"""

import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = ROOT / "scripts" / "jax_conformance.py"

FAKE_TESTS = textwrap.dedent("""
    import os, signal
    import pytest

    def test_passes(): pass
    def test_aborts(): os.kill(os.getpid(), signal.SIGABRT)
    def test_fails(): assert False
    def test_passes_after_crash(): pass
    def test_segfaults(): os.kill(os.getpid(), signal.SIGSEGV)
    def test_skips(): pytest.skip("not here")
""")


def run_runner(tmp_path, *extra):
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True)
    (checkout / "tests" / "fake_test.py").write_text(FAKE_TESTS)
    (checkout / ".jax_commit").write_text("0123abc\n")
    report = tmp_path / "conformance.md"
    cmd = [sys.executable, str(RUNNER), str(checkout), "--files", "fake_test.py", "--platforms", "cpu",
           "--python", sys.executable, "--max-minutes", "3", "--out", str(tmp_path / "out"), "--report", str(report),
           *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ))
    return proc, report


def test_crashes_are_recorded_and_the_rest_still_runs(tmp_path):
    proc, report = run_runner(tmp_path)
    assert proc.returncode == 0, proc.stderr  # cpu-only runs never fail the runner
    journal = (tmp_path / "out" / "cpu" / "fake_test.py.journal").read_text().splitlines()
    states = dict(reversed(line.split("\t")) for line in journal)
    assert states == {
        "tests/fake_test.py::test_passes": "passed",
        "tests/fake_test.py::test_aborts": "crashed",
        "tests/fake_test.py::test_fails": "failed",
        "tests/fake_test.py::test_passes_after_crash": "passed",
        "tests/fake_test.py::test_segfaults": "crashed",
        "tests/fake_test.py::test_skips": "skipped",
    }
    text = report.read_text()
    assert "| fake_test.py | cpu | 2 | 3 | 1 |" in text
    assert "0123abc" in text
    # A crashed attempt writes no junitxml; the attempt that ran to the end does (fake_test.py.<n>.xml).
    assert list((tmp_path / "out" / "cpu").glob("fake_test.py*.xml"))


def test_keyword_filter_is_passed_to_pytest(tmp_path):
    proc, report = run_runner(tmp_path, "-k", "passes")
    assert proc.returncode == 0, proc.stderr
    assert "| fake_test.py | cpu | 2 | 0 | 0 |" in report.read_text()


DEVICE_TESTS = textwrap.dedent("""
    import os
    from jax._src import test_util as jtu

    jtu.request_cpu_devices(4)

    def test_apu_gets_the_devices_cpu_gets():
        assert os.environ.get("APU_NUM_DEVICES") == "4"

    def test_x64_follows_the_mode():
        assert os.environ["JAX_ENABLE_X64"] in ("0", "1")
""")


def test_devices_like_cpu_and_x64_both(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True)
    (checkout / "tests" / "dev_test.py").write_text(DEVICE_TESTS)
    report = tmp_path / "conformance.md"
    cmd = [sys.executable, str(RUNNER), str(checkout), "--files", "dev_test.py", "--platforms", "cpu",
           "--python", sys.executable, "--max-minutes", "3", "--out", str(tmp_path / "out"), "--report", str(report),
           "--devices-like-cpu", "--x64", "both"]
    env = {k: v for k, v in os.environ.items() if k != "APU_NUM_DEVICES"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    text = report.read_text()
    assert "| dev_test.py | cpu | 2 | 0 | 0 |" in text, text
    assert "| dev_test.py | cpu+x64 | 2 | 0 | 0 |" in text, text
