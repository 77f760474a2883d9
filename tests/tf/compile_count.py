"""Runs one MatMul on /APU:0 five times on the same shapes and once on another shape (stderr carries the
kernel cache's compile log when APU_TF_LOG_COMPILES=1; see test_kernels.py)."""
import json

import numpy as np
import tensorflow as tf

a = tf.constant(np.arange(8 * 16, dtype=np.float32).reshape(8, 16) / 100)
b = tf.constant(np.ones((16, 4), np.float32))
with tf.device("/APU:0"):
    outs = [tf.linalg.matmul(a * 1.0, b).numpy() for _ in range(5)]
    tf.linalg.matmul(a[:3], b).numpy()
with tf.device("/CPU:0"):
    want = tf.linalg.matmul(a, b).numpy()
print("RESULT " + json.dumps({"first": float(outs[0][0, 0]), "same": all(np.allclose(o, want) for o in outs)}))
