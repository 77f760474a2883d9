"""JAX's profiler shows apu's own spans (issue 34 item 6, decision 85): `jax.profiler.trace` collects them
through the PJRT profiler extension into a `/device:CUSTOM:<n>` plane of the trace it writes; each compile
phase is a span, each execution one span, each plan step of it one span named by what it runs with the
shapes it reads and writes. The trace is read back from the `.xplane.pb` file JAX writes (both jax 0.10.2
and 0.12), as TensorBoard's profile plugin and Perfetto would read it.
"""

import glob

import numpy as np
import pytest

import jax
import jax.numpy as jnp

from conftest import PLATFORM

pytestmark = pytest.mark.skipif(PLATFORM != "apu", reason="apu's own spans; JAX's CPU backend reports other planes")


def trace_of(tmp_path, work):
    with jax.profiler.trace(str(tmp_path)):
        result = work()
        jax.block_until_ready(result)
    (path,) = glob.glob(f"{tmp_path}/plugins/profile/*/*.xplane.pb")
    return result, jax.profiler.ProfileData.from_file(path)


def spans(plane):
    return [(line.name, event.name, dict(event.stats), event.start_ns, event.duration_ns)
            for line in plane.lines for event in line.events]


def test_compile_phases_executions_and_kernels_are_spans(tmp_path, dev):
    x = jax.device_put(np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096, dev)

    @jax.jit
    def step(x):
        return jnp.tanh(x @ x) + 1

    result, data = trace_of(tmp_path, lambda: step(x))
    np.testing.assert_allclose(np.asarray(result), np.tanh(np.asarray(x) @ np.asarray(x)) + 1, rtol=1e-5)
    plane = data.find_plane_with_name("/device:CUSTOM:0")
    assert plane is not None, [p.name for p in data.planes]
    found = spans(plane)
    names = [name for _, name, _, _, _ in found]
    # The compile pipeline's phases, once each for this one program.
    for phase in ["read", "validate", "simplify, plan and prepare"]:
        assert names.count(phase) == 1, (phase, names)
    executes = [s for s in found if s[1] == "execute jit_step"]
    assert len(executes) == 1, names
    # The dot product: one step, with the shapes it reads and writes.
    dots = [s for s in found if s[1] == "dot"]
    assert len(dots) == 1, names
    assert dots[0][2]["shapes"] == "tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>", dots[0][2]
    # Every step lies inside the execution that ran it, on the same thread.
    (line, _, stats, start, duration) = executes[0]
    assert stats["program"] == "jit_step"
    steps = [s for s in found if s[1] not in ("execute jit_step", "read", "validate", "simplify, plan and prepare")]
    assert steps, names
    for s_line, name, _, s_start, s_duration in steps:
        assert s_line == line, (name, s_line, line)
        assert start <= s_start and s_start + s_duration <= start + duration + 1, (name, s_start, start)


def test_each_run_is_a_span_and_nothing_is_recorded_outside_a_trace(tmp_path, dev):
    f = jax.jit(lambda x: x * 2 + 1)
    x = jax.device_put(np.ones(1000, np.float32), dev)
    jax.block_until_ready(f(x))  # compiled (and run) before the trace: no compile spans inside it
    _, data = trace_of(tmp_path, lambda: [f(x) for _ in range(3)])
    found = spans(data.find_plane_with_name("/device:CUSTOM:0"))
    names = [name for _, name, _, _, _ in found]
    assert names.count("execute jit__lambda") == 3, names
    assert "read" not in names, names
    # A second trace holds only its own spans.
    _, again = trace_of(tmp_path / "again", lambda: f(x))
    assert [n for _, n, _, _, _ in spans(again.find_plane_with_name("/device:CUSTOM:0"))].count("execute jit__lambda") == 1


def test_devices_have_planes_of_their_own(tmp_path, run_python):
    """With two devices, each device's executions are on its own plane."""
    out = run_python(f"""
        import glob, jax, numpy as np
        devices = jax.devices("apu")
        assert len(devices) == 2, devices
        f = jax.jit(lambda x: x + 1)
        args = [jax.device_put(np.ones(8, np.float32), d) for d in devices]
        with jax.profiler.trace({str(tmp_path)!r}):
            jax.block_until_ready([f(a) for a in args])
        (path,) = glob.glob({str(tmp_path)!r} + "/plugins/profile/*/*.xplane.pb")
        data = jax.profiler.ProfileData.from_file(path)
        for d in devices:
            plane = data.find_plane_with_name(f"/device:CUSTOM:{{d.id}}")
            names = [e.name for line in plane.lines for e in line.events] if plane is not None else None
            print(d.id, names.count("execute jit__lambda") if names is not None else None)
    """, env={"APU_NUM_DEVICES": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["0 1", "1 1"], out.stdout
