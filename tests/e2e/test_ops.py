"""Individual op families on the device under test against CPU, with edge cases and numpy references."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

from helpers import assert_matches_cpu, run_jitted

rng = np.random.default_rng(11)


def test_random_bits_bit_exact(dev, cpu):
    key = np.asarray(jax.random.PRNGKey(1234))
    fn = lambda k: (jax.random.bits(k, (1000,), jnp.uint32), jax.random.bits(k, (7, 3), jnp.uint8),
                    jax.random.split(k, 4))
    got = assert_matches_cpu(fn, (key,), dev, cpu, "exact")
    assert len(np.unique(got[0])) > 990  # really random-looking, not constant


def test_random_distributions(dev, cpu):
    key = np.asarray(jax.random.PRNGKey(0))

    def fn(k):
        k1, k2, k3 = jax.random.split(k, 3)
        return (jax.random.uniform(k1, (64,)), jax.random.normal(k2, (64,)),
                jax.random.randint(k3, (64,), 0, 10), jax.random.permutation(k3, 16))
    got = assert_matches_cpu(fn, (key,), dev, cpu, "transcendental")
    assert np.all((got[0] >= 0) & (got[0] < 1))
    assert sorted(got[3].tolist()) == list(range(16))


def test_typed_keys(dev, cpu):
    def fn(seed):
        key = jax.random.key(seed)
        return jax.random.key_data(jax.random.split(key, 3)), jax.random.bits(jax.random.fold_in(key, 5), (8,))
    assert_matches_cpu(fn, (np.uint32(99),), dev, cpu, "exact")


def test_sort_argsort_with_nans_and_signed_zeros(dev, cpu):
    x = np.array([[3.0, np.nan, -0.0, 0.0, -np.inf, 1.0, np.inf, -2.0]], np.float32)
    x = np.concatenate([x, rng.standard_normal((3, 8)).astype(np.float32)])
    got = assert_matches_cpu(lambda v: (jnp.sort(v, axis=1), jnp.argsort(v, axis=1, stable=True)),
                             (x,), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], np.sort(x, axis=1))  # numpy also puts NaN last


def test_sort_integers_descending_and_top_k(dev, cpu):
    k = rng.integers(-50, 50, size=(3, 20)).astype(np.int32)
    x = rng.standard_normal((3, 20)).astype(np.float32)
    got = assert_matches_cpu(lambda a, b: (jnp.sort(a)[:, ::-1], lax.top_k(b, 5)), (k, x), dev, cpu, "exact")
    np.testing.assert_array_equal(got[1], -np.sort(-x, axis=1)[:, :5])
    np.testing.assert_array_equal(np.take_along_axis(x, got[2], axis=1), got[1])


def test_cumulative_ops(dev, cpu):
    x = rng.standard_normal((6, 7)).astype(np.float32)
    i = rng.integers(-5, 5, size=(6, 7)).astype(np.int32)
    got = assert_matches_cpu(lambda a, b: (jnp.cumsum(a, axis=1), jnp.cumsum(b, axis=0), jnp.cumprod(a, axis=0),
                                           lax.cummax(b, axis=1), lax.cummin(a, axis=0, reverse=True)),
                             (x, i), dev, cpu, "accumulate")
    np.testing.assert_allclose(got[0], np.cumsum(x, axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[1], np.cumsum(i, axis=0))


def test_gathers(dev, cpu):
    x = rng.standard_normal((7, 6)).astype(np.float32)
    idx = np.array([6, 0, 3, 3, -1], np.int32)
    oob = np.array([0, 9, -20, 2], np.int32)
    fn = lambda x, idx, oob: (x[idx], x[1:, idx[:3]], jnp.take(x, oob, axis=0, mode="clip"),
                              jnp.take(x, oob, axis=1, mode="fill", fill_value=-7.0),
                              jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1))
    got = assert_matches_cpu(fn, (x, idx, oob), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], x[idx])
    np.testing.assert_array_equal(got[4], np.sort(x, axis=1))


def test_scatters(dev, cpu):
    x = rng.standard_normal((7, 4)).astype(np.float32)
    idx = np.array([2, 5, 2, 9], np.int32)  # a repeat and one out of bounds (dropped)
    u = rng.standard_normal((4, 4)).astype(np.float32)
    fn = lambda x, i, u: (x.at[i].add(u, mode="drop"), x.at[i].max(u, mode="drop"), x.at[i].min(u, mode="drop"),
                          x.at[i[:2]].set(u[:2]), x.at[i].mul(u, mode="drop"), x.at[:, 1].set(0.0))
    got = assert_matches_cpu(fn, (x, idx, u), dev, cpu, "default")
    want = x.copy()
    np.add.at(want, idx[:3], u[:3])
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-6)


def test_gradients_and_loops_that_gather_and_scatter(dev, cpu):
    # The gradient of an embedding lookup is a scatter-add of the batch's rows into a zero table
    # (ids repeat); an integer histogram is a scatter-add of ones; JAX's own LU (`_lu_python`, what a
    # plug-in platform without an LU rule runs for solve, inv and det) swaps and sets rows and columns
    # of its carried panel with gather and scatter in a loop. apu runs these as plan kernels, adding in
    # place. (apu's package now sends `lu` to its LU kernel, so the loop is called directly here.)
    table = rng.standard_normal((50, 8)).astype(np.float32)
    ids = np.array([3, 7, 3, 49, 0, 7, 7], np.int32)
    grad = jax.grad(lambda t, i: jnp.sum(jnp.take(t, i, axis=0) ** 2))
    (g,) = assert_matches_cpu(grad, (table, ids), dev, cpu, "default")
    want = np.zeros_like(table)
    np.add.at(want, ids, 2 * table[ids])
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)
    hist = lambda i: jnp.zeros(50, jnp.int32).at[i].add(1)
    (h,) = assert_matches_cpu(hist, (ids,), dev, cpu, "exact")
    np.testing.assert_array_equal(h, np.bincount(ids, minlength=50))
    a = rng.standard_normal((40, 40)).astype(np.float32) + 8 * np.eye(40, dtype=np.float32)
    b = rng.standard_normal((40, 3)).astype(np.float32)
    assert_matches_cpu(lambda a, b: (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a)), (a, b), dev, cpu,
                       "accumulate")
    from jax._src.lax import linalg as lax_linalg
    lu, pivots, perm = run_jitted(lax_linalg._lu_python, dev, a)
    want = run_jitted(lambda a: tuple(jax.lax.linalg.lu(a)), cpu, a)
    np.testing.assert_allclose(lu, want[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(perm, want[2])


def test_argmax_argmin_with_nans_ties_and_signed_zeros(dev, cpu):
    # JAX's argmax / argmin is a two-result reduce (value, iota) that apu runs as a plan kernel:
    # the first NaN wins, ties go to the smallest index, along every axis, for floats and integers.
    x = rng.choice(np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -1.0, 2.0], np.float32), (7, 300, 5),
                   p=[0.01, 0.09, 0.1, 0.2, 0.2, 0.15, 0.15, 0.1])
    i = rng.integers(-3, 4, (7, 300, 5)).astype(np.int32)
    long = rng.standard_normal(200_000).astype(np.float32)
    long[[70_000, 150_000]] = 9.0

    def fn(x, i, long):
        return tuple(f(v, axis=a) for f in (jnp.argmax, jnp.argmin) for v in (x, i) for a in (0, 1, 2)) + (
            jnp.argmax(long), jnp.argmin(long), jnp.argmax(x))
    got = assert_matches_cpu(fn, (x, i, long), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], np.argmax(x, axis=0))  # numpy: the first NaN, the first tie
    assert got[-3] == 70_000


def test_dynamic_slice_and_update(dev, cpu):
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    u = -np.ones((2, 3), np.float32)

    def fn(x, u, i, j):
        return (lax.dynamic_slice(x, (i, j), (3, 4)), lax.dynamic_update_slice(x, u, (i, j)),
                lax.dynamic_slice(x, (i + 100, j - 100), (3, 4)))  # clamped into range
    got = assert_matches_cpu(fn, (x, u, np.int32(2), np.int32(3)), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], x[2:5, 3:7])
    np.testing.assert_array_equal(got[2], x[3:6, 0:4])
    want = x.copy()
    want[2:4, 3:6] = -1
    np.testing.assert_array_equal(got[1], want)


@pytest.mark.parametrize("layout", [("NHWC", "HWIO", "NHWC"), ("NCHW", "OIHW", "NCHW")])
def test_conv(dev, cpu, layout):
    lhs = rng.standard_normal((2, 6, 6, 4) if layout[0] == "NHWC" else (2, 4, 6, 6)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 4, 5) if layout[1] == "HWIO" else (5, 4, 3, 3)).astype(np.float32)
    fn = lambda a, b: (lax.conv_general_dilated(a, b, (1, 1), "SAME", dimension_numbers=layout),
                       lax.conv_general_dilated(a, b, (2, 2), "VALID", dimension_numbers=layout),
                       lax.conv_general_dilated(a, b, (1, 1), ((1, 0), (2, 1)), rhs_dilation=(2, 1),
                                                dimension_numbers=layout))
    assert_matches_cpu(fn, (lhs, rhs), dev, cpu, "accumulate")


def test_dot_preferred_element_type(dev, cpu):
    a = rng.integers(-128, 127, size=(5, 16)).astype(np.int8)
    b = rng.integers(-128, 127, size=(16, 3)).astype(np.int8)
    got = assert_matches_cpu(lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32), (a, b), dev, cpu, "exact")
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[0], a.astype(np.int32) @ b.astype(np.int32))  # no int8 wrap-around
    h = rng.standard_normal((4, 8)).astype(jnp.bfloat16)
    got = assert_matches_cpu(lambda h: lax.dot(h, h.T, preferred_element_type=jnp.float32), (h,), dev, cpu,
                             "accumulate")
    assert got[0].dtype == np.float32


def test_integer_matmul_and_reductions(dev, cpu):
    a = rng.integers(-1000, 1000, size=(4, 6)).astype(np.int32)
    got = assert_matches_cpu(lambda a: (a @ a.T, jnp.sum(a, axis=1), jnp.prod(a[:, :2], axis=1)),
                             (a,), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], a @ a.T)


def test_eager_ops_run_on_device(dev, cpu):
    # Without jit each op is its own small program: the path TensorFlow-style eager code takes.
    x = jax.device_put(rng.standard_normal((3, 3)).astype(np.float32), dev)
    y = jnp.tanh(x) + x * 2
    assert y.devices() == {dev}
    np.testing.assert_allclose(np.asarray(y), np.tanh(np.asarray(x)) + np.asarray(x) * 2, rtol=1e-5, atol=1e-6)
