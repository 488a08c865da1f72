#!/usr/bin/env python3
"""A loopback stand-in for a CDash server, for kbench's dashboard self-test.

    cdash_receiver.py --store DIR [--cdash 5.3|2.6] [--project P]
                      [--known-project K] [--token-env NAME] [--fail-first N]
                      [--corrupt] [--blank] [--hang-up] [--timeout S]
                      -- COMMAND [ARG...]

Listens on 127.0.0.1 (a free port), runs COMMAND with
KBENCH_CDASH_SUBMIT_URL pointing at itself (project P, default kbench), and
exits with COMMAND's status once it ends (or 124 after --timeout seconds).

It answers submit.php as CTest uses it: one HTTP/1.1 PUT per file to
/submit.php?project=<p>&FileName=<name>&MD5=<md5>[&build=&site=&stamp=].
With --token-env the project requires authenticated submissions: the token
is the one in that environment variable, sent as "Authorization: Bearer".

--cdash 5.3 (the default), checked in CDash 5.3's order:
  * no project= parameter: 400; an MD5 parameter that is not 32 hex digits: 400;
  * a body whose MD5 differs from the MD5 parameter: 400;
  * a token that is missing or wrong: 403 "Invalid Token";
  * a project other than K (default kbench) does not exist: 404;
  each as CDash's JSON {"status": 1, "description": "..."}. An accepted file
  is answered 200 with <cdash version=...><status>OK</status><message/> and,
  when the request named build, site and stamp, <buildId>N</buildId> (no
  <md5>: CDash 5 does not echo it).
--cdash 2.6, in CDash 2.6's order (public/submit.php, include/do_submit.php):
  * a project other than K, or none: 200 with <status>ERROR</status>
    <message>Not a valid project.</message>;
  * a token that is missing or wrong: 401 with an empty body;
  * a body whose MD5 differs from the MD5 parameter: 200 with
    <status>ERROR</status><message>Checksum failed for file. Expected ...
    but got ...</message>;
  * accepted: 200 with <status>OK</status>, <message/>, <buildId> when the
    request named the build, and <md5> (the body's).
The first --fail-first PUTs are answered 503 (a server down for maintenance),
so the client's retries run. --corrupt takes every body as damaged in
transit (its MD5 then differs), --blank answers every PUT 200 with an empty
body, as a misconfigured proxy in front of CDash would, and --hang-up closes
the connection without an answer.

Each accepted file is stored as DIR/<FileName>; every request is logged in
DIR/requests.jsonl (method, file, HTTP status, CDash's status, whether it
was accepted, whether the MD5 and the token matched; never the token itself).
"""

import argparse
import hashlib
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.parse

VERSIONS = {"5.3": "5.3.0", "2.6": "2.6.0"}


class Receiver(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, store, token, fail_first, known_project, cdash, corrupt, blank,
                 hang_up):
        super().__init__(("127.0.0.1", 0), Handler)
        self.store = store
        self.token = token
        self.fail_first = fail_first
        self.known_project = known_project
        self.cdash = cdash
        self.corrupt = corrupt
        self.blank = blank
        self.hang_up = hang_up
        self.lock = threading.Lock()
        self.puts = 0
        self.build_id = 1

    def log_request_record(self, record):
        with self.lock:
            with open(os.path.join(self.store, "requests.jsonl"), "a") as log:
                log.write(json.dumps(record, sort_keys=True) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and 100-continue, as CTest expects

    def log_message(self, fmt, *args):  # quiet: the test reads requests.jsonl
        pass

    def answer(self, code, body, content_type, record):
        record["status"] = code
        found = re.search(r"<status>([^<]*)</status>", body) if body.startswith("<cdash") else None
        record["cdash_status"] = found.group(1) if found else None
        record["accepted"] = code == 200 and record["cdash_status"] == "OK"
        self.server.log_request_record(record)
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def accept(self, build_id, md5, record):
        body = cdash_xml(self.server.cdash, "OK", "", build_id,
                         md5 if self.server.cdash == "2.6" else None)
        self.answer(200, body, "text/xml", record)

    def refuse(self, code, description, record):
        """CDash 5's answer to a submission it refuses (abort() in submit.php)."""
        body = json.dumps({"status": 1, "description": description})
        self.answer(code, body, "application/json", record)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def auth_state(self):
        if self.server.token is None:
            return "not required"
        header = self.headers.get("Authorization")
        if header is None:
            return "missing"
        return "ok" if header == "Bearer " + self.server.token else "wrong"

    def do_PUT(self):
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        name = query.get("FileName", "")
        body = self.read_body()
        if self.server.corrupt and body:
            body = body[:-1] + bytes([body[-1] ^ 1])
        md5 = hashlib.md5(body).hexdigest()
        record = {"method": "PUT", "path": url.path, "file": name, "bytes": len(body),
                  "project": query.get("project", ""), "auth": self.auth_state(),
                  "md5_ok": query.get("MD5", "").lower() == md5}
        with self.server.lock:
            self.server.puts += 1
            fail = self.server.puts <= self.server.fail_first
        if url.path != "/submit.php" or not name or "/" in name or name.startswith("."):
            return self.refuse(400, "bad submit request", record)
        if fail:
            return self.answer(503, "simulated outage\n", "text/plain", record)
        if self.server.blank:
            return self.answer(200, "", "text/html", record)
        if self.server.hang_up:
            record.update(status=None, cdash_status=None, accepted=False)
            self.server.log_request_record(record)
            self.close_connection = True
            return None
        names_build = all(query.get(k) for k in ("build", "site", "stamp"))
        build_id = self.server.build_id if names_build else None
        if self.server.cdash == "2.6":
            refusal = self.refusal_26(query, md5, record["auth"], build_id)
            if refusal:
                return self.answer(*refusal, record)
        else:
            refusal = self.refusal(query, md5, record["auth"])
            if refusal:
                return self.refuse(*refusal, record)
        with open(os.path.join(self.server.store, name), "wb") as out:
            out.write(body)
        return self.accept(build_id, md5, record)

    def refusal_26(self, query, md5, auth, build_id):
        """(HTTP status, body, content type) of CDash 2.6's first objection,
        or None."""
        if query.get("project", "") != self.server.known_project:
            return 200, cdash_xml("2.6", "ERROR", "Not a valid project."), "text/xml"
        if auth not in ("ok", "not required"):
            return 401, "", "text/html"
        expected = query.get("MD5", "")
        if expected and expected != md5:
            message = "Checksum failed for file. Expected %s but got %s" % (expected, md5)
            return 200, cdash_xml("2.6", "ERROR", message, build_id, md5), "text/xml"
        return None

    def refusal(self, query, md5, auth):
        """(HTTP status, description) of CDash 5.3's first objection, or None."""
        project, expected = query.get("project", ""), query.get("MD5", "")
        if not project:
            return 400, "No project name provided."
        if expected and not re.fullmatch(r"[0-9a-fA-F]{32}", expected):
            return 400, "Provided md5 hash '%s' is improperly formatted." % expected
        if expected and expected.lower() != md5:
            return 400, "md5 mismatch. expected: %s, received: %s" % (expected, md5)
        if project == self.server.known_project and auth not in ("ok", "not required"):
            return 403, "Invalid Token"
        if project != self.server.known_project:
            return 404, "The requested project does not exist."
        return None

    def refuse_method(self):
        self.read_body()  # so that a kept-alive connection stays in step
        self.answer(405, "only PUT is supported\n", "text/plain",
                    {"method": self.command, "path": self.path})

    do_GET = do_POST = do_HEAD = refuse_method


def cdash_xml(cdash, status, message, build_id=None, md5=None):
    """CDash's XML answer: a <buildId> only when the request named the build
    (build, site and stamp), an <md5> from CDash 2.6 only."""
    lines = ['<cdash version="%s">' % VERSIONS[cdash], "  <status>%s</status>" % status,
             "  <message>%s</message>" % message]
    if build_id is not None:
        lines.append("  <buildId>%d</buildId>" % build_id)
    if md5 is not None:
        lines.append("  <md5>%s</md5>" % md5)
    return "\n".join(lines + ["</cdash>", ""])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--project", default="kbench")
    parser.add_argument("--known-project", default="kbench")
    parser.add_argument("--cdash", choices=sorted(VERSIONS), default="5.3")
    parser.add_argument("--corrupt", action="store_true")
    parser.add_argument("--blank", action="store_true")
    parser.add_argument("--hang-up", action="store_true")
    parser.add_argument("--token-env")
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no COMMAND after --")
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            parser.error("--token-env %s: the variable is not set" % args.token_env)
    os.makedirs(args.store, exist_ok=True)

    server = Receiver(args.store, token, args.fail_first, args.known_project, args.cdash,
                      args.corrupt, args.blank, args.hang_up)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    env = dict(os.environ)
    env["KBENCH_CDASH_SUBMIT_URL"] = "http://127.0.0.1:%d/submit.php?project=%s" % (
        server.server_address[1], args.project)
    sys.stdout.flush()
    # Its own process group, so a timeout ends the whole tree (ctest -S
    # and the configure, build and tests it started), not just its root.
    child = subprocess.Popen(command, env=env, start_new_session=True)
    try:
        rc = child.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("cdash_receiver: %s ran past %g s" % (command[0], args.timeout), file=sys.stderr)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        rc = 124
    server.shutdown()
    server.server_close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
