"""JAX transformations and control flow on the device under test: grad, vmap, scan, while_loop, cond, switch."""

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

from helpers import assert_matches_cpu

rng = np.random.default_rng(7)
X = rng.standard_normal((4, 5)).astype(np.float32)
W = rng.standard_normal((5, 3)).astype(np.float32)


def test_grad_of_scalar_loss(dev, cpu):
    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)
    got = assert_matches_cpu(jax.grad(loss), (W, X), dev, cpu, "accumulate")
    # Independent check: d/dw sum(tanh(xw)^2) = x^T (2 tanh(xw) (1 - tanh(xw)^2))
    t = np.tanh(X.astype(np.float64) @ W)
    np.testing.assert_allclose(got[0], X.T.astype(np.float64) @ (2 * t * (1 - t * t)), rtol=1e-4, atol=1e-5)


def test_value_and_grad_with_aux_and_pytrees(dev, cpu):
    def loss(params, x):
        y = x @ params["w"] + params["b"]
        return jnp.mean(jax.nn.relu(y)), jnp.max(y)
    params = {"w": W, "b": np.float32(0.1) * np.ones(3, np.float32)}
    fn = jax.value_and_grad(loss, has_aux=True)
    got = jax.tree.leaves(jax.jit(fn)(jax.device_put(params, dev), jax.device_put(X, dev)))
    want = jax.tree.leaves(jax.jit(fn)(jax.device_put(params, cpu), jax.device_put(X, cpu)))
    for g, w in zip(got, want):
        assert g.devices() == {dev}
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_jacfwd_and_hessian(dev, cpu):
    def f(v):
        return jnp.sin(v) * jnp.sum(v ** 2)
    v = X[0]
    assert_matches_cpu(jax.jacfwd(f), (v,), dev, cpu, "transcendental")
    assert_matches_cpu(jax.hessian(lambda v: jnp.sum(jnp.exp(v) * v)), (v,), dev, cpu, "transcendental")


def test_vmap_with_unbatched_argument(dev, cpu):
    def per_row(x, w):
        return jax.nn.softmax(x @ w)
    got = assert_matches_cpu(jax.vmap(per_row, in_axes=(0, None)), (X, W), dev, cpu, "transcendental")
    np.testing.assert_allclose(got[0].sum(axis=1), np.ones(4), rtol=1e-5)


def test_vmap_of_grad(dev, cpu):
    per_example_grad = jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w))), in_axes=(None, 0))
    assert_matches_cpu(per_example_grad, (W, X), dev, cpu, "accumulate")


def test_scan_with_carry_and_outputs(dev, cpu):
    def fn(xs):
        def step(carry, x):
            total, count = carry
            return (total + x, count + 1), total * x
        return lax.scan(step, (jnp.zeros(5, jnp.float32), jnp.int32(0)), xs)
    got = assert_matches_cpu(fn, (X,), dev, cpu, "accumulate")
    np.testing.assert_allclose(got[0], X.sum(axis=0), rtol=1e-5, atol=1e-6)
    assert got[1] == 4


def test_while_loop_with_data_dependent_trip_count(dev, cpu):
    def collatz_steps(n):
        def body(state):
            n, steps = state
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))[1]
    starts = np.array([1, 6, 7, 27, 97], np.int32)
    got = assert_matches_cpu(jax.vmap(collatz_steps), (starts,), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], [0, 8, 16, 111, 118])


def test_cond_and_switch_on_device_predicates(dev, cpu):
    def fn(x):
        positive = jnp.sum(x) > 0
        a = lax.cond(positive, lambda v: v * 2.0, lambda v: -v, x)
        index = jnp.argmax(jnp.abs(x[0])).astype(jnp.int32) % 3
        b = lax.switch(index, [jnp.sin, jnp.cos, jnp.tanh], x)
        return a, b, index
    assert_matches_cpu(fn, (X,), dev, cpu, "transcendental")
    assert_matches_cpu(fn, (-X,), dev, cpu, "transcendental")


def test_fori_loop_with_dynamic_bounds(dev, cpu):
    def fn(n, x):
        return lax.fori_loop(0, n, lambda i, acc: acc + jnp.float32(i) * x, jnp.zeros_like(x))
    got = assert_matches_cpu(fn, (np.int32(6), X[0]), dev, cpu, "accumulate")
    np.testing.assert_allclose(got[0], 15 * X[0], rtol=1e-5, atol=1e-6)


def test_checkpoint_remat(dev, cpu):
    f = jax.checkpoint(lambda w, x: jnp.sum(jnp.sin(x @ w)))
    assert_matches_cpu(jax.grad(f), (W, X), dev, cpu, "transcendental")
