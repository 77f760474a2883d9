"""jit over NamedShardings on 4 devices of the platform under test against JAX's CPU backend with 4 devices
(decision 64): the global program runs once over the devices' pieces. Inputs sharded and replicated, a 2-D mesh,
an output sharding asked for, a data-parallel gradient step. Results must be equal, live on the platform's devices
and keep the shardings asked for.

Each case runs in a fresh interpreter: the device counts are read once per process."""

import json

import numpy as np
import pytest

ENV = {"APU_NUM_DEVICES": "4", "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

SCRIPT = """
import json, jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

def run(platform):
    devs = np.array(jax.devices(platform)[:4])
    assert len(devs) == 4, devs
    mesh, mesh2 = Mesh(devs, ("x",)), Mesh(devs.reshape(2, 2), ("a", "b"))
    x = jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4) % 5, NamedSharding(mesh, P("x")))
    w = jax.device_put(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), NamedSharding(mesh, P()))
    y = jax.jit(lambda x, w: jnp.tanh(x @ w) + x.sum())(x, w)
    z = jax.jit(lambda x: x * 2 + 1, out_shardings=NamedSharding(mesh2, P("a", "b")))(x)
    loss = lambda w, x: ((x @ w) ** 2).mean()
    g = jax.jit(jax.grad(loss), out_shardings=NamedSharding(mesh, P()))(w, x)
    m = jax.jit(lambda x: x @ x.T, in_shardings=NamedSharding(mesh2, P("a", "b")))(np.asarray(x))
    outs = [y, z, g, m]
    return ([np.asarray(o).tolist() for o in outs], [sorted(str(d) for d in o.devices()) for o in outs],
            [str(d) for d in devs], str(z.sharding.spec), [len(o.addressable_shards) for o in outs])

got, where, devs, zspec, nshards = run(PLATFORM)
want, _, _, zspec_cpu, _ = run("cpu")
print(json.dumps({"got": got, "want": want, "where": where, "devs": devs, "zspec": [zspec, zspec_cpu], "nshards": nshards}))
"""


def test_sharded_jit_matches_cpu_on_four_devices(run_python, platform):
    proc = run_python(f"PLATFORM = {platform!r}\n" + SCRIPT, env=ENV)
    assert proc.returncode == 0, proc.stderr[-4000:]
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    for got, want in zip(info["got"], info["want"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    for where in info["where"]:
        assert set(where) == set(info["devs"]), (where, info["devs"])
    assert info["zspec"][0] == info["zspec"][1], info["zspec"]
    assert info["nshards"] == [4, 4, 4, 4], info["nshards"]


def _on_platform_and_cpu(run_python, platform, script):
    """Runs `script` (which prints {"got": run(PLATFORM), "want": run("cpu")} as JSON) in a fresh interpreter
    with 4 devices of each platform; returns (got, want)."""
    proc = run_python(f"PLATFORM = {platform!r}\n" + script, env=ENV)
    assert proc.returncode == 0, proc.stderr[-4000:]
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    return info["got"], info["want"]


CALLBACK_SCRIPT = """
import json, jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

def run(platform):
    devs = jax.devices(platform)[:4]
    s = NamedSharding(Mesh(np.array(devs), ("x",)), P("x"))
    calls = []

    def host(v):
        calls.append(list(v.shape))
        return v * 2

    def f(a):
        out = jax.ShapeDtypeStruct(a.shape, a.dtype)
        return jax.pure_callback(host, out, a, sharding=SingleDeviceSharding(devs[-1])) + 1

    g = jax.jit(f, in_shardings=s, out_shardings=s)
    x = jax.device_put(np.arange(8, dtype=np.float32), s)
    y = g(x)
    return np.asarray(y).tolist(), calls, "@maximal_mesh_3" in g.lower(x).as_text()

print(json.dumps({"got": run(PLATFORM), "want": run("cpu")}))
"""


def test_a_callback_with_a_maximal_sharding_runs_once_on_the_whole_value(run_python, platform):
    # JAX annotates the callback with a one-device (maximal) sharding on the last device; XLA:CPU runs
    # it once with the whole array, and so must the global program apu runs once.
    (got, calls, annotated), (want, calls_cpu, annotated_cpu) = _on_platform_and_cpu(run_python, platform, CALLBACK_SCRIPT)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert calls == calls_cpu == [[8]], (calls, calls_cpu)
    assert annotated and annotated_cpu


UNREDUCED_SCRIPT = """
import json, jax, numpy as np
from jax.sharding import PartitionSpec as P, AxisType

def run(platform):
    devs = np.array(jax.devices(platform)[:4]).reshape(2, 2)
    mesh = jax.sharding.Mesh(devs, ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        a = jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4) % 7, P("x", "y"))
        b = jax.device_put(np.arange(32, dtype=np.float32).reshape(4, 8) % 5, P("y", None))
        # A product whose contraction is split over y, left unreduced over y by one program...
        part = jax.jit(lambda a, b: jax.numpy.einsum("ij,jk->ik", a, b, out_sharding=P("x", None, unreduced={"y"})))(a, b)
        # ... and summed by the next one.
        whole = jax.jit(lambda p: jax.sharding.reshard(p, P("x", None)))(part)
        return np.asarray(whole).tolist(), str(part.sharding.spec), str(whole.sharding.spec)

print(json.dumps({"got": run(PLATFORM), "want": run("cpu")}))
"""


def test_an_unreduced_result_goes_into_the_next_program_as_its_parts_sum(run_python, platform):
    # JAX's explicit sharding: a result unreduced over y lives as per-device parts that add up to it.
    (got, part_spec, spec), (want, part_spec_cpu, spec_cpu) = _on_platform_and_cpu(run_python, platform, UNREDUCED_SCRIPT)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert (part_spec, spec) == (part_spec_cpu, spec_cpu)


PARTIAL_SCRIPT = """
import json, jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

def run(platform):
    devs = np.array(jax.devices(platform)[:4]).reshape(2, 2)
    mesh = jax.sharding.Mesh(devs, ("i", "j"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(np.arange(32, dtype=np.float32).reshape(4, 8) % 7, NamedSharding(mesh, P("i", "j")))
    # Manual over i only: j stays with the compiler (a partially manual region).
    partial = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "i") * (jax.lax.axis_index("i") + 1),
                                    mesh=mesh, in_specs=P("i"), out_specs=P("i"), axis_names=frozenset({"i"})))
    # Manual over i, then over j inside: the inner result is split over j.
    inner = lambda a: jax.shard_map(lambda b: b * jax.lax.psum(b, "j") + jax.lax.axis_index("j"),
                                    in_specs=P(None, "j"), out_specs=P(None, "j"), axis_names=frozenset({"j"}))(a)
    nested = jax.jit(jax.shard_map(inner, mesh=mesh, in_specs=P("i", None), out_specs=P("i", None),
                                   axis_names=frozenset({"i"}), check_vma=False))
    with jax.set_mesh(mesh):
        outs = [partial(x), nested(x)]
    return [np.asarray(o).tolist() for o in outs], [str(o.sharding.spec) for o in outs]

print(json.dumps({"got": run(PLATFORM), "want": run("cpu")}))
"""


def test_partially_manual_and_nested_shard_map_match_cpu(run_python, platform):
    # shard_map over some mesh axes only, and one shard_map inside another (decision 91).
    (got, specs), (want, specs_cpu) = _on_platform_and_cpu(run_python, platform, PARTIAL_SCRIPT)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert specs == specs_cpu, (specs, specs_cpu)
