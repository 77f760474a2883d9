"""Device listing: the platform's name, device count, and several devices on request."""

import json

import jax
import numpy as np


def test_platform_and_single_device(dev, platform):
    devices = jax.devices(platform)
    assert len(devices) == 1, devices
    assert dev.platform == platform
    assert dev.id == 0
    assert dev.process_index == 0
    assert jax.local_device_count(platform) == 1


def test_default_backend_is_platform_under_test(dev, platform):
    # JAX_PLATFORMS lists the platform first, so it is the default backend and un-committed work lands there.
    assert jax.default_backend() == platform
    assert jax.numpy.ones(3).devices() == {dev}


def test_device_describes_itself(dev):
    assert str(dev)
    assert repr(dev)
    assert dev.device_kind
    memory = dev.default_memory()
    assert memory.kind
    assert dev in memory.addressable_by_devices()


def test_two_devices_on_request(run_python, platform):
    # apu reads APU_NUM_DEVICES (see python/apu_plugin); JAX's CPU backend has its own XLA flag.
    env = {"APU_NUM_DEVICES": "2", "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    proc = run_python(f"""
        import json, jax, jax.numpy as jnp, numpy as np
        devices = jax.devices({platform!r})
        results = []
        for d in devices:
            x = jax.device_put(np.arange(4, dtype=np.float32), d)
            y = jax.jit(lambda v: v * 2 + 1)(x)
            results.append({{"id": d.id, "on": [str(o) for o in y.devices()], "value": np.asarray(y).tolist()}})
        print(json.dumps({{"count": len(devices), "ids": [d.id for d in devices],
                          "platforms": [d.platform for d in devices], "results": results,
                          "names": [str(d) for d in devices]}}))
    """, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["count"] == 2, info
    assert len(set(info["ids"])) == 2, info
    assert info["platforms"] == [platform, platform]
    for name, result in zip(info["names"], info["results"]):
        assert result["on"] == [name], result
        np.testing.assert_array_equal(result["value"], [1.0, 3.0, 5.0, 7.0])
