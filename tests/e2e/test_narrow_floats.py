"""The narrow floats JAX can send besides the f8 family: float8_e8m0fnu, float4_e2m1fn, float6_e2m3fn and
float6_e3m2fn (ml_dtypes 0.6). Transfers keep every byte; convert, and the elementwise ops XLA:CPU itself
runs in these types, give the same bits as CPU."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from helpers import run_jitted

NARROW = [ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn, ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn]
# XLA:CPU refuses arithmetic in the 6-bit types ("failed to legalize arith.addf"): convert only for those.
ARITHMETIC = [ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn]
# ... and cannot convert from them either (jaxlib 0.12: "Invalid bitcast i6 to i8"): ml_dtypes is the reference.
FROM_ON_HOST = [ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn]


def reference_from_narrow(fn, codes, cpu, target):
    if codes.dtype.type in FROM_ON_HOST:
        return codes.astype(target)
    return run_jitted(fn, cpu, codes)[0]


def every_code(dtype) -> np.ndarray:
    """Every canonical bit pattern of the type (the sign bit included), as values of that type."""
    bits = {ml_dtypes.float4_e2m1fn: 4, ml_dtypes.float6_e2m3fn: 6, ml_dtypes.float6_e3m2fn: 6}.get(dtype, 8)
    return np.arange(1 << bits, dtype=np.uint8).view(dtype)


def same_bits(got: np.ndarray, want: np.ndarray, what: str):
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=what)


def skip_cpu_limits(platform, dtype):
    # With APU_E2E_PLATFORM=cpu the device under test is XLA:CPU, which cannot do these (see FROM_ON_HOST).
    if platform == "cpu" and dtype in FROM_ON_HOST:
        pytest.skip(f"XLA:CPU cannot convert from (or, in jaxlib 0.10, hold) {dtype.__name__}")
    if dtype in FROM_ON_HOST and jax.__version__.startswith("0.10."):
        # jaxlib 0.10.2 itself refuses them: "Unknown NumPy dtype", "Invalid XLA PrimitiveType: 36 (F6E2M3FN)".
        pytest.skip(f"jaxlib {jax.__version__} cannot transfer {dtype.__name__}")


@pytest.mark.parametrize("dtype", NARROW, ids=lambda t: t.__name__)
def test_round_trip_keeps_every_code(dev, platform, dtype):
    skip_cpu_limits(platform, dtype)
    host = every_code(dtype).reshape(-1, 2)
    on_device = jax.device_put(host, dev)
    assert on_device.dtype == host.dtype
    same_bits(np.asarray(on_device), host, "device_put and back")


@pytest.mark.parametrize("dtype", NARROW, ids=lambda t: t.__name__)
def test_convert_from_and_to_f32_matches_cpu(dev, cpu, platform, dtype):
    skip_cpu_limits(platform, dtype)
    rng = np.random.default_rng(7)
    # Values across the type's range and beyond it (saturation / NaN), ties, negatives and zeros.
    x = np.concatenate([rng.normal(scale=4.0, size=64), [0.0, -0.0, 0.25, 0.75, 1.25, 1.75, 3.0, 100.0, -100.0,
                                                          1e-40, np.inf, -np.inf, np.nan]]).astype(np.float32)
    narrow = lambda a: a.astype(dtype)  # noqa: E731
    got, want = run_jitted(narrow, dev, x)[0], run_jitted(narrow, cpu, x)[0]
    if dtype in FROM_ON_HOST:
        # XLA:CPU writes 0 for what overflows a 6-bit type; ml_dtypes (and apu) saturate: those against ml_dtypes.
        fits = np.abs(x) <= float(ml_dtypes.finfo(dtype).max)
        same_bits(got[~fits], x[~fits].astype(dtype), "f32 -> narrow, out of range")
        got, want = got[fits], want[fits]
    same_bits(got, want, "f32 -> narrow")
    codes = every_code(dtype)
    wide = lambda a: a.astype(jnp.float32)  # noqa: E731
    got, want = run_jitted(wide, dev, codes)[0], reference_from_narrow(wide, codes, cpu, np.float32)
    np.testing.assert_array_equal(got, want, err_msg="narrow -> f32")  # NaNs compare equal here
    for other in (jnp.bfloat16, jnp.float16, jnp.int32):
        conv = lambda a, t=other: a.astype(t)  # noqa: E731
        # NaN and values past int32 convert to implementation-defined integers.
        finite = np.abs(codes.astype(np.float32)) < 2.0**31
        got = run_jitted(conv, dev, codes)[0]
        want = reference_from_narrow(conv, codes, cpu, other)
        if other is jnp.int32:
            # XLA:CPU (jaxlib 0.12) turns f4E2M1FN's +-6.0 into INT_MAX / INT_MIN: ml_dtypes is the reference.
            got, want = got[finite], codes.astype(np.int32)[finite]
        same_bits(got, want, f"narrow -> {other.__name__}")


@pytest.mark.parametrize("dtype", ARITHMETIC, ids=lambda t: t.__name__)
@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "negate", "abs", "compare"])
def test_elementwise_matches_cpu(dev, cpu, dtype, op):
    codes = every_code(dtype)
    if dtype == ml_dtypes.float8_e8m0fnu:
        codes = codes[1:]  # 2^-127 is an f32 subnormal, which XLA:CPU flushes to zero (apu does not)
    a = np.repeat(codes, codes.size)
    b = np.tile(codes, codes.size)
    fn = {
        "add": lambda x, y: x + y,
        "multiply": lambda x, y: x * y,
        "maximum": jnp.maximum,
        "negate": lambda x, y: -x,
        "abs": lambda x, y: jnp.abs(y),
        "compare": lambda x, y: x < y,
    }[op]
    got, want = run_jitted(fn, dev, a, b)[0], run_jitted(fn, cpu, a, b)[0]
    if got.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
        return
    if op in ("add", "multiply"):
        # XLA:CPU flushes f32 subnormal results to zero (f8E8M0FNU then reads NaN); apu keeps them.
        exact = fn(a.astype(np.float64), b.astype(np.float64))
        normal = ~((np.abs(exact) > 0) & (np.abs(exact) < np.finfo(np.float32).tiny))
        got, want = got[normal], want[normal]
    # Any NaN code is a NaN: compare NaN positions, then the bits of everything else.
    nan_got, nan_want = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(nan_got, nan_want, err_msg="NaN positions")
    same_bits(got[~nan_got], want[~nan_want], op)
