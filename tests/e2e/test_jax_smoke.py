"""Smoke test of the apu PJRT plugin under JAX: devices, host<->device copies, jit, donation.

Run with the plugin registered, e.g.
  PJRT_NAMES_AND_LIBRARY_PATHS=apu:$PWD/target/release/libapu.so JAX_PLATFORMS=apu python -m pytest tests/e2e
Without PJRT_NAMES_AND_LIBRARY_PATHS the library is looked up in target/release (then target/debug);
the module is skipped if no built library is found.
"""

from __future__ import annotations

import os
import pathlib

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _library_path() -> pathlib.Path | None:
    # With the wheel installed, its `jax_plugins` entry point registers apu; registering the same library again
    # through the environment would make JAX fail with ALREADY_EXISTS.
    import importlib.util

    spec = importlib.util.find_spec("apu_plugin")
    if spec is not None and spec.origin:
        wheel_lib = pathlib.Path(spec.origin).parent / "libapu.so"
        if wheel_lib.is_file():
            return wheel_lib
    configured = os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", "")
    for entry in filter(None, configured.split(",")):
        name, _, path = entry.partition(os.pathsep)
        if name.lower() == "apu":
            return pathlib.Path(path) if pathlib.Path(path).is_file() else None
    for profile in ("release", "debug"):
        candidate = REPO_ROOT / "target" / profile / "libapu.so"
        if candidate.is_file():
            os.environ["PJRT_NAMES_AND_LIBRARY_PATHS"] = ",".join(
                filter(None, [configured, f"apu{os.pathsep}{candidate}"]))
            return candidate
    return None


LIBRARY = _library_path()
if LIBRARY is None:
    pytest.skip("libapu.so is not built (cargo build --release)", allow_module_level=True)
os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402


@pytest.fixture(scope="module")
def apu():
    return jax.devices("apu")[0]


def test_devices_and_memories(apu):
    devices = jax.devices("apu")
    assert len(devices) >= 1
    assert [d.id for d in devices] == list(range(len(devices)))
    assert apu.platform == "apu"
    assert apu.device_kind == "apu"
    assert [m.kind for m in apu.addressable_memories()] == ["device", "pinned_host", "unpinned_host"]
    assert apu.default_memory().kind == "device"
    # The plugin's own platform version; jaxlib 0.10 prefixes it with "PJRT C API\n", jaxlib 0.12 passes it as is.
    assert apu.client.platform_version.splitlines()[-1].startswith("apu ")
    if jax.__version__.startswith("0.10."):
        assert "PJRT C API" in apu.client.platform_version


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.uint8, np.uint32, np.bool_, np.float16,
                                   ml_dtypes.bfloat16, np.complex64, np.int16])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 5)])
def test_device_put_round_trip(apu, dtype, shape):
    rng = np.random.default_rng(0)
    host = (rng.standard_normal(shape) * 10).astype(dtype)
    on_device = jax.device_put(host, apu)
    assert on_device.devices() == {apu}
    assert on_device.dtype == host.dtype and on_device.shape == host.shape
    np.testing.assert_array_equal(np.asarray(on_device), host)


def test_non_contiguous_host_arrays(apu):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for view in (base.T, base[:, ::2], base[::-1], base[1:3, 2:5]):
        np.testing.assert_array_equal(np.asarray(jax.device_put(view, apu)), view)


def test_jit_add(apu):
    f = jax.jit(lambda a, b: a + b)
    out = f(jax.device_put(jnp.arange(8.0), apu), jax.device_put(jnp.ones(8), apu))
    assert out.devices() == {apu}
    np.testing.assert_allclose(np.asarray(out), np.arange(8.0) + 1)


def test_jit_multiple_outputs_and_ints(apu):
    @jax.jit
    def f(x, n):
        return x * 2, (x > 1).astype(jnp.int32) + n

    x = jax.device_put(np.array([0.5, 1.5, 2.5], np.float32), apu)
    n = jax.device_put(np.int32(3), apu)
    doubled, counts = f(x, n)
    np.testing.assert_allclose(np.asarray(doubled), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(counts), [3, 4, 4])


def test_results_feed_later_calls(apu):
    x = jax.device_put(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4), apu)
    f = jax.jit(lambda a: jnp.tanh(a @ a) + 1)
    y = x
    for _ in range(3):
        y = f(y)
    ref = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    for _ in range(3):
        ref = np.tanh(ref @ ref) + 1
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-5, atol=1e-6)


def test_delete(apu):
    x = jax.device_put(np.ones(4, np.float32), apu)
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError):
        np.asarray(x)


def test_donated_input_is_deleted(apu, monkeypatch):
    from jax._src.interpreters import mlir
    # JAX drops donation for platforms it does not list; the apu Python package adds itself the same way.
    monkeypatch.setattr(mlir, "_platforms_with_donation", [*mlir._platforms_with_donation, "apu"])
    f = jax.jit(lambda a, b: a * 2 + b, donate_argnums=0)
    x = jax.device_put(np.ones(8, np.float32), apu)
    b = jax.device_put(np.full(8, 0.5, np.float32), apu)
    out = f(x, b)
    np.testing.assert_allclose(np.asarray(out), np.full(8, 2.5))
    assert x.is_deleted()
    assert not b.is_deleted()


def test_copy_between_apu_and_cpu(apu):
    platforms = os.environ.get("JAX_PLATFORMS", "cpu").split(",")
    cpu = jax.devices("cpu")[0] if "cpu" in platforms else None
    x = jax.device_put(np.arange(5, dtype=np.int32), apu)
    if cpu is not None:
        on_cpu = jax.device_put(x, cpu)
        np.testing.assert_array_equal(np.asarray(on_cpu), np.arange(5))
    back = jax.device_put(np.asarray(x) + 1, apu)
    np.testing.assert_array_equal(np.asarray(back), np.arange(1, 6))
