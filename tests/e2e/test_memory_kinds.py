"""Memory kinds (issue 34 item 4): `device`, `pinned_host` and `unpinned_host` on every device, with
`device_put` between them, `jit` in/out shardings and `device_put` inside `jit` naming a kind, host
offloading through a remat policy and `compute_on`. Every value is compared with JAX's CPU backend;
where the CPU backend of the installed jax has host memory kinds too, so is every memory kind.
"""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.sharding import SingleDeviceSharding

KINDS = ["device", "pinned_host", "unpinned_host"]
HOST_KINDS = ["pinned_host", "unpinned_host"]


def kinds_of(device):
    return [m.kind for m in device.addressable_memories()]


def cpu_has_host_kinds(cpu):
    return "pinned_host" in kinds_of(cpu)


def kind_of(array):
    return array.sharding.memory_kind


def shard_kinds(array):
    return [s.data.sharding.memory_kind for s in array.addressable_shards]


def test_every_device_has_the_three_kinds_device_first(dev, cpu):
    assert kinds_of(dev) == KINDS
    assert dev.default_memory().kind == "device"
    for m in dev.addressable_memories():
        assert m.addressable_by_devices() == [dev], m
    if cpu_has_host_kinds(cpu):
        assert sorted(kinds_of(dev)) == sorted(kinds_of(cpu))


@pytest.mark.parametrize("src", KINDS)
@pytest.mark.parametrize("dst", KINDS)
def test_device_put_between_kinds(dev, src, dst):
    x = np.arange(24, dtype=np.float32).reshape(4, 6) - 7.5
    a = jax.device_put(x, SingleDeviceSharding(dev, memory_kind=src))
    b = jax.device_put(a, SingleDeviceSharding(dev, memory_kind=dst))
    assert (kind_of(a), kind_of(b)) == (src, dst)
    assert shard_kinds(b) == [dst]
    np.testing.assert_array_equal(np.asarray(b), x)
    # The source is unchanged and still usable.
    np.testing.assert_array_equal(np.asarray(a), x)


@pytest.mark.parametrize("value", [3, 2.5, np.float32(-1.25), np.arange(5, dtype=np.int8)])
@pytest.mark.parametrize("kind", HOST_KINDS)
def test_device_put_scalars_and_small_arrays_to_host(dev, kind, value):
    a = jax.device_put(value, SingleDeviceSharding(dev, memory_kind=kind))
    assert kind_of(a) == kind
    np.testing.assert_array_equal(np.asarray(a), np.asarray(value))


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_jit_out_shardings_put_the_result_in_host_memory(dev, cpu, kind):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)

    def f(x):
        return jnp.tanh(x) * 3 + 1

    out = jax.jit(f, out_shardings=SingleDeviceSharding(dev, memory_kind=kind))(jax.device_put(x, dev))
    assert kind_of(out) == kind and shard_kinds(out) == [kind]
    want = jax.jit(f)(jax.device_put(x, cpu))
    np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-6)
    compiled = jax.jit(f, out_shardings=SingleDeviceSharding(dev, memory_kind=kind)).lower(x).compile()
    assert compiled.runtime_executable().get_output_memory_kinds() == [[kind]]


def test_jit_in_shardings_read_host_arguments(dev, cpu):
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    x = np.arange(10, dtype=np.float32)
    xh = jax.device_put(x, host)

    def f(a, b):
        return a * b + 2

    # JAX refuses to mix operands of different memory kinds in one op: both are in host memory.
    out = jax.jit(f, in_shardings=(host, host))(xh, xh)
    np.testing.assert_array_equal(np.asarray(out), x * x + 2)
    # An argument in host memory, the result in device memory (JAX propagates the argument's kind
    # to a result computed from it alone unless told otherwise).
    out2 = jax.jit(lambda a: a - 1, out_shardings=SingleDeviceSharding(dev, memory_kind="device"))(xh)
    assert kind_of(out2) == "device"
    np.testing.assert_array_equal(np.asarray(out2), x - 1)
    if cpu_has_host_kinds(cpu):
        c_host = SingleDeviceSharding(cpu, memory_kind="pinned_host")
        want = jax.jit(lambda a: a + 1)(jax.device_put(x, c_host))
        got = jax.jit(lambda a: a + 1)(xh)
        assert kind_of(got) == kind_of(want)


def test_device_put_inside_jit_moves_between_kinds(dev, cpu):
    x = np.arange(16, dtype=np.float32).reshape(4, 4)

    def f(x, where):
        y = jax.device_put(x * 2, where("pinned_host"))
        z = jax.device_put(y, where("device")) + 1
        return y, z

    got = jax.jit(lambda x: f(x, lambda k: SingleDeviceSharding(dev, memory_kind=k)))(jax.device_put(x, dev))
    np.testing.assert_array_equal(np.asarray(got[0]), x * 2)
    np.testing.assert_array_equal(np.asarray(got[1]), x * 2 + 1)
    assert [kind_of(a) for a in got] == ["pinned_host", "device"]
    if cpu_has_host_kinds(cpu):
        want = jax.jit(lambda x: f(x, lambda k: SingleDeviceSharding(cpu, memory_kind=k)))(jax.device_put(x, cpu))
        assert [kind_of(a) for a in got] == [kind_of(a) for a in want]


def test_donating_a_host_argument(dev):
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    x = np.arange(6, dtype=np.float32)
    xh = jax.device_put(x, host)
    out = jax.jit(lambda a: a + 1, donate_argnums=0, out_shardings=host)(xh)
    assert kind_of(out) == "pinned_host"
    np.testing.assert_array_equal(np.asarray(out), x + 1)


def _offloading_loss(w, xs):
    """Three dense layers under a policy that offloads the saved dot products to pinned host memory."""
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["h1", "h2"],
        offload_src="device", offload_dst="pinned_host")

    def net(w, xs):
        h = checkpoint_name(jnp.sin(xs @ w), "h1")
        h = checkpoint_name(jnp.sin(h @ w), "h2")
        return jnp.sum(jnp.tanh(h @ w))

    return jax.checkpoint(net, policy=policy)(w, xs)


def test_remat_policy_offloads_residuals_to_host_like_cpu(dev, cpu):
    """The forward pass in one jit returns the residuals the policy offloads in pinned host memory;
    the backward pass in another jit reads them from there."""
    r = np.random.default_rng(0)
    w = (r.standard_normal((16, 16)) * 0.3).astype(np.float32)
    xs = r.standard_normal((8, 16)).astype(np.float32)
    forward = jax.jit(lambda w, xs: jax.vjp(_offloading_loss, w, xs))
    backward = jax.jit(lambda vjp: vjp(jnp.float32(1)))
    results = {}
    for d in (dev, cpu):
        loss, vjp = forward(jax.device_put(w, d), jax.device_put(xs, d))
        results[d.platform] = (loss, [kind_of(a) for a in jax.tree_util.tree_leaves(vjp)], backward(vjp))
    (l_dev, kinds_dev, g_dev), (l_cpu, kinds_cpu, g_cpu) = results[dev.platform], results[cpu.platform]
    assert kinds_dev.count("pinned_host") == 2, kinds_dev
    if cpu_has_host_kinds(cpu):
        assert kinds_dev == kinds_cpu
    np.testing.assert_allclose(float(l_dev), float(l_cpu), rtol=1e-5)
    for got, want in zip(g_dev, g_cpu):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)
    # The same step in one jit (where JAX keeps the residuals on the device) agrees.
    one = jax.jit(jax.grad(_offloading_loss))(jax.device_put(w, dev), jax.device_put(xs, dev))
    np.testing.assert_allclose(np.asarray(one), np.asarray(g_cpu[0]), rtol=1e-4, atol=1e-6)


def test_scan_with_host_offloaded_carry_matches_cpu(dev, cpu):
    r = np.random.default_rng(1)
    w = (r.standard_normal((8, 8)) * 0.4).astype(np.float32)
    xs = r.standard_normal((5, 8)).astype(np.float32)
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["c"],
        offload_src="device", offload_dst="pinned_host")

    def loss(w, xs):
        def body(c, x):
            c = checkpoint_name(jnp.sin(c @ w + x), "c")
            return c, c.sum()
        _, ys = jax.lax.scan(jax.checkpoint(body, policy=policy), jnp.zeros(8, jnp.float32), xs)
        return ys.sum()

    g = jax.jit(jax.grad(loss))
    got, want = (g(jax.device_put(w, d), jax.device_put(xs, d)) for d in (dev, cpu))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


def test_compute_on_device_host(dev, cpu):
    compute_on = pytest.importorskip("jax.experimental.compute_on").compute_on
    import inspect
    if "out_memory_spaces" not in inspect.signature(compute_on).parameters:
        pytest.skip("this jax's compute_on has no out_memory_spaces (an older API)")

    @compute_on(compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)
    @jax.jit
    def on_host(x):
        return x * 3

    f = jax.jit(lambda x: on_host(x) + 1)
    x = np.arange(8, dtype=np.float32)
    got, want = f(jax.device_put(x, dev)), f(jax.device_put(x, cpu))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert kind_of(got) == kind_of(want)


def test_an_unknown_memory_kind_names_the_kinds_there_are(dev):
    with pytest.raises(ValueError, match=r"device, pinned_host, unpinned_host"):
        jax.device_put(np.ones(3), SingleDeviceSharding(dev, memory_kind="hbm"))
