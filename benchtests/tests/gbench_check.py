#!/usr/bin/env python3
"""kbench.e2e.gbench: `kbench-report --format gbench` on real results.

Makes two runs of the pair test kernel (two variants, two cases) and, beside
the first, a result with an error case and a skipped case and one of a test
that stopped before its cases; writes both runs as Google Benchmark JSON and
checks it against what its consumers read:
  - github-action-benchmark (tool googlecpp): every row's name, real_time,
    time_unit, iterations, cpu_time, threads;
  - Bencher (adapter cpp_google): context.caches an array, every row's name,
    real_time and a time_unit of ns/us/ms/s;
  - compare.py (google/benchmark tools): family_index,
    per_family_instance_index, run_name, run_type, repetitions,
    repetition_index, aggregate_name, one time unit per name;
and against the results: the samples of the round the median comes from as
the repetitions, the median, mean, stddev and cv aggregates, the counters,
the error rows (one for the test that stopped, with its result's error);
then --gbench-aggregates-only, --out, the refusals, and a result without
rounds (its aggregates only, said on stderr naming the file and the case).
With --compare COMPARE_PY it runs the real compare.py on the two runs
instead (kbench.e2e.gbench_compare) and requires its U test, under the
first --compare-python that has SciPy (compare.py imports it); without
compare.py or such a Python it reports itself skipped ("kbench-skip:").
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what)


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit("%s: exit %d, expected %d\n%s%s" % (" ".join(cmd), p.returncode, expect,
                                                     p.stdout, p.stderr))
    return p


def make_runs(args, work):
    """Two runs of the pair kernel; the first gets an extra result with an
    error case and a skipped case (what a failing driver writes)."""
    dirs = []
    for name in ("a", "b"):
        d = os.path.join(work, name)
        run([args.driver, "--manifest", args.manifest, "--results-dir", d, "--profile", "gbench",
             "--baseline-dir", os.path.join(work, "no-baselines"), "--min-time", "0",
             "--max-time", "0.05", "--warmup", "0"])
        dirs.append(d)
    with open(os.path.join(dirs[0], "pair.cpu.fp32.json")) as f:
        res = json.load(f)
    res["test"] = "pair.errors.fp32"
    res["status"] = "failed"
    res["cases"] = [
        {"case": "small", "variant": "twopass", "passed": False, "error": "it broke"},
        {"case": "large", "variant": "twopass", "passed": True, "skipped": "not here"},
    ]
    with open(os.path.join(dirs[0], "pair.errors.fp32.json"), "w") as f:
        json.dump(res, f)
    # what the driver writes when it stops before its first case
    stopped = {k: res[k] for k in ("kernel", "backend", "precision", "profile",
                                   "latency_tolerance")}
    stopped.update(test="pair.stopped.fp32", status="error", cases=[],
                   error="base driver /x/kbench-test-pair greeted with 'hello', not "
                         "'kbench-partner <version>'")
    with open(os.path.join(dirs[0], "pair.stopped.fp32.json"), "w") as f:
        json.dump(stopped, f)
    return dirs


def report(args, results, *extra):
    return json.loads(run([args.report, results, "--format", "gbench"] + list(extra)).stdout)


def check_hardware(ctx, results):
    """mhz_per_cpu and caches as the CPU's hardware id names them."""
    with open(os.path.join(results, "pair.cpu.fp32.json")) as f:
        hw = json.load(f)["environment"]["hardware_id"]
    fields = hw.split("|")
    mhz = [float(x[:-4]) for x in fields if re.fullmatch(r"[0-9.]+ MHz", x)]
    check(ctx.get("mhz_per_cpu") == (mhz[0] if mhz else 0), "context.mhz_per_cpu from %r" % hw)
    caches = [(int(m.group(1)), int(m.group(2)) * 1024) for m in
              (re.fullmatch(r"L(\d+) (\d+) KiB", x) for x in fields) if m and int(m.group(2))]
    check([(c.get("level"), c.get("size")) for c in ctx.get("caches", [])] == caches,
          "context.caches from %r" % hw)


def check_context(ctx):
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", ctx.get("date", "")),
          "context.date is ISO 8601 with an offset: %r" % ctx.get("date"))
    for key in ("host_name", "executable", "library_build_type"):
        check(isinstance(ctx.get(key), str) and ctx[key], "context.%s is a string" % key)
    check(ctx.get("library_build_type") in ("release", "debug"), "context.library_build_type")
    check(isinstance(ctx.get("num_cpus"), int) and ctx["num_cpus"] > 0, "context.num_cpus")
    check(isinstance(ctx.get("mhz_per_cpu"), (int, float)), "context.mhz_per_cpu")
    check(isinstance(ctx.get("caches"), list) and
          all(isinstance(c, dict) and {"type", "level", "size", "num_sharing"} <= set(c)
              for c in ctx["caches"]), "context.caches: an array of cache objects (Bencher)")
    check(ctx.get("json_schema_version") == 1, "context.json_schema_version is 1 (compare.py)")


def check_rows(rows):
    """The fields every consumer reads, on every row."""
    units = {}
    for i, r in enumerate(rows):
        where = "benchmarks[%d] (%s)" % (i, r.get("name"))
        for key, kind in (("name", str), ("run_name", str), ("run_type", str), ("time_unit", str),
                          ("family_index", int), ("per_family_instance_index", int),
                          ("repetitions", int), ("threads", int)):
            check(isinstance(r.get(key), kind), "%s: %s is a %s" % (where, key, kind.__name__))
        for key in ("real_time", "cpu_time", "iterations"):
            check(isinstance(r.get(key), (int, float)) and r[key] >= 0,
                  "%s: %s is a number >= 0" % (where, key))
        check(r.get("time_unit") in ("ns", "us", "ms", "s"), "%s: time_unit" % where)
        check(r.get("run_type") in ("iteration", "aggregate"), "%s: run_type" % where)
        if r.get("run_type") == "aggregate":
            check(r.get("aggregate_name") in ("mean", "median", "stddev", "cv"),
                  "%s: aggregate_name" % where)
            check(r["name"] == "%s_%s" % (r["run_name"], r.get("aggregate_name")),
                  "%s: an aggregate is named <run_name>_<aggregate>" % where)
        else:
            check(r["name"] == r["run_name"], "%s: name is run_name" % where)
            check(isinstance(r.get("repetition_index"), int), "%s: repetition_index" % where)
        units.setdefault(r.get("name"), set()).add(r.get("time_unit"))
    check(all(len(u) == 1 for u in units.values()), "one time unit per benchmark name")


def near(a, b):
    return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def best_round(case):
    for r in case["rounds"]:
        if r["median_ms"] == case["median_ms"]:
            return r
    return case["rounds"][0]


def check_case(test, case, rows, aggregates_only):
    """The rows of one case against its result."""
    name = "%s/%s" % (test, case["case"])
    if case["variant"] != "default":
        name += "/" + case["variant"]
    mine = [r for r in rows if r.get("run_name") == name]
    check(mine, "%s: has rows" % name)
    if not mine:
        return
    if "error" in case or "skipped" in case:
        check(len(mine) == 1 and mine[0].get("error_occurred") is True and
              (case.get("error") or case.get("skipped")) in mine[0].get("error_message", ""),
              "%s: one error row with the message" % name)
        return
    samples = best_round(case)["samples_ms"]
    reps = [r for r in mine if r["run_type"] == "iteration"]
    aggs = {r.get("aggregate_name"): r for r in mine if r["run_type"] == "aggregate"}
    if aggregates_only:
        check(not reps, "%s: --gbench-aggregates-only writes no sample row" % name)
    else:
        check([r["repetition_index"] for r in reps] == list(range(len(samples))),
              "%s: one repetition per sample, in order" % name)
        check(all(near(r["real_time"], s * 1e3) and r["cpu_time"] == r["real_time"]
                  for r, s in zip(reps, samples)), "%s: the samples in us" % name)
        check(all(r["repetitions"] == len(samples) for r in mine), "%s: repetitions" % name)
    check(set(aggs) == {"mean", "median", "stddev", "cv"}, "%s: the four aggregates" % name)
    for agg, key, scale in (("mean", "mean_ms", 1e3), ("median", "median_ms", 1e3),
                            ("stddev", "stddev_ms", 1e3), ("cv", "cv", 1)):
        check(near(aggs.get(agg, {}).get("real_time"), case[key] * scale),
              "%s: %s is the result's %s" % (name, agg, key))
    med = aggs.get("median", {})
    check(near(med.get("GB/s"), case["gbps"]) and near(med.get("GFLOP/s"), case["gflops"]),
          "%s: median's GB/s and GFLOP/s counters" % name)
    check(near(med.get("rmse"), case["accuracy"]["rmse"]) and
          near(med.get("max_abs"), case["accuracy"]["max_abs_err"]),
          "%s: median's rmse and max_abs counters" % name)


def check_against_results(results, doc, aggregates_only=False):
    rows = doc["benchmarks"]
    check_rows(rows)
    n_cases = 0
    for fname in sorted(os.listdir(results)):
        if not fname.endswith(".json"):
            continue
        with open(os.path.join(results, fname)) as f:
            res = json.load(f)
        if not res["cases"]:
            # a test that stopped before its cases: one error row, its error
            mine = [r for r in rows if r.get("run_name") == res["test"]]
            check(len(mine) == 1 and mine[0].get("error_occurred") is True and
                  mine[0].get("error_message") == "%s: %s" % (res["status"], res["error"]),
                  "%s: one error row with the result's error: %r" % (res["test"], mine))
            n_cases += 1
        for case in res["cases"]:
            check_case(res["test"], case, rows, aggregates_only)
            n_cases += 1
    names = {r["run_name"] for r in rows}
    check(len(names) == n_cases, "one benchmark per case: %d names, %d cases" %
          (len(names), n_cases))


def check_cli(args, results, work, doc):
    out = os.path.join(work, "out")
    p = run([args.report, results, "--format", "gbench", "--out", out])
    path = os.path.join(out, "gbench.json")
    check("wrote " + path in p.stdout, "--out says what it wrote")
    with open(path) as f:
        check(json.load(f)["benchmarks"] == doc["benchmarks"], "--out writes the same JSON")
    for bad, says in ((["--format", "xml"], "unknown format 'xml'"),
                      (["--format", "gbench", "--format", "gbench"], "--format"),
                      (["--gbench-aggregates-only"], "needs --format gbench")):
        p = run([args.report, results] + bad, expect=2)
        check(says in p.stderr, "%s: says %r" % (" ".join(bad), says))
    # a result whose samples are not times: refused naming the field
    broken = os.path.join(work, "broken")
    shutil.copytree(results, broken)
    fname = os.path.join(broken, "pair.cpu.fp32.json")
    with open(fname) as f:
        res = json.load(f)
    for r in res["cases"][0]["rounds"]:
        r["samples_ms"][0] = "fast"
    with open(fname, "w") as f:
        json.dump(res, f)
    p = run([args.report, broken, "--format", "gbench"], expect=2)
    check(fname in p.stderr and "samples_ms[0]" in p.stderr,
          "a sample that is not a time: the file and the field named")
    # a round without samples: no empty series, the file and the field named
    for r in res["cases"][0]["rounds"]:
        r["samples_ms"] = []
    with open(fname, "w") as f:
        json.dump(res, f)
    p = run([args.report, broken, "--format", "gbench"], expect=2)
    check(fname in p.stderr and "cases[0].rounds[0].samples_ms" in p.stderr,
          "a round without samples: refused, the file and the field named")
    # a case without rounds (written by hand): its aggregates, and said
    del res["cases"][0]["rounds"]
    with open(fname, "w") as f:
        json.dump(res, f)
    p = run([args.report, broken, "--format", "gbench"])
    case = res["cases"][0]
    name = "pair.cpu.fp32/%s/%s" % (case["case"], case["variant"])
    mine = [r for r in json.loads(p.stdout)["benchmarks"] if r["run_name"] == name]
    check(sorted(r.get("aggregate_name", "-") for r in mine) == ["cv", "mean", "median", "stddev"],
          "a case without rounds: its four aggregate rows only: %r" % mine)
    check(fname in p.stderr and "cases[0].rounds" in p.stderr and
          "'%s' variant '%s'" % (case["case"], case["variant"]) in p.stderr,
          "a case without rounds: said on stderr, naming the file and the case: %r" % p.stderr)


def compare(args, a, b, work):
    """The real compare.py on the two runs: every case compared, U test on."""
    files = []
    for name, d in (("a", a), ("b", b)):
        files.append(os.path.join(work, name + ".gbench.json"))
        with open(files[-1], "w") as f:
            f.write(run([args.report, d, "--format", "gbench"]).stdout)
    p = run([args.python, args.compare, "-a", "--no-color", "benchmarks"] + files)
    print(p.stdout)
    for case in ("small/twopass", "small/onepass", "large/twopass", "large/onepass"):
        check("pair.cpu.fp32/%s_median" % case in p.stdout, "compare.py lists %s" % case)
        check(re.search(r"pair\.cpu\.fp32/%s_pvalue +[0-9.]+" % re.escape(case), p.stdout),
              "compare.py ran its U test on %s" % case)


def can_compare(args):
    """compare.py and a Python that can run it, or a skip saying what is missing."""
    if not args.compare or not os.path.isfile(args.compare):
        print("kbench-skip: google/benchmark's compare.py not found (Debian/Ubuntu: apt-get "
              "install libbenchmark-tools): the gbench JSON is not run through it")
        return False
    for python in args.compare_python:
        try:
            found = subprocess.run([python, "-c", "import scipy.stats, numpy"],
                                   capture_output=True).returncode == 0
        except OSError:
            found = False
        if found:
            args.python = python
            return True
    print("kbench-skip: no Python with SciPy among %s (compare.py needs it; Debian/Ubuntu: "
          "apt-get install python3-scipy)" % ", ".join(args.compare_python))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--compare", metavar="COMPARE_PY")
    ap.add_argument("--compare-python", action="append", default=[])
    args = ap.parse_args()
    if args.compare is not None and not can_compare(args):
        return
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    a, b = make_runs(args, args.work)
    if args.compare:
        os.remove(os.path.join(a, "pair.errors.fp32.json"))
        os.remove(os.path.join(a, "pair.stopped.fp32.json"))
        compare(args, a, b, args.work)
    else:
        doc = report(args, a)
        check_context(doc["context"])
        check_hardware(doc["context"], a)
        check_against_results(a, doc)
        check_against_results(a, report(args, a, "--gbench-aggregates-only"), True)
        check_cli(args, a, args.work, doc)
    if FAILURES:
        sys.exit("gbench check: %d failures" % len(FAILURES))
    print("gbench check: all checks passed")


if __name__ == "__main__":
    main()
