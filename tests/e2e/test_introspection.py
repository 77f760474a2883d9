"""What JAX can ask of a compiled apu executable besides running it."""

import jax
import jax.numpy as jnp
import numpy as np


def test_compiled_as_text_is_the_program_apu_runs(dev):
    def f(x, w):
        return jax.nn.softmax(jnp.tanh(x @ w), axis=-1)

    x, w = jax.device_put((np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)), dev)
    compiled = jax.jit(f).lower(x, w).compile()
    text = compiled.as_text()
    # JAX parses apu's StableHLO text (PJRT_Executable_OptimizedProgram, format "mlir") and prints it as HLO.
    assert text is not None and "tanh" in text and "dot" in text, text
    np.testing.assert_allclose(np.asarray(compiled(x, w)), np.full((2, 4), 0.25, np.float32), rtol=1e-6)
