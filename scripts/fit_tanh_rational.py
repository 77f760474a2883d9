#!/usr/bin/env python3
"""Fits the rational used by runtime/src/exec/fused/fastmath.rs `tanh_f32` (float64 numpy only).

tanh(x) = 2T / (1 + T^2) with T = tanh(x/2) ~ x P(s) / Q(s), s = x^2, on |x| <= C.
P(0) = 1 and Q(0) = 2 exactly. The fit minimises the largest relative error of T weighted by how
much an error of T moves tanh(x): d ln tanh / d ln T = (1 - T^2) / (1 + T^2), which vanishes as T -> 1,
so large arguments need little accuracy. Linearised least squares (the denominator of the previous
iteration divides the residual) with Lawson reweighting towards the minimax solution.

Usage: fit_tanh_rational.py [deg_P] [deg_Q] [C] [fixed_q1]
"""
import sys
import numpy as np


def target(s):
    """tanh(sqrt(s)/2) / sqrt(s), with its series near 0."""
    x = np.sqrt(s)
    out = np.empty_like(s)
    big = x > 1e-3
    out[big] = np.tanh(0.5 * x[big]) / x[big]
    u = s[~big] / 4
    out[~big] = 0.5 * (1 - u / 3 + 2 * u * u / 15)
    return out


def fit(m, n, c, fixed_q1=None, iters=400, points=8000):
    span = c * c
    k = np.arange(points)
    # Points in t = s / C^2 on [0, 1]: Chebyshev-distributed plus uniform.
    t = np.sort(np.concatenate([0.5 - 0.5 * np.cos(np.pi * (k + 0.5) / points), np.linspace(0, 1, points)]))
    s = t * span
    g = target(s)
    tt = np.tanh(0.5 * np.sqrt(s))
    sens = np.maximum((1 - tt * tt) / (1 + tt * tt), 1e-12)
    # Unknowns in the scaled variable t: P = 1/2 + sum a_i t^i (i = 1..m), Q = 1 + sum b_j t^j (j = 1..n).
    vp = np.vander(t, m + 1, increasing=True)[:, 1:]
    vq = np.vander(t, n + 1, increasing=True)[:, 1:]
    q_cols = list(range(n))
    fixed = np.zeros_like(t)
    if fixed_q1 is not None:
        b1 = fixed_q1 * span  # coefficient of t
        fixed = g * b1 * t
        q_cols = q_cols[1:]
    w = np.ones_like(t)
    q_prev = np.ones_like(t)
    best = None
    for it in range(iters):
        # Residual (P - g Q) / (g Q_prev) * sens, linear in the unknowns.
        scale = np.sqrt(w) * sens / (g * q_prev)
        a_mat = np.hstack([vp, -(g[:, None] * vq[:, q_cols])]) * scale[:, None]
        rhs = (g - 0.5 + fixed) * scale
        coef, *_ = np.linalg.lstsq(a_mat, rhs, rcond=None)
        a = np.concatenate([[0.5], coef[:m]])
        b = np.zeros(n + 1)
        b[0] = 1.0
        if fixed_q1 is not None:
            b[1] = fixed_q1 * span
        b[[j + 1 for j in q_cols]] = coef[m:]
        p_val = np.vander(t, m + 1, increasing=True) @ a
        q_val = np.vander(t, n + 1, increasing=True) @ b
        err = sens * (p_val / q_val - g) / g
        e = np.max(np.abs(err))
        if best is None or e < best[0]:
            best = (e, a.copy(), b.copy())
        q_prev = q_val
        if it > 5:
            w = w * np.abs(err) ** 0.5
            w = np.maximum(w / w.sum(), 1e-300)
    e, a, b = best
    # Back to the variable s, then scaled by 2 so that P(0) = 1 and Q(0) = 2.
    p = 2 * a / span ** np.arange(m + 1)
    q = 2 * b / span ** np.arange(n + 1)
    return e, p, q


def main():
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    c = float(sys.argv[3]) if len(sys.argv) > 3 else 9.0
    fixed_q1 = float(sys.argv[4]) if len(sys.argv) > 4 else None
    e, p, q = fit(m, n, c, fixed_q1)
    p32, q32 = p.astype(np.float32), q.astype(np.float32)
    assert p32[0] == 1.0 and q32[0] == 2.0
    print(f"# degrees ({m}, {n}) on |x| <= {c}: weighted relative error of T {e:.3e} = {e / 2.0**-24:.3f} x 2^-24")
    print("# roots of Q in s:", np.roots(q[::-1]))
    # Shortest decimal forms that read back as the same f32.
    print("P", ", ".join(str(v) for v in p32))
    print("Q", ", ".join(str(v) for v in q32))
    # The same error with the coefficients rounded to f32 (evaluated in float64).
    s = np.linspace(0, c * c, 200001)
    tt = np.tanh(0.5 * np.sqrt(s))
    sens = (1 - tt * tt) / (1 + tt * tt)
    r = np.polyval(p32[::-1].astype(np.float64), s) / np.polyval(q32[::-1].astype(np.float64), s)
    print(f"# after rounding to f32: {np.max(np.abs(sens * (r / target(s) - 1))) / 2.0**-24:.3f} x 2^-24")


if __name__ == "__main__":
    main()
