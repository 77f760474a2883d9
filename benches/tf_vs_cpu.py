"""apu's TensorFlow PluggableDevice (/APU:0) against TensorFlow's own CPU (/CPU:0), in one process.

Run inside a TensorFlow venv whose site-packages/tensorflow-plugins/ holds libapu.so:

    APU_ENABLE_NEXTPLUGGABLE_DEVICE=0 python benches/tf_vs_cpu.py [--rounds N] [--only SUBSTRING]

Workloads: op-level (a matmul, a convolution, an elementwise chain, relu(matmul(256x512, 512x512) + 1))
and one Keras `train_on_batch` step (jit_compile=False) of an MLP and of a small CNN. Every workload is
warmed up on both devices first (the first call of a kernel compiles it), then rounds alternate APU and
CPU back to back, each round timing enough calls to last ~round-seconds; a ratio is the median of the
per-round APU/CPU ratios, so a slow minute hits both alike. Targets: relu(matmul+1) within 1.5x of the
CPU, a Keras step within 1.2x. Timings taken while other processes compile are noise.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("APU_ENABLE_NEXTPLUGGABLE_DEVICE", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

rng = np.random.default_rng(0)


def const(*shape):
    return tf.constant(rng.standard_normal(shape).astype(np.float32))


def op_workloads():
    a, b = const(256, 512), const(512, 512)
    x, w = const(8, 32, 32, 16), const(3, 3, 16, 32)
    e = const(512, 1024)

    def relu_matmul():
        return tf.nn.relu(tf.matmul(a, b) + 1.0)

    def matmul():
        return tf.matmul(a, b)

    def conv():
        return tf.nn.conv2d(x, w, strides=1, padding="SAME")

    def chain():
        return tf.tanh(tf.exp(-tf.square(e)) * 0.5 + e)

    return [("relu(matmul(256x512,512x512)+1)", relu_matmul), ("matmul 256x512x512", matmul),
            ("conv2d 8x32x32x16 3x3x16x32 SAME", conv), ("elementwise chain 512x1024", chain)]


def keras_step(kind, device):
    import keras

    with tf.device(device):
        keras.utils.set_random_seed(1)
        if kind == "mlp":
            x = rng.standard_normal((128, 64)).astype(np.float32)
            y = rng.integers(0, 10, 128)
            model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(256, activation="relu"),
                                      keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])
        else:
            x = rng.standard_normal((32, 28, 28, 1)).astype(np.float32)
            y = rng.integers(0, 10, 32)
            model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"),
                                      keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)])
        model.compile(optimizer=keras.optimizers.SGD(0.01), jit_compile=False,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        xs, ys = tf.constant(x), tf.constant(y)

    def step():
        with tf.device(device):
            return model.train_on_batch(xs, ys)
    return step


def time_calls(fn, seconds):
    n, start = 0, time.perf_counter()
    while True:
        out = fn()
        if hasattr(out, "numpy"):
            out.numpy()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / n


def compare(name, apu_fn, cpu_fn, rounds, seconds):
    for _ in range(3):
        apu_fn(), cpu_fn()
    apu, cpu, ratios = [], [], []
    for _ in range(rounds):
        ta, tc = time_calls(apu_fn, seconds), time_calls(cpu_fn, seconds)
        apu.append(ta)
        cpu.append(tc)
        ratios.append(ta / tc)
    print(f"{name:40s} APU {statistics.median(apu) * 1e3:9.3f} ms  CPU {statistics.median(cpu) * 1e3:9.3f} ms  "
          f"APU/CPU {statistics.median(ratios):6.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--round-seconds", type=float, default=0.2)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if not tf.config.list_physical_devices("APU"):
        raise SystemExit("no APU device: is libapu.so in site-packages/tensorflow-plugins/ (PluggableDevice mode)?")
    for name, fn in op_workloads():
        if args.only in name:
            def on(device, fn=fn):
                def run():
                    with tf.device(device):
                        return fn()
                return run
            compare(name, on("/APU:0"), on("/CPU:0"), args.rounds, args.round_seconds)
    for kind in ("mlp", "cnn"):
        name = f"keras train_on_batch {kind}"
        if args.only in name:
            compare(name, keras_step(kind, "/APU:0"), keras_step(kind, "/CPU:0"), args.rounds, args.round_seconds)


if __name__ == "__main__":
    main()
