"""A tiny training loop: 5 SGD steps of an MLP on the device under test track CPU's losses."""

import numpy as np

import jax
import jax.numpy as jnp

from programs import mlp_loss, mlp_params
from tolerance import assert_close


def train(device, steps=5, lr=0.1):
    r = np.random.default_rng(3)
    params = jax.device_put(mlp_params(r), device)
    x = jax.device_put(r.standard_normal((16, 8)).astype(np.float32), device)
    y = jax.device_put(np.sin(np.asarray(x)[:, :4]), device)

    @jax.jit
    def sgd_step(params, x, y):
        loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
        return [p - lr * g for p, g in zip(params, grads)], loss

    losses = []
    for _ in range(steps):
        params, loss = sgd_step(params, x, y)
        assert loss.devices() == {device}
        losses.append(np.asarray(loss))
    return np.array(losses), [np.asarray(p) for p in params]


def test_sgd_losses_match_cpu(dev, cpu):
    losses, params = train(dev)
    cpu_losses, cpu_params = train(cpu)
    assert_close(losses, cpu_losses, "accumulate", "losses")
    for i, (p, q) in enumerate(zip(params, cpu_params)):
        assert_close(p, q, "accumulate", f"parameter {i} after training")
    assert losses[-1] < losses[0], f"training did not reduce the loss: {losses}"
    assert np.all(np.isfinite(losses))
