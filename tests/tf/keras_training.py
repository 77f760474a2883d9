"""Trains one small Keras model on /CPU:0 and on /APU:0 from the same weights and data, reporting JSON.

Dense(16, relu) -> Dense(4) logits, softmax cross-entropy on one-hot labels, full-batch steps of
train_on_batch (which resets the loss tracker, so each value is that step's loss), for each optimizer and jit_compile setting. For every run the report holds the
per-step losses, the devices of the variables and of an eager forward pass, and the final weights.
Placement logging is on, so the caller can also read which device each op of the training step used.
APU_KERAS_OPTIMIZERS, APU_KERAS_JIT and APU_KERAS_DEVICES (comma-separated) narrow what runs.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf  # TensorFlow registers the plug-in devices here.

STEPS = 5
JIT_SETTINGS = os.environ.get("APU_KERAS_JIT", "false,true,auto").split(",")
OPTIMIZERS = os.environ.get("APU_KERAS_OPTIMIZERS", "sgd,adam").split(",")
DEVICES = os.environ.get("APU_KERAS_DEVICES", "/CPU:0,/APU:0").split(",")

rng = np.random.default_rng(20260522)
X = rng.normal(size=(32, 8)).astype(np.float32)
LABELS = rng.integers(0, 4, size=32)
Y = np.eye(4, dtype=np.float32)[LABELS]
WEIGHTS = [
    rng.normal(scale=0.5, size=(8, 16)).astype(np.float32),
    rng.normal(scale=0.1, size=(16,)).astype(np.float32),
    rng.normal(scale=0.5, size=(16, 4)).astype(np.float32),
    rng.normal(scale=0.1, size=(4,)).astype(np.float32),
]


def optimizer(name):
    if name == "sgd":
        return tf.keras.optimizers.SGD(learning_rate=0.1)
    if name == "adam":
        return tf.keras.optimizers.Adam(learning_rate=0.01)
    raise ValueError(name)


def jit_value(setting):
    return {"true": True, "false": False, "auto": "auto"}[setting]


def train(device, opt, jit):
    with tf.device(device):
        model = tf.keras.Sequential(
            [tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)]
        )
        model.set_weights(WEIGHTS)
        model.compile(
            optimizer=optimizer(opt),
            loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True),
            jit_compile=jit_value(jit),
        )
        losses = [float(model.train_on_batch(X, Y)) for _ in range(STEPS)]
        out = model(tf.constant(X))
    return {
        "losses": losses,
        "variable_devices": sorted({v.value.device if hasattr(v, "value") else v.device for v in model.weights}),
        "output_device": out.device,
        "weights": [w.tolist() for w in model.get_weights()],
    }


def attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - the report says what failed
        return {"error": f"{type(e).__name__}: {str(e)[:2000]}"}


report = {"tf": tf.__version__, "runs": {}}
tf.debugging.set_log_device_placement(True)
for opt in OPTIMIZERS:
    for jit in JIT_SETTINGS:
        for device in DEVICES:
            # A marker in the placement log (stderr), so the caller can split it by run.
            print(f"@@ run {opt}/{jit}/{device}", file=sys.stderr, flush=True)
            report["runs"][f"{opt}/{jit}/{device}"] = attempt(train, device, opt, jit)
print("RESULT " + json.dumps(report), flush=True)
