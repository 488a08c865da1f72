#!/usr/bin/env python3
"""Fits the rational erf of kb_erff (benchtests/include/kb/vmath/vmath.h).

erf(a) ~ a P(a^2) / Q(a^2) on [0, 4], Q(0) = 1, P and Q of degree 5
(kb_erff) or of the degrees given (4 3: kb_erff_half),
minimising the largest absolute error: a linearised least-squares fit
(a P - erf Q, divided by the previous iteration's Q) whose weights are
raised where the error is large (Lawson), in double, against erf from
mpmath at 30 digits. Prints the coefficients rounded to float, as C
literals, and the fit's error before and after rounding (evaluated in
float, without FMA: an estimate; test_vmath.c measures the real one).

Needs numpy and mpmath (pip install numpy mpmath); not run by the build.
Usage: python3 benchtests/tools/fit_erff.py [DEG_P DEG_Q]
"""
import sys

import mpmath
import numpy as np

DEG_P, DEG_Q = (int(v) for v in sys.argv[1:3]) if len(sys.argv) == 3 else (5, 5)
TOP, POINTS, ROUNDS = 4.0, 4000, 60

mpmath.mp.dps = 30
k = np.arange(POINTS)
a = TOP * (1 - np.cos(np.pi * (k + 0.5) / POINTS)) / 2  # Chebyshev points
f = np.array([float(mpmath.erf(v)) for v in a])
s = a * a


def fit():
    q_prev, w, best = np.ones_like(s), np.ones_like(s), None
    for _ in range(ROUNDS):
        m = np.hstack([a[:, None] * s[:, None] ** np.arange(DEG_P + 1),
                       -f[:, None] * s[:, None] ** np.arange(1, DEG_Q + 1)])
        scale = w / q_prev
        sol = np.linalg.lstsq(m * scale[:, None], f * scale, rcond=None)[0]
        p, q = sol[:DEG_P + 1], np.concatenate([[1.0], sol[DEG_P + 1:]])
        q_prev = np.polyval(q[::-1], s)
        err = a * np.polyval(p[::-1], s) / q_prev - f
        worst = np.max(np.abs(err))
        if best is None or worst < best[0]:
            best = (worst, p, q)
        w = w * np.sqrt(np.abs(err) / worst) + 1e-12
        w /= w.max()
    return best


def in_float(p, q):
    x = np.linspace(0, TOP, 200001).astype(np.float32)
    sx = x * x
    pv, qv = np.zeros_like(x), np.zeros_like(x)
    for c in p[::-1]:
        pv = pv * sx + c
    for c in q[::-1]:
        qv = qv * sx + c
    y = (x * pv / qv).astype(np.float64)
    ref = np.array([float(mpmath.erf(float(v))) for v in x[::10]])
    return np.max(np.abs(y[::10] - ref))


worst, p, q = fit()
p32, q32 = p.astype(np.float32), q.astype(np.float32)
print(f"fit: max abs error {worst:.3g}; rounded to float and evaluated in float: "
      f"{in_float(p32, q32):.3g}")
for name, c in (("P", p32), ("Q", q32)):
    print(name, ", ".join(float.hex(float(v)).replace("0000000p", "p") + "f" for v in c))
