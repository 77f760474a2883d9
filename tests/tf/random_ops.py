"""TensorFlow's stateful random ops on /APU:0, reporting JSON statistics of what they returned.

On a NextPluggableDevice they lower to HLO `rng` and run through apu's PJRT table; the caller checks
device, dtype, shape and the sample statistics. Shapes and integer bounds are plain Python values, so
TensorFlow makes them as int32 constants on the APU (the `_EagerConst` path, src/tf/npd/eager_const.rs).
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


SHAPE, SHAPE_2D, SHAPE_8 = [N], [100, N // 100], [8]


def twice_differs():
    a, b = tf.random.normal(SHAPE_8), tf.random.normal(SHAPE_8)
    return {"device": b.device, "differ": bool(np.any(a.numpy() != b.numpy()))}


with tf.device("/APU:0"):
    step("normal", lambda: summary(tf.random.normal(SHAPE_2D)))
    step("normal_scaled", lambda: summary(tf.random.normal(SHAPE, mean=2.0, stddev=3.0)))
    step("normal_f64", lambda: summary(tf.random.normal(SHAPE, dtype=tf.float64)))
    step("uniform", lambda: summary(tf.random.uniform(SHAPE, minval=-1.0, maxval=3.0)))
    step("uniform_int", lambda: summary(tf.random.uniform(SHAPE, minval=0, maxval=10, dtype=tf.int32)))
    step("truncated_normal", lambda: summary(tf.random.truncated_normal(SHAPE)))
    step("twice", twice_differs)
print("RESULT " + json.dumps(report), flush=True)
