"""The PluggableDevice announcement's example, run as a user would, reporting what happened as JSON."""
import json

import numpy as np
import tensorflow as tf  # TensorFlow registers the plug-in devices here.

report = {"physical": [(d.name, d.device_type) for d in tf.config.list_physical_devices()]}

a = tf.random.normal(shape=[5], dtype=tf.float32)  # Runs on CPU.
b = tf.nn.relu(a)  # Runs on APU.
report["default"] = {"device": b.device, "ok": bool(np.array_equal(b.numpy(), np.maximum(a.numpy(), 0)))}

with tf.device("/APU:0"):
    c = tf.nn.relu(a)
report["apu"] = {"device": c.device, "ok": bool(np.array_equal(c.numpy(), np.maximum(a.numpy(), 0)))}

with tf.device("/CPU:0"):
    c = tf.nn.relu(a)
report["cpu"] = {"device": c.device, "ok": bool(np.array_equal(c.numpy(), np.maximum(a.numpy(), 0)))}


@tf.function
def run():
    d = tf.random.uniform(shape=[100], dtype=tf.float32, minval=-1.0)  # Runs on CPU.
    e = tf.nn.relu(d)  # Runs on APU.
    return d, e


d, e = run()
report["function"] = {"device": e.device, "ok": bool(np.array_equal(e.numpy(), np.maximum(d.numpy(), 0)))}
print("RESULT " + json.dumps(report), flush=True)
