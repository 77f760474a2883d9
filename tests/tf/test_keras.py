"""Keras training on APU gives the losses of the same training on CPU, in each device mode.

keras_training.py trains Dense(16, relu) -> Dense(4) with softmax cross-entropy from fixed weights on
fixed data, five full-batch steps per optimizer (SGD, Adam) and jit_compile setting, once on /CPU:0 and
once on /APU:0. The mode is read once at `import tensorflow`, so each mode runs in its own interpreter.
"""
import re

import numpy as np
import pytest

from test_modes import npd_active

# f32 training through different kernels (apu's interpreter rounds once from f64 where TensorFlow's
# CPU kernels round per step): after five steps the losses agree to ~1e-6 relative; 1e-4 leaves room.
RTOL = 1e-4
# Ops of the training step that must have run on APU (forward, loss, backward, update).
APU_OPS = {"MatMul", "BiasAdd", "Relu", "SoftmaxCrossEntropyWithLogits", "ReluGrad", "BiasAddGrad"}
PLACED = re.compile(r"placer\.cc:\d+\] .*: \((\w+)\): /job:localhost/replica:0/task:0/device:(\w+):\d+")


def placements(stderr, run):
    """Op type -> set of device types, from TensorFlow's placement log of one run of the script."""
    section = stderr.split(f"@@ run {run}\n", 1)[-1].split("@@ run ", 1)[0] if f"@@ run {run}\n" in stderr else ""
    found = {}
    for op, device in PLACED.findall(section):
        found.setdefault(op, set()).add(device)
    return found


def check_matches_cpu(run, opt, jit):
    runs = run.result["runs"]
    cpu, apu = runs[f"{opt}/{jit}//CPU:0"], runs[f"{opt}/{jit}//APU:0"]
    assert "error" not in cpu, cpu
    assert "error" not in apu, apu
    losses_cpu, losses_apu = np.array(cpu["losses"]), np.array(apu["losses"])
    assert losses_cpu.shape == (5,) and np.all(np.diff(losses_cpu) < 0), f"training must lower the loss: {losses_cpu}"
    np.testing.assert_allclose(losses_apu, losses_cpu, rtol=RTOL, err_msg=f"{opt} jit_compile={jit}")
    for w_apu, w_cpu in zip(apu["weights"], cpu["weights"]):
        np.testing.assert_allclose(np.array(w_apu), np.array(w_cpu), rtol=RTOL, atol=1e-6)
    assert apu["variable_devices"] == ["/job:localhost/replica:0/task:0/device:APU:0"], apu["variable_devices"]
    assert apu["output_device"].endswith("device:APU:0"), apu["output_device"]
    assert cpu["variable_devices"] == ["/job:localhost/replica:0/task:0/device:CPU:0"], cpu["variable_devices"]


def test_keras_training_pluggable_device(run_script):
    run = run_script("keras_training.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0", "TF_CPP_MIN_LOG_LEVEL": "0"})
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result is not None, run.stdout[-2000:]
    for opt in ("sgd", "adam"):
        check_matches_cpu(run, opt, "false")
        placed = placements(run.stderr, f"{opt}/false//APU:0")
        on_apu = {op for op, devices in placed.items() if devices == {"APU"}}
        assert APU_OPS <= on_apu, f"not on APU: {sorted(APU_OPS - on_apu)}; placements: {placed}"
        # A PluggableDevice has no XLA JIT device: jit_compile=True, and Keras 3's default "auto"
        # (which means True for TensorFlow), fail with TensorFlow's own message; CPU is unaffected.
        for jit in ("true", "auto"):
            assert "error" not in run.result["runs"][f"{opt}/{jit}//CPU:0"]
            err = run.result["runs"][f"{opt}/{jit}//APU:0"].get("error", "")
            assert "No JIT device registered for APU" in err, err


def test_keras_training_next_pluggable_device(run_script):
    run = run_script("keras_training.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1", "TF_CPP_MIN_LOG_LEVEL": "0"})
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {run.mode_line()}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result is not None, run.stdout[-2000:]
    for opt in ("sgd", "adam"):
        for jit in ("false", "true", "auto"):
            err = run.result["runs"][f"{opt}/{jit}//APU:0"].get("error", "")
            if "StatelessRandom" in err:
                # Keras' initializers take int32 shape/algorithm constants made on the APU, which read
                # back wrong in NPD mode (docs/tensorflow.md, known gaps).
                pytest.xfail(f"int32 constants created on the NPD APU read back wrong: {err[:300]}")
            check_matches_cpu(run, opt, jit)
