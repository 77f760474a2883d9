"""Shared setup for the TensorFlow plug-in tests.

They run inside a pinned TensorFlow venv whose site-packages/tensorflow-plugins/ holds libapu.so (see
scripts/lib.sh: tf_venv, install_tf_plugin). The in-process tests use PluggableDevice mode, so the switch is
set before anything imports TensorFlow; tests of the other modes start fresh interpreters.
"""
import json
import os
import pathlib
import subprocess
import sys
import sysconfig

import pytest

os.environ.setdefault("APU_ENABLE_NEXTPLUGGABLE_DEVICE", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")

HERE = pathlib.Path(__file__).resolve().parent


def plugin_path():
    return pathlib.Path(sysconfig.get_paths()["platlib"]) / "tensorflow-plugins" / "libapu.so"


def pytest_configure(config):
    if not plugin_path().exists():
        raise pytest.UsageError(
            f"libapu.so is not installed at {plugin_path()}; run scripts/test_tf.sh (or install_tf_plugin from scripts/lib.sh)"
        )


class Run:
    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.result = None
        for line in proc.stdout.splitlines():
            if line.startswith("RESULT "):
                self.result = json.loads(line[len("RESULT "):])

    def mode_line(self):
        return next((l for l in self.stderr.splitlines() if "apu: TensorFlow device mode:" in l), None)


def run_in_fresh_interpreter(name, env=None, timeout=600):
    """Runs one of the scripts beside this file in a fresh interpreter with extra environment (the
    device switch and XLA flags of this process are not inherited)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("APU_ENABLE_NEXTPLUGGABLE_DEVICE", "TF_XLA_FLAGS")}
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, str(HERE / name)], env=full_env, capture_output=True, text=True, timeout=timeout
    )
    return Run(proc)


@pytest.fixture
def run_script():
    """`run_in_fresh_interpreter`, as a fixture."""
    return run_in_fresh_interpreter
