#!/usr/bin/env python3
# LeNet's five training-step convolutions (the zoo model's shapes and dimension numbers: two forward
# convolutions, two filter gradients, one input gradient), each timed on apu and on XLA:CPU in one process,
# interleaved, medians of 15 rounds of 20 calls. Usage: APU_LIBRARY_PATH=... python benches/lenet_convs.py [index...]
# (needs jax with the apu plugin installed; APU_CONV_DOT=0 compares the filter gradients on im2col).
import os, sys, time, statistics
os.environ.setdefault("JAX_PLATFORMS", "apu,cpu")
import jax, jax.numpy as jnp, numpy as np
from jax import lax
C = [  # lhs shape, rhs shape, specs, padding
 ((64,28,28,1),(5,5,1,6),("NHWC","HWIO","NHWC"),2),
 ((64,14,14,6),(5,5,6,16),("NHWC","HWIO","NHWC"),0),
 ((64,14,14,6),(64,10,10,16),("CHWN","IHWO","HWNC"),0),
 ((64,10,10,16),(5,5,6,16),("NHWC","HWOI","NHWC"),4),
 ((64,28,28,1),(64,28,28,6),("CHWN","IHWO","HWNC"),2),
]
only = [int(a) for a in sys.argv[1:]] or range(len(C))
rng = np.random.default_rng(0)
for i in only:
    ls, rs, dn, p = C[i]
    a = rng.standard_normal(ls).astype(np.float32); b = rng.standard_normal(rs).astype(np.float32)
    f = lambda a, b: lax.conv_general_dilated(a, b, (1,1), [(p,p),(p,p)], dimension_numbers=dn)
    res = {}
    fns = {}
    for plat in ("apu", "cpu"):
        d = jax.devices(plat)[0]
        x, y = jax.device_put(a, d), jax.device_put(b, d)
        c = jax.jit(f).lower(x, y).compile()
        res[plat] = np.asarray(c(x, y)); fns[plat] = (c, x, y)
    err = np.max(np.abs(res["apu"] - res["cpu"])) / (np.max(np.abs(res["cpu"])) + 1e-30)
    t = {"apu": [], "cpu": []}
    for r in range(15):
        for plat in ("apu", "cpu") if r % 2 else ("cpu", "apu"):
            c, x, y = fns[plat]
            c(x, y).block_until_ready()
            s = time.perf_counter()
            for _ in range(20): o = c(x, y)
            o.block_until_ready()
            t[plat].append((time.perf_counter() - s) / 20 * 1e3)
    ma, mc = statistics.median(t["apu"]), statistics.median(t["cpu"])
    print(f"conv{i} {ls}x{rs} {dn} pad{p}: apu {ma:.3f} ms  cpu {mc:.3f} ms  ratio {ma/mc:.2f}  relerr {err:.1e}")
