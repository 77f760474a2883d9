"""Host callbacks on the device under test: jax.debug.print, jax.debug.callback, jax.pure_callback and
io_callback inside jit, loops and transformations, each against JAX's CPU backend."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback


@pytest.fixture
def cpu():
    return jax.devices("cpu")[0]


def _on(device, fn, *args):
    """Runs `fn(*args)` jitted with the arguments placed on `device`; returns numpy results."""
    placed = [jax.device_put(a, device) for a in args]
    out = jax.jit(fn)(*placed)
    jax.effects_barrier()
    return jax.tree_util.tree_map(np.asarray, out)


def test_debug_print_inside_jit_prints_what_cpu_prints(dev, cpu, capsys):
    def f(x):
        y = jnp.sin(x) * 2
        jax.debug.print("y = {y}, sum = {s}", y=y, s=y.sum())
        return y + 1

    x = np.linspace(-1, 1, 5, dtype=np.float32)
    got = _on(dev, f, x)
    printed = capsys.readouterr().out
    want = _on(cpu, f, x)
    printed_cpu = capsys.readouterr().out
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert printed == printed_cpu
    assert printed.startswith("y = [")


def test_debug_callback_runs_once_per_loop_iteration_in_order(dev, cpu):
    def run(device):
        seen = []

        def f(x):
            def body(i, c):
                jax.debug.callback(lambda i, c: seen.append((int(i), float(c))), i, c)
                return c * 0.5 + 1

            return jax.lax.fori_loop(0, 6, body, x)

        out = _on(device, f, np.float32(3.0))
        return out, seen

    got, seen = run(dev)
    want, seen_cpu = run(cpu)
    np.testing.assert_allclose(got, want)
    assert seen == seen_cpu
    assert [i for i, _ in seen] == list(range(6))


def test_pure_callback_results_feed_later_ops_and_vmap(dev, cpu):
    def host_fn(x):
        return (np.cumsum(x, axis=-1) ** 2).astype(x.dtype)

    def f(x):
        spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jnp.tanh(jax.pure_callback(host_fn, spec, x * 3, vmap_method="sequential")) - x

    x = np.random.default_rng(0).standard_normal((4, 7)).astype(np.float32)
    np.testing.assert_allclose(_on(dev, f, x), _on(cpu, f, x), rtol=1e-5, atol=1e-6)
    batched = lambda xs: jax.vmap(f)(xs)  # noqa: E731
    xs = np.stack([x, -x, 2 * x])
    np.testing.assert_allclose(_on(dev, batched, xs), _on(cpu, batched, xs), rtol=1e-5, atol=1e-6)


def test_pure_callback_of_several_dtypes_and_results(dev, cpu):
    def host_fn(a, b):
        return a.astype(np.int32) * 2, (b > 0), np.float64(b.sum()).astype(np.float32)

    def f(a, b):
        specs = (jax.ShapeDtypeStruct(a.shape, jnp.int32), jax.ShapeDtypeStruct(b.shape, jnp.bool_),
                 jax.ShapeDtypeStruct((), jnp.float32))
        i, p, s = jax.pure_callback(host_fn, specs, a, b)
        return i + 1, jnp.where(p, b, 0.0), s

    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = np.array([-1.5, 0.0, 2.5], dtype=np.float32)
    for g, w in zip(_on(dev, f, a, b), _on(cpu, f, a, b)):
        np.testing.assert_array_equal(g, w)


def test_callbacks_under_grad(dev, cpu):
    def loss(w, x):
        jax.debug.callback(lambda v: None, w)
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    x = np.linspace(0, 2, 8, dtype=np.float32).reshape(2, 4)
    g = functools.partial(jax.grad(loss))
    np.testing.assert_allclose(_on(dev, g, w, x), _on(cpu, g, w, x), rtol=1e-5, atol=1e-6)


def test_unordered_io_callback(dev, cpu):
    def run(device):
        log = []

        def f(x):
            y = io_callback(lambda v: (log.append(float(v.sum())), v * 2)[1], jax.ShapeDtypeStruct(x.shape, x.dtype), x)
            return y + 1

        return _on(device, f, np.arange(3, dtype=np.float32)), log

    (got, log), (want, log_cpu) = run(dev), run(cpu)
    np.testing.assert_allclose(got, want)
    assert log == log_cpu == [3.0]


def test_an_exception_in_a_callback_is_an_error_of_that_execution(dev):
    def bad(x):
        raise ValueError("the host says no")

    def f(x):
        return jax.pure_callback(bad, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

    x = jax.device_put(np.ones(3, np.float32), dev)
    with pytest.raises(Exception, match="the host says no"):
        np.asarray(jax.jit(f)(x))
    # The device keeps working afterwards.
    np.testing.assert_allclose(np.asarray(jax.jit(lambda v: v * 2)(x)), 2 * np.ones(3))


@pytest.mark.parametrize("platform_fixture", ["dev", "cpu"])
def test_a_failing_pure_callback_raises_from_the_call_as_on_cpu(platform_fixture, request):
    """Without reading the result: the call that ran the callback raises (JAX's python_callback_test
    checks this for XLA:CPU); the device keeps working, and the same function runs again."""
    device = request.getfixturevalue(platform_fixture)
    fail = [True]

    def host(v):
        if fail[0]:
            raise ValueError("the host refuses this one")
        return np.asarray(v) * 3

    f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1)
    x = jax.device_put(np.ones(3, np.float32), device)
    with pytest.raises(Exception, match="the host refuses this one"):
        f(x)
    fail[0] = False
    np.testing.assert_allclose(np.asarray(f(x)), 4 * np.ones(3))


def test_a_callback_result_of_the_wrong_shape_is_an_error(dev):
    def f(x):
        return jax.pure_callback(lambda v: np.zeros(4, np.float32), jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    x = jax.device_put(np.ones(3, np.float32), dev)
    with pytest.raises(Exception, match="shape"):
        np.asarray(jax.jit(f)(x))


def test_ordered_effects_thread_tokens_through_main_and_loops(dev, cpu):
    def run(device):
        log = []

        def f(x):
            def body(c, _):
                io_callback(lambda v: log.append(float(v)), None, c, ordered=True)
                return c * 0.5 + 1, None

            return jax.lax.scan(body, x, None, length=4)[0]

        outs = [_on(device, f, np.float32(v)) for v in (3.0, 1.0)]
        return outs, log

    (got, log), (want, log_cpu) = run(dev), run(cpu)
    np.testing.assert_allclose(got, want)
    assert log == log_cpu
    assert len(log) == 8


def test_a_token_returned_by_jit_is_a_token_and_goes_back_in(dev, cpu):
    def run(device):
        with jax.default_device(device):
            token = jax.lax.create_token()
        # A token buffer has XLA's TOKEN type: JAX refuses to read it as an array, on every backend.
        with pytest.raises(RuntimeError, match="token-shape buffer"):
            token._buf._value
        arr = jax.device_put(np.arange(4, dtype=np.float32), device)
        out, out_token = jax.jit(lambda a, t: (a * 2, t))(arr, token)
        assert out_token._buf.devices() == {device}
        return np.asarray(out)

    np.testing.assert_array_equal(run(dev), run(cpu))


def test_a_python_literal_result_takes_the_declared_canonical_dtype(dev, cpu):
    # A callback may return a Python float (float64 to numpy): with x64 off JAX canonicalizes it to
    # float32 before checking it against the declared result, on every backend.
    def f(x):
        y = jax.pure_callback(lambda v: 0.5, jax.ShapeDtypeStruct((), jnp.float32), x)
        return x + y

    x = np.float32(2.0)
    got, want = _on(dev, f, x), _on(cpu, f, x)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_checkify_runtime_checks_raise_on_the_device(dev, cpu):
    from jax.experimental import checkify

    def f(x):
        checkify.check(jnp.all(x > 0), "must be positive, got {}", x)
        return x * 2

    with jax.experimental_unsafe_xla_runtime_errors(True) if hasattr(jax, "experimental_unsafe_xla_runtime_errors") \
            else _config("jax_experimental_unsafe_xla_runtime_errors", True):
        np.testing.assert_array_equal(_on(dev, f, np.float32(3)), _on(cpu, f, np.float32(3)))
        with pytest.raises(jax.errors.JaxRuntimeError, match="must be positive"):
            _on(dev, f, np.float32(-1))
    # The failed run's runtime token keeps its error (as on CPU); later tests must not see it.
    from jax._src import dispatch

    dispatch.runtime_tokens.clear()


class _config:
    """Sets a JAX flag for the duration of a with block."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __enter__(self):
        self.old = getattr(jax.config, self.name)
        jax.config.update(self.name, self.value)

    def __exit__(self, *exc):
        jax.config.update(self.name, self.old)
