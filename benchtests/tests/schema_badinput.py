#!/usr/bin/env python3
"""The manifest schema against the bad-input matrix (kbench.lint.schema).

Writes the kernel.json of every case of badinput/cases.txt that runs the
swish driver on a manifest alone (no option, variable or other file), and
validates them all with check-jsonschema in one call. Every manifest the
driver accepts (exit 0) must pass the schema; every one it refuses must fail
it, except the cases listed in GAPS: what a JSON Schema cannot say, each
with the reason (docs/manifest.md). A refused case the schema passes
and that is not a known gap fails the test: the schema missed a rule.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys

# Classes of the matrix whose rules are beyond a schema, and single cases.
GAP_CLASSES = {
    "manifest-duplicates": "a repeated key or case name (a JSON parser keeps one key)",
    "manifest-expr": "an expression that does not parse or evaluate to a count",
    "manifest-refs": "a cross reference (compare_to, calibration, the driver's kernel)",
    "manifest-variants": "variants against the implementations in the driver",
    "manifest-many": "more cases in all than the reader holds (a sweep's product)",
    "manifest-missing": "a dim the kernel's code needs",
}
GAP_CASES = {
    "manifest-json/nan-literal": "NaN, which Python's JSON parser reads as a number",
    "manifest-numbers/rmse-1e999": "1e999, which parses as infinity",
    "manifest-numbers/max-abs-1e999": "1e999, which parses as infinity",
    "manifest-transcendentals/flops-each-1e999": "1e999, which parses as infinity",
}


def load_matrix(path):
    spec = importlib.util.spec_from_file_location("badinput", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest_cases(bi, table, work):
    """(case, file) for each case that is the swish driver on a kernel.json."""
    picked = []
    for case in bi.parse_table(table):
        files = dict(case["files"])
        if (case["run"].split()[0] != "swish" or list(files) != ["kernel.json"] or
                case["env"] or case["unset"] or case["chmod"] or case["dirs"]):
            continue
        value = eval(files["kernel.json"], vars(bi))  # the matrix's own expressions
        data = value if isinstance(value, (str, bytes)) else bi.dump(value)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        path = os.path.join(work, case["name"].replace("/", "__") + ".json")
        with open(path, "wb") as f:
            f.write(data)
        picked.append((case, path))
    return picked


def is_json(path):
    with open(path, "rb") as f:
        try:
            json.loads(f.read().decode("utf-8"))
            return True
        except (UnicodeDecodeError, ValueError, RecursionError):
            return False


def refused_files(check, schema, paths):
    """The files the schema refuses. A file that is no JSON text (bytes that
    are not UTF-8, nesting deeper than a parser goes) is refused by every
    validator before any schema; check-jsonschema would stop at it."""
    malformed = {p for p in paths if not is_json(p)}
    p = subprocess.run([check, "-o", "json", "--schemafile", schema] +
                       [p for p in paths if p not in malformed], capture_output=True, text=True)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        sys.exit("check-jsonschema (exit %d) wrote no JSON:\n%s%s" % (p.returncode, p.stdout,
                                                                      p.stderr))
    return malformed | {e["filename"] for e in out["errors"] + out["parse_errors"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-jsonschema", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--matrix", required=True, help="badinput.py")
    ap.add_argument("--table", required=True, help="cases.txt")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    picked = manifest_cases(load_matrix(args.matrix), args.table, args.work)
    if len(picked) < 20:
        sys.exit("only %d manifest cases found in %s" % (len(picked), args.table))
    refused = refused_files(args.check_jsonschema, args.schema, [p for _, p in picked])
    failures, gaps = [], 0
    for case, path in picked:
        name, by_reader, by_schema = case["name"], case["exit"] != 0, path in refused
        gap = GAP_CASES.get(name) or GAP_CLASSES.get(case["class"])
        if by_schema and not by_reader:
            failures.append("%s: the driver accepts it, the schema refuses it" % name)
        elif by_reader and not by_schema and not gap:
            failures.append("%s: the driver refuses it, the schema passes it" % name)
        elif by_reader and not by_schema:
            gaps += 1
            print("known gap: %s: %s" % (name, gap))
    print("schema vs the bad-input matrix: %d manifests, %d refused by both, %d known gaps"
          % (len(picked), sum(1 for c, p in picked if c["exit"] != 0 and p in refused), gaps))
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
