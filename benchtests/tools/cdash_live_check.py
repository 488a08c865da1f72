#!/usr/bin/env python3
"""Submits a small kbench dashboard to a real CDash and reads it back.

    cdash_live_check.py SUBMIT_URL [--source DIR] [--binary DIR]
                        [--tests REGEX] [--site NAME] [--build-name NAME]
                        [--jobs N] [--read-back-only] [--timeout S]
                        [--skip-attachment-content]

SUBMIT_URL is the project's submit URL, e.g.
http://127.0.0.1:8080/submit.php?project=kbench; a bearer token, when the
project requires one, is taken from KBENCH_CDASH_TOKEN as the dashboard
script does. The check

  1. runs ctest_scripts/dashboard.cmake of the checkout (--source, default
     the one holding this script) in a small configuration: an Experimental
     cpu build in --binary (default <source>/build-cdash-live), the perf
     tests matching --tests (default swish.cpu.fp32 and linear.cpu.fp32,
     which send kbench's measurements and attach their result JSON), the run
     report uploaded; under a build name of its own (default
     live-check-<UTC time>), so that it reads back only this build;
  2. reads that build back through CDash's web API (the endpoints CDash 2.6
     has: api/v1/getbuildid.php, viewConfigure.php, buildSummary.php,
     viewNotes.php, viewTest.php, testDetails.php, index.php, and the
     uploaded-files page viewFiles.php) and compares it with what the
     dashboard sent (the XML files in <binary>/Testing/<tag>/):
       * the build exists and is marked done; its configure status, build
         error and warning counts and notes are those sent;
       * every test is there with its status, and every measurement of every
         test (CTest's own Execution Time, Exit Code, Completion Status and
         Command Line excepted: CDash turns them into the test's time and
         details) with the same type and value, each attached file included
         (downloaded and compared, unless --skip-attachment-content: CDash
         2.6's download reads a PostgreSQL text column as a stream, which
         fails on servers without a fix for it);
       * every uploaded file is listed with the SHA-1 of the file sent, and
         downloading it gives the same bytes.

Prints one line per check and exits 0 when all passed, 1 naming every
failure (a refused submission fails step 1 already), 2 on bad arguments.
--read-back-only skips step 1 and reads back the build last submitted from
--binary.
"""

import argparse
import base64
import datetime
import hashlib
import html
import json
import math
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

DEFAULT_TESTS = r"^(swish[.]cpu[.]fp32|linear[.]cpu[.]fp32)$"
# CTest's measurements that CDash 2.6 keeps as the test's time and details,
# not as measurements (xml_handlers/testing_handler.php).
CTEST_OWN = {"Execution Time", "Exit Code", "Completion Status", "Command Line"}
STATUS = {"passed": "Passed", "failed": "Failed", "notrun": "Not Run"}


class Check:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok


class CDash:
    """GETs from the CDash that SUBMIT_URL belongs to."""

    def __init__(self, submit_url, timeout):
        parts = urllib.parse.urlsplit(submit_url)
        base_path = parts.path.rsplit("/", 1)[0] + "/"
        self.base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, base_path, "", ""))
        self.timeout = timeout

    def get(self, path, **query):
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        try:
            with urllib.request.urlopen(url, timeout=self.timeout) as answer:
                return answer.read()
        except urllib.error.HTTPError as e:
            raise LookupError("%s: HTTP %d %s" % (url, e.code, e.read()[:200])) from e
        except (urllib.error.URLError, OSError) as e:
            raise LookupError("%s: %s" % (url, e)) from e

    def json(self, path, **query):
        data = self.get(path, **query)
        try:
            return json.loads(data)
        except ValueError as e:
            raise LookupError("%s: not JSON: %r" % (path, data[:200])) from e


def run_dashboard(args, project):
    """Step 1: the dashboard script, its output in <binary>.log; its exit status."""
    command = ["ctest", "-S", os.path.join(args.source, "ctest_scripts", "dashboard.cmake"),
               "-DKBENCH_SOURCE_DIR=" + args.source, "-DKBENCH_BINARY_DIR=" + args.binary,
               "-DKBENCH_MODEL=Experimental", "-DKBENCH_BACKENDS=cpu",
               "-DKBENCH_SITE=" + args.site, "-DKBENCH_BUILD_NAME=" + args.build_name,
               "-DKBENCH_TEST_INCLUDE=" + args.tests, "-DKBENCH_BUILD_JOBS=%d" % args.jobs,
               "-DKBENCH_SUBMIT_RETRIES=1", "-DKBENCH_SUBMIT_RETRY_DELAY=5"]
    env = dict(os.environ, KBENCH_CDASH_SUBMIT_URL=args.submit_url)
    log_path = args.binary.rstrip("/") + ".log"
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    print("dashboard: %s, build %s/%s to project %s (log: %s)"
          % (" ".join(command[:3]), args.site, args.build_name, project, log_path), flush=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        in_error = False  # a CMake error: its indented lines say what failed
        for line in proc.stdout:
            log.write(line)
            in_error = "CMake Error" in line or (in_error and line.startswith("  "))
            if in_error or line.lstrip().startswith("dashboard:"):
                print("  " + line.rstrip(), flush=True)
        return proc.wait()


def sent(binary):
    """What the dashboard sent: (tag, group, {part: root element})."""
    with open(os.path.join(binary, "Testing", "TAG")) as f:
        lines = f.read().split("\n")
    tag, group = lines[0], lines[2] if len(lines) > 2 and lines[2] else lines[1]
    parts = {}
    folder = os.path.join(binary, "Testing", tag)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".xml"):
            parts[name[:-4]] = ET.parse(os.path.join(folder, name)).getroot()
    return tag, group, parts


def same_value(kind, mine, theirs):
    if kind == "numeric/double":
        try:
            a, b = float(mine), float(theirs)
        except ValueError:
            return False
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0) or (a == b)
    # CDash 2.6 runs text through nl2br()
    return (mine or "").strip() == html.unescape(re.sub(r"<br />", "", theirs or "")).strip()


def check_build(chk, cdash, project, site, name, stamp, parts):
    """The build, its configure, build counts, notes and done flag; its id."""
    answer = cdash.get("api/v1/getbuildid.php", project=project, site=site, name=name,
                       stamp=stamp).decode(errors="replace")
    found = re.search(r"<buildid>(\d+)</buildid>", answer)
    if not chk.expect(found is not None, "CDash has build %s/%s/%s in project %s (%s)"
                      % (site, name, stamp, project, re.sub(r"<\?xml[^>]*>", "", answer))):
        return None
    build_id = int(found.group(1))
    if "Configure" in parts:
        configure = parts["Configure"].find("Configure")
        status = configure.findtext("ConfigureStatus").strip()
        got = cdash.json("api/v1/viewConfigure.php", buildid=build_id).get("configures", [])
        chk.expect(len(got) == 1 and str(got[0].get("status")) == status,
                   "Configure: stored once with status %s (%s)"
                   % (status, [c.get("status") for c in got]))
    summary = cdash.json("api/v1/buildSummary.php", buildid=build_id).get("build", {})
    if "Build" in parts:
        errors = len(parts["Build"].findall("Build/Error"))
        warnings = len(parts["Build"].findall("Build/Warning"))
        chk.expect(summary.get("nerrors") == errors and summary.get("nwarnings") == warnings,
                   "Build: %d errors, %d warnings stored (%s, %s)"
                   % (errors, warnings, summary.get("nerrors"), summary.get("nwarnings")))
    if "Notes" in parts:
        mine = sorted(n.get("Name") for n in parts["Notes"].iter("Note"))
        got = sorted(n.get("name") for n in
                     cdash.json("api/v1/viewNotes.php", buildid=build_id).get("notes", []))
        chk.expect(mine and got == mine, "Notes: %s stored (%s)" % (mine, got))
    if "Done" in parts:
        check_done(chk, cdash, project, build_id, summary.get("starttime", ""))
    return build_id


def check_done(chk, cdash, project, build_id, starttime):
    """CDash marks a build done when it processed its Done.xml (index.php)."""
    day = datetime.date.fromisoformat(starttime[:10]) if starttime else datetime.date.today()
    done = None
    for date in (day, day + datetime.timedelta(days=1), day - datetime.timedelta(days=1)):
        index = cdash.json("api/v1/index.php", project=project, date=date.isoformat())
        for group in index.get("buildgroups", []):
            for build in group.get("builds", []):
                if int(build.get("id", 0)) == build_id:
                    done = build.get("done")
        if done is not None:
            break
    chk.expect(str(done) == "1", "Done: the build is marked done (%s)" % done)


def check_tests(chk, cdash, build_id, testing, download):
    mine = {t.findtext("Name"): t for t in testing.iter("Test") if t.get("Status")}
    got = {t["name"]: t for t in cdash.json("api/v1/viewTest.php", buildid=build_id)["tests"]}
    chk.expect(sorted(got) == sorted(mine), "Test: the %d tests sent are the tests stored %s"
               % (len(mine), sorted(set(mine) ^ set(got)) or ""))
    measured = 0
    for name, test in sorted(mine.items()):
        if name not in got:
            continue
        status = STATUS.get(test.get("Status"), test.get("Status"))
        chk.expect(got[name]["status"] == status,
                   "%s: status %s (%s)" % (name, status, got[name]["status"]))
        measured += check_measurements(chk, cdash, build_id, name, got[name]["id"], test,
                                       download)
    chk.expect(measured > 0, "kbench's measurements were among them (%d)" % measured)


def check_measurements(chk, cdash, build_id, name, test_id, test, download):
    """Each measurement of one test, with its value; how many kbench sent."""
    mine = [m for m in test.iter("NamedMeasurement") if m.get("name") not in CTEST_OWN]
    details = cdash.json("api/v1/testDetails.php", test=test_id, build=build_id)
    stored = details.get("test", {}).get("measurements", [])
    by_name = {}
    for m in stored:
        by_name.setdefault((m["name"], m["type"]), []).append(m)
    wrong, files = [], 0
    for m in mine:
        key = (m.get("name"), m.get("type"))
        if key[1] == "file":  # CDash names an attached file by its file name
            key = (m.get("filename"), "file")
        candidates = by_name.get(key, [])
        if m.get("type") == "file":
            files += 1
            if not candidates or (download and not check_attachment(cdash, build_id, test_id,
                                                                    files, m)):
                wrong.append("%s %s" % (m.get("name"), m.get("filename")))
        elif not any(same_value(key[1], m.findtext("Value"), c.get("value")) for c in candidates):
            wrong.append("%s=%s (%s)" % (key[0], m.findtext("Value"),
                                         [c.get("value") for c in candidates] or "missing"))
    extra = len(stored) - len(mine)
    chk.expect(not wrong and extra == 0,
               "%s: %d measurements stored as sent%s%s" % (
                   name, len(mine), ", wrong or missing: %s" % wrong[:6] if wrong else "",
                   ", %d more than sent" % extra if extra else ""))
    return sum(1 for m in mine if "." in (m.get("name") or ""))


def check_attachment(cdash, build_id, test_id, index, sent_file):
    """Whether the index-th attached file of a test downloads as sent."""
    payload = base64.b64decode(sent_file.findtext("Value") or "")
    try:
        data = cdash.get("api/v1/testDetails.php", test=test_id, build=build_id, fileid=index)
    except LookupError:
        return False
    return data == payload


def check_uploads(chk, cdash, build_id, upload):
    files = {}
    for f in upload.iter("File"):
        data = base64.b64decode(f.findtext("Content") or "")
        files[os.path.basename(f.get("filename"))] = (hashlib.sha1(data).hexdigest(), data)
    page = cdash.get("viewFiles.php", buildid=build_id).decode(errors="replace")
    listed = {}
    for href in re.findall(r'href="([^"]*/([0-9a-f]{40})/([^"/]+))"', page):
        listed[html.unescape(href[2])] = (href[1], html.unescape(href[0]))
    chk.expect(files, "Upload: the dashboard uploaded files (%s)" % sorted(files))
    for name, (sha1, data) in sorted(files.items()):
        if not chk.expect(name in listed and listed[name][0] == sha1,
                          "Upload: %s stored (SHA-1 %s; CDash lists %s)"
                          % (name, sha1[:12], listed.get(name, ("not stored",))[0][:12])):
            continue
        try:
            stored = cdash.get(listed[name][1])
        except LookupError as e:
            stored = str(e).encode()
        chk.expect(stored == data, "Upload: %s downloads as sent (%d bytes)" % (name, len(data)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submit_url")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--source", default=os.path.normpath(os.path.join(here, "..", "..")))
    parser.add_argument("--binary")
    parser.add_argument("--tests", default=DEFAULT_TESTS)
    parser.add_argument("--site", default="kbench-live-check")
    parser.add_argument("--build-name")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--read-back-only", action="store_true")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--skip-attachment-content", action="store_true")
    args = parser.parse_args()
    parts = urllib.parse.urlsplit(args.submit_url)
    project = urllib.parse.parse_qs(parts.query).get("project", [""])[0]
    if parts.scheme not in ("http", "https") or not parts.path.endswith("submit.php") or not project:
        parser.error("SUBMIT_URL '%s': expected http(s)://host/.../submit.php?project=NAME"
                     % args.submit_url)
    if not os.path.isfile(os.path.join(args.source, "ctest_scripts", "dashboard.cmake")):
        parser.error("--source %s: not a kbench checkout (no ctest_scripts/dashboard.cmake)"
                     % args.source)
    args.source = os.path.abspath(args.source)
    args.binary = os.path.abspath(args.binary or os.path.join(args.source, "build-cdash-live"))
    if args.build_name is None:
        args.build_name = "live-check-" + datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")

    chk = Check()
    if args.read_back_only:
        if not os.path.isfile(os.path.join(args.binary, "Testing", "TAG")):
            parser.error("--read-back-only: %s holds no dashboard run" % args.binary)
    else:
        rc = run_dashboard(args, project)
        chk.expect(rc == 0, "the dashboard run passed and CDash took every file (exit %d)" % rc)
    tag, group, sent_parts = sent(args.binary)
    for part in ("Configure", "Build", "Notes", "Test", "Upload", "Done"):
        chk.expect(part in sent_parts, "the dashboard wrote %s.xml" % part)
    site = sent_parts["Configure"].get("Name") if "Configure" in sent_parts else args.site
    name = sent_parts["Configure"].get("BuildName") if "Configure" in sent_parts else args.build_name
    cdash = CDash(args.submit_url, args.timeout)
    try:
        build_id = check_build(chk, cdash, project, site, name, "%s-%s" % (tag, group), sent_parts)
        if build_id is not None and "Test" in sent_parts:
            if args.skip_attachment_content:
                print("skip: attached files are checked as listed, not downloaded "
                      "(--skip-attachment-content)")
            check_tests(chk, cdash, build_id, sent_parts["Test"],
                        not args.skip_attachment_content)
        if build_id is not None and "Upload" in sent_parts:
            check_uploads(chk, cdash, build_id, sent_parts["Upload"])
    except LookupError as e:
        chk.expect(False, "reading the build back: %s" % e)
    if chk.failures:
        print("%d check(s) failed:" % len(chk.failures))
        for what in chk.failures:
            print("  " + what)
        return 1
    print("CDash (%s) holds every part, test, measurement and upload of %s/%s"
          % (cdash.base, site, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
