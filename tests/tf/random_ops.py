"""TensorFlow's stateful random ops on /APU:0, reporting JSON statistics of what they returned.

On a NextPluggableDevice they lower to HLO `rng` and run through apu's PJRT table; the caller checks
device, dtype, shape and the sample statistics. Integer arguments (shapes, integer bounds) are made on
the CPU: int32 constants created on the NPD APU read back wrong (docs/tensorflow.md, known gaps).
"""
import json

import numpy as np
import tensorflow as tf  # TensorFlow registers the plug-in devices here.

N = 20000
report = {}


def summary(t):
    v = t.numpy().astype(np.float64).ravel()
    return {
        "device": t.device,
        "dtype": t.dtype.name,
        "shape": list(t.shape),
        "mean": float(v.mean()),
        "std": float(v.std()),
        "min": float(v.min()),
        "max": float(v.max()),
        "distinct": int(np.unique(v).size),
    }


def step(name, fn):
    try:
        report[name] = fn()
    except Exception as e:  # noqa: BLE001 - the report says what failed
        report[name] = {"error": f"{type(e).__name__}: {str(e)[:1500]}"}


with tf.device("/CPU:0"):
    SHAPE, SHAPE_2D, SHAPE_8 = tf.constant([N]), tf.constant([100, N // 100]), tf.constant([8])
    ZERO, TEN = tf.constant(0), tf.constant(10)


def twice_differs():
    a, b = tf.random.normal(SHAPE_8), tf.random.normal(SHAPE_8)
    return {"device": b.device, "differ": bool(np.any(a.numpy() != b.numpy()))}


with tf.device("/APU:0"):
    step("normal", lambda: summary(tf.random.normal(SHAPE_2D)))
    step("normal_scaled", lambda: summary(tf.random.normal(SHAPE, mean=2.0, stddev=3.0)))
    step("normal_f64", lambda: summary(tf.random.normal(SHAPE, dtype=tf.float64)))
    step("uniform", lambda: summary(tf.random.uniform(SHAPE, minval=-1.0, maxval=3.0)))
    step("uniform_int", lambda: summary(tf.random.uniform(SHAPE, minval=ZERO, maxval=TEN, dtype=tf.int32)))
    step("truncated_normal", lambda: summary(tf.random.truncated_normal(SHAPE)))
    step("twice", twice_differs)
print("RESULT " + json.dumps(report), flush=True)
