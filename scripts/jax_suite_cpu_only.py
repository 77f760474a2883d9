"""pytest plugin for scripts/jax_conformance.py --cpu-only-too: also run the tests JAX keeps to CPU.

Many of JAX's randomized correctness tests are decorated `@jtu.run_on_devices("cpu")` (in jax-v0.10.2, 479
of lax_control_flow_test.py's: scan / while constification and forwarding, switch gradients), so on any other
platform they skip. They check what a compiler must get right, not CPU behaviour: with
`APU_SUITE_CPU_ONLY_TOO=1` this plugin makes such a decorator enable the platform under test as well. It wraps
`jax._src.test_util.run_on_devices` before the test modules are imported (their decorators run at import), and
leaves `test_device_matches` alone, so a test that asks "am I on cpu?" inside its body still gets "no".
"""

from __future__ import annotations

import os


def pytest_configure(config):
    if os.environ.get("APU_SUITE_CPU_ONLY_TOO") != "1":
        return
    from jax._src import test_util as jtu

    original = jtu.run_on_devices

    # The runner lists the platform under test first in JAX_PLATFORMS (the default backend); asking JAX
    # for it here would start its backends before absl has parsed its flags.
    platform = os.environ.get("JAX_PLATFORMS", "").split(",")[0]

    def run_on_devices(*enabled, **kwargs):
        if "cpu" in enabled and platform and platform not in enabled:
            enabled = (*enabled, platform)
        return original(*enabled, **kwargs)

    jtu.run_on_devices = run_on_devices

    # Importing test_util here, before pytest starts capturing, bound its `capture_stdout` /
    # `capture_stderr` to the process's original sys.stdout / sys.stderr (they are partials made at import).
    # Under pytest's capture `print` writes to pytest's stream instead, so every output-capturing test
    # (debugging_primitives_test.py's prints) would see nothing. Bind them at call time, as they are bound
    # when test_util is first imported during collection.
    import sys

    jtu.capture_stdout = lambda: jtu._capture_output(sys.stdout)
    jtu.capture_stderr = lambda: jtu._capture_output(sys.stderr)

    # `test_device_matches(["cpu", "gpu", "tpu"])` in a setUp is a gate "one of JAX's own backends", not a
    # question about CPU (python_callback_test.py skips every test with "Host callback not supported on apu"
    # through it). With this flag apu passes that gate; any other list is still answered truthfully.
    original_matches = jtu.test_device_matches

    def test_device_matches(device_types):
        if platform and {"cpu", "gpu", "tpu"} <= set(device_types):
            return True
        return original_matches(device_types)

    jtu.test_device_matches = test_device_matches
