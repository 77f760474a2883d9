"""pytest plugin for scripts/jax_conformance.py --devices-like-cpu: give apu as many devices as JAX's tests give CPU.

A test module asks for CPU devices with `jtu.request_cpu_devices(n)` at import (jax/_src/test_util.py, jax-v0.10.2
to v0.11.0), which sets `jax_num_cpu_devices` before the backends start; tests needing several devices skip
themselves when there are fewer. apu's device count is read once, from APU_NUM_DEVICES, when its client is
created. With `APU_SUITE_DEVICES_LIKE_CPU=1` this plugin makes `request_cpu_devices(n)` also raise
APU_NUM_DEVICES to n (before any backend exists: the modules call it at import), so that the multi-device tests
run on apu instead of skipping.
"""

from __future__ import annotations

import os


def pytest_configure(config):
    if os.environ.get("APU_SUITE_DEVICES_LIKE_CPU") != "1":
        return
    from jax._src import test_util as jtu

    original = jtu.request_cpu_devices

    def request_cpu_devices(nr_devices: int):
        current = int(os.environ.get("APU_NUM_DEVICES", "1") or "1")
        if nr_devices > current:
            os.environ["APU_NUM_DEVICES"] = str(nr_devices)
        return original(nr_devices)

    jtu.request_cpu_devices = request_cpu_devices
