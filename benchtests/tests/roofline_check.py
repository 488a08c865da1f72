#!/usr/bin/env python3
"""The run report's roofline charts, summary.md, summary.json and gbench JSON
against hand-made results (benchtests/tests/roofline/results: two backends,
this machine's CPU ceilings, a failed case, a case that errored, copies with
no flops, a result written before the roofline fields).

  roofline_check.py --report kbench-report --fixtures DIR --work DIR

Checks, per backend: roofline-<backend>.svg is well-formed (xmllint), has one
point per case that ran with flops, at the position its intensity and GFLOP/s
map to on the plot's log axes (whose tick labels must sit where the same
mapping puts them), a red ring on each failed point; one sloped line per
memory level of the fixture's calibration on y = GB/s x intensity, one level
line per distinct compute peak (matrix roofs dashed), each with its label;
the failed cases and the copies listed under the chart. Exit 0 when all hold,
1 naming what does not."""
import argparse
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
KB = "{urn:kbench:roofline}"
problems = []


def fail(msg):
    problems.append(msg)


def close(a, b, rel=1e-5, abs_=0.0):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def load_fixtures(d):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(path) as f:
            out.append(json.load(f))
    return out


def expected_points(results, backend):
    pts, failed, no_flops = {}, [], []
    for r in results:
        if r["backend"] != backend or r.get("case_set") == "calibration":
            continue
        for c in r["cases"]:
            key = (r["test"], c["case"], c["variant"])
            if not c["passed"]:
                failed.append(key)
            if "median_ms" not in c:
                continue
            roof = c.get("roofline")
            x = roof["intensity"] if roof else (c["gflops"] / c["gbps"] if c["gbps"] else 0)
            if c["gflops"] > 0 and x > 0:
                pts[key] = (x, c["gflops"], c["passed"], r["precision"])
            else:
                no_flops.append(key)
    return pts, failed, no_flops


class Axes:
    def __init__(self, root):
        plot = root.find(f".//{SVG}rect[@class='plot']")
        if plot is None:
            raise SystemExit("FAIL: no <rect class='plot'> in the chart")
        self.x0 = float(plot.get("x"))
        self.y0 = float(plot.get("y"))
        self.w = float(plot.get("width"))
        self.h = float(plot.get("height"))
        self.xlo, self.xhi = map(float, plot.get(KB + "log-x").split())
        self.ylo, self.yhi = map(float, plot.get(KB + "log-y").split())

    def px(self, v):
        return self.x0 + (math.log10(v) - self.xlo) / (self.xhi - self.xlo) * self.w

    def py(self, v):
        return self.y0 + self.h - (math.log10(v) - self.ylo) / (self.yhi - self.ylo) * self.h

    def inv_x(self, x):
        return 10 ** (self.xlo + (x - self.x0) / self.w * (self.xhi - self.xlo))


def check_ticks(root, ax, name):
    xt = root.findall(f".//{SVG}text[@class='xtick']")
    yt = root.findall(f".//{SVG}text[@class='ytick']")
    if len(xt) < 3 or len(yt) < 2:
        fail(f"{name}: {len(xt)} x and {len(yt)} y decade labels")
    for t in xt:
        v = float(t.text)
        if not close(float(t.get("x")), ax.px(v), abs_=0.15):
            fail(f"{name}: x tick '{t.text}' at x={t.get('x')}, the axis puts it at {ax.px(v):.1f}")
        if not close(math.log10(v), round(math.log10(v)), abs_=1e-9):
            fail(f"{name}: x tick '{t.text}' is not a decade")
    for t in yt:
        v = float(t.text)
        if not close(float(t.get("y")) - 4, ax.py(v), abs_=0.15):
            fail(f"{name}: y tick '{t.text}' at y={t.get('y')}, the axis puts it at {ax.py(v):.1f}")


def marker_centre(g):
    """The centre of the point's first shape, from its geometry."""
    for el in g:
        tag = el.tag.replace(SVG, "")
        if tag == "circle":
            return float(el.get("cx")), float(el.get("cy"))
        if tag == "rect":
            return (float(el.get("x")) + float(el.get("width")) / 2,
                    float(el.get("y")) + float(el.get("height")) / 2)
        if tag == "polygon":
            xy = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
            xs, ys = [p[0] for p in xy], [p[1] for p in xy]
            return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return None


def check_points(root, ax, pts, name):
    seen = set()
    for g in root.iter(f"{SVG}g"):
        cls = (g.get("class") or "").split()
        if "point" not in cls:
            continue
        key = (g.get(KB + "test"), g.get(KB + "case"), g.get(KB + "variant"))
        if key in seen:
            fail(f"{name}: point {key} drawn twice")
        seen.add(key)
        if key not in pts:
            fail(f"{name}: point {key} is not a case of the results with flops")
            continue
        x, y, passed, prec = pts[key]
        if not close(float(g.get(KB + "intensity")), x) or not close(float(g.get(KB + "gflops")), y):
            fail(f"{name}: point {key} says intensity {g.get(KB + 'intensity')}, GFLOP/s "
                 f"{g.get(KB + 'gflops')}; the result says {x}, {y}")
        centre = marker_centre(g)
        # the shapes' coordinates are written to 0.1 px; a triangle's box is
        # not centred on its point (0.2 r)
        if centre is None or abs(centre[0] - ax.px(x)) > 0.2 or abs(centre[1] - ax.py(y)) > 1.2:
            fail(f"{name}: point {key} drawn at {centre}, its figures map to "
                 f"({ax.px(x):.1f}, {ax.py(y):.1f})")
        rings = [c for c in g.iter(f"{SVG}circle") if c.get("stroke") == "#c62828"
                 and c.get("fill") == "none"]
        if ("failed" in cls) == passed or bool(rings) == passed:
            fail(f"{name}: point {key} (passed={passed}) has class {cls} and {len(rings)} red rings")
    for key in pts:
        if key not in seen:
            fail(f"{name}: no point for {key}")


def peaks(cal, key):
    """The distinct peaks of calibration[key] (within 1 %), as the chart merges them."""
    out = []
    for prec, v in (cal.get(key) or {}).items():
        for p in out:
            if close(p[0], v["gflops"], rel=0.01):
                p[1].add(prec)
                break
        else:
            out.append([v["gflops"], {prec}])
    return out


def check_ceilings(root, ax, cal, name):
    lines = root.findall(f".//{SVG}line")
    labels = " | ".join(t.text or "" for t in root.findall(f".//{SVG}text[@class='ceiling-label']"))
    mem = [l for l in lines if l.get("class") == "ceiling memory"]
    want = {l["name"]: l["gbps"] for l in cal.get("levels", [])}
    got = {l.get(KB + "name"): float(l.get(KB + "gbps")) for l in mem}
    if set(got) != set(want) or any(not close(got[k], want[k]) for k in want):
        fail(f"{name}: memory ceilings {got}, the calibration has {want}")
    for l in mem:
        g = float(l.get(KB + "gbps"))
        for xa, ya in (("x1", "y1"), ("x2", "y2")):
            i = ax.inv_x(float(l.get(xa)))
            if abs(float(l.get(ya)) - ax.py(g * i)) > 0.3:
                fail(f"{name}: the {l.get(KB + 'name')} line's end ({l.get(xa)}, {l.get(ya)}) is "
                     f"not on GB/s x intensity ({ax.py(g * i):.1f})")
        if not re.search(re.escape(l.get(KB + "name")) + r" [0-9.]+ [GT]B/s", labels):
            fail(f"{name}: no label for the {l.get(KB + 'name')} line in '{labels}'")
    for kind, key, dashed in (("compute", "compute", False), ("matrix", "matrix", True)):
        drawn = [l for l in lines if l.get("class") == "ceiling " + kind]
        want = peaks(cal, key)
        if len(drawn) != len(want):
            fail(f"{name}: {len(drawn)} {kind} lines for the calibration's {len(want)} distinct peaks")
        for gflops, precs in want:
            match = [l for l in drawn if close(float(l.get(KB + "gflops")), gflops)]
            if len(match) != 1:
                fail(f"{name}: no single {kind} line at {gflops} GFLOP/s")
                continue
            l = match[0]
            names = set(l.get(KB + "name").split(", "))
            if names != precs:
                fail(f"{name}: the {kind} line at {gflops} names {names}, expected {precs}")
            if abs(float(l.get("y1")) - ax.py(gflops)) > 0.1 or l.get("y1") != l.get("y2"):
                fail(f"{name}: the {kind} line at {gflops} GFLOP/s is not level at its height")
            if bool(l.get("stroke-dasharray")) != dashed:
                fail(f"{name}: the {kind} line at {gflops} is {'not ' if dashed else ''}dashed")
            if l.get(KB + "name") not in labels:
                fail(f"{name}: no label for the {kind} line {l.get(KB + 'name')}")


def check_lists(root, failed, no_flops, name):
    def text(cls):
        return " ".join(t.text or "" for t in root.findall(f".//{SVG}text[@class='{cls}']"))
    for key, cls in [(k, "failed-list") for k in failed] + [(k, "no-flops-list") for k in no_flops]:
        if " ".join(key) not in text(cls):
            fail(f"{name}: '{' '.join(key)}' is not in the {cls} under the chart")


def check_chart(path, results, backend):
    name = os.path.basename(path)
    rc = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    if rc.returncode != 0:
        fail(f"{name}: not well-formed XML: {rc.stderr}")
        return
    root = ET.parse(path).getroot()
    if root.findall(f".//{SVG}script"):
        fail(f"{name}: has a script")
    ax = Axes(root)
    pts, failed, no_flops = expected_points(results, backend)
    check_ticks(root, ax, name)
    check_points(root, ax, pts, name)
    cal = next(r["calibration"] for r in results
               if r["backend"] == backend and r["calibration"].get("levels"))
    check_ceilings(root, ax, cal, name)
    check_lists(root, failed, no_flops, name)
    print(f"{name}: {len(pts)} points, {len(failed)} failed, {len(no_flops)} without flops")


def check_summary(out, results):
    with open(os.path.join(out, "summary.md")) as f:
        md = f.read()
    for text in ("![roofline roofline-cpu.svg](roofline-cpu.svg)",
                 "![roofline roofline-cuda.svg](roofline-cuda.svg)",
                 "| % of roofline | bound | speedup over |"):
        if text not in md:
            fail(f"summary.md: no '{text}'")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    if summary.get("roofline_charts") != ["roofline-cpu.svg", "roofline-cuda.svg"]:
        fail(f"summary.json: roofline_charts {summary.get('roofline_charts')}")
    tests = {t["test"]: t for t in summary["tests"]}
    for r in results:
        for i, c in enumerate(r["cases"]):
            s = tests[r["test"]]["cases"][i]
            for key in ("pct_roofline", "vendor_speedup", "roofline"):
                if "median_ms" in c and s.get(key) != c.get(key):
                    fail(f"summary.json: {r['test']} cases[{i}].{key} is {s.get(key)}, the "
                         f"result says {c.get(key)}")
            if "median_ms" not in c or not c.get("roofline"):
                continue
            # the leaderboard row: % of roofline, the bound, the vendor ratio
            row = (f"`{c['case']}` | `{c['variant']}` |")
            cells = [l for l in md.splitlines() if row in l and f"| `{c['roofline']['bound']}` |" in l
                     and f"| {c['pct_roofline']:.0f} % |" in l]
            if not cells:
                fail(f"summary.md: no leaderboard row for {r['test']} {c['case']} {c['variant']} "
                     f"with {c['pct_roofline']:.0f} % and bound {c['roofline']['bound']}")
            elif (c.get("vendor_speedup") is not None
                  and f"| `vendor` x{c['vendor_speedup']:.2f} |" not in cells[0]):
                fail(f"summary.md: the row of {r['test']} {c['case']} {c['variant']} has no "
                     f"`vendor` x{c['vendor_speedup']:.2f}")


def check_gbench(report, results_dir, results):
    p = subprocess.run([report, results_dir, "--format", "gbench"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"--format gbench: exit {p.returncode}: {p.stderr}")
        return
    rows = {r["name"]: r for r in json.loads(p.stdout)["benchmarks"]}
    row = rows.get("gemm.cpu.fp32/m256/blocked_median")
    want = next(c for r in results if r["test"] == "gemm.cpu.fp32" for c in r["cases"])
    if not row or not close(row.get("pct_roofline", -1), want["pct_roofline"]):
        fail(f"gbench: gemm.cpu.fp32/m256/blocked_median has pct_roofline "
             f"{row and row.get('pct_roofline')}, the result {want['pct_roofline']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if not shutil.which("xmllint"):
        print("kbench-skip: xmllint not found (apt-get install libxml2-utils)")
        return 0
    shutil.rmtree(a.work, ignore_errors=True)
    results_dir = os.path.join(a.work, "results")
    shutil.copytree(a.fixtures, results_dir)
    out = os.path.join(a.work, "report")
    p = subprocess.run([a.report, results_dir, "--out", out], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: kbench-report exited {p.returncode}:\n{p.stdout}{p.stderr}")
        return 1
    results = load_fixtures(results_dir)
    for backend in ("cpu", "cuda"):
        path = os.path.join(out, f"roofline-{backend}.svg")
        if not os.path.exists(path):
            fail(f"{path} was not written")
        else:
            check_chart(path, results, backend)
    check_summary(out, results)
    check_gbench(a.report, results_dir, results)
    for msg in problems:
        print("FAIL: " + msg)
    if not problems:
        print("roofline report: all checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
