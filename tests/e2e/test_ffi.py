"""jax.ffi on the device under test: typed FFI handlers written in C++ against jaxlib's own FFI headers,
built here with the host's compiler, registered from Python for the platform and called inside jit,
vmap and scan, against the same handlers on JAX's CPU backend."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import REPO_ROOT

SOURCE = REPO_ROOT / "tests" / "e2e" / "ffi_ops" / "ops.cc"
TARGETS = {
    "apu_test_rms_norm": "ApuTestRmsNorm",
    "apu_test_attrs": "ApuTestAttrs",
    "apu_test_double_and_count": "ApuTestDoubleAndCount",
    "apu_test_checked_sqrt": "ApuTestCheckedSqrt",
    "apu_test_accumulate": "ApuTestAccumulate",
}


@pytest.fixture(scope="session")
def ffi_ops(tmp_path_factory, platform):
    """Builds ops.cc and registers its handlers for CPU and the platform under test (once per session)."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.fail("the jax.ffi tests need a C++ compiler (g++) to build their handlers", pytrace=False)
    out = tmp_path_factory.mktemp("ffi") / "libapu_test_ffi_ops.so"
    subprocess.run(
        [compiler, "-std=c++17", "-O2", "-shared", "-fPIC", "-w", f"-I{jax.ffi.include_dir()}", str(SOURCE), "-o", str(out)],
        check=True,
    )
    lib = ctypes.cdll.LoadLibrary(str(out))
    for target, symbol in TARGETS.items():
        for p in sorted({"cpu", platform}):
            jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(lib, symbol)), platform=p)
    return lib


@pytest.fixture
def cpu():
    return jax.devices("cpu")[0]


def _on(device, fn, *args):
    placed = [jax.device_put(a, device) for a in args]
    return jax.tree_util.tree_map(np.asarray, jax.jit(fn)(*placed))


def rms_norm(x, eps=1e-5):
    return jax.ffi.ffi_call("apu_test_rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(
        x, eps=np.float32(eps)
    )


def test_an_ffi_handler_runs_inside_jit_as_on_cpu(ffi_ops, dev, cpu):
    x = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)
    got = _on(dev, lambda x: rms_norm(x) * 2 + 1, x)
    want = _on(cpu, lambda x: rms_norm(x) * 2 + 1, x)
    expected = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * 2 + 1
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_vmap_of_an_ffi_call_broadcasts_the_batch(ffi_ops, dev, cpu):
    x = np.random.default_rng(1).standard_normal((3, 5, 8)).astype(np.float32)
    f = jax.vmap(lambda row: rms_norm(row, eps=0.5))
    got, want = _on(dev, f, x), _on(cpu, f, x)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 0.5), rtol=1e-5)


def test_an_ffi_call_inside_a_scan_runs_every_iteration(ffi_ops, dev, cpu):
    def f(x):
        def body(c, _):
            c = rms_norm(c) + 0.25
            return c, c.sum()

        return jax.lax.scan(body, x, None, length=5)

    x = np.random.default_rng(2).standard_normal((2, 6)).astype(np.float32)
    got, want = _on(dev, f, x), _on(cpu, f, x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)


def test_attributes_reach_the_handler_with_their_types(ffi_ops, dev, cpu):
    def f(x):
        report = jax.ffi.ffi_call("apu_test_attrs", jax.ShapeDtypeStruct((6,), jnp.float32))(
            n=np.int32(7), scale=2.5, name="hello", offsets=np.array([1, 2, 3], np.int64), flag=True,
            small=np.int16(-3),
        )
        return report + x

    x = np.zeros((6,), np.float32)
    got, want = _on(dev, f, x), _on(cpu, f, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, np.array([7, 2.5, 5, 6, 1, -3], np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_a_handler_with_two_results_of_any_dtype(ffi_ops, dev, cpu, dtype):
    def f(x):
        doubled, count = jax.ffi.ffi_call(
            "apu_test_double_and_count",
            (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((), jnp.int32)),
        )(x)
        return doubled - 1, count

    x = np.arange(12, dtype=dtype).reshape(3, 4)
    (d, c), (dw, cw) = _on(dev, f, x), _on(cpu, f, x)
    np.testing.assert_array_equal(d, dw)
    np.testing.assert_array_equal(d, x * 2 - 1)
    assert int(c) == int(cw) == 12


def test_an_aliased_result_starts_as_its_operand(ffi_ops, dev, cpu):
    def f(acc, x):
        out = jax.ffi.ffi_call("apu_test_accumulate", jax.ShapeDtypeStruct(acc.shape, acc.dtype), input_output_aliases={0: 0})(
            acc, x
        )
        return out, acc * 1  # acc stays readable after the call: the operand is not overwritten

    acc = np.array([1.0, 2.0, 3.0], np.float32)
    x = np.array([10.0, 20.0, 30.0], np.float32)
    (got, kept), (want, _) = _on(dev, f, acc, x), _on(cpu, f, acc, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [11.0, 22.0, 33.0])
    np.testing.assert_array_equal(kept, acc)


def test_operands_and_results_arrive_in_the_layouts_the_call_asks_for(ffi_ops, dev, cpu):
    # Column-major in and out: the handler normalizes runs of the last dimension's length in memory,
    # which are no longer the rows, so the answer differs from the row-major call's and must match CPU's.
    def f(x):
        return jax.ffi.ffi_call(
            "apu_test_rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype), input_layouts=[(1, 0)], output_layouts=(1, 0)
        )(x, eps=np.float32(1e-5))

    x = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)
    got, want = _on(dev, f, x), _on(cpu, f, x)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not np.allclose(got, _on(cpu, rms_norm, x), rtol=1e-3)


def test_a_handler_error_fails_the_call_with_its_message(ffi_ops, dev):
    sqrt = lambda x: jax.ffi.ffi_call("apu_test_checked_sqrt", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # noqa: E731
    bad = jax.device_put(np.array([4.0, 1.0, -2.0], np.float32), dev)
    with pytest.raises(Exception, match="negative input at index 2"):
        np.asarray(jax.jit(sqrt)(bad))
    # The process and the device carry on.
    good = jax.device_put(np.array([4.0, 9.0], np.float32), dev)
    np.testing.assert_array_equal(np.asarray(jax.jit(sqrt)(good)), [2.0, 3.0])


def test_an_unregistered_target_is_refused_naming_it(ffi_ops, dev):
    f = jax.jit(lambda x: jax.ffi.ffi_call("apu_test_never_registered", jax.ShapeDtypeStruct(x.shape, x.dtype))(x))
    with pytest.raises(Exception, match="apu_test_never_registered"):
        np.asarray(f(jax.device_put(np.ones(3, np.float32), dev)))


def test_the_untyped_custom_call_api_is_refused_at_registration(ffi_ops, platform):
    if platform == "cpu":
        pytest.skip("XLA:CPU accepts api_version=0 targets; apu runs typed FFI handlers only")
    with pytest.raises(Exception, match="api_version"):
        jax.ffi.register_ffi_target(
            "apu_test_untyped", jax.ffi.pycapsule(ffi_ops.ApuTestRmsNorm), platform=platform, api_version=0
        )
