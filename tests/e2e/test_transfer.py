"""Host <-> device transfers: every dtype, scalars, zero-size and non-contiguous arrays come back unchanged."""

import ml_dtypes
import numpy as np
import pytest

import jax

DTYPES_32 = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.float16,
             ml_dtypes.bfloat16, np.float32, np.complex64]
DTYPES_64 = [np.int64, np.uint64, np.float64, np.complex128]
SHAPES = [(), (0,), (3, 0), (5,), (2, 3, 4)]


def sample(dtype, shape, seed=0):
    """Values that use the whole range of the type (incl. extremes and, for floats, specials)."""
    r = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return r.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = r.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
        if a.size >= 2:
            a.reshape(-1)[:2] = [info.min, info.max]
        return a
    if dt.kind == "c":
        return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt)
    a = (r.standard_normal(shape) * 100).astype(dt)
    if a.size >= 4:
        a.reshape(-1)[:4] = np.array([np.inf, -np.inf, -0.0, np.nan]).astype(dt)
    return a


def assert_bit_identical(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    # Compare bytes: NaN payloads and the sign of zero must survive the trip too.
    assert got.tobytes() == want.tobytes()


def round_trip(array, device):
    on_device = jax.device_put(array, device)
    assert on_device.devices() == {device}
    assert on_device.dtype == array.dtype
    assert on_device.shape == array.shape
    on_device.block_until_ready()
    return np.asarray(on_device)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES_32, ids=lambda d: np.dtype(d).name)
def test_round_trip(dev, dtype, shape):
    array = sample(dtype, shape)
    assert_bit_identical(round_trip(array, dev), array)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES_64, ids=lambda d: np.dtype(d).name)
def test_round_trip_x64(dev, dtype, shape):
    array = sample(dtype, shape)
    with jax.enable_x64(True):
        assert_bit_identical(round_trip(array, dev), array)


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64, np.complex64], ids=lambda d: np.dtype(d).name)
def test_non_contiguous_host_arrays(dev, dtype):
    base = sample(dtype, (6, 8), seed=1)
    with jax.enable_x64(True):
        for view in (base.T, base[::2, 1::3], np.asfortranarray(base), base[:, ::-1]):
            got = round_trip(view, dev)
            assert_bit_identical(got, np.ascontiguousarray(view))


def test_python_scalars_and_lists(dev):
    for value, dtype in ((3, np.int32), (2.5, np.float32), (True, np.bool_), ([1, 2, 3], np.int32)):
        got = round_trip(np.asarray(value, dtype), dev)
        np.testing.assert_array_equal(got, np.asarray(value, dtype))


def test_results_read_back_twice_and_after_other_work(dev):
    x = jax.device_put(np.arange(10, dtype=np.float32), dev)
    y = jax.jit(lambda v: v * v)(x)
    first = np.asarray(y).copy()
    jax.jit(lambda v: v + 1)(x).block_until_ready()
    np.testing.assert_array_equal(np.asarray(y), first)
    np.testing.assert_array_equal(first, np.arange(10, dtype=np.float32) ** 2)


def test_explicit_delete(dev):
    x = jax.device_put(np.ones(4, np.float32), dev)
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
