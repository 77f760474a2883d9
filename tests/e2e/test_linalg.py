"""Linear algebra that JAX lowers to custom calls on plug-in platforms: QR (`Qr` and
`ProductOfElementaryHouseholderReflectors`) and eigh (`Eigh`, with the QDWH lowering apu's package registers),
against CPU's LAPACK results and the factorisation's own properties."""

import os
import zlib

import numpy as np
import pytest

import jax
import jax.numpy as jnp

from helpers import assert_matches_cpu, run_jitted

rng = np.random.default_rng()


@pytest.fixture(autouse=True)
def seeded_per_test(request):
    """Each test draws from its own generator, seeded by its name, so the matrices it gets do not
    depend on which tests ran before it (a test selected alone with -k sees what it sees in the full
    run). APU_TEST_SEED shifts every seed, to try the tolerances on other samples."""
    global rng
    rng = np.random.default_rng([zlib.crc32(request.node.name.encode()), int(os.environ.get("APU_TEST_SEED", "0"))])

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
    # Against LAPACK in double precision on the same values: apu reduces in f64 and rounds once,
    # while single-precision LAPACK's rounding errors grow through the n - 2 reflections and the
    # later reflector entries amplify them (up to 1.3e-3 at n = 40 on some samples).
    got = run_jitted(reduce, dev, a)
    with jax.enable_x64(True):
        wide = run_jitted(reduce, cpu, a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
    # So apu's results are the double-precision ones rounded: within a few ulps of them.
    tol = 2e-6
    for i, (g, w) in enumerate(zip(got, wide)):
        assert g.dtype in (np.dtype(dtype), np.finfo(dtype).dtype), (i, g.dtype)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"output {i}")
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


def assert_same_eigenvalues(got, want, atol):
    """Every eigenvalue of each set lies within atol of one of the other's, batch by batch (the order
    of an eigendecomposition is not part of its definition)."""
    got, want = np.asarray(got).astype(np.complex128), np.asarray(want).astype(np.complex128)
    dist = np.abs(got[..., :, None] - want[..., None, :])
    assert np.all(dist.min(axis=-1) <= atol) and np.all(dist.min(axis=-2) <= atol), (got, want)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 6, 6), (40, 40)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_schur_matches_cpu(dev, cpu, dtype, shape):
    # CPU runs LAPACK's gees; apu its ApuSchur kernel, LAPACK's small-matrix iteration (xLAHQR) in f64.
    # The Schur form is not unique, so what must agree is what defines it: Z unitary, Z T Zᴴ = A, T
    # (quasi-)triangular with the same eigenvalues on its diagonal in the same order as LAPACK's.
    a = sample(shape, dtype)
    n = shape[-1]
    t, z = run_jitted(lambda a: tuple(jax.lax.linalg.schur(a)), dev, a)
    t_cpu, _ = run_jitted(lambda a: tuple(jax.lax.linalg.schur(a)), cpu, a)
    z64, t64 = z.astype(np.complex128), t.astype(np.complex128)
    zh = np.conj(np.swapaxes(z64, -1, -2))
    tol = 1e-5 * max(1.0, n / 4)
    np.testing.assert_allclose(z64 @ t64 @ zh, a, atol=tol * 4)
    np.testing.assert_allclose(zh @ z64, np.broadcast_to(np.eye(n), zh.shape), atol=tol)
    np.testing.assert_array_equal(np.tril(t, -1 if np.dtype(dtype).kind == "c" else -2), 0)
    # The same diagonal (for real matrices: of the standardized blocks) as LAPACK's. The order is where
    # the iteration deflated, which rounding decides once several eigenvalues are close in speed of
    # convergence: at 40 LAPACK (in f32) and apu (in f64) differ by a swap or two, so it is compared
    # as a set there and in order on small matrices.
    diag, diag_cpu = np.diagonal(t, axis1=-2, axis2=-1), np.diagonal(t_cpu, axis1=-2, axis2=-1)
    if n <= 6:
        np.testing.assert_allclose(diag, diag_cpu, atol=tol * 10)
    else:
        assert_same_eigenvalues(diag, diag_cpu, tol * 10)


@pytest.mark.parametrize("left,right", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 5, 5), (30, 30)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_eig_matches_cpu(dev, cpu, dtype, shape, left, right):
    # CPU runs LAPACK's geev. Eigenvalues agree with CPU's; eigenvectors satisfy their definitions with
    # geev's normalization (unit norm, largest entry real), which JAX's eig derivatives assume.
    a = sample(shape, dtype)
    n = shape[-1]
    fn = lambda a: tuple(jax.lax.linalg.eig(a, compute_left_eigenvectors=left, compute_right_eigenvectors=right))
    got = run_jitted(fn, dev, a)
    want = run_jitted(fn, cpu, a)
    assert [g.dtype for g in got] == [w.dtype for w in want] and [g.shape for g in got] == [w.shape for w in want]
    w = got[0]
    tol = 1e-5 * max(1.0, n / 2)
    assert_same_eigenvalues(w, want[0], tol * 4)
    a64 = a.astype(np.complex128)
    vectors = dict(zip([k for k, on in (("vl", left), ("vr", right)) if on], got[1:]))
    for name, v in vectors.items():
        v64 = v.astype(np.complex128)
        m = np.conj(np.swapaxes(a64, -1, -2)) if name == "vl" else a64
        lam = np.conj(w) if name == "vl" else w
        np.testing.assert_allclose(m @ v64, lam[..., None, :] * v64, atol=tol * 8, err_msg=name)
        np.testing.assert_allclose(np.linalg.norm(v64, axis=-2), 1.0, atol=1e-5, err_msg=name)
        big = np.take_along_axis(v64, np.argmax(np.abs(v64), axis=-2)[..., None, :], axis=-2)
        if np.dtype(dtype).kind == "c":
            np.testing.assert_allclose(big.imag, 0, atol=1e-6, err_msg=name)
    if np.dtype(dtype).kind == "f":
        # A real matrix: exactly real eigenvalues or exact conjugate pairs, as geev packs them.
        real = w.imag == 0
        pairs = np.all(real | np.isin(w, np.conj(w)))
        assert pairs, w


def test_eig_of_nan_and_inf_is_nan(dev):
    for bad in (np.nan, np.inf):
        a = np.full((2, 4, 4), 1.0, np.float32)
        a[0, 1, 2] = bad
        outs = run_jitted(lambda a: tuple(jax.lax.linalg.eig(a)), dev, a)
        for o in outs:
            assert np.all(np.isnan(o[0])) and np.all(np.isfinite(o[1])), (bad, o)
        t, z = run_jitted(lambda a: tuple(jax.lax.linalg.schur(a)), dev, a)
        assert np.all(np.isnan(t[0])) and np.all(np.isnan(z[0])) and np.all(np.isfinite(t[1]))


@pytest.mark.parametrize("name", ["sqrtm", "funm", "sylvester", "eigvals", "eigvals_grad", "schur_complex"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_what_schur_and_eig_unlock(dev, cpu, name, dtype):
    # Functions JAX builds on schur and eig, whose results are unique, against CPU.
    a = sample((6, 6), dtype)
    spd = (a @ np.conj(a.T) + 6 * np.eye(6)).astype(dtype)
    b = sample((4, 4), dtype)
    c = sample((6, 4), dtype)
    fn, args, tol = {
        "sqrtm": (jax.scipy.linalg.sqrtm, (spd,), 1e-4),
        "funm": (lambda x: jax.scipy.linalg.funm(x, jnp.exp), (a,), 1e-4),
        "sylvester": (jax.scipy.linalg.solve_sylvester, (spd, b + 6 * np.eye(4, dtype=dtype), c), 1e-4),
        "eigvals": (lambda x: jnp.sort(jnp.linalg.eigvals(x)), (a,), 1e-4),
        "eigvals_grad": (jax.grad(lambda x: jnp.sum(jnp.abs(jnp.linalg.eigvals(x)) ** 2)), (a,), 1e-3),
        "schur_complex": (lambda x: jnp.diagonal(jax.scipy.linalg.schur(x, output="complex")[0]), (a,), 1e-4),
    }[name]
    got = run_jitted(fn, dev, *args)
    want = run_jitted(fn, cpu, *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
