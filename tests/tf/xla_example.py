"""The NextPluggableDevice post's XLA example (plus a small dense layer), reporting JSON."""
import json

import numpy as np
import tensorflow as tf  # TensorFlow registers the NextPluggableDevice here.

report = {}


@tf.function(experimental_compile=True)
def add_with_xla(a, b):
    return a + b


def step(name, fn):
    try:
        report[name] = fn()
    except Exception as e:  # noqa: BLE001 - the report says what failed
        report[name] = {"error": f"{type(e).__name__}: {e}"}


def add():
    a = tf.constant([1.0, 2.0, 3.0])
    b = tf.constant([4.0, 5.0, 6.0])
    result = add_with_xla(a, b)
    return {"device": result.device, "value": result.numpy().tolist()}


step("add", add)


@tf.function(jit_compile=True)
def dense(x, w, bias):
    return tf.nn.relu(tf.matmul(x, w) + bias)


def run_dense():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    w = np.linspace(1, -1, 8, dtype=np.float32).reshape(4, 2)
    bias = np.array([0.5, -0.25], np.float32)
    got = dense(x, w, bias)
    want = np.maximum(x @ w + bias, 0)
    return {"device": got.device, "ok": bool(np.allclose(got.numpy(), want, rtol=1e-5, atol=1e-6))}


step("dense", run_dense)
print("RESULT " + json.dumps(report), flush=True)
