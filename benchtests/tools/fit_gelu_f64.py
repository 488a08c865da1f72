#!/usr/bin/env python3
"""Fits the table of kb_gelu_f64_tab (benchtests/include/kb/vmath/gelu64.h).

GELU(x) = x Phi(x) = max(x, 0) - u p(u), with u = |x| and p(u) = Phi(-u),
the normal tail. p is tabulated on [0, CUT] in K = 16 pieces, each a
polynomial of degree D = 10 in v = g(u) - m, where g(u) = u (A - B u) and
m = round(g(u)) picks the piece (v in [-1/2, 1/2]). g is concave: the
pieces are narrow near 0, where p bends most, and wide in the tail, where
its absolute size (all the result needs) is small: g(UEND) = 15.5, and
BETA sets how much wider the last piece is than the first. Beyond CUT
(g = 15.49, below 15.5 by far more than rounding) the result takes
CUT p(CUT), u being clamped: an absolute error below 2e-17.

Each piece interpolates p at the D + 1 Chebyshev points of [-1/2, 1/2]
(widened by 1e-4, so that rounding at a boundary stays inside the fit;
the first piece's from -1e-4, as u >= 0), computed at 40 digits by
mpmath, and the coefficients are rounded to double. Prints the constants
and the table as C, and on stderr the largest error in u p(u) with the rounded
coefficients (evaluated exactly: test_vmath.c measures the error of the
double evaluation) and p's relative error at CUT, which must stay well
below 1 for the result to keep GELU's sign. The table holds the
coefficients of -p and the constants -B, so that the evaluation needs
no negation (a negated NaN would change sign, and the scalar and vector
forms would then differ in it).

Needs mpmath (pip install mpmath); not run by the build.
Usage: python3 benchtests/tools/fit_gelu_f64.py [D UEND BETA]  (0 < BETA < 1)
"""
import sys

import mpmath as mp

mp.mp.dps = 40
K = 16


def args():
    """D, UEND and BETA from the command line (all three, or none for the
    table in the header); exits with a message naming the bad one."""
    if len(sys.argv) == 1:
        return 10, mp.mpf("8.7"), mp.mpf("0.8")
    if len(sys.argv) != 4:
        sys.exit("usage: fit_gelu_f64.py [D UEND BETA] (all three or none)")
    try:
        d, uend, beta = int(sys.argv[1]), mp.mpf(sys.argv[2]), mp.mpf(sys.argv[3])
    except ValueError as e:
        sys.exit("fit_gelu_f64.py: %s" % e)
    if not 1 <= d <= 30:
        sys.exit("fit_gelu_f64.py: D %d: want a degree from 1 to 30" % d)
    if not (mp.isfinite(uend) and uend > 0):
        sys.exit("fit_gelu_f64.py: UEND %s: want a finite u > 0" % sys.argv[2])
    # B = 0 (BETA 0) has no inverse as written; BETA >= 1 makes g turn
    # before UEND, so that two u share a piece.
    if not (mp.isfinite(beta) and 0 < beta < 1):
        sys.exit("fit_gelu_f64.py: BETA %s: want 0 < BETA < 1" % sys.argv[3])
    return d, uend, beta


D, UEND, BETA = args()

A = float((K - mp.mpf(0.5)) / UEND * (1 + BETA))
B = float((K - mp.mpf(0.5)) * BETA / UEND ** 2)


def u_of(g):
    """The smaller root of u (A - B u) = g, with A and B as rounded."""
    a, b = mp.mpf(A), mp.mpf(B)
    return (a - mp.sqrt(a * a - 4 * b * g)) / (2 * b)


def p(u):
    return mp.ncdf(-u)


def horner(c, v):
    r = mp.mpf(0)
    for x in reversed(c):
        r = r * v + x
    return r


def fit(m):
    lo, hi = (mp.mpf("-1e-4") if m == 0 else mp.mpf("-0.5001")), mp.mpf("0.5001")
    v = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(0.5)) / (D + 1))
         for k in range(D + 1)]
    vand = mp.matrix([[x ** j for j in range(D + 1)] for x in v])
    c = mp.lu_solve(vand, mp.matrix([p(u_of(m + x)) for x in v]))
    return [float(c[j]) for j in range(D + 1)], lo, hi


CUT = float(u_of(mp.mpf("15.49")))
table, worst = [], mp.mpf(0)
for m in range(K):
    c, lo, hi = fit(m)
    table.append(c)
    for k in range(401):
        x = lo + (hi - lo) * k / 400
        u = u_of(m + x)
        worst = max(worst, abs(horner(c, x) - p(u)) * abs(u))
g_cut = mp.mpf(CUT) * (mp.mpf(A) - mp.mpf(B) * CUT)
rel_cut = horner(table[K - 1], g_cut - (K - 1)) / p(mp.mpf(CUT)) - 1
sys.stderr.write("largest |u (poly - p)|: %s; p's relative error at CUT %s: %s\n"
                 % (mp.nstr(worst, 3), CUT, mp.nstr(rel_cut, 3)))

print("#define KB__GELU64_A   %s" % A.hex())
print("#define KB__GELU64_NB  %s /* -B */" % (-B).hex())
print("#define KB__GELU64_CUT %s /* %.17g */" % (CUT.hex(), CUT))
print("#define KB__GELU64_D   %d" % D)
print("static const _Alignas(64) double kb__gelu64_tab[KB__GELU64_D + 1][16] = {")
for j in range(D + 1):
    print("    {" + ", ".join((-table[m][j]).hex() for m in range(K)) + "},")
print("};")
