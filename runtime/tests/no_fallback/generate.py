import jax, jax.numpy as jnp
from jax import lax
import sys, os
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dn = ('NHWC', 'HWIO', 'NHWC')
def conv(x, w, stride=1, pad='SAME', groups=1):
    return lax.conv_general_dilated(x, w, (stride, stride), pad, dimension_numbers=dn, feature_group_count=groups)
def avg_pool(x, k=2, s=2, pad='VALID'):
    return lax.reduce_window(x, 0., lax.add, (1,k,k,1), (1,s,s,1), pad) / (k*k)
def max_pool(x, k=3, s=2, pad='SAME'):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1,k,k,1), (1,s,s,1), pad)
def cnn(params, x, y):
    w1, w2, wd, wt, wl = params
    h = jax.nn.relu(conv(x, w1))            # 8x8x4 -> 8x8x8
    h = max_pool(h)                         # -> 4x4x8
    h = conv(h, wd, groups=8)               # depthwise 3x3
    h = jax.nn.relu(conv(h, w2, stride=2))  # -> 2x2x8
    h = lax.conv_transpose(h, wt, (2, 2), 'SAME', dimension_numbers=dn)  # -> 4x4x8
    h = avg_pool(h)                         # -> 2x2x8
    h = h.reshape(h.shape[0], -1) @ wl
    return jnp.mean((h - y) ** 2)
k = jax.random.split(jax.random.PRNGKey(0), 8)
params = (jax.random.normal(k[0], (3,3,4,8)), jax.random.normal(k[1], (3,3,8,8)), jax.random.normal(k[2], (3,3,1,8)),
          jax.random.normal(k[3], (2,2,8,8)), jax.random.normal(k[4], (32,3)))
x = jax.random.normal(k[5], (2,8,8,4)); y = jax.random.normal(k[6], (2,3))
def step(params, x, y):
    l, g = jax.value_and_grad(cnn)(params, x, y)
    return l, g
progs = {
  "cnn_train_step": (step, (params, x, y)),
  "avg_pool_fwd_grad": (jax.value_and_grad(lambda x: jnp.sum(avg_pool(x, 3, 2, 'SAME') ** 2)), (x,)),
  "max_pool_fwd_grad": (jax.value_and_grad(lambda x: jnp.sum(max_pool(x) ** 2)), (x,)),
  "cumulative": (lambda x: (jnp.cumsum(x, axis=1), lax.cummax(x, axis=2), jnp.cumprod(x, axis=3), lax.cummin(x, axis=0)), (x,)),
  "depthwise_conv_grad": (jax.value_and_grad(lambda w, x: jnp.sum(conv(x, w, groups=4) ** 2), argnums=(0, 1)), (jax.random.normal(k[7], (3,3,1,8)), x)),
  "transposed_conv_grad": (jax.value_and_grad(lambda w, x: jnp.sum(lax.conv_transpose(x, w, (2, 2), 'SAME', dimension_numbers=dn) ** 2), argnums=(0, 1)), (jax.random.normal(k[7], (3,3,4,6)), x)),
  "conv1d_ncw_grad": (jax.value_and_grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (2,), [(1, 1)], dimension_numbers=('NCH', 'OIH', 'NCH')) ** 2), argnums=(0, 1)), (jax.random.normal(k[7], (6,4,3)), jax.random.normal(k[5], (2,4,9)))),
  "conv3d_grad": (jax.value_and_grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (1,1,1), 'SAME', dimension_numbers=('NDHWC', 'DHWIO', 'NDHWC')) ** 2), argnums=(0, 1)), (jax.random.normal(k[7], (2,2,2,3,4)), jax.random.normal(k[5], (1,4,4,4,3)))),
  "conv_nchw_grad": (jax.value_and_grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (2,2), 'SAME', dimension_numbers=('NCHW', 'OIHW', 'NCHW')) ** 2), argnums=(0, 1)), (jax.random.normal(k[7], (6,4,3,3)), jax.random.normal(k[5], (2,4,7,7)))),
  # Data movement of types the fused kernels do not compute on (view copies), and int8 ones.
  "narrow_types_data_movement": (lambda a, b, c: (a.T, jnp.broadcast_to(a[0], (3,) + a.shape[1:]), a[::-1], a[1:3, ::2], b.T, b[:, None, :],
                                                  jnp.ones((4, 6), jnp.int8), c[::-1, ::-1]),
                                 (jnp.ones((4, 6), jnp.bfloat16), jnp.ones((5, 2), jnp.int8), jnp.ones((3, 2), jnp.float16))),
  # approx_max_k / approx_min_k off TPU: custom_call @ApproxTopK, rewritten into a sort and slices when read.
  "approx_top_k": (lambda a: (lax.approx_max_k(a, 3, reduction_dimension=1), lax.approx_min_k(a, 2, reduction_dimension=0, aggregate_to_topk=False)),
                   (jnp.ones((4, 8), jnp.float32),)),
  # Sorts by one key: top_k of floats (largest first, ties by index) and of integers, along the last
  # dimension and (transposed) along the first.
  "top_k": (lambda a, b: (lax.top_k(a, 3), lax.top_k(b, 2), lax.top_k(a.T, 4)), (jnp.ones((5, 7), jnp.float32), jnp.ones((3, 6), jnp.int32))),
  # jnp.sort / argsort: JAX's comparator canonicalizes -0 and NaN before a total-order compare.
  "sort_argsort": (lambda a, b, c, d: (jnp.sort(a, axis=0), jnp.argsort(a, axis=1), jnp.sort(b), jnp.argsort(-c, axis=0), jnp.sort(d)),
                   (jnp.ones((5, 7), jnp.float32), jnp.ones((3, 6), jnp.int32), jnp.ones((4, 3), jnp.float32), jnp.ones((2, 5), jnp.bfloat16))),
}
# Mixed precision: bf16 / f16 compute with f32 parameters and loss (flax's `dtype=` pattern), and
# int8 quantization helpers. Narrow arithmetic is computed on wide lanes (passes::widen).
def mp_mlp(params, x, y, dt):
    h = x.astype(dt)
    for w, b in params[:-1]:
        h = jax.nn.gelu(h @ w.astype(dt) + b.astype(dt))
        h = h / (jnp.sqrt(jnp.mean(h * h, axis=-1, keepdims=True)) + 1e-3)
    w, b = params[-1]
    logits = (h @ w.astype(dt) + b.astype(dt)).astype(jnp.float32)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
def mp_step(dt):
    def f(params, x, y):
        l, g = jax.value_and_grad(mp_mlp)(params, x, y, dt)
        return l, jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
    return f
mp_params = [(jax.random.normal(k[0], (16, 32)) * 0.25, jnp.zeros(32)), (jax.random.normal(k[1], (32, 32)) * 0.2, jnp.zeros(32)), (jax.random.normal(k[2], (32, 4)) * 0.2, jnp.zeros(4))]
mp_x = jax.random.normal(k[3], (8, 16)); mp_y = jax.nn.one_hot(jnp.arange(8) % 4, 4)
def bf16_cnn(params, x, y):
    w1, w2, wl = params
    h = jax.nn.relu(conv(x.astype(jnp.bfloat16), w1.astype(jnp.bfloat16)))
    h = max_pool(h)
    h = jax.nn.relu(conv(h, w2.astype(jnp.bfloat16), stride=2))
    h = avg_pool(h, 2, 2)
    h = h.reshape(h.shape[0], -1).astype(jnp.float32) @ wl
    return jnp.mean((h - y) ** 2)
def int8_quantized(x, w, s):
    q = jnp.clip(jnp.round(x / s), -127, 127).astype(jnp.int8)
    acc = lax.dot(q, w, preferred_element_type=jnp.int32)
    return acc.astype(jnp.float32) * s * 0.01, (q >> 1) + jnp.int8(3), jnp.abs(q.astype(jnp.int16)) * jnp.int16(2), q.astype(jnp.uint8) // jnp.uint8(3)
progs.update({
  "bf16_mlp_train_step": (mp_step(jnp.bfloat16), (mp_params, mp_x, mp_y)),
  "f16_mlp_train_step": (mp_step(jnp.float16), (mp_params, mp_x, mp_y)),
  "bf16_cnn_train_step": (jax.value_and_grad(bf16_cnn), ((params[0], params[1], jax.random.normal(k[4], (8, 3))), x, y)),
  "int8_quantized": (int8_quantized, (mp_x, jnp.ones((16, 8), jnp.int8), jnp.float32(0.05))),
})
for name, (f, args) in progs.items():
    t = jax.jit(f).lower(*args).as_text()
    open(os.path.join(out, name + ".mlir"), "w").write(t)
    print(name, len(t))
