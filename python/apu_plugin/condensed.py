"""Lowerings of `lax.linalg.hessenberg` and `lax.linalg.tridiagonal` on apu.

JAX lowers both to LAPACK custom calls (gehrd, sytrd / hetrd) on CPU and GPU and has no rule for a plug-in
platform, so `jax.scipy.linalg.hessenberg` and `lax.linalg.tridiagonal` failed to lower on apu. These rules
emit apu's own targets, `ApuHessenberg` and `ApuTridiagonal` (runtime/src/linalg/condensed.rs), which
follow LAPACK's conventions, so results match CPU. The triangle `tridiagonal` reads goes in the backend
config ("lower" / "upper").

Everything here is JAX's private API, so the caller guards it.
"""

from __future__ import annotations

HESSENBERG = "ApuHessenberg"
TRIDIAGONAL = "ApuTridiagonal"


def custom_call(ctx, target, operand, config=None):
    """One `custom_call @target` on one operand with results of the primitive's output avals, api_version 1;
    `config`, if given, is the backend_config string. Shared by apu's linear-algebra lowerings."""
    from jax._src import core
    from jax._src.interpreters import mlir

    (a_aval,) = ctx.avals_in
    if not core.is_constant_shape(a_aval.shape):
        raise ValueError(f"{target} on apu needs a static shape, got {a_aval.shape}")
    return mlir.custom_call(
        target,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out],
        operands=[operand],
        backend_config=config,
        api_version=1,
    ).results


def register(platform: str) -> None:
    from jax._src.interpreters import mlir
    from jax._src.lax import linalg as lax_linalg

    def hessenberg(ctx, a):
        return custom_call(ctx, HESSENBERG, a)

    def tridiagonal(ctx, a, *, lower):
        return custom_call(ctx, TRIDIAGONAL, a, "lower" if lower else "upper")

    mlir.register_lowering(lax_linalg.hessenberg_p, hessenberg, platform=platform)
    mlir.register_lowering(lax_linalg.tridiagonal_p, tridiagonal, platform=platform)
