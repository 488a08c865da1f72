#!/usr/bin/env python3
"""Checks that cdash_receiver.py answers as CDash's submit.php does.

    cdash_receiver.py --store DIR --token-env NAME --fail-first 1 [--cdash V] -- \\
        check_receiver.py --token-env NAME [--cdash V]

Run as the receiver's COMMAND: sends PUTs to KBENCH_CDASH_SUBMIT_URL and
expects, in this order, a 503 (the first PUT, --fail-first 1), then for
--cdash 5.3 (the default): 200 with <status>OK</status>, a <buildId> and no
<md5> for a good file; a 400 and CDash's JSON for an MD5 mismatch, a
malformed MD5 and a missing project; a 403 "Invalid Token" for a wrong or
missing token; a 404 for an unknown project. For --cdash 2.6: 200 with
<status>OK</status>, a <buildId> and the body's <md5> for a good file; 200
with <status>ERROR</status> and "Checksum failed for file." for an MD5
mismatch, "Not a valid project." for an unknown or missing project; 401 with
an empty body for a wrong or missing token. Prints one line per check;
exits 1 if any failed.
"""

import argparse
import hashlib
import http.client
import json
import os
import sys
import urllib.parse
import xml.etree.ElementTree as ET

BODY = b"<?xml version=\"1.0\"?><Site BuildName=\"b\" BuildStamp=\"s\" Name=\"n\"/>\n"


def put(url, query, body=BODY, token=None):
    """PUTs body to url's host with the query given; (status, type, text)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    headers = {"Content-Type": "text/xml"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    conn.request("PUT", parts.path + "?" + urllib.parse.urlencode(query), body, headers)
    answer = conn.getresponse()
    text = answer.read().decode()
    conn.close()
    return answer.status, answer.getheader("Content-Type", ""), text


class Probe:
    def __init__(self, url, token, cdash):
        self.url = url
        self.token = token
        self.cdash = cdash
        self.project = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["project"][0]
        self.failures = []
        self.count = 0

    def query(self, **changes):
        self.count += 1
        q = {"project": self.project, "FileName": "s___b___t___XML___Probe%d.xml" % self.count,
             "MD5": hashlib.md5(BODY).hexdigest(), "build": "b", "site": "s", "stamp": "t"}
        q.update(changes)
        return {k: v for k, v in q.items() if v is not None}

    def expect(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            self.failures.append(what)

    def expect_refusal(self, what, code, description, answer):
        status, kind, text = answer
        try:
            payload = json.loads(text)
        except ValueError:
            payload = {}
        ok = (status == code and kind.startswith("application/json") and payload.get("status") == 1
              and description in payload.get("description", ""))
        self.expect(ok, "%s: %d JSON saying '%s' (got %d %s %r)"
                    % (what, code, description, status, kind, text[:120]))


def run(probe):
    token = probe.token
    status, _, _ = put(probe.url, probe.query(), token=token)
    probe.expect(status == 503, "the first PUT is refused as an outage (503; got %d)" % status)
    if probe.cdash == "2.6":
        run_26(probe)
    else:
        run_53(probe)


def cdash_answer(answer):
    """(HTTP status, the <cdash> root or None, raw text) of an answer."""
    status, kind, text = answer
    try:
        root = ET.fromstring(text) if kind.startswith("text/xml") else None
    except ET.ParseError:
        root = None
    return status, root, text


def run_26(probe):
    token = probe.token
    status, root, text = cdash_answer(put(probe.url, probe.query(), token=token))
    probe.expect(status == 200 and root is not None and root.get("version", "").startswith("2.6")
                 and root.findtext("status") == "OK" and root.findtext("buildId") == "1"
                 and root.findtext("md5") == hashlib.md5(BODY).hexdigest(),
                 "a good file: 200, <status>OK</status>, <buildId>, the body's <md5> (got %d %r)"
                 % (status, text[:200]))
    status, root, text = cdash_answer(put(probe.url, probe.query(build=None), token=token))
    probe.expect(status == 200 and root is not None and root.find("buildId") is None,
                 "a file that does not name its build: no <buildId> (got %d)" % status)

    def expect_error(what, message, answer):
        status, root, text = cdash_answer(answer)
        ok = (status == 200 and root is not None and root.findtext("status") == "ERROR"
              and message in (root.findtext("message") or ""))
        probe.expect(ok, "%s: 200 with <status>ERROR</status> saying '%s' (got %d %r)"
                     % (what, message, status, text[:200]))

    expect_error("MD5 mismatch", "Checksum failed for file. Expected " + "0" * 32,
                 put(probe.url, probe.query(MD5="0" * 32), token=token))
    expect_error("unknown project", "Not a valid project.",
                 put(probe.url, probe.query(project="no-such-project"), token=token))
    expect_error("no project", "Not a valid project.",
                 put(probe.url, probe.query(project=None), token=token))
    for what, sent in (("wrong token", token + "-wrong"), ("no token", None)):
        status, _, text = put(probe.url, probe.query(), token=sent)
        probe.expect(status == 401 and text == "",
                     "%s: 401 with an empty body (got %d %r)" % (what, status, text[:120]))


def run_53(probe):
    token = probe.token

    status, kind, text = put(probe.url, probe.query(), token=token)
    root = ET.fromstring(text) if status == 200 else None
    probe.expect(status == 200 and kind.startswith("text/xml") and root is not None
                 and root.findtext("status") == "OK" and root.findtext("buildId") == "1"
                 and root.find("md5") is None,
                 "a good file: 200, <status>OK</status>, <buildId>, no <md5> (got %d %r)"
                 % (status, text[:160]))
    status, _, text = put(probe.url, probe.query(build=None), token=token)
    probe.expect(status == 200 and ET.fromstring(text).find("buildId") is None,
                 "a file that does not name its build: no <buildId> (got %d)" % status)

    probe.expect_refusal("MD5 mismatch", 400, "md5 mismatch",
                         put(probe.url, probe.query(MD5="0" * 32), token=token))
    probe.expect_refusal("malformed MD5", 400, "improperly formatted",
                         put(probe.url, probe.query(MD5="xyz"), token=token))
    probe.expect_refusal("no project", 400, "No project name provided",
                         put(probe.url, probe.query(project=None), token=token))
    probe.expect_refusal("wrong token", 403, "Invalid Token",
                         put(probe.url, probe.query(), token=token + "-wrong"))
    probe.expect_refusal("no token", 403, "Invalid Token", put(probe.url, probe.query()))
    probe.expect_refusal("unknown project", 404, "The requested project does not exist",
                         put(probe.url, probe.query(project="no-such-project"), token=token))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token-env", required=True)
    parser.add_argument("--cdash", choices=("5.3", "2.6"), default="5.3")
    args = parser.parse_args()
    url = os.environ.get("KBENCH_CDASH_SUBMIT_URL")
    token = os.environ.get(args.token_env)
    if not url or not token:
        parser.error("run me under cdash_receiver.py --token-env %s" % args.token_env)
    probe = Probe(url, token, args.cdash)
    run(probe)
    if probe.failures:
        print("%d check(s) failed" % len(probe.failures))
        return 1
    print("the receiver answers as CDash %s does" % args.cdash)
    return 0


if __name__ == "__main__":
    sys.exit(main())
