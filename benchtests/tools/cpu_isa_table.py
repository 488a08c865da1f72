#!/usr/bin/env python3
"""The CPU kernels per ISA, in one table.

    cpu_isa_table.py --build native=build/bin --build avx2=build-avx2/bin
                     [--repeats 3] [--cpu N] [--work DIR]

Each --build names a build's bin/ (an AVX2-only build: configure with
-DKBENCH_CPU_NATIVE=OFF -DCMAKE_C_FLAGS=-march=haswell). For every build and
repeat, the builds taking turns so that both see the same load: a fresh
calibration (memory's ceiling per access pattern), then the cases below,
not gated (an empty baseline directory). Prints, per build, the median over
the repeats of

  * memory's ceiling per pattern (GB/s);
  * % of its ceiling (pct_roofline) for bandwidth's DRAM copy and triad and
    the DRAM-size case of gelu, swish, softmax and layernorm, every
    precision, every variant but the vendor's;
  * the speedup over the vendor library (its median time / ours: above 1,
    kbench is faster) for GEMM at 512^3, conv2d_bn_relu's folded variant,
    cross_entropy's fused one and layernorm's, fp32.

--cpu N pins every driver to CPU N (taskset). Exit 0, or 1 when a driver
fails (its output is printed).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALL_PRECS = ["fp64", "fp32", "fp16", "bf16"]

# (what, kernel, precisions, case or None for the default set, variants or None for all but vendor)
ROOF = [
    ("roof", "bandwidth", ["fp64", "fp32"], None, None, ["copy_n16M", "triad_n16M"]),
    ("roof", "gelu", ALL_PRECS, "n16m", None, None),
    ("roof", "swish", ALL_PRECS, "n16m", None, None),
    ("roof", "softmax", ALL_PRECS, "r16384_c1024", None, None),
    ("roof", "layernorm", ALL_PRECS, None, None, ["b32_s512_h1024"]),
]
VENDOR = [
    ("vendor", "gemm", ["fp32", "fp64"], "m512_n512_k512", ["blocked"], None),
    ("vendor", "conv2d_bn_relu", ["fp32"], None, ["folded"], None),
    ("vendor", "cross_entropy", ["fp32"], None, ["fused"], None),
    ("vendor", "layernorm", ["fp32"], None, ["default"], None),
]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode not in (0, 77):
        sys.stdout.write(p.stdout)
        sys.exit(f"cpu_isa_table: {' '.join(cmd)} exited {p.returncode}")
    return p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", required=True, help="NAME=BIN_DIR")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cpu", type=int)
    ap.add_argument("--work", default="cpu-isa-table")
    a = ap.parse_args()
    builds = []
    for b in a.build:
        name, _, path = b.partition("=")
        if not name or not os.path.isfile(os.path.join(path, "kbench-bandwidth")):
            sys.exit(f"cpu_isa_table: --build {b}: expected NAME=<build>/bin holding kbench-bandwidth")
        builds.append((name, os.path.abspath(path)))
    pin = ["taskset", "-c", str(a.cpu)] if a.cpu is not None else []
    empty = os.path.join(a.work, "empty-baselines")
    os.makedirs(empty, exist_ok=True)
    os.environ["KBENCH_RECALIBRATE"] = "1"  # each repeat measures memory afresh

    figures = {}  # (name, key) -> [values]
    order = []

    def add(name, key, value):
        if key not in order:
            order.append(key)
        figures.setdefault((name, key), []).append(value)

    for rep in range(a.repeats):
        for name, bin_dir in builds:
            out = os.path.abspath(os.path.join(a.work, name, str(rep)))
            os.makedirs(out, exist_ok=True)
            run(pin + [os.path.join(bin_dir, "kbench-bandwidth"), "-b", "cpu", "-p", "fp64",
                       "--manifest", os.path.join(SOURCE, "kernels/bandwidth/kernel.json"),
                       "--calibrate", "--results-dir", out])
            calibration = os.path.join(out, "calibration", "cpu.json")
            with open(calibration) as f:
                cal = json.load(f)
            for pattern, fig in sorted((cal.get("patterns") or {}).items()):
                add(name, ("ceiling", "memory", "", pattern, "GB/s"), fig["gbps"])
            for what, kernel, precs, case, variants, keep_cases in ROOF + VENDOR:
                for prec in precs:
                    cmd = pin + [os.path.join(bin_dir, "kbench-" + kernel), "-b", "cpu", "-p", prec,
                                 "--manifest", os.path.join(SOURCE, "kernels", kernel, "kernel.json"),
                                 "--baseline-dir", empty, "--results-dir", out,
                                 "--calibration", calibration]
                    if case:
                        cmd += ["--case", case]
                    if run(cmd) == 77:
                        continue
                    with open(os.path.join(out, f"{kernel}.cpu.{prec}.json")) as f:
                        result = json.load(f)
                    for c in result.get("cases", []):
                        if c.get("skipped") or (keep_cases and c["case"] not in keep_cases):
                            continue
                        v = c["variant"]
                        if what == "roof" and v != "vendor" and (variants is None or v in variants):
                            if c.get("pct_roofline") is not None:
                                add(name, ("% of ceiling", kernel, prec, f"{c['case']} {v}", "%"),
                                    c["pct_roofline"])
                        if what == "vendor" and v in variants and c.get("vendor_speedup") is not None:
                            add(name, ("x vendor", kernel, prec, f"{c['case']} {v}", "x"),
                                c["vendor_speedup"])

    names = [n for n, _ in builds]
    print(f"CPU kernels per ISA: median of {a.repeats} runs per build"
          + (f", pinned to CPU {a.cpu}" if a.cpu is not None else ""))
    print("| figure | kernel | precision | case, variant | " + " | ".join(names) + " |")
    print("|---|---|---|---|" + "---:|" * len(names))
    for key in order:
        what, kernel, prec, case, unit = key
        cells = []
        for n in names:
            vals = figures.get((n, key))
            cells.append("-" if not vals else (f"{statistics.median(vals):.1f}" if unit != "x"
                                              else f"{statistics.median(vals):.2f}"))
        print(f"| {what} ({unit}) | {kernel} | {prec} | {case} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
