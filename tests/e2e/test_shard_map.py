"""pmap and shard_map on 4 devices of the platform under test against JAX's CPU backend with 4 devices
(decision 65): psum, pmean, all_gather, ppermute (also inside fori_loop), psum_scatter, all_to_all and
axis_index over 1-D and 2-D meshes. Results must be equal and live on the platform's devices.

Each case runs in a fresh interpreter: the device counts are read once per process."""

import json

import numpy as np
import pytest

ENV = {"APU_NUM_DEVICES": "4", "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

PRELUDE = """
import json, jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, PartitionSpec as P
try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map
RING = [(i, (i + 1) % 4) for i in range(4)]

def on(platform, make, *args):
    devs = jax.devices(platform)[:4]
    assert len(devs) == 4, devs
    fn = make(np.array(devs))
    out = jax.tree.leaves(fn(*args))
    return [np.asarray(o).tolist() for o in out], [sorted(str(d) for d in o.devices()) for o in out], [str(d) for d in devs]

def report(make, *args):
    got, where, devs = on(PLATFORM, make, *args)
    want, _, _ = on("cpu", make, *args)
    print(json.dumps({"got": got, "want": want, "where": where, "devs": devs}))
"""

CASES = {
    "pmap_collectives": """
def make(devs):
    def f(x):
        return (jax.lax.psum(x, "i"), jax.lax.pmean(x, "i"), jax.lax.all_gather(x, "i"),
                jax.lax.ppermute(x, "i", RING), x * jax.lax.axis_index("i"))
    return jax.pmap(f, axis_name="i", devices=list(devs))
report(make, np.arange(12, dtype=np.float32).reshape(4, 3))
""",
    "shard_map_1d": """
def make(devs):
    mesh = Mesh(devs, ("x",))
    def f(a):
        return (jax.lax.psum(a, "x"), jax.lax.all_gather(a, "x").sum(0) + jax.lax.ppermute(a, "x", RING)
                + jax.lax.axis_index("x"),
                jax.lax.psum_scatter(a, "x", scatter_dimension=0, tiled=True),
                jax.lax.all_to_all(a, "x", 0, 0, tiled=True))
    return jax.jit(shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=(P(), P("x"), P("x"), P("x"))))
report(make, (np.arange(32, dtype=np.float32) % 7))
""",
    "ring_in_fori_loop": """
def make(devs):
    mesh = Mesh(devs, ("x",))
    def f(a):
        return jax.lax.fori_loop(0, 5, lambda i, c: jax.lax.ppermute(c, "x", RING) * 0.5 + a, a)
    return jax.jit(shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
report(make, np.arange(8, dtype=np.float32))
""",
    "shard_map_2d": """
def make(devs):
    mesh = Mesh(devs.reshape(2, 2), ("a", "b"))
    def f(a, w):
        return jax.lax.psum(a @ w, "b") * (1 + jax.lax.axis_index("a")), jax.lax.pmax(a, "a")
    return jax.jit(shard_map(f, mesh=mesh, in_specs=(P("a", "b"), P("b", None)), out_specs=(P("a", None), P(None, "b"))))
report(make, np.arange(16, dtype=np.float32).reshape(4, 4) % 5, np.arange(12, dtype=np.float32).reshape(4, 3) % 3)
""",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_manual_collectives_match_cpu(run_python, platform, case):
    proc = run_python(f"PLATFORM = {platform!r}\n" + PRELUDE + CASES[case], env=ENV)
    assert proc.returncode == 0, proc.stderr[-4000:]
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(info["got"]) == len(info["want"])
    for got, want in zip(info["got"], info["want"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
    # Every result lives on the platform's devices (all four of them for sharded results).
    for where in info["where"]:
        assert where and set(where) <= set(info["devs"]), (where, info["devs"])
