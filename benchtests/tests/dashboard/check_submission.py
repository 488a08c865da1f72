#!/usr/bin/env python3
"""Checks what a dashboard run submitted to cdash_receiver.py.

    check_submission.py --store DIR --results DIR --parts P[,P...]
                        [--token-env NAME] [--retried] [--uploads F[,F...]]
                        [--coverage] [--memcheck] [--baselined TEST[,TEST...]]
                        [--scan PATH ...]

Asserts that
  * every part named in --parts was accepted once as
    <site>___<build>___<stamp>___XML___<Part>.xml,
    no other part arrived, and each request had a matching MD5 and, with
    --token-env, the right bearer token;
  * with --retried, some PUT was refused (503) and the same file then arrived;
  * CDash sees each test once: no test name has a result in two of the
    <Testing> documents received (Test.xml, DynamicAnalysis-Test.xml);
  * Test.xml holds every test that wrote a result JSON to --results, each
    case with every figure kb_report_measurements sends (docs/cdash-measurements.md) as a
    numeric NamedMeasurement equal to the JSON's, or to its stand-in where
    the JSON has none (ratio 1, pct_peak_bw 100, ...), the bound as text,
    and the JSON attached;
  * every test named by --baselined reported a ratio to baseline for each case;
  * with --uploads, Upload.xml carries those files (base64, non-empty);
  * with --coverage, Coverage.xml covers the harness (benchtests/src) and no kernel;
  * with --memcheck, memcheck reported per-test results: a <Test Status=...>
    in DynamicAnalysis-Test.xml for every test DynamicAnalysis.xml lists, and
    DynamicAnalysis.xml's <Test> entries (the tests with defects) with their
    defect counts; none at all is a failure;
  * the token appears in none of the --scan files or directories, nor in
    any decoded attachment or upload of the received XML.
Prints one line per check and exits 1 listing every failure.
"""

import argparse
import base64
import io
import json
import math
import os
import sys
import tarfile
import xml.etree.ElementTree as ET

class Checker:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            self.failures.append(what)
        return ok


def load_requests(store):
    path = os.path.join(store, "requests.jsonl")
    if not os.path.isfile(path):
        sys.exit("check_submission: %s: missing: nothing reached the receiver" % path)
    with open(path) as log:
        return [json.loads(line) for line in log if line.strip()]


def part_of(file_name):
    marker = "___XML___"
    return file_name.split(marker, 1)[1][:-4] if marker in file_name else None


def expand_numbered(parts, arrived):
    """A part named "<Name>-*" stands for <Name>-0, <Name>-1, ... as many as
    arrived (at least -0): CTest splits a coverage log into parts of a fixed
    number of files, so their count follows the size of the harness."""
    out = []
    for part in parts:
        if not part.endswith("-*"):
            out.append(part)
            continue
        stem, k = part[:-1], 0
        while True:
            out.append("%s%d" % (stem, k))
            k += 1
            if "%s%d" % (stem, k) not in arrived:
                break
    return out


def check_requests(chk, requests, parts, token_required, retried):
    accepted = [r for r in requests if r.get("accepted")]
    arrived = [part_of(r["file"]) for r in accepted]
    parts = expand_numbered(parts, arrived)
    for part in parts:
        chk.expect(arrived.count(part) == 1, "part %s arrived once (%d)" % (part, arrived.count(part)))
    others = sorted(set(arrived) - set(parts))
    chk.expect(not others, "no other part arrived %s" % (others or ""))
    chk.expect(all(r.get("method") == "PUT" for r in requests), "every request is a PUT")
    chk.expect(all(r.get("md5_ok") for r in requests), "every body matched its MD5 parameter")
    if token_required:
        bad = [r.get("file", r.get("path")) for r in requests if r.get("auth") != "ok"]
        chk.expect(not bad, "every request carried the bearer token %s" % (bad or ""))
    if retried:
        refused = [r.get("file") for r in requests if r.get("status") == 503]
        again = [f for f in refused if f in {r.get("file") for r in accepted}]
        chk.expect(refused and again == refused, "refused PUTs were retried and accepted: %s" % refused)


def measurements(test):
    found = {}
    for m in test.iter("NamedMeasurement"):
        found.setdefault(m.get("name"), []).append(m)
    return found


def expected_figures(case):
    """Every figure kb_report_measurements sends for a case that ran, with the
    value its result JSON implies (None: sent, value not in the JSON)."""
    median = case.get("median_ms")
    latency = case.get("latency") or {}
    # a recording, a baseline from other hardware or a slowdown timed unlike
    # the baseline was not compared
    compared = "baseline_median_ms" in latency and latency.get("verdict") not in (
        "recorded", "other_hardware", "other_timing")
    pct = case.get("pct_peak_bw")
    roof = case.get("pct_roofline")
    vendor = case.get("vendor_speedup")
    comparison = case.get("comparison")
    device = case.get("device") or {}
    power = device.get("power_w")
    ab = latency.get("ab")
    return {
        "median_ms": median, "rmse": case.get("accuracy", {}).get("rmse"),
        "gbps": case.get("gbps"), "gflops": case.get("gflops"),
        "has_ratio": 1 if compared else 0,
        "base_ms": latency["baseline_median_ms"] if compared else median,
        "ratio": latency.get("ratio") if compared else 1,
        "drift": latency.get("machine_drift"),
        "has_peak_bw": 0 if pct is None else 1,
        "pct_peak_bw": 100 if pct is None else pct,
        "has_roof": 0 if roof is None else 1,
        "pct_roof": 100 if roof is None else roof,
        "has_vendor": 0 if vendor is None else 1,
        "vs_vendor": 1 if vendor is None else vendor,
        "has_speedup": 1 if comparison else 0,
        "speedup": comparison["speedup"] if comparison else 1,
        "bytes_saved": comparison["bytes_saved"] if comparison else 0,
        "has_power": 1 if power else 0,
        "power_w": power or 0, "energy_mj": device.get("energy_per_call_mj") or 0,
        "ab_pairs": None if ab else 0, "ab_ci_lo": None if ab else 1,
        "ab_ci_hi": None if ab else 1, "ab_spread": None if ab else 0,
    }


def name_tag(text):
    """FNV-1a (32-bit) of text, its low 24 bits as 6 hex digits."""
    h = 2166136261
    for byte in text.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return "%06x" % (h & 0xFFFFFF)


def measurement_prefix(case, variant):
    """`<case>.<variant>` as the measurements name it: at most 28 characters,
    a longer case (or variant, past 12) cut and tagged (docs/cdash-measurements.md)."""
    if len(variant) > 12:
        variant = variant[:5] + "~" + name_tag(variant)
    if len(case) + 1 + len(variant) <= 28:
        return case + "." + variant
    return case[:28 - 1 - len(variant) - 7] + "~" + name_tag(case) + "." + variant


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def check_case(chk, test_name, case, found):
    prefix = measurement_prefix(case["case"], case["variant"]) + "."
    wrong = []
    for what, value in sorted(expected_figures(case).items()):
        ms = found.get(prefix + what, [])
        ok = (len(ms) == 1 and ms[0].get("type") == "numeric/double"
              and (value is None or close(float(ms[0].findtext("Value")), float(value))))
        if not ok:
            wrong.append("%s%s" % (prefix, what))
    # what bounds the case, as text ("none" without a roofline)
    roofline = case.get("roofline")
    bound = roofline["bound"] if roofline else "none"
    ms = found.get(prefix + "bound", [])
    if not (len(ms) == 1 and ms[0].get("type") == "text/string"
            and ms[0].findtext("Value") == bound):
        wrong.append(prefix + "bound")
    # how its calls were timed, as text
    ms = found.get(prefix + "timing", [])
    if not (len(ms) == 1 and ms[0].get("type") == "text/string"
            and ms[0].findtext("Value") == case.get("timing")):
        wrong.append(prefix + "timing")
    chk.expect(not wrong, "%s %s: every figure sent, equal to the JSON's %s"
               % (test_name, prefix[:-1], wrong or ""))


def attached_json(measurement):
    data = base64.b64decode(measurement.findtext("Value"))
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        member = [m for m in tar.getmembers() if m.isfile()][0]
        return json.load(tar.extractfile(member))


def check_tests(chk, store, results_dir, baselined):
    root = part_xml(store, "Test")
    if not chk.expect(root is not None, "one Test.xml"):
        return
    tests = {t.findtext("Name"): t for t in root.iter("Test") if t.get("Status") is not None}
    results = sorted(f for f in os.listdir(results_dir) if f.endswith(".json"))
    chk.expect(any(".cpu." in r or ".cuda." in r or ".hip." in r for r in results),
               "the run wrote kernel results (%d result files)" % len(results))
    for name in baselined:
        chk.expect(name + ".json" in results, "%s wrote its result" % name)
    for name in results:
        with open(os.path.join(results_dir, name)) as f:
            result = json.load(f)
        test = tests.get(result["test"])
        if not chk.expect(test is not None, "%s is in Test.xml" % result["test"]):
            continue
        labels = {label.text for label in test.iter("Label")}
        perf = result["test"].startswith("kbench.calibrate.") or "perf" in labels
        chk.expect(perf, "%s is a perf test or the calibration %s" % (result["test"], sorted(labels)))
        found = measurements(test)
        if result["test"] in baselined:
            chk.expect(all(measurement_prefix(c["case"], c["variant"]) + ".ratio" in found
                           for c in result["cases"]),
                       "%s: every case was compared with a baseline" % result["test"])
        for case in result["cases"]:
            if "skipped" not in case and "error" not in case:
                check_case(chk, result["test"], case, found)
        attached = [m for m in found.get("Attached File", [])
                    if m.get("filename") == result["test"] + ".json"]
        chk.expect(len(attached) == 1 and attached_json(attached[0]) == result,
                   "%s: its result JSON is attached, unchanged" % result["test"])


def testing_results(store):
    """(part, test name) of every test result in the <Testing> documents
    received: what CDash adds to the build's tests."""
    for name in sorted(os.listdir(store)):
        if part_of(name) is None:
            continue
        testing = ET.parse(os.path.join(store, name)).getroot().find("Testing")
        for test in testing.findall("Test") if testing is not None else []:
            if test.get("Status") is not None:
                yield part_of(name), test.findtext("Name")


def check_tests_once(chk, store):
    results = list(testing_results(store))
    names = [name for _, name in results]
    twice = sorted({name for name in names if names.count(name) > 1})
    chk.expect(results and not twice,
               "CDash sees each of the %d test results once %s" % (len(results), twice or ""))


def part_xml(store, part):
    files = [f for f in os.listdir(store) if part_of(f) == part]
    return ET.parse(os.path.join(store, files[0])).getroot() if len(files) == 1 else None


def check_uploads(chk, store, names):
    root = part_xml(store, "Upload")
    sent = {}
    for f in root.iter("File") if root is not None else []:
        sent[os.path.basename(f.get("filename", ""))] = len(f.findtext("Content") or "")
    for name in names:
        chk.expect(sent.get(name, 0) > 0, "Upload.xml carries %s" % name)


def check_coverage(chk, store):
    root = part_xml(store, "Coverage")
    files = [(f.get("FullPath", ""), int(f.findtext("LOCTested") or 0))
             for f in root.iter("File")] if root is not None else []
    harness = [path for path, tested in files if "benchtests/src/" in path and tested > 0]
    chk.expect(len(harness) > 10, "Coverage.xml covers the harness (%d files with tested lines)"
               % len(harness))
    chk.expect(not [p for p, _ in files if "kernels/" in p or "reference/" in p],
               "Coverage.xml leaves the kernels and references out")


def check_memcheck(chk, store):
    """Memcheck's per-test results: each test it ran (DynamicAnalysis.xml's
    TestList) with a status in DynamicAnalysis-Test.xml, and the tests with
    defects as DynamicAnalysis.xml's <Test> entries."""
    root = part_xml(store, "DynamicAnalysis")
    analysis = root.find("DynamicAnalysis") if root is not None else None
    if not chk.expect(analysis is not None, "DynamicAnalysis.xml arrived"):
        return
    ran = {os.path.basename(t.text or "") for t in analysis.findall("TestList/Test")}
    reported = {name for part, name in testing_results(store) if part == "DynamicAnalysis-Test"}
    chk.expect(reported and ran <= reported,
               "memcheck reported a status for each of the %d tests it ran %s"
               % (len(ran), sorted(ran - reported) or ""))
    defective = analysis.findall("Test")
    defects = sum(int(d.text or 0) for t in defective for d in t.findall("Results/Defect"))
    chk.expect(all(t.get("Status") and t.find("Results") is not None for t in defective),
               "memcheck: %d tests with defects, %d defects, each with its status and results"
               % (len(defective), defects))


def check_no_token(chk, token, paths):
    leaks = []
    needle = token.encode()
    missing = [p for p in paths if not os.path.exists(p)]
    chk.expect(paths and not missing,
               "paths to scan for the token exist %s" % (missing or ("" if paths else "(none given)")))
    for path in paths:
        walk = [(path, [], [""])] if os.path.isfile(path) else os.walk(path)
        for root, _, names in walk:
            for name in names:
                full = os.path.join(root, name) if name else root
                with open(full, "rb") as f:
                    if needle in f.read():
                        leaks.append(full)
    chk.expect(not leaks, "the token appears in none of %d scanned paths %s"
               % (len(paths), leaks or ""))


def decoded_payloads(store):
    """Every base64 payload of the received XML (attached files, uploads),
    decoded and, when it is a gzipped tar, unpacked: (where, bytes)."""
    for name in sorted(os.listdir(store)):
        if not name.endswith(".xml"):
            continue
        for element in ET.parse(os.path.join(store, name)).iter():
            if element.get("encoding") != "base64":
                continue
            text = element.findtext("Value") if element.find("Value") is not None else element.text
            data = base64.b64decode(text or "")
            yield name, data
            try:
                with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
                    for member in tar.getmembers():
                        if member.isfile():
                            yield name + ":" + member.name, tar.extractfile(member).read()
            except tarfile.TarError:
                pass


def check_no_token_inside(chk, token, store):
    needle = token.encode()
    payloads = list(decoded_payloads(store))
    leaks = [where for where, data in payloads if needle in data]
    chk.expect(payloads and not leaks, "the token is in none of the %d decoded attachments "
               "and uploads %s" % (len(payloads), leaks or ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--parts", required=True)
    parser.add_argument("--token-env")
    parser.add_argument("--retried", action="store_true")
    parser.add_argument("--uploads", default="")
    parser.add_argument("--baselined", default="")
    parser.add_argument("--coverage", action="store_true")
    parser.add_argument("--memcheck", action="store_true")
    parser.add_argument("--scan", nargs="*", default=[])
    args = parser.parse_args()
    chk = Checker()
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        parser.error("--token-env %s: the variable is not set" % args.token_env)
    check_requests(chk, load_requests(args.store), args.parts.split(","), bool(token),
                   args.retried)
    check_tests_once(chk, args.store)
    check_tests(chk, args.store, args.results, [b for b in args.baselined.split(",") if b])
    if args.uploads:
        check_uploads(chk, args.store, args.uploads.split(","))
    if args.coverage:
        check_coverage(chk, args.store)
    if args.memcheck:
        check_memcheck(chk, args.store)
    if token:
        check_no_token(chk, token, args.scan)
        check_no_token_inside(chk, token, args.store)
    if chk.failures:
        print("%d check(s) failed" % len(chk.failures))
        return 1
    print("submission checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
