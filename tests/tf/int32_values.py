"""int32 tensors made on, computed on and passed through /APU:0, reporting JSON of what came back.

Each case records the values TensorFlow returned (as lists) and the device of the result, or the error
it raised; the caller compares the values with what the same Python expression means. Inputs are small
enough to keep the report short.
"""
import json

import numpy as np
import tensorflow as tf  # TensorFlow registers the plug-in devices here.

report = {}


def step(name, fn):
    try:
        t = fn()
        report[name] = {"value": np.asarray(t.numpy()).tolist(), "device": t.device, "dtype": t.dtype.name}
    except Exception as e:  # noqa: BLE001 - the report says what failed
        report[name] = {"error": f"{type(e).__name__}: {str(e)[:1500]}"}


@tf.function
def add_in_function(x, y):
    return x * y + 3


with tf.device("/CPU:0"):
    from_cpu = tf.constant([7, -8, 9])

with tf.device("/APU:0"):
    step("constant", lambda: tf.constant([1, 2, 3]))
    step("scalar", lambda: tf.constant(-5))
    step("constant_2d", lambda: tf.constant([[1, 2], [3, 4], [5, 6]]))
    step("plus_python_int", lambda: tf.constant([1, 2, 3]) + 1)
    step("times_constant", lambda: tf.constant([1, 2, 3]) * tf.constant([4, 5, 6]))
    step("from_cpu_plus", lambda: from_cpu + tf.constant([1, 1, 1]))
    step("range", lambda: tf.range(5))
    step("zeros_shape", lambda: tf.shape(tf.zeros([2, 3])))
    step("reshape", lambda: tf.reshape(tf.range(6), [3, 2]))
    step("fill", lambda: tf.fill([2, 2], 7))
    step("normal_shape", lambda: tf.shape(tf.random.normal([5])))
    step("function_args", lambda: add_in_function(tf.constant([1, 2]), tf.constant([10, 20])))
    step("int64", lambda: tf.constant([1, 2, 3], dtype=tf.int64) + 1)
print("RESULT " + json.dumps(report), flush=True)
