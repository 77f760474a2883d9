"""Running a function on a device and comparing with CPU, shared by the e2e tests."""

from __future__ import annotations

import numpy as np
import jax

from tolerance import assert_close


def run_jitted(fn, device, *args, **jit_kwargs) -> list[np.ndarray]:
    """jit(fn)(*args) with every argument committed to `device`; outputs (flattened) as numpy arrays.

    Also checks that every output stayed on `device`, so a silent fallback to another backend is caught.
    """
    placed = [jax.device_put(a, device) for a in args]
    outputs = jax.tree.leaves(jax.jit(fn, **jit_kwargs)(*placed))
    for i, out in enumerate(outputs):
        assert out.devices() == {device}, f"output {i} is on {out.devices()}, expected {device}"
    return [np.asarray(o) for o in outputs]


def assert_matches_cpu(fn, args, dev, cpu, cls: str = "default") -> list[np.ndarray]:
    """Runs fn jitted on `dev` and on `cpu`, asserts every output agrees within class `cls`, returns dev's."""
    got = run_jitted(fn, dev, *args)
    want = run_jitted(fn, cpu, *args)
    assert len(got) == len(want), f"{len(got)} outputs, CPU gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, cls, f"output {i}")
    return got
