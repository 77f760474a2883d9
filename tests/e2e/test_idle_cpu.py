"""No thread of the plugin burns CPU while no work is pending (issue 31): after JAX programs whose kernels
are split across apu's worker pool (run inline and on a device's worker), the process spends almost no CPU
time over the next second. A fresh interpreter with only the platform under test loaded, so that no other
backend's threads are counted."""

from __future__ import annotations


def test_an_idle_second_after_runs_costs_almost_no_cpu_time(platform, run_python):
    out = run_python(f"""
        import time
        import jax, jax.numpy as jnp
        dev = jax.devices({platform!r})[0]
        x = jax.device_put(jnp.ones((512, 512), jnp.float32), dev)
        small = jax.jit(lambda a: jnp.tanh(a * 2.0 + 1.0).sum(axis=1))
        large = jax.jit(lambda a: jnp.tanh(a @ a).sum(axis=1) + jnp.exp(a).max())
        for _ in range(30):
            small(x).block_until_ready()
        for _ in range(10):
            ys = [large(x) for _ in range(3)]
            ys[-1].block_until_ready()
        before = time.process_time()
        time.sleep(1.0)
        print("idle_cpu_ms", (time.process_time() - before) * 1e3)
    """, env={"JAX_PLATFORMS": platform})
    assert out.returncode == 0, out.stderr[-2000:]
    spent = float(out.stdout.split("idle_cpu_ms")[-1])
    # A thread spinning through the second would cost ~1000 ms; wake-ups and timers cost well under 50 ms.
    assert spent < 50, f"{spent:.1f} ms of CPU time over an idle second"
