"""Linear algebra that JAX lowers to custom calls on plug-in platforms: QR (`Qr` and
`ProductOfElementaryHouseholderReflectors`) and eigh (`Eigh`, with the QDWH lowering apu's package registers),
against CPU's LAPACK results and the factorisation's own properties."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp

from helpers import assert_matches_cpu, run_jitted

rng = np.random.default_rng(23)

SHAPES = [(4, 3), (3, 4), (5, 5), (1, 1), (2, 3, 4, 2), (0, 3), (3, 0), (0, 2, 2)]


def sample(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check_factorisation(x, q, r, tol):
    """Q R = x, Q has orthonormal columns, R is upper triangular."""
    x64 = x.astype(np.complex128)
    np.testing.assert_allclose(q.astype(np.complex128) @ r.astype(np.complex128), x64, rtol=tol, atol=tol)
    k = q.shape[-1]
    qhq = np.conj(np.swapaxes(q, -1, -2)).astype(np.complex128) @ q.astype(np.complex128)
    np.testing.assert_allclose(qhq, np.broadcast_to(np.eye(k), qhq.shape), atol=tol)
    assert np.all(np.tril(r, -1) == 0)


def qr_matches_cpu(dev, cpu, shape, dtype, mode, tol):
    x = sample(shape, dtype)
    q, r = assert_matches_cpu(lambda a: jnp.linalg.qr(a, mode=mode), (x,), dev, cpu, "accumulate")
    check_factorisation(x, q, r, tol)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_qr_matches_cpu(dev, cpu, dtype, shape, mode):
    # Same Householder sign conventions as LAPACK, so Q and R agree with CPU directly (no sign fix-up).
    qr_matches_cpu(dev, cpu, shape, dtype, mode, 1e-5)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 5, 5)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_qr_matches_cpu_x64(dev, cpu, dtype, shape):
    with jax.enable_x64(True):
        qr_matches_cpu(dev, cpu, shape, dtype, "reduced", 1e-12)


def test_qr_r_only(dev, cpu):
    x = sample((5, 3), np.float32)
    (r,) = assert_matches_cpu(lambda a: jnp.linalg.qr(a, mode="r"), (x,), dev, cpu, "accumulate")
    assert r.shape == (3, 3) and np.all(np.tril(r, -1) == 0)


def test_qr_gradient(dev, cpu):
    # The JVP of QR reuses Q and R with triangular solves and matmuls.
    x = sample((4, 3), np.float32)
    fn = jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[0] ** 3) + jnp.sum(jnp.linalg.qr(a)[1]))
    assert_matches_cpu(fn, (x,), dev, cpu, "accumulate")


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 2)], ids=str)
def test_orthogonal_initializer(dev, cpu, shape):
    key = np.asarray(jax.random.PRNGKey(7))
    init = jax.nn.initializers.orthogonal()
    (w,) = assert_matches_cpu(lambda k: init(k, shape, jnp.float32), (key,), dev, cpu, "accumulate")
    # Rows or columns (whichever are fewer) of each matrix over the last axis are orthonormal.
    flat = w.reshape(-1, shape[-1]).astype(np.float64)
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-5)


def hermitian(shape, dtype):
    x = sample(shape, dtype)
    return (x + np.conj(np.swapaxes(x, -1, -2))) / 2


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (6, 6), (3, 5, 5), (40, 40), (160, 160), (300, 300), (0, 0)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_eigh_matches_cpu(dev, cpu, dtype, shape):
    # 300 is above 256, where JAX's TPU rule would switch to QDWH; apu's rule keeps one Eigh call.
    # Eigenvalues match CPU's; eigenvectors are unique only up to a phase, so they are checked by
    # A v = v diag(w) and vᴴ v = I.
    a = hermitian(shape, dtype)
    (w,) = assert_matches_cpu(jnp.linalg.eigvalsh, (a,), dev, cpu, "accumulate")
    w2, v = (np.asarray(t) for t in run_jitted(lambda a: tuple(jnp.linalg.eigh(a)), dev, a))  # (eigenvalues, eigenvectors)
    np.testing.assert_allclose(w2, w, rtol=1e-6, atol=1e-6)
    assert np.all(np.diff(w, axis=-1) >= 0), "eigenvalues ascend"
    a64, v64 = a.astype(np.complex128), v.astype(np.complex128)
    scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
    np.testing.assert_allclose(a64 @ v64, v64 * w[..., None, :], atol=2e-5 * scale * max(1, shape[-1]) ** 0.5)
    vhv = np.conj(np.swapaxes(v64, -1, -2)) @ v64
    np.testing.assert_allclose(vhv, np.broadcast_to(np.eye(shape[-1]), vhv.shape), atol=1e-5 * max(1, shape[-1]) ** 0.5)


def test_eigh_is_one_custom_call_at_every_size(dev):
    # The QDWH divide and conquer (a while loop of QR and matmuls) took ~13 s at 512 on apu, where the
    # Eigh kernel alone takes ~0.1 s; apu's rule must not fall back to it above 256.
    text = jax.jit(jnp.linalg.eigh).trace(jax.ShapeDtypeStruct((512, 512), np.float32)).lower(
        lowering_platforms=(dev.platform,)).as_text()
    assert text.count("@Eigh") == 1 and "while" not in text, text[:2000]


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_eigh_subset_by_index(dev, dtype, lower):
    # CPU refuses subset_by_index; apu slices the sorted full result, so numpy is the reference.
    a = hermitian((2, 7, 7), dtype)
    lo, hi = 2, 5
    w, v = (np.asarray(t) for t in run_jitted(
        lambda a: tuple(jax.lax.linalg.eigh(a, lower=lower, subset_by_index=(lo, hi))[::-1]), dev, a))
    assert w.shape == (2, hi - lo) and v.shape == (2, 7, hi - lo)
    want = np.linalg.eigvalsh(a.astype(np.complex128))[:, lo:hi]
    np.testing.assert_allclose(w, want, rtol=1e-5, atol=1e-5)
    a64, v64 = a.astype(np.complex128), v.astype(np.complex128)
    np.testing.assert_allclose(a64 @ v64, v64 * w[..., None, :], atol=1e-5)


def test_eigh_x64(dev, cpu):
    with jax.enable_x64(True):
        a = hermitian((12, 12), np.float64)
        assert_matches_cpu(jnp.linalg.eigvalsh, (a,), dev, cpu, "accumulate")


@pytest.mark.parametrize("name", ["svd", "lstsq", "pinv", "polyfit", "eigh_grad"])
def test_what_eigh_unlocks(dev, cpu, name):
    # JAX has no lowering of its own for these on a plug-in platform: they go through eigh.
    a = sample((7, 4), np.float32)
    b = sample((7,), np.float32)
    x = np.linspace(0, 1, 12, dtype=np.float32)
    fn, args = {
        "svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), (a,)),
        "lstsq": (lambda a, b: jnp.linalg.lstsq(a, b)[0], (a, b)),
        "pinv": (jnp.linalg.pinv, (a,)),
        "polyfit": (lambda x, y: jnp.polyfit(x, y, 2), (x, 3 * x**2 - x + 0.5)),
        "eigh_grad": (jax.grad(lambda h: jnp.sum(jnp.linalg.eigvalsh(h) ** 2)), (hermitian((5, 5), np.float32),)),
    }[name]
    assert_matches_cpu(fn, args, dev, cpu, "accumulate")


def matches_cpu_within(fn, args, dev, cpu, n):
    """fn's outputs on dev and on CPU agree within a tolerance that grows with the order n: LAPACK
    computes in the element type and apu in f64, so their f32 rounding errors part as n grows
    (1.6e-5 on entries of ~1 at n = 40)."""
    got = run_jitted(fn, dev, *args)
    want = run_jitted(fn, cpu, *args)
    tol = 1e-5 * max(1.0, n / 4)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"output {i}")
    return got


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 6, 6), (40, 40)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_hessenberg_matches_cpu(dev, cpu, dtype, shape):
    # CPU runs LAPACK's gehrd; apu its own ApuHessenberg with LAPACK's conventions, so the packed
    # reflectors and taus match too, and so does jax.scipy.linalg.hessenberg's Q.
    a = sample(shape, dtype)
    n = shape[-1]
    matches_cpu_within(lambda a: tuple(jax.lax.linalg.hessenberg(a)), (a,), dev, cpu, n)
    if len(shape) == 2:
        h, q = matches_cpu_within(lambda a: jax.scipy.linalg.hessenberg(a, calc_q=True), (a,), dev, cpu, n)
        q64 = q.astype(np.complex128)
        np.testing.assert_allclose(q64 @ h @ np.conj(q64.T), a, atol=1e-4 * max(1, shape[-1]))
        np.testing.assert_array_equal(np.tril(h, -2), 0)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 6, 6), (40, 40)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_tridiagonal_matches_cpu(dev, cpu, dtype, shape, lower):
    # sytrd / hetrd read one triangle of a (here not Hermitian: the other triangle must be ignored
    # and handed back unchanged), and return the packed reflectors, the real diagonal and
    # off-diagonal, and the taus.
    a = sample(shape, dtype)
    # The diagonal of the packed result is d; LAPACK's blocked hetrd (n above its crossover, 40 here)
    # leaves one imaginary part there unzeroed, so the packed diagonal is compared as its real part.
    def reduce(a):
        packed, d, e, taus = jax.lax.linalg.tridiagonal(a, lower=lower)
        eye = jnp.eye(a.shape[-1], dtype=bool)
        return jnp.where(eye, packed.real.astype(packed.dtype), packed), d, e, taus
    got = matches_cpu_within(reduce, (a,), dev, cpu, shape[-1])
    untouched = np.triu(a, 1) if lower else np.tril(a, -1)
    np.testing.assert_array_equal(np.triu(got[0], 1) if lower else np.tril(got[0], -1), untouched)


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (6, 3), (3, 6), (2, 5, 5), (40, 40), (0, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_lu_matches_cpu(dev, cpu, dtype, shape):
    # CPU runs LAPACK's getrf; apu its LuDecomposition kernel (JAX's TPU rule, registered for apu):
    # the same pivots and permutation, and the same factors up to rounding.
    a = sample(shape, dtype)
    lu, pivots, perm = matches_cpu_within(lambda a: tuple(jax.lax.linalg.lu(a)), (a,), dev, cpu, max(shape[-2:]))
    want = run_jitted(lambda a: tuple(jax.lax.linalg.lu(a)), cpu, a)
    np.testing.assert_array_equal(pivots, want[1])
    np.testing.assert_array_equal(perm, want[2])


def test_lu_is_one_custom_call(dev):
    # JAX's fallback for a plug-in platform is _lu_python, a loop of whole-panel passes per column
    # (5.3 ms at 256 on apu against LAPACK's 0.5 ms); apu's rule sends lu to its kernel instead.
    text = jax.jit(jnp.linalg.solve).trace(jax.ShapeDtypeStruct((256, 256), np.float32),
                                           jax.ShapeDtypeStruct((256, 3), np.float32)).lower(
        lowering_platforms=(dev.platform,)).as_text()
    assert text.count("@LuDecomposition") == 1 and "while" not in text, text[:2000]
