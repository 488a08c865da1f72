#!/usr/bin/env python3
"""What A/B runs say about the A/B gate (docs/ab.md): how often it fails a
build against itself, and how often it catches a known slowdown. Written
for gpu_check.sh's step ab (docs/gpu.md, "Checking a GPU machine"); it reads
any A/B result JSON, the CPU's too.

  ab_summary.py [--aa RUN ...] [--detect DIR ...] [--step DIR] [options]

--aa RUN ...     A/A runs, one directory each: the result JSON files of one
                 run of the perf tests with a base that is the same build
                 (found at any depth); RUN/wall_s (seconds) and RUN/ctest.log
                 are read when there. Per run: the tests, the failed ones
                 (ctest's count when its log is there, with the names it
                 lists, else the results' status), the cases compared, the
                 false alarms (verdict regression or faster), the cases with
                 a median call of --min-us or more whose ratio is off 1 by
                 more than --off-pct %, the median and 90th percentile of
                 the cases' resolution (latency.ab.resolution), the median
                 of their process spread (latency.ab.process_spread, where
                 the results have it), wall time.
--detect DIR ... detection runs: the results of a head slowed on purpose
                 against its base, at any depth below DIR, each case of each
                 result one run of that case; a subdirectory run-* holding
                 no result, or a result with no case (the driver stopped on
                 an error, which is shown), is a run of the folder's case
                 that gave none. Per test and case: runs
                 caught (verdict regression) out of all, the verdicts, the
                 ratios, the mean wall time per run (wall_s beside a result).
--step DIR       gpu_check.sh's layout: --aa DIR/aa/run-*, --detect
                 DIR/detect/<case> (every folder but head).
--detect-pct P   the slowdown the head was given (for the heading).
--off-pct P      default 3; --min-us U  default 10.

Prints Markdown. Exit 0; 1 when a result file could not be read (named,
the others summarised); 2 on bad arguments or a directory that is not one."""
import argparse
import glob
import json
import os
import re
import statistics
import sys

unreadable = []


def die(msg):
    print(f"ab_summary: {msg}", file=sys.stderr)
    sys.exit(2)


def results_under(d):
    """(path, result) of every result JSON at any depth below d, sorted by
    path; files that are JSON but no result (calibration files) are left
    out, unreadable ones noted."""
    out = []
    for path in sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True)):
        try:
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            unreadable.append(f"{path}: {e}")
            continue
        if isinstance(r, dict) and isinstance(r.get("cases"), list) and "test" in r:
            out.append((path, r))
    return out


def read_number(path):
    try:
        with open(path, encoding="utf-8") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def latency(c):
    lat = c.get("latency")
    return lat if isinstance(lat, dict) else {}


def verdict(c):
    """The case's verdict; error or skipped where it has none."""
    if "error" in c:
        return "error"
    if "skipped" in c:
        return "skipped"
    return latency(c).get("verdict", "error")


def ab_of(c):
    ab = latency(c).get("ab")
    return ab if isinstance(ab, dict) else {}


def num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def fmt_ratio(c):
    ratio, ab = num(latency(c).get("ratio")), ab_of(c)
    lo, hi = num(ab.get("ci_lo")), num(ab.get("ci_hi"))
    text = f"{ratio:.3f}" if ratio is not None else "-"
    if lo is not None and hi is not None:
        text += f" [{lo:.3f}, {hi:.3f}]"
    return text


def p90(values):
    s = sorted(values)
    return s[int(0.9 * (len(s) - 1))]


def pct(x):
    return f"{100 * x:.2f} %"


def ctest_counts(log):
    """(failed, total, names of the failed tests) from a ctest log, or None."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    m = re.findall(r"tests passed, (\d+) tests? failed out of (\d+)", text)
    if not m:
        return None
    failed, total = int(m[-1][0]), int(m[-1][1])
    names = []
    at = text.rfind("The following tests FAILED:")
    if at >= 0:
        for line in text[at:].splitlines()[1:]:
            t = re.match(r"\s+\d+ - (\S+) \((.*)\)", line)
            if not t:
                break
            names.append(f"{t.group(1)} ({t.group(2)})")
    return failed, total, names


def summarise_aa(runs, off, min_ms):
    print(f"## A/A: {len(runs)} run(s), every selected perf test against the same build\n")
    print("| run | tests | failed tests | cases compared | false alarms "
          f"| off by > {100 * off:g} % (median >= {1e3 * min_ms:g} us) "
          "| resolution median | resolution p90 | process spread median | wall s |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    failed_lines, alarm_lines, off_lines = [], [], []
    totals = {"compared": 0, "alarms": 0, "off": 0, "wall": None}
    for i, run in enumerate(runs, 1):
        results = [(p, r) for p, r in results_under(run) if r.get("mode") == "ab"]
        compared, alarms, offs, res, spreads = 0, 0, 0, [], []
        failed_names = [f"{r['test']} ({r.get('status', '?')})" for _, r in results
                        if r.get("status") != "passed"]
        for _, r in results:
            for c in r["cases"]:
                v, ab = verdict(c), ab_of(c)
                where = f"{r['test']} {c.get('case', '?')} {c.get('variant', '?')}"
                if ab.get("base") == "measured":
                    compared += 1
                if v in ("regression", "faster"):
                    alarms += 1
                    alarm_lines.append(f"- run {i}: {where}: {v}, ratio {fmt_ratio(c)}")
                ratio, median = num(latency(c).get("ratio")), num(c.get("median_ms"))
                if (ratio is not None and median is not None and median >= min_ms
                        and ab.get("base") == "measured" and abs(ratio - 1) > off):
                    offs += 1
                    off_lines.append(f"- run {i}: {where}: ratio {fmt_ratio(c)}, "
                                     f"median {1e3 * median:.1f} us, {v}")
                r_, s_ = num(ab.get("resolution")), num(ab.get("process_spread"))
                if r_ is not None:
                    res.append(r_)
                if s_ is not None:
                    spreads.append(s_)
        counts = ctest_counts(os.path.join(run, "ctest.log"))
        if counts:
            failed = f"{counts[0]} of {counts[1]} (ctest)"
            names = counts[2] or failed_names
        else:
            failed, names = str(len(failed_names)), failed_names
        failed_lines += [f"- run {i}: {n}" for n in names]
        wall = read_number(os.path.join(run, "wall_s"))
        cut = " (cut: out of time)" if os.path.exists(os.path.join(run, "cut")) else ""
        totals["compared"] += compared
        totals["alarms"] += alarms
        totals["off"] += offs
        if wall is not None:
            totals["wall"] = (totals["wall"] or 0.0) + wall
        print(f"| {i} | {len(results)} | {failed} | {compared} | {alarms} | {offs} | "
              f"{pct(statistics.median(res)) if res else '-'} | "
              f"{pct(p90(res)) if res else '-'} | "
              f"{pct(statistics.median(spreads)) if spreads else '-'} | "
              f"{f'{wall:.0f}' if wall is not None else '-'}{cut} |")
    print()
    for title, lines in (("Failed tests", failed_lines),
                         ("False alarms (verdict regression or faster)", alarm_lines),
                         (f"Cases with a median call of {1e3 * min_ms:g} us or more whose ratio "
                          f"is off 1 by more than {100 * off:g} %", off_lines)):
        print(f"{title}: none\n" if not lines else f"{title}:")
        if lines:
            print("\n".join(lines) + "\n")
    wall = "wall time unknown" if totals["wall"] is None else f"{totals['wall']:.0f} s of runs"
    print(f"A/A in all: {totals['alarms']} false alarm(s) in {totals['compared']} comparisons, "
          f"{totals['off']} case(s) off by more than {100 * off:g} %, {wall}\n")


def summarise_detect(dirs, slowdown):
    runs = {}  # (test, case) -> [(verdict, ratio, wall)]
    no_verdict = []  # (run folder, why)
    for d in dirs:
        keys, seen, failed = set(), set(), []
        for path, r in results_under(d):
            seen.add(os.path.relpath(path, d).split(os.sep)[0])
            wall = read_number(os.path.join(os.path.dirname(path), "wall_s"))
            if not r["cases"]:  # the driver stopped before any case: its error
                failed.append((os.path.dirname(path), r.get("error") or r.get("status", "?"), wall))
                continue
            for c in r["cases"]:
                key = (r["test"], c.get("case", "?"))
                keys.add(key)
                runs.setdefault(key, []).append((verdict(c), num(latency(c).get("ratio")), wall))
        failed += [(sub, "no result (its log is there)", read_number(os.path.join(sub, "wall_s")))
                   for sub in sorted(glob.glob(os.path.join(d, "run-*")))
                   if os.path.isdir(sub) and os.path.basename(sub) not in seen]
        no_verdict += [(where, why) for where, why, _ in failed]
        # such a run still counts, for the one case of its folder
        if failed and len(keys) <= 1:
            key = keys.pop() if keys else ("-", os.path.basename(os.path.normpath(d)))
            runs.setdefault(key, []).extend(("no_result", None, wall) for _, _, wall in failed)
    heading = f" (the head does {slowdown} % more work)" if slowdown else ""
    print(f"## A/B detection{heading}\n")
    print("| test | case | caught | verdicts | ratio median | ratios | mean s per run |")
    print("|---|---|--:|---|--:|---|--:|")
    for (test, case), rs in sorted(runs.items()):
        caught = sum(1 for v, _, _ in rs if v == "regression")
        verdicts = {}
        for v, _, _ in rs:
            verdicts[v] = verdicts.get(v, 0) + 1
        ratios = [x for _, x, _ in rs if x is not None]
        walls = [w for _, _, w in rs if w is not None]
        print(f"| {test} | {case} | {caught}/{len(rs)} | "
              f"{' '.join(f'{k}={n}' for k, n in sorted(verdicts.items()))} | "
              f"{f'{statistics.median(ratios):.3f}' if ratios else '-'} | "
              f"{' '.join(f'{x:.3f}' for x in ratios) or '-'} | "
              f"{f'{statistics.mean(walls):.1f}' if walls else '-'} |")
    print()
    if no_verdict:
        print("Runs that gave no result:")
        for where, why in no_verdict:
            print(f"- {where}: {why}")
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aa", nargs="+", default=[], metavar="RUN")
    ap.add_argument("--detect", nargs="+", default=[], metavar="DIR")
    ap.add_argument("--step", metavar="DIR")
    ap.add_argument("--detect-pct", type=float)
    ap.add_argument("--off-pct", type=float, default=3.0)
    ap.add_argument("--min-us", type=float, default=10.0)
    a = ap.parse_args()
    aa, detect = list(a.aa), list(a.detect)
    if a.step:
        if not os.path.isdir(a.step):
            die(f"--step {a.step}: not a directory")
        aa += sorted(glob.glob(os.path.join(a.step, "aa", "run-*")),
                     key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
        detect += sorted(d for d in glob.glob(os.path.join(a.step, "detect", "*"))
                         if os.path.isdir(d) and os.path.basename(d) != "head")
    if not aa and not detect:
        die("nothing to summarise: give --aa, --detect or --step (ab_summary.py --help)")
    for d in aa + detect:
        if not os.path.isdir(d):
            die(f"{d}: not a directory")
    for name, v in (("--off-pct", a.off_pct), ("--min-us", a.min_us)):
        if not v >= 0 or v == float("inf"):
            die(f"{name} {v}: expected a number at or above 0")
    slowdown = f"{a.detect_pct:g}" if a.detect_pct is not None else None
    if detect:
        summarise_detect(detect, slowdown)
    if aa:
        summarise_aa(aa, a.off_pct / 100, a.min_us / 1e3)
    if unreadable:
        print("Unreadable result files (left out):")
        for u in unreadable:
            print(f"- {u}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
