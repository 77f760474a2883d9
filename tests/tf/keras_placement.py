"""Two epochs of Keras `fit` (jit_compile=False) of a small CNN and an LSTM on the device named by
KERAS_DEVICE (/APU:0 or /CPU:0), with device placement logging on the APU (the log goes to stdout and
stderr); prints the losses."""
import json
import os

import numpy as np
import tensorflow as tf
import keras

DEVICE = os.environ["KERAS_DEVICE"]
tf.debugging.set_log_device_placement(DEVICE == "/APU:0")


def fit(kind, device):
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(3)
    with tf.device(device):
        if kind == "cnn":
            x, y = rng.normal(size=(16, 12, 12, 3)).astype("float32"), rng.integers(0, 4, 16)
            layers = [keras.Input((12, 12, 3)), keras.layers.Conv2D(8, 3, activation="relu"), keras.layers.BatchNormalization(),
                      keras.layers.MaxPooling2D(), keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                      keras.layers.AveragePooling2D(2), keras.layers.Flatten(), keras.layers.Dense(4)]
        else:
            x, y = rng.normal(size=(16, 6, 5)).astype("float32"), rng.integers(0, 4, 16)
            layers = [keras.Input((6, 5)), keras.layers.LSTM(8), keras.layers.Dense(4)]
        model = keras.Sequential(layers)
        model.compile(optimizer=keras.optimizers.Adam(0.01), jit_compile=False,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        h = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return h.history["loss"]


print("RESULT " + json.dumps({k: fit(k, DEVICE) for k in ("cnn", "lstm")}))
