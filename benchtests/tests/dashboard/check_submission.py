#!/usr/bin/env python3
"""Checks what a dashboard run submitted to cdash_receiver.py.

    check_submission.py --store DIR --results DIR --parts P[,P...]
                        [--token-env NAME] [--retried] [--uploads F[,F...]]
                        [--coverage] [--baselined TEST[,TEST...]] [--scan PATH ...]

Asserts that
  * every part named in --parts arrived once as <site>___<build>___<stamp>___XML___<Part>.xml,
    each request with a matching MD5 and, with --token-env, the right bearer token;
  * with --retried, some PUT was refused (503) and the same file then arrived;
  * Test.xml holds every test that wrote a result JSON to --results, with the
    JSON's figures as numeric NamedMeasurements (<case>.<variant>.median_ms,
    rmse, gbps, gflops, and baseline_ms, ratio, pct_peak_bw, speedup,
    bytes_saved where the JSON has them) and the JSON itself attached;
  * every test named by --baselined reported a ratio to baseline for each case;
  * with --uploads, Upload.xml carries those files (base64, non-empty);
  * with --coverage, Coverage.xml covers the harness (benchtests/src) and no
    kernel, and DynamicAnalysis.xml (memcheck) lists tests;
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


def check_requests(chk, requests, parts, token_required, retried):
    accepted = [r for r in requests if r.get("status") == 200]
    arrived = [part_of(r["file"]) for r in accepted]
    for part in parts:
        chk.expect(arrived.count(part) == 1, "part %s arrived once (%d)" % (part, arrived.count(part)))
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
    """The measurements a case's JSON says its test must have reported."""
    figures = {"median_ms": case.get("median_ms"), "rmse": case.get("accuracy", {}).get("rmse"),
               "gbps": case.get("gbps"), "gflops": case.get("gflops"),
               "pct_peak_bw": case.get("pct_peak_bw")}
    latency = case.get("latency") or {}
    if "baseline_median_ms" in latency and latency.get("verdict") != "recorded":
        figures["baseline_ms"] = latency["baseline_median_ms"]
        figures["ratio"] = latency.get("ratio")
    comparison = case.get("comparison") or {}
    for key in ("speedup", "bytes_saved"):
        if key in comparison:
            figures[key] = comparison[key]
    return {k: v for k, v in figures.items() if isinstance(v, (int, float))}


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def check_case(chk, test_name, case, found):
    prefix = "%s.%s." % (case["case"], case["variant"])
    wrong = []
    for what, value in sorted(expected_figures(case).items()):
        ms = found.get(prefix + what, [])
        ok = (len(ms) == 1 and ms[0].get("type") == "numeric/double"
              and close(float(ms[0].findtext("Value")), float(value)))
        if not ok:
            wrong.append("%s%s" % (prefix, what))
    chk.expect(not wrong and prefix + "median_ms" in found,
               "%s %s: numeric measurements match the JSON %s"
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
            chk.expect(all("%s.%s.ratio" % (c["case"], c["variant"]) in found
                           for c in result["cases"]),
                       "%s: every case was compared with a baseline" % result["test"])
        for case in result["cases"]:
            if "skipped" not in case and "error" not in case:
                check_case(chk, result["test"], case, found)
        attached = [m for m in found.get("Attached File", [])
                    if m.get("filename") == result["test"] + ".json"]
        chk.expect(len(attached) == 1 and attached_json(attached[0]) == result,
                   "%s: its result JSON is attached, unchanged" % result["test"])


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
    root = part_xml(store, "DynamicAnalysis")
    tests = list(root.iter("Test")) if root is not None else []
    chk.expect(len(tests) > 0, "DynamicAnalysis.xml (memcheck) lists %d tests" % len(tests))


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
    parser.add_argument("--scan", nargs="*", default=[])
    args = parser.parse_args()
    chk = Checker()
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        parser.error("--token-env %s: the variable is not set" % args.token_env)
    check_requests(chk, load_requests(args.store), args.parts.split(","), bool(token),
                   args.retried)
    check_tests(chk, args.store, args.results, [b for b in args.baselined.split(",") if b])
    if args.uploads:
        check_uploads(chk, args.store, args.uploads.split(","))
    if args.coverage:
        check_coverage(chk, args.store)
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
