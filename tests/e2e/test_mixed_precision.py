"""Mixed precision as flax users write it: bf16 / f16 compute with f32 parameters, and int8 quantization
helpers. Each single elementwise op in bf16, f16 and 8/16-bit integers gives XLA:CPU's bits; a few training
steps of a bf16 and an f16 MLP track CPU's losses and parameters (decision 99: narrow arithmetic is computed
on f32 / 32-bit lanes, reductions and products accumulate in f32)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

from helpers import run_jitted
from tolerance import assert_close

FLOATS = [jnp.bfloat16, jnp.float16]
INTS = [jnp.int8, jnp.uint8, jnp.int16]


def floats_of(dtype, shape, seed):
    r = np.random.default_rng(seed)
    # Spread magnitudes, both signs, and a few specials.
    x = (r.standard_normal(shape) * np.exp2(r.integers(-6, 6, shape))).astype(np.float32)
    x.flat[:4] = [0.0, -0.0, np.inf, np.nan]
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.__name__)
def test_elementwise_ops_give_cpus_bits(dev, cpu, dtype):
    a, b = floats_of(dtype, (64, 33), 1), floats_of(dtype, (64, 33), 2)
    ops = {
        "add": lambda a, b: a + b,
        "multiply": lambda a, b: a * b,
        "divide": lambda a, b: a / b,
        "sqrt": lambda a, b: jnp.sqrt(jnp.abs(a)),
        "maximum": lambda a, b: jnp.maximum(a, b),
        "compare": lambda a, b: a < b,
        "to f32": lambda a, b: a.astype(jnp.float32),
        "from f32": lambda a, b: (a.astype(jnp.float32) * 3.1).astype(dtype),
    }
    for name, fn in ops.items():
        got, = run_jitted(fn, dev, a, b)
        want, = run_jitted(fn, cpu, a, b)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"{dtype.__name__} {name}")


@pytest.mark.parametrize("dtype", INTS, ids=lambda t: t.__name__)
def test_integer_ops_wrap_as_cpu(dev, cpu, dtype):
    info = np.iinfo(dtype)
    r = np.random.default_rng(5)
    a = r.integers(info.min, info.max, (16, 16), endpoint=True).astype(dtype)
    b = r.integers(info.min, info.max, (16, 16), endpoint=True).astype(dtype)
    b[b == 0] = 1
    fn = lambda a, b: (a + b, a * b, a // b, a % b, -a, jnp.maximum(a, b), a ^ b, (a.astype(jnp.float32) * 1.7).astype(dtype))
    for i, (g, w) in enumerate(zip(run_jitted(fn, dev, a, b), run_jitted(fn, cpu, a, b))):
        np.testing.assert_array_equal(g, w, err_msg=f"{dtype.__name__} output {i}")


def mp_loss(params, x, y, dtype):
    h = x.astype(dtype)
    for w, b in params[:-1]:
        h = jax.nn.gelu(h @ w.astype(dtype) + b.astype(dtype))
    w, b = params[-1]
    logits = (h @ w.astype(dtype) + b.astype(dtype)).astype(jnp.float32)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def train(device, dtype, steps=5, lr=0.1):
    r = np.random.default_rng(3)
    sizes = [(16, 64), (64, 64), (64, 4)]
    params = [(r.standard_normal(s).astype(np.float32) / np.sqrt(s[0]), np.zeros(s[1], np.float32)) for s in sizes]
    params = jax.device_put(params, device)
    x = jax.device_put(r.standard_normal((32, 16)).astype(np.float32), device)
    y = jax.device_put(np.eye(4, dtype=np.float32)[np.arange(32) % 4], device)

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(mp_loss)(params, x, y, dtype)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    losses = []
    for _ in range(steps):
        params, loss = step(params, x, y)
        assert loss.devices() == {device}
        losses.append(float(loss))
    return np.array(losses, np.float32), [np.asarray(p) for p in jax.tree.leaves(params)]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.__name__)
def test_mixed_precision_training_tracks_cpu(dev, cpu, dtype):
    losses, params = train(dev, dtype)
    cpu_losses, cpu_params = train(cpu, dtype)
    # The losses are f32 computed from narrow activations: held to the narrow type's tolerance.
    assert_close(losses.astype(dtype), cpu_losses.astype(dtype), "accumulate", "losses")
    for i, (p, q) in enumerate(zip(params, cpu_params)):
        assert_close(p.astype(dtype), q.astype(dtype), "accumulate", f"parameter {i} after training")
    assert losses[-1] < losses[0], f"training did not reduce the loss: {losses}"


def test_int8_quantized_matmul_matches_cpu(dev, cpu):
    r = np.random.default_rng(9)
    q = r.integers(-127, 128, (32, 200)).astype(np.int8)
    w = r.integers(-127, 128, (200, 24)).astype(np.int8)
    fn = lambda q, w: jax.lax.dot(q, w, preferred_element_type=jnp.int32)
    got, = run_jitted(fn, dev, q, w)
    want, = run_jitted(fn, cpu, q, w)
    np.testing.assert_array_equal(got, want)
