"""The PluggableDevice announcement's example, run as a user would, reporting what happened as JSON.

Each step records its device and whether the result is right, or the error it raised; a failing random
op (on an NPD device every XLA-compilable op runs on APU) is recorded and the rest runs on CPU inputs.
"""
import json

import numpy as np
import tensorflow as tf  # TensorFlow registers the plug-in devices here.

report = {"physical": [(d.name, d.device_type) for d in tf.config.list_physical_devices()]}


def step(name, fn):
    try:
        report[name] = fn()
    except Exception as e:  # noqa: BLE001 - the report says what failed
        report[name] = {"error": f"{type(e).__name__}: {e}"}


def relu_ok(x, y):
    return bool(np.array_equal(y.numpy(), np.maximum(x.numpy(), 0)))


def random_normal():
    global a
    a = tf.random.normal(shape=[5], dtype=tf.float32)  # Runs on CPU (PD) or APU (NPD).
    return {"device": a.device, "ok": a.shape == (5,)}


with tf.device("/CPU:0"):
    a = tf.random.normal(shape=[5], dtype=tf.float32)
step("random", random_normal)


def default():
    b = tf.nn.relu(a)  # Runs on APU.
    return {"device": b.device, "ok": relu_ok(a, b)}


def on(device):
    def run():
        with tf.device(device):  # Users can also use 'with tf.device' syntax.
            c = tf.nn.relu(a)
        return {"device": c.device, "ok": relu_ok(a, c)}

    return run


step("default", default)
step("apu", on("/APU:0"))
step("cpu", on("/CPU:0"))


@tf.function
def run(d):
    e = tf.nn.relu(d)  # Runs on APU.
    return e


def function():
    with tf.device("/CPU:0"):
        d = tf.random.uniform(shape=[100], dtype=tf.float32, minval=-1.0)
    e = run(d)
    return {"device": e.device, "ok": relu_ok(d, e)}


step("function", function)
print("RESULT " + json.dumps(report), flush=True)
