"""Unsupported work fails as a Python exception that names it, and the process and device keep working."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

UNKNOWN_TARGET = "apu_e2e_no_such_custom_call_target"


def test_unknown_custom_call_raises_and_device_survives(dev):
    call = jax.ffi.ffi_call(UNKNOWN_TARGET, jax.ShapeDtypeStruct((4,), jnp.float32))
    x = jax.device_put(np.ones(4, np.float32), dev)
    with pytest.raises(Exception) as info:
        jax.block_until_ready(jax.jit(call)(x))
    assert UNKNOWN_TARGET in str(info.value), f"error does not name the custom call target: {info.value}"

    # The same process and device still compile and run programs.
    y = jax.jit(lambda v: v * 3 + 1)(x)
    assert y.devices() == {dev}
    np.testing.assert_array_equal(np.asarray(y), np.full(4, 4.0, np.float32))


def test_failed_compile_is_not_cached_as_success(dev):
    call = jax.ffi.ffi_call(UNKNOWN_TARGET, jax.ShapeDtypeStruct((2,), jnp.float32))
    x = jax.device_put(np.ones(2, np.float32), dev)
    for _ in range(2):  # the second attempt must fail the same way, not crash or return garbage
        with pytest.raises(Exception, match=UNKNOWN_TARGET):
            jax.block_until_ready(jax.jit(call)(x))
