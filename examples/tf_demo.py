#!/usr/bin/env python3
"""apu demo for TensorFlow: the PluggableDevice announcement's example with APU as the device.

    python examples/tf_demo.py      # needs the apu-plugin wheel installed next to tensorflow-cpu

Prints the physical devices, where each step ran and whether its result matches the CPU. With TensorFlow
2.17/2.18 and `TF_XLA_FLAGS="--tf_xla_use_device_api=true --tf_xla_auto_jit=2"` it also compiles a
`jit_compile` function through apu's PJRT plug-in. Exits 1 if APU is missing or a result is wrong.
"""
import os
import sys

import numpy as np
import tensorflow as tf  # TensorFlow registers PluggableDevices here.

devices = tf.config.list_physical_devices()
print("physical devices:", [(d.name, d.device_type) for d in devices])
if not any(d.device_type == "APU" for d in devices):
    print("no APU device: is the apu-plugin wheel installed in this environment?")
    sys.exit(1)

failures = 0


def report(what, tensor, expected):
    global failures
    ok = np.allclose(tensor.numpy(), expected, rtol=1e-6, atol=1e-6)
    failures += not ok
    print(f"{what:40s} on {tensor.device:45s} {'ok' if ok else 'WRONG'}")


with tf.device("/CPU:0"):
    a = tf.random.normal(shape=[5], dtype=tf.float32)  # Runs on CPU.
expected = np.maximum(a.numpy(), 0)
report("tf.nn.relu(a)", tf.nn.relu(a), expected)  # Runs on APU.
with tf.device("/APU:0"):  # Users can also use 'with tf.device' syntax.
    report('with tf.device("/APU:0"): relu', tf.nn.relu(a), expected)
with tf.device("/CPU:0"):
    report('with tf.device("/CPU:0"): relu', tf.nn.relu(a), expected)


@tf.function  # PluggableDevices also work with tf.function and graph mode.
def run(x):
    return tf.nn.relu(tf.matmul(x, x, transpose_b=True))


x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
report("tf.function(relu(x @ x.T))", run(tf.constant(x)), np.maximum(x @ x.T, 0))

if "--tf_xla_use_device_api=true" in os.environ.get("TF_XLA_FLAGS", ""):
    @tf.function(jit_compile=True)
    def add_with_xla(a, b):
        return a + b

    report("jit_compile add_with_xla", add_with_xla(tf.constant([1.0, 2.0, 3.0]), tf.constant([4.0, 5.0, 6.0])),
           np.array([5.0, 7.0, 9.0]))

sys.exit(1 if failures else 0)
