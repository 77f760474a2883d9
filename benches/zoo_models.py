"""The model zoo's models: small flax nnx models of the kinds users train, each with a batch maker, a loss
and an inference function (benches/model_zoo.py times them; `--dump` writes their programs).

Every model takes `train` in its call (BatchNorm uses batch statistics when training, running averages
otherwise). Sizes are kept small so that the whole zoo runs in a few minutes on two cores and each dumped
program stays modest; the shapes are those of real small models, not toy vectors.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax import lax


def xent(logits, labels):
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(784, 256, rngs=rngs)
        self.l2 = nnx.Linear(256, 256, rngs=rngs)
        self.l3 = nnx.Linear(256, 10, rngs=rngs)

    def __call__(self, x, train=False):
        return self.l3(nnx.relu(self.l2(nnx.relu(self.l1(x)))))


class LeNet(nnx.Module):
    """LeNet-5 shapes with average pooling (NHWC)."""

    def __init__(self, rngs):
        self.c1 = nnx.Conv(1, 6, (5, 5), padding="SAME", rngs=rngs)
        self.c2 = nnx.Conv(6, 16, (5, 5), padding="VALID", rngs=rngs)
        self.f1 = nnx.Linear(16 * 5 * 5, 120, rngs=rngs)
        self.f2 = nnx.Linear(120, 84, rngs=rngs)
        self.f3 = nnx.Linear(84, 10, rngs=rngs)

    def __call__(self, x, train=False):
        x = nnx.avg_pool(nnx.relu(self.c1(x)), (2, 2), (2, 2))  # 14x14x6
        x = nnx.avg_pool(nnx.relu(self.c2(x)), (2, 2), (2, 2))  # 5x5x16
        x = x.reshape(x.shape[0], -1)
        return self.f3(nnx.relu(self.f2(nnx.relu(self.f1(x)))))


class ResBlock(nnx.Module):
    def __init__(self, c, rngs):
        self.c1 = nnx.Conv(c, c, (3, 3), use_bias=False, rngs=rngs)
        self.b1 = nnx.BatchNorm(c, rngs=rngs)
        self.c2 = nnx.Conv(c, c, (3, 3), use_bias=False, rngs=rngs)
        self.b2 = nnx.BatchNorm(c, rngs=rngs)

    def __call__(self, x, train):
        h = nnx.relu(self.b1(self.c1(x), use_running_average=not train))
        h = self.b2(self.c2(h), use_running_average=not train)
        return nnx.relu(h + x)


class ResNet(nnx.Module):
    """A ResNet stem (conv, BatchNorm, 3x3/2 max pool) and two basic blocks, NHWC."""

    def __init__(self, rngs):
        self.stem = nnx.Conv(3, 32, (3, 3), use_bias=False, rngs=rngs)
        self.bn = nnx.BatchNorm(32, rngs=rngs)
        self.blocks = nnx.List([ResBlock(32, rngs) for _ in range(2)])
        self.head = nnx.Linear(32, 10, rngs=rngs)

    def __call__(self, x, train=False):
        x = nnx.relu(self.bn(self.stem(x), use_running_average=not train))
        x = nnx.max_pool(x, (3, 3), (2, 2), padding="SAME")  # 16x16
        for b in self.blocks:
            x = b(x, train)
        return self.head(x.mean(axis=(1, 2)))


class Separable(nnx.Module):
    """MobileNet's depthwise-separable block: 3x3 depthwise (feature_group_count = channels), 1x1 pointwise."""

    def __init__(self, cin, cout, stride, rngs):
        self.dw = nnx.Conv(cin, cin, (3, 3), strides=stride, feature_group_count=cin, use_bias=False, rngs=rngs)
        self.b1 = nnx.BatchNorm(cin, rngs=rngs)
        self.pw = nnx.Conv(cin, cout, (1, 1), use_bias=False, rngs=rngs)
        self.b2 = nnx.BatchNorm(cout, rngs=rngs)

    def __call__(self, x, train):
        x = nnx.relu6(self.b1(self.dw(x), use_running_average=not train))
        return nnx.relu6(self.b2(self.pw(x), use_running_average=not train))


class MobileNet(nnx.Module):
    def __init__(self, rngs):
        self.stem = nnx.Conv(3, 32, (3, 3), strides=2, use_bias=False, rngs=rngs)
        self.bn = nnx.BatchNorm(32, rngs=rngs)
        self.s1 = Separable(32, 64, 1, rngs)
        self.s2 = Separable(64, 128, 2, rngs)
        self.head = nnx.Linear(128, 10, rngs=rngs)

    def __call__(self, x, train=False):
        x = nnx.relu6(self.bn(self.stem(x), use_running_average=not train))  # 16x16x32
        x = self.s2(self.s1(x, train), train)  # 8x8x128
        return self.head(x.mean(axis=(1, 2)))


class DecoderLayer(nnx.Module):
    def __init__(self, d, heads, rngs, dtype=None):
        self.ln1 = nnx.LayerNorm(d, dtype=dtype, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(heads, d, decode=False, deterministic=True, keep_rngs=False, dtype=dtype, rngs=rngs)
        self.ln2 = nnx.LayerNorm(d, dtype=dtype, rngs=rngs)
        self.up = nnx.Linear(d, 4 * d, dtype=dtype, rngs=rngs)
        self.down = nnx.Linear(4 * d, d, dtype=dtype, rngs=rngs)

    def __call__(self, x, mask):
        x = x + self.attn(self.ln1(x), mask=mask)
        return x + self.down(nnx.gelu(self.up(self.ln2(x))))


class Transformer(nnx.Module):
    """A causal decoder: d=256, 4 heads, 2 layers, sequences of 128 tokens, vocabulary 256."""

    VOCAB, D, HEADS, SEQ, LAYERS = 256, 256, 4, 128, 2

    def __init__(self, rngs, dtype=None):
        # `dtype`: the computation's type (flax's mixed precision: parameters stay f32, layers compute
        # in bf16, the logits are returned in f32 for the loss).
        self.embed = nnx.Embed(self.VOCAB, self.D, dtype=dtype, rngs=rngs)
        self.pos = nnx.Param(jax.random.normal(rngs.params(), (self.SEQ, self.D)) * 0.02)
        self.layers = nnx.List([DecoderLayer(self.D, self.HEADS, rngs, dtype) for _ in range(self.LAYERS)])
        self.ln = nnx.LayerNorm(self.D, dtype=dtype, rngs=rngs)
        self.out = nnx.Linear(self.D, self.VOCAB, dtype=dtype, rngs=rngs)
        self.dtype = dtype

    def __call__(self, tokens, train=False):
        x = self.embed(tokens) + self.pos[...][: tokens.shape[1]].astype(self.dtype or jnp.float32)
        mask = nnx.make_causal_mask(tokens)
        for layer in self.layers:
            x = layer(x, mask)
        return self.out(self.ln(x)).astype(jnp.float32)


class Recurrent(nnx.Module):
    """An LSTM or GRU (nnx.RNN: a scan over time) over 50 steps, classified from the last output."""

    def __init__(self, cell, rngs):
        self.rnn = nnx.RNN(cell(32, 128, rngs=rngs), rngs=False)
        self.lstm = cell is nnx.LSTMCell
        self.head = nnx.Linear(128, 10, rngs=rngs)

    def __call__(self, x, train=False):
        # A zero initial state given explicitly: the RNN holds no random keys (they would be state).
        h = jnp.zeros((x.shape[0], 128), x.dtype)
        return self.head(self.rnn(x, initial_carry=(h, h) if self.lstm else h)[:, -1])


class Audio1D(nnx.Module):
    """A WaveNet-style stack: causal 1-D convolutions with dilations 1, 2, 4, 8, gated, with residuals."""

    def __init__(self, rngs):
        self.inp = nnx.Conv(1, 32, (3,), padding="CAUSAL", rngs=rngs)
        self.filters = nnx.List([nnx.Conv(32, 32, (3,), kernel_dilation=d, padding="CAUSAL", rngs=rngs) for d in (1, 2, 4, 8)])
        self.gates = nnx.List([nnx.Conv(32, 32, (3,), kernel_dilation=d, padding="CAUSAL", rngs=rngs) for d in (1, 2, 4, 8)])
        self.res = nnx.List([nnx.Conv(32, 32, (1,), rngs=rngs) for _ in range(4)])
        self.head = nnx.Linear(32, 10, rngs=rngs)

    def __call__(self, x, train=False):
        x = self.inp(x)
        skip = jnp.zeros_like(x)
        for f, g, r in zip(self.filters, self.gates, self.res):
            z = r(jnp.tanh(f(x)) * nnx.sigmoid(g(x)))
            x = x + z
            skip = skip + z
        return self.head(nnx.relu(skip).mean(axis=1))


class VAE(nnx.Module):
    """An MLP VAE on 784-pixel images, latent 16; the noise of the reparametrisation is an input."""

    def __init__(self, rngs):
        self.e1 = nnx.Linear(784, 256, rngs=rngs)
        self.mu = nnx.Linear(256, 16, rngs=rngs)
        self.logvar = nnx.Linear(256, 16, rngs=rngs)
        self.d1 = nnx.Linear(16, 256, rngs=rngs)
        self.d2 = nnx.Linear(256, 784, rngs=rngs)

    def encode(self, x):
        h = nnx.relu(self.e1(x))
        return self.mu(h), self.logvar(h)

    def decode(self, z):
        return self.d2(nnx.relu(self.d1(z)))

    def __call__(self, x, train=False):
        return nnx.sigmoid(self.decode(self.encode(x)[0]))


class GraphNet(nnx.Module):
    """Message passing on one graph (512 nodes, 2048 edges): messages from gathered endpoints, summed per
    receiving node with segment_sum (round 1) and a scatter-add (round 2)."""

    NODES, EDGES = 512, 2048

    def __init__(self, rngs):
        self.embed = nnx.Linear(16, 64, rngs=rngs)
        self.msg = nnx.List([nnx.Linear(128, 64, rngs=rngs) for _ in range(2)])
        self.upd = nnx.List([nnx.Linear(128, 64, rngs=rngs) for _ in range(2)])
        self.out = nnx.Linear(64, 4, rngs=rngs)

    def __call__(self, graph, train=False):
        nodes, senders, receivers = graph
        h = nnx.relu(self.embed(nodes))
        deg = jax.ops.segment_sum(jnp.ones_like(receivers, jnp.float32), receivers, self.NODES)
        for i, (msg, upd) in enumerate(zip(self.msg, self.upd)):
            m = nnx.relu(msg(jnp.concatenate([h[senders], h[receivers]], axis=-1)))
            if i == 0:
                agg = jax.ops.segment_sum(m, receivers, self.NODES)
            else:
                agg = jnp.zeros_like(h).at[receivers].add(m)
            agg = agg / jnp.maximum(deg, 1.0)[:, None]
            h = h + nnx.relu(upd(jnp.concatenate([h, agg], axis=-1)))
        return self.out(h)


def conv3(cin, cout, rngs):
    return nnx.Conv(cin, cout, (3, 3), rngs=rngs)


class UNet(nnx.Module):
    """A two-level U-Net (NHWC, 32x32): max-pool down; up by a stride-2 transposed convolution and by
    nearest-neighbour upsampling (jax.image.resize); skip connections concatenated."""

    def __init__(self, rngs):
        self.e1 = nnx.List([conv3(3, 16, rngs), conv3(16, 16, rngs)])
        self.e2 = nnx.List([conv3(16, 32, rngs), conv3(32, 32, rngs)])
        self.mid = conv3(32, 64, rngs)
        self.up2 = nnx.ConvTranspose(64, 32, (2, 2), strides=(2, 2), rngs=rngs)
        self.d2 = conv3(64, 32, rngs)
        self.up1 = conv3(32, 16, rngs)
        self.d1 = conv3(32, 16, rngs)
        self.out = nnx.Conv(16, 1, (1, 1), rngs=rngs)

    def __call__(self, x, train=False):
        for c in self.e1:
            x = nnx.relu(c(x))
        s1 = x  # 32x32x16
        x = nnx.max_pool(x, (2, 2), (2, 2))
        for c in self.e2:
            x = nnx.relu(c(x))
        s2 = x  # 16x16x32
        x = nnx.relu(self.mid(nnx.max_pool(x, (2, 2), (2, 2))))  # 8x8x64
        x = nnx.relu(self.up2(x))  # 16x16x32
        x = nnx.relu(self.d2(jnp.concatenate([x, s2], axis=-1)))
        b, h, w, c = x.shape
        x = jax.image.resize(x, (b, 2 * h, 2 * w, c), "nearest")  # 32x32x32
        x = nnx.relu(self.up1(x))
        x = nnx.relu(self.d1(jnp.concatenate([x, s1], axis=-1)))
        return self.out(x)[..., 0]


class NeuralODE(nnx.Module):
    """dh/dt = f(h, t) by an MLP, integrated by RK4 over t in [0, 1]: with lax.fori_loop (20 steps) when
    training, and with a lax.while_loop on t (the same steps) for inference."""

    STEPS = 20

    def __init__(self, rngs):
        self.inp = nnx.Linear(16, 32, rngs=rngs)
        self.f1 = nnx.Linear(33, 64, rngs=rngs)
        self.f2 = nnx.Linear(64, 32, rngs=rngs)
        self.head = nnx.Linear(32, 10, rngs=rngs)

    def f(self, h, t):
        tt = jnp.full((h.shape[0], 1), t, h.dtype)
        return self.f2(jnp.tanh(self.f1(jnp.concatenate([h, tt], axis=-1))))

    def rk4(self, h, t, dt):
        k1 = self.f(h, t)
        k2 = self.f(h + 0.5 * dt * k1, t + 0.5 * dt)
        k3 = self.f(h + 0.5 * dt * k2, t + 0.5 * dt)
        k4 = self.f(h + dt * k3, t + dt)
        return h + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)

    def __call__(self, x, train=False):
        h = jnp.tanh(self.inp(x))
        dt = 1.0 / self.STEPS
        if train:
            h = lax.fori_loop(0, self.STEPS, lambda i, h: self.rk4(h, i * dt, dt), h)
        else:
            def cond(s):
                return s[1] < 1.0 - 0.5 * dt

            def body(s):
                h, t = s
                return self.rk4(h, t, dt), t + dt
            h, _ = lax.while_loop(cond, body, (h, jnp.float32(0.0)))
        return self.head(h)


@dataclasses.dataclass(frozen=True)
class Spec:
    """A model of the zoo: what it is, how it is built, its training batch and its loss, and its inference
    input (`batch(rng, n)` makes a training batch of its default size, or of size n)."""

    name: str
    what: str
    build: Callable
    batch: Callable  # (np.random.Generator, size or None) -> (inputs, targets)
    loss: Callable  # (model, (inputs, targets)) -> scalar
    infer: Callable  # (model, inputs) -> outputs
    # Agreement with XLA:CPU, relative to each result's largest magnitude (see model_zoo.disagreements);
    # `floor`: results whose largest magnitude is below it are pure rounding noise (the gradient of a
    # key bias, zero in exact arithmetic) and are compared against it instead.
    tolerance: float = 5e-3
    floor: float = 1e-6


def classify(model, batch):
    x, y = batch
    return xent(model(x, train=True), y)


def predict(model, x):
    return model(x, train=False)


def images(shape, classes=10, default=32):
    def make(r, n=None):
        n = n or default
        return r.standard_normal((n, *shape), np.float32), r.integers(0, classes, n).astype(np.int32)
    return make


def tokens(r, n=None):
    t = r.integers(0, Transformer.VOCAB, (n or 4, Transformer.SEQ + 1)).astype(np.int32)
    return t[:, :-1], t[:, 1:]


def lm_loss(model, batch):
    x, y = batch
    return xent(model(x, train=True), y)


def vae_batch(r, n=None):
    n = n or 64
    return (r.uniform(0, 1, (n, 784)).astype(np.float32), r.standard_normal((n, 16), np.float32)), None


def vae_loss(model, batch):
    (x, eps), _ = batch
    mu, logvar = model.encode(x)
    z = mu + jnp.exp(0.5 * logvar) * eps
    rec = optax.sigmoid_binary_cross_entropy(model.decode(z), x).sum(axis=-1)
    kl = -0.5 * jnp.sum(1 + logvar - mu**2 - jnp.exp(logvar), axis=-1)
    return (rec + kl).mean()


def vae_infer(model, inputs):
    return model(inputs[0], train=False)


def graph(r, n=None):
    g = GraphNet
    nodes = r.standard_normal((g.NODES, 16), np.float32)
    senders = r.integers(0, g.NODES, g.EDGES).astype(np.int32)
    receivers = r.integers(0, g.NODES, g.EDGES).astype(np.int32)
    return (nodes, senders, receivers), r.integers(0, 4, g.NODES).astype(np.int32)


def segmentation(r, n=None):
    n = n or 4
    x = r.standard_normal((n, 32, 32, 3), np.float32)
    return x, (x[..., 0] > 0).astype(np.float32)


def seg_loss(model, batch):
    x, y = batch
    return optax.sigmoid_binary_cross_entropy(model(x, train=True), y).mean()


MODELS = [
    Spec("mlp", "MLP 784-256-256-10, B128", MLP, images((784,), default=128), classify, predict),
    Spec("lenet", "LeNet CNN, avg_pool, 28x28x1, B64", LeNet, images((28, 28, 1), default=64), classify, predict),
    Spec("resnet", "ResNet stem + 2 blocks, BatchNorm, max_pool, 32x32x3, B16", ResNet,
         images((32, 32, 3), default=16), classify, predict),
    Spec("mobilenet", "MobileNet depthwise-separable blocks, 32x32x3, B16", MobileNet,
         images((32, 32, 3), default=16), classify, predict),
    Spec("transformer", "causal transformer d256 h4 seq128 2 layers, B4", Transformer, tokens, lm_loss, predict),
    # bf16 keeps 8 significant bits: apu and XLA:CPU round differently inside fused ops and sums. Against
    # the same transformer in f32, XLA:CPU's bf16 gradients are off by up to 9.9 % (a leaf's largest
    # difference over its largest magnitude) and apu's by up to 1.7 % (decision 99): they may differ by
    # about 10 %, and leaves that are zero in exact arithmetic (a key bias's gradient) are pure noise.
    Spec("transformer_bf16", "the transformer in mixed precision (bf16 compute, f32 parameters)",
         lambda rngs: Transformer(rngs, dtype=jnp.bfloat16), tokens, lm_loss, predict, tolerance=0.15, floor=1e-4),
    Spec("lstm", "LSTM (nnx.RNN) 50 steps, 32->128, B32",
         lambda rngs: Recurrent(nnx.LSTMCell, rngs), images((50, 32), default=32), classify, predict),
    Spec("gru", "GRU (nnx.RNN) 50 steps, 32->128, B32",
         lambda rngs: Recurrent(nnx.GRUCell, rngs), images((50, 32), default=32), classify, predict),
    Spec("audio1d", "1-D dilated causal convs (WaveNet-style), 2048 samples, B8", Audio1D,
         images((2048, 1), default=8), classify, predict),
    Spec("vae", "VAE 784-256-16, B64", VAE, vae_batch, vae_loss, vae_infer),
    Spec("gnn", "graph net 512 nodes 2048 edges, segment_sum + scatter-add", GraphNet, graph, classify, predict),
    Spec("unet", "U-Net 32x32, max_pool, conv_transpose, resize, B4", UNet, segmentation, seg_loss, predict),
    Spec("ode", "neural ODE, RK4 20 steps (fori_loop train, while_loop infer), B64", NeuralODE,
         images((16,), default=64), classify, predict),
]

BY_NAME = {m.name: m for m in MODELS}

LEARNING_RATE = 1e-3


@dataclasses.dataclass
class Steps:
    """A model's jittable training and inference steps and their first arguments (host numpy arrays)."""

    train: Callable  # (params, rest, opt_state, batch) -> (params, rest, opt_state, loss)
    infer: Callable  # (params, rest, inputs) -> outputs
    train_args: tuple
    infer_args: tuple


def steps(spec: Spec, seed=0, infer_batch=None) -> Steps:
    """The training step (forward, backward, Adam update; BatchNorm statistics carried in `rest`) and the
    inference step of `spec`, as pure functions of the model's state, as a user's jitted loop has them."""
    model = spec.build(nnx.Rngs(seed))
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    tx = optax.adam(LEARNING_RATE)

    def train(params, rest, opt_state, batch):
        # `rest` (BatchNorm statistics) is an argument of the differentiated function, not a closure:
        # nnx refuses to update variables made outside the trace that updates them.
        def loss(p, r):
            m = nnx.merge(graphdef, p, r, copy=True)
            value = spec.loss(m, batch)
            return value, nnx.split(m, nnx.Param, ...)[2]

        (value, new_rest), grads = jax.value_and_grad(loss, has_aux=True)(params, rest)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), new_rest, opt_state, value

    def infer(params, rest, inputs):
        return spec.infer(nnx.merge(graphdef, params, rest), inputs)

    r = np.random.default_rng(seed + 1)
    batch = spec.batch(r)
    inputs = spec.batch(r, infer_batch)[0]
    host = jax.tree_util.tree_map(np.asarray, (params, rest, tx.init(params)))
    return Steps(train, infer, (*host, batch), (host[0], host[1], inputs))
