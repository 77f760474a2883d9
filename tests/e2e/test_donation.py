"""Buffer donation: a donated input is deleted after the call and the result is right."""

import numpy as np
import pytest

import jax


def test_donated_input_is_deleted(dev):
    a = np.arange(16, dtype=np.float32)
    x = jax.device_put(a, dev)
    y = jax.device_put(np.ones(16, np.float32), dev)
    z = jax.jit(lambda x, y: x * 2 + y, donate_argnums=0)(x, y)
    np.testing.assert_array_equal(np.asarray(z), a * 2 + 1)
    assert x.is_deleted()
    assert not y.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)


def test_donation_in_a_loop_keeps_values_right(dev):
    step = jax.jit(lambda s, d: (s + d, s.sum()), donate_argnums=0)
    state = jax.device_put(np.zeros(8, np.float32), dev)
    delta = jax.device_put(np.full(8, 0.5, np.float32), dev)
    for i in range(5):
        old = state
        state, total = step(state, delta)
        assert old.is_deleted()
        assert float(total) == pytest.approx(8 * 0.5 * i)
    np.testing.assert_array_equal(np.asarray(state), np.full(8, 2.5, np.float32))


def test_donated_input_not_matching_any_output(dev):
    # No output has x's shape, so nothing can reuse it; the call must still work and be right.
    x = jax.device_put(np.arange(6, dtype=np.float32), dev)
    with pytest.warns(UserWarning, match="donated"):
        s = jax.jit(lambda x: x.sum(), donate_argnums=0)(x)
    assert float(s) == 15.0
