#!/usr/bin/env python3
"""kbench-report on one large result: the time, peak memory and output size of each format.

Makes a result of about --size-mb MB from a real result's structure (--result FILE, or the
result of a quick run of --driver): its first case that ran, repeated as many cases (c00000,
c00001, ...), each with --rounds rounds of --samples samples spread around the case's own
times, written in the driver's layout (keys sorted, arrays of numbers on one line); and the
same at a quarter of the size. Runs kbench-report on each under /usr/bin/time -v in every
format: the summary files (with the table on stdout), gbench on stdout, gbench --out, gbench
--gbench-aggregates-only. Prints seconds, peak RSS and bytes written per format and size.

Fails (exit 1) when a run at the full size takes more than --max-seconds or more than
--max-rss-mb, when a run fails, or when an output grows faster than its input: from the
quarter to the full size, the bytes written may grow by the inputs' ratio plus 10 % at most
(less is fine: the summary files have a part of fixed size).
Exit 2: bad arguments or no /usr/bin/time.

usage: report_scale_check.py --report BUILD/bin/kbench-report
                             (--result RESULT.json | --driver BUILD/bin/kbench-swish)
                             [--work DIR] [--size-mb 36] [--rounds 1] [--samples 1000]
                             [--max-seconds 10] [--max-rss-mb 200]
"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys

FORMATS = (
    ("summary", ["--out", "{out}"]),
    ("gbench", ["--format", "gbench"]),
    ("gbench --out", ["--format", "gbench", "--out", "{out}"]),
    ("gbench aggregates", ["--format", "gbench", "--gbench-aggregates-only"]),
)


def number(v):
    """A number as the driver's writer prints it: integers exactly, else 8 digits."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if float(v).is_integer() and abs(v) < 2 ** 53:
        return "%d" % v
    return "%.8g" % v


def emit(v, depth, out):
    """v in the driver's layout (formats/json_write.c): keys sorted, two-space indent, flat arrays inline."""
    pad = "  " * (depth + 1)
    if isinstance(v, dict):
        if not v:
            out.append("{}")
            return
        out.append("{\n")
        for i, k in enumerate(sorted(v)):
            out.append(pad + json.dumps(k) + ": ")
            emit(v[k], depth + 1, out)
            out.append(",\n" if i + 1 < len(v) else "\n")
        out.append("  " * depth + "}")
    elif isinstance(v, list):
        if all(not isinstance(x, (dict, list)) for x in v):
            out.append("[" + ", ".join(scalar(x) for x in v) + "]")
            return
        out.append("[\n")
        for i, x in enumerate(v):
            out.append(pad)
            emit(x, depth + 1, out)
            out.append(",\n" if i + 1 < len(v) else "\n")
        out.append("  " * depth + "]")
    else:
        out.append(scalar(v))


def scalar(x):
    if x is None:
        return "null"
    if isinstance(x, str):
        return json.dumps(x, ensure_ascii=False)
    return number(x)


def template_result(args, work):
    if args.result:
        with open(args.result, encoding="utf-8") as f:
            return json.load(f)
    results = os.path.join(work, "driver-results")
    shutil.rmtree(results, ignore_errors=True)
    subprocess.run([args.driver, "--results-dir", results, "--warmup", "0", "--min-time", "0",
                    "--max-time", "0.05", "--baseline-dir", os.path.join(work, "no-baselines")],
                   check=True, stdout=subprocess.DEVNULL)
    names = sorted(n for n in os.listdir(results) if n.endswith(".json"))
    with open(os.path.join(results, names[0]), encoding="utf-8") as f:
        return json.load(f)


def make_case(tpl, i, rounds, samples):
    """Case i: the template's, renamed, with `rounds` rounds of `samples` samples."""
    c = copy.deepcopy(tpl)
    c["case"] = "c%05d" % i
    base = c["median_ms"]
    c["rounds"] = []
    for r in range(rounds):
        rd = copy.deepcopy(tpl["rounds"][0])
        # deterministic spread of +-5 % around the median, different per case and round
        rd["samples_ms"] = [base * (1 + 0.1 * (((k * 7919 + i * 31 + r * 17) % 1001) / 1000 - 0.5))
                            for k in range(samples)]
        rd["median_ms"] = sorted(rd["samples_ms"])[samples // 2]
        c["rounds"].append(rd)
    c["median_ms"] = c["rounds"][0]["median_ms"]
    c["n_samples"] = samples
    return c


def make_result(tpl_result, path, size, rounds, samples):
    """A result of about `size` bytes; returns its size."""
    res = copy.deepcopy(tpl_result)
    ran = [c for c in res["cases"] if "rounds" in c and c["rounds"]]
    if not ran:
        sys.exit("the template result has no case that ran (with rounds)")
    one = []
    emit(make_case(ran[0], 0, rounds, samples), 2, one)
    per_case = len("".join(one)) + 6
    n = max(1, size // per_case)
    res["test"] = "scale.cpu.fp32"
    res["status"] = "passed"
    res["cases"] = [make_case(ran[0], i, rounds, samples) for i in range(n)]
    for c in res["cases"]:
        c["passed"] = True
    out = []
    emit(res, 0, out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(out) + "\n")
    return os.path.getsize(path), n


def measure(report, results, fmt_args, out_dir, stdout_file):
    """One run under /usr/bin/time -v: (seconds, peak RSS in MiB, bytes written, rc, stderr)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    args = [a.replace("{out}", out_dir) for a in fmt_args]
    with open(stdout_file, "wb") as so:
        p = subprocess.run(["/usr/bin/time", "-v", report, results] + args, stdout=so,
                           stderr=subprocess.PIPE, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    secs = 0.0
    for part in wall.group(1).split(":") if wall else []:
        secs = secs * 60 + float(part)
    written = os.path.getsize(stdout_file)
    if os.path.isdir(out_dir):
        written += sum(os.path.getsize(os.path.join(out_dir, n)) for n in os.listdir(out_dir))
    return secs, int(rss.group(1)) / 1024 if rss else float("nan"), written, p.returncode, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--report", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--result")
    src.add_argument("--driver")
    ap.add_argument("--work", default="/tmp/kbench-report-scale")
    ap.add_argument("--size-mb", type=float, default=36)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--max-seconds", type=float, default=10)
    ap.add_argument("--max-rss-mb", type=float, default=200)
    args = ap.parse_args()
    if not os.access("/usr/bin/time", os.X_OK):
        print("report_scale_check: /usr/bin/time not found (Debian/Ubuntu: apt-get install "
              "time)", file=sys.stderr)
        return 2
    os.makedirs(args.work, exist_ok=True)
    tpl = template_result(args, args.work)
    sizes = {}
    for label, frac in (("quarter", 0.25), ("full", 1.0)):
        path = os.path.join(args.work, label, "scale.cpu.fp32.json")
        sizes[label] = make_result(tpl, path, int(args.size_mb * frac * 1e6), args.rounds,
                                   args.samples)
    failures = []
    print("%-8s %-18s %9s %8s %10s %12s %8s" % ("input", "format", "MB in", "seconds",
                                                "peak MiB", "bytes out", "out/in"))
    written = {}
    for label in ("quarter", "full"):
        in_bytes, n_cases = sizes[label]
        results = os.path.join(args.work, label)
        for name, fmt in FORMATS:
            secs, rss, out, rc, err = measure(args.report, results, fmt,
                                              os.path.join(args.work, "out"),
                                              os.path.join(args.work, "stdout"))
            written[(label, name)] = out
            print("%-8s %-18s %9.1f %8.2f %10.1f %12d %8.2f" % (label, name, in_bytes / 1e6, secs,
                                                               rss, out, out / in_bytes))
            tail = err.strip().splitlines()[-25:] if rc else []
            if rc != 0:
                failures.append("%s %s: exit %d: %s" % (label, name, rc,
                                                        "\n".join(t for t in tail if ":" in t)))
            if label == "full" and secs > args.max_seconds:
                failures.append("%s: %.2f s, above %.0f s" % (name, secs, args.max_seconds))
            if label == "full" and not rss <= args.max_rss_mb:
                failures.append("%s: peak RSS %.1f MiB, above %.0f MiB" % (name, rss,
                                                                          args.max_rss_mb))
    grow_in = sizes["full"][0] / sizes["quarter"][0]
    for name, _ in FORMATS:
        grow = written[("full", name)] / max(1, written[("quarter", name)])
        if grow > 1.10 * grow_in:
            failures.append("%s: the output grew x%.2f while the input grew x%.2f" %
                            (name, grow, grow_in))
    print("cases: %d (quarter: %d), %d rounds of %d samples each; input grew x%.2f" %
          (sizes["full"][1], sizes["quarter"][1], args.rounds, args.samples, grow_in))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("report scale check: every format within %.0f s and %.0f MiB, no output growing faster "
          "than the input" % (args.max_seconds, args.max_rss_mb))
    return 0


if __name__ == "__main__":
    sys.exit(main())
