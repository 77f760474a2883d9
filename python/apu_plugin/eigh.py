"""The lowering of `lax.linalg.eigh` on apu: one `custom_call @Eigh` at every size.

JAX registers eigh lowerings only for cpu/cuda/rocm (LAPACK and solver custom calls) and tpu. The TPU
rule sends matrices up to 256 to `custom_call @Eigh` (XLA's Jacobi target) and larger ones through QDWH
divide and conquer in plain ops. apu's Eigh kernel is a full O(n³) solver (Householder tridiagonalization
and implicit QL) for any n, so this rule sends every size to it: at 512 that is ~0.1 s where the QDWH
route took ~13 s. `subset_by_index` (which CPU refuses) is the slice of the sorted full result.

Everything here is JAX's private API, so the caller guards it; shapes that are not static go to the TPU
rule, which knows how to pass dynamic result shapes.
"""

from __future__ import annotations

import numpy as np

TARGET = "Eigh"


def register(platform: str) -> None:
    from jax._src import core
    from jax._src.interpreters import mlir
    from jax._src.lax import linalg as lax_linalg
    from jax._src.tpu.linalg import eigh as tpu_eigh

    def lowering(ctx, operand, *, lower, sort_eigenvalues, subset_by_index, algorithm):
        (a_aval,) = ctx.avals_in
        v_aval, w_aval = ctx.avals_out
        if not all(core.is_constant_shape(aval.shape) for aval in (a_aval, v_aval, w_aval)):
            return tpu_eigh._eigh_tpu_lowering(
                ctx, operand, lower=lower, sort_eigenvalues=sort_eigenvalues,
                subset_by_index=subset_by_index, algorithm=algorithm)
        *batch, n = a_aval.shape[:-1]
        everything = subset_by_index is None or tuple(subset_by_index) == (0, n)
        # The algorithm requested (QR, Jacobi, QDWH) names how other backends work; apu has one.
        del algorithm
        full_v = a_aval
        full_w = w_aval.update(shape=(*batch, n))
        # Sorted whenever a subset is taken: subset indices count eigenvalues in ascending order.
        config = f"{int(lower)},{int(sort_eigenvalues or not everything)},100,1e-6"
        v, w = mlir.custom_call(
            TARGET,
            result_types=[mlir.aval_to_ir_type(ctx.module_context, aval) for aval in (full_v, full_w)],
            operands=[operand],
            backend_config=config,
            api_version=1,
        ).results
        if everything:
            return [v, w]
        lo, hi = subset_by_index
        rank = len(batch) + 1
        zeros = (0,) * rank
        v = mlir.slice_op(ctx, v, v_aval, start_indices=(*zeros, lo), limit_indices=(*batch, n, hi),
                          strides=np.ones(rank + 1, np.int64))
        w = mlir.slice_op(ctx, w, w_aval, start_indices=(*zeros[:-1], lo), limit_indices=(*batch, hi),
                          strides=np.ones(rank, np.int64))
        return [v, w]

    mlir.register_lowering(lax_linalg.eigh_p, lowering, platform=platform)
