"""Lowerings of `lax.linalg.schur` and `lax.linalg.eig` on apu.

JAX lowers both to LAPACK (gees, geev) on CPU only; GPU has eig alone and TPU neither, so on apu
`jax.scipy.linalg.schur`, `sqrtm`, `funm`, `solve_sylvester` and `jnp.linalg.eig` / `eigvals` failed to
lower. These rules emit apu's own targets (runtime/src/linalg/schur.rs and eig.rs), which compute what gees
and geev define: the Schur form (real quasi-triangular for real input) with its vectors, and the eigenvalues
with unit eigenvectors whose largest entry is real, the normalization JAX's eig derivatives assume.

Everything here is JAX's private API, so the caller guards it.
"""

from __future__ import annotations

SCHUR = "ApuSchur"
EIG = "ApuEig"


def register(platform: str) -> None:
    from jax._src.interpreters import mlir
    from jax._src.lax import linalg as lax_linalg

    from .condensed import custom_call

    def schur(ctx, a, *, compute_schur_vectors, sort_eig_vals, select_callable):
        del select_callable  # only used with sorting
        if sort_eig_vals:
            raise NotImplementedError("schur on apu does not sort eigenvalues (nor does JAX's CPU lowering)")
        return custom_call(ctx, SCHUR, a, "vectors" if compute_schur_vectors else "no_vectors")

    def eig(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs, implementation):
        del enable_eigvec_derivs  # a differentiation flag; the values are the same
        if implementation not in (None, lax_linalg.EigImplementation.LAPACK):
            raise ValueError(f"eig on apu computes what LAPACK's geev does; implementation={implementation} is not available")
        config = f"{int(bool(compute_left_eigenvectors))},{int(bool(compute_right_eigenvectors))}"
        return custom_call(ctx, EIG, a, config)

    mlir.register_lowering(lax_linalg.schur_p, schur, platform=platform)
    mlir.register_lowering(lax_linalg.eig_p, eig, platform=platform)
