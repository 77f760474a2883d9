"""Behaviour that JAX's own test suite found missing or wrong on apu, each checked against CPU or numpy here
so that it stays fixed without running the suite (scripts/jax_conformance.py)."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

from helpers import assert_matches_cpu, run_jitted

rng = np.random.default_rng(5)


def test_deeply_nested_python_calls_read(dev, cpu):
    # Each Python frame adds a call-site location; 80 nested calls make a location chain far deeper
    # than one attribute referencing another a few times.
    def nest(x, depth):
        return jnp.sin(x) if depth == 0 else nest(x, depth - 1) + 1.0

    x = rng.standard_normal(5).astype(np.float32)
    assert_matches_cpu(lambda x: nest(x, 80), (x,), dev, cpu)


def test_sharding_constraint_on_a_one_device_mesh(dev, cpu):
    mesh = jax.sharding.Mesh(np.array([dev]), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    fn = lambda x: lax.with_sharding_constraint(x * 2.0, sharding) + 1.0
    x = jax.device_put(np.arange(8, dtype=np.float32), dev)
    np.testing.assert_array_equal(np.asarray(jax.jit(fn)(x)), np.arange(8) * 2.0 + 1.0)


@pytest.mark.parametrize("algorithm", ["F32_F32_F32", "BF16_BF16_F32", "BF16_BF16_F32_X3", "TF32_TF32_F32"])
def test_dot_algorithms(dev, cpu, algorithm):
    # XLA:CPU accepts these as permissions and returns the f32-accurate product (it refuses TF32 by
    # name); apu does the same, for every algorithm.
    if algorithm == "TF32_TF32_F32" and dev.platform == "cpu":
        pytest.skip("XLA:CPU refuses TF32_TF32_F32")
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 4)).astype(np.float32)
    fn = lambda a, b: lax.dot(a, b, precision=algorithm)
    (got,) = run_jitted(fn, dev, a, b) if algorithm == "TF32_TF32_F32" else assert_matches_cpu(fn, (a, b), dev, cpu)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_highest_result_accuracy(dev, cpu):
    x = rng.standard_normal(64).astype(np.float32)
    fn = lambda x: (lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST), lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST))
    assert_matches_cpu(fn, (x,), dev, cpu, "transcendental")


def test_bitcast_to_and_from_four_bit_integers(dev, cpu):
    x = rng.standard_normal((3,)).astype(np.float32)
    fn = lambda x: (lax.bitcast_convert_type(x, jnp.uint4), lax.bitcast_convert_type(lax.bitcast_convert_type(x, jnp.int4), jnp.float32))
    nibbles, back = assert_matches_cpu(fn, (x,), dev, cpu, "exact")
    assert nibbles.shape == (3, 8)
    np.testing.assert_array_equal(back, x)
    low_first = (x.view(np.uint32)[:, None] >> (4 * np.arange(8, dtype=np.uint32))) & 0xF
    np.testing.assert_array_equal(nibbles.astype(np.uint32), low_first)


def test_boolean_dot_and_conv(dev, cpu):
    a = rng.random((4, 5)) < 0.3
    b = rng.random((5, 3)) < 0.3
    lhs = rng.random((1, 2, 6)) < 0.5
    rhs = rng.random((3, 2, 2)) < 0.5
    fn = lambda a, b, l, r: (lax.dot(a, b), lax.conv_general_dilated(l, r, (1,), "VALID"))
    got = assert_matches_cpu(fn, (a, b, lhs, rhs), dev, cpu, "exact")
    np.testing.assert_array_equal(got[0], (a.astype(int) @ b.astype(int)) > 0)


def test_complex_tanh_tan_expm1_at_the_edges(dev, cpu):
    z = np.array([1e23 + 2j, -3e38 + 1e-15j, 88.5 + 0.3j, 1e-15 + 4.5e-8j, 1.2e-38 + 4.5e-8j, 100 + 0j, 0.5 - 0.25j],
                 np.complex64)
    got = run_jitted(lambda z: (jnp.tanh(z), jnp.tan(1j * z), jnp.expm1(z)), dev, z)
    with np.errstate(all="ignore"):
        want = [np.tanh(z.astype(np.complex128)), np.tan(1j * z.astype(np.complex128)), np.expm1(z.real.astype(np.float64)) * np.cos(z.imag.astype(np.float64)) - 2 * np.sin(z.imag.astype(np.float64) / 2) ** 2]
    np.testing.assert_allclose(got[0], want[0].astype(np.complex64), rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(got[1], want[1].astype(np.complex64), rtol=1e-6, atol=1e-30)
    finite = np.isfinite(want[2])
    np.testing.assert_allclose(got[2].real[finite], want[2][finite].astype(np.float32), rtol=1e-5, atol=1e-30)
    assert got[2].imag[5] == 0.0  # e^100 overflows f32, the imaginary part of a real argument stays 0


def test_jit_of_identity_returns_a_new_buffer(dev):
    x = jax.device_put(jnp.ones(10), dev)
    y = jax.jit(lambda v: v)(x)
    assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
    x.delete()
    np.testing.assert_array_equal(np.asarray(y), np.ones(10))


def test_dce_sink_is_accepted(dev, cpu):
    def fn(x):
        lax.dce_sink(x + 1, prevent_mlir_dce=True)
        return x * 2
    assert_matches_cpu(fn, (np.float32(3.0),), dev, cpu, "exact")


@pytest.mark.parametrize("name, shape, fn", [
    ("fft", (0,), jnp.fft.fft),
    ("ifft", (3, 0), jnp.fft.ifft),
    ("fft2", (2, 0), jnp.fft.fft2),
    ("irfft", (0,), jnp.fft.irfft),
    ("irfft of one bin", (1,), jnp.fft.irfft),  # to 2 * (1 - 1) = 0 points
])
def test_empty_fft(dev, cpu, name, shape, fn):
    # fft_length 0 is an empty transform (fft_test.py testFftEmpty); apu refused it when the program ran.
    x = np.zeros(shape, np.complex64)
    (got,) = assert_matches_cpu(fn, (x,), dev, cpu)
    (want,) = run_jitted(fn, cpu, x)
    assert got.shape == want.shape and got.dtype == want.dtype and got.size == 0, (name, got.shape, want.shape)
