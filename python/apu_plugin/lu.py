"""The lowering of `lax.linalg.lu` on apu: one `custom_call @LuDecomposition`.

JAX lowers `lu_p` to LAPACK's getrf on CPU, to `custom_call @LuDecomposition` on TPU, and everywhere else to
`_lu_python`: a loop with a masked pass over the whole panel per column, 5.3 ms for 256×256 on apu against
LAPACK's 0.5 ms. The TPU rule is plain MLIR (nothing TPU-specific), and apu computes that target natively
(runtime/src/linalg/lu.rs), so this registers JAX's TPU rule for apu. `jnp.linalg.solve`, `inv`, `det`,
`slogdet` and `jax.scipy.linalg.lu_factor` go through it.

Everything here is JAX's private API, so the caller guards it.
"""

from __future__ import annotations

TARGET = "LuDecomposition"


def register(platform: str) -> None:
    from jax._src.interpreters import mlir
    from jax._src.lax import linalg as lax_linalg

    mlir.register_lowering(lax_linalg.lu_p, lax_linalg._lu_tpu_lowering_rule, platform=platform)
