#!/usr/bin/env python3
"""Fits the polynomials of kb_expf_half (DEG 4, the default) and kb_expf
(DEG 6) in benchtests/include/kb/vmath/vmath.h.

e^r ~ 1 + r + r^2 q(r) on |r| <= ln2/2 (the reduced argument), q of degree
DEG - 2, minimising the largest relative error: least squares weighted by
1 / e^r, the weights raised where the error is large (Lawson), in double,
against exp from mpmath at 30 digits. Fixing the first two coefficients at 1
keeps e^r exact to first order near 0. Prints q's coefficients rounded to
float, as C literals, and the relative error before and after rounding
(evaluated in float, without FMA: an estimate; test_vmath.c measures the
real one).

Needs numpy and mpmath (pip install numpy mpmath); not run by the build.
Usage: python3 benchtests/tools/fit_expf.py [DEG]   (default 4)
"""
import sys

import mpmath
import numpy as np

DEG = int(sys.argv[1]) if len(sys.argv) == 2 else 4
HALF, POINTS, ROUNDS = np.log(2.0) / 2 * 1.0005, 4000, 80

mpmath.mp.dps = 30
k = np.arange(POINTS)
r = HALF * np.cos(np.pi * (k + 0.5) / POINTS)  # Chebyshev points
f = np.array([float(mpmath.exp(v)) for v in r])


def fit():
    w, best = np.ones_like(r), None
    m = (r * r)[:, None] * r[:, None] ** np.arange(DEG - 1)
    for _ in range(ROUNDS):
        scale = w / f
        c = np.linalg.lstsq(m * scale[:, None], (f - 1 - r) * scale, rcond=None)[0]
        err = (1 + r + r * r * np.polyval(c[::-1], r)) / f - 1
        worst = np.max(np.abs(err))
        if best is None or worst < best[0]:
            best = (worst, c)
        w = w * np.sqrt(np.abs(err) / worst) + 1e-12
        w /= w.max()
    return best


def in_float(c):
    x = np.linspace(-HALF, HALF, 100001).astype(np.float32)
    q = np.zeros_like(x)
    for v in c[::-1]:
        q = q * x + v
    y = (1 + x + x * x * q).astype(np.float64)
    return np.max(np.abs(y / np.exp(x.astype(np.float64)) - 1))


worst, c = fit()
c32 = c.astype(np.float32)
print(f"fit: max relative error {worst:.3g}; rounded to float and evaluated in float: "
      f"{in_float(c32):.3g}")
print("q", ", ".join(float.hex(float(v)).replace("0000000p", "p") + "f" for v in c32))
