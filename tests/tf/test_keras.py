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


EAGER = re.compile(r"execute\.cc:\d+\] Executing op (\w+) in device /job:localhost/replica:0/task:0/device:(\w+):\d+")


def run_section(stderr, run):
    """The part of the script's stderr logged during one run."""
    return stderr.split(f"@@ run {run}\n", 1)[-1].split("@@ run ", 1)[0] if f"@@ run {run}\n" in stderr else ""


def placements(stderr, run, pattern=PLACED):
    """Op type -> set of device types, from TensorFlow's placement log of one run of the script (graph
    placements by default; `EAGER` for the ops executed eagerly)."""
    found = {}
    for op, device in pattern.findall(run_section(stderr, run)):
        found.setdefault(op, set()).add(device)
    return found


def check_matches_cpu(run, opt, jit, cpu_run=None):
    """The APU run of `run` against the CPU run of `cpu_run` (default: the same script run)."""
    cpu_run = cpu_run or run
    cpu, apu = cpu_run.result["runs"][f"{opt}/{jit}//CPU:0"], run.result["runs"][f"{opt}/{jit}//APU:0"]
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
    """NPD: every op runs compiled through apu's PJRT table, model building included (Keras'
    initializers take int32 shapes and algorithm ids made on the APU, src/tf/npd/eager_const.rs)."""
    run = run_script("keras_training.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1", "TF_CPP_MIN_LOG_LEVEL": "0"})
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {run.mode_line()}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result is not None, run.stdout[-2000:]
    for opt in ("sgd", "adam"):
        check_matches_cpu(run, opt, "false")
        placed = placements(run.stderr, f"{opt}/false//APU:0")
        on_apu = {op for op, devices in placed.items() if devices == {"APU"}}
        assert APU_OPS <= on_apu, f"not on APU: {sorted(APU_OPS - on_apu)}; placements: {placed}"
        # The initializers ran eagerly on APU, with int32 shape and algorithm made there.
        eager = placements(run.stderr, f"{opt}/false//APU:0", EAGER)
        assert eager.get("StatelessRandomUniformV2") == {"APU"}, eager
        # Without the XLA device API flag TensorFlow has no JIT device for APU (docs/tensorflow.md).
        for jit in ("true", "auto"):
            assert "error" not in run.result["runs"][f"{opt}/{jit}//CPU:0"]
            err = run.result["runs"][f"{opt}/{jit}//APU:0"].get("error", "")
            assert "No JIT device registered for APU" in err, err

    # With it, jit_compile=True and "auto" run the whole step as one PJRT program on APU. Only APU runs
    # here: TensorFlow 2.18.1's own CPU jit segfaults under this flag (also without apu installed); the
    # CPU reference is the run above.
    jit_run = run_script(
        "keras_training.py",
        {
            "APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1",
            "TF_XLA_FLAGS": "--tf_xla_use_device_api=true",
            "APU_KERAS_DEVICES": "/APU:0",
            "APU_KERAS_JIT": "true,auto",
        },
    )
    assert jit_run.returncode == 0, jit_run.stderr[-4000:]
    assert jit_run.result is not None, jit_run.stdout[-2000:]
    for opt in ("sgd", "adam"):
        for jit in ("true", "auto"):
            check_matches_cpu(jit_run, opt, jit, cpu_run=run)
