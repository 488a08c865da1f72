#!/usr/bin/env python3
"""Compare two runs of the suite, case by case, from their report summaries.

    suite_diff.py BEFORE/summary.json AFTER/summary.json [--rmse-rel R]

Used to show that a change which should not alter behaviour did not: both
runs must hold the same tests, cases and variants, each with the same
verdict and pass/fail, and the same RMSE (to a relative R, default 1e-9:
a reference computed in a different but exact-enough order may move the
last digits). Timings cannot be equal between two runs; the median-time
ratios (after / before) are summarised so that a shift shows, and listed
for every case outside +-10 %. Exit 0 when everything but timing agrees,
1 otherwise, 2 on unreadable input.
"""
import argparse
import json
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"suite_diff: {path}: {e}")
    cases = {}
    for test in summary.get("tests", []):
        for c in test.get("cases", []):
            key = (test["test"], c.get("variant"), c.get("case"))
            if key in cases:
                sys.exit(f"suite_diff: {path}: {key} appears twice")
            cases[key] = c
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rmse-rel", type=float, default=1e-9)
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    problems = []
    for key in sorted(set(before) - set(after)):
        problems.append(f"only before: {'/'.join(map(str, key))}")
    for key in sorted(set(after) - set(before)):
        problems.append(f"only after:  {'/'.join(map(str, key))}")
    ratios, outside = [], []
    for key in sorted(set(before) & set(after)):
        b, c = before[key], after[key]
        name = "/".join(map(str, key))
        for field in ("verdict", "passed"):
            if b.get(field) != c.get(field):
                problems.append(f"{name}: {field} {b.get(field)} -> {c.get(field)}")
        rb, rc = b.get("rmse"), c.get("rmse")
        if (rb is None) != (rc is None):
            problems.append(f"{name}: rmse {rb} -> {rc}")
        elif rb is not None and abs(rc - rb) > a.rmse_rel * max(abs(rb), abs(rc), 1e-300):
            problems.append(f"{name}: rmse {rb!r} -> {rc!r}")
        mb, mc = b.get("median_ms"), c.get("median_ms")
        if mb and mc:
            ratios.append(mc / mb)
            if not 0.9 <= mc / mb <= 1.1:
                outside.append(f"  {name}: {mb:.6g} -> {mc:.6g} ms (x{mc / mb:.3f})")
    common = len(set(before) & set(after))
    print(f"cases: {len(before)} before, {len(after)} after, {common} in both")
    if ratios:
        q = statistics.quantiles(ratios, n=20) if len(ratios) > 1 else ratios * 19
        print(f"median time after/before over {len(ratios)} cases: median x{statistics.median(ratios):.3f}, "
              f"5-95 % x{q[0]:.3f}-x{q[-1]:.3f}, min x{min(ratios):.3f}, max x{max(ratios):.3f}")
        print(f"{len(outside)} cases outside x0.9-x1.1 (timing only, not a failure):")
        print("\n".join(outside) if outside else "  none")
    if problems:
        print(f"{len(problems)} differences other than timing:")
        print("\n".join("  " + p for p in problems))
        return 1
    print("same tests, cases, variants, verdicts and RMSE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
