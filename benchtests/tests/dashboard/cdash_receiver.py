#!/usr/bin/env python3
"""A loopback stand-in for a CDash server, for kbench's dashboard self-test.

    cdash_receiver.py --store DIR [--project P] [--token-env NAME]
                      [--fail-first N] [--timeout S] -- COMMAND [ARG...]

Listens on 127.0.0.1 (a free port), runs COMMAND with
KBENCH_CDASH_SUBMIT_URL pointing at itself (project P, default kbench), and
exits with COMMAND's status once it ends (or 124 after --timeout seconds).

It answers CDash's submit protocol as CTest uses it: one HTTP/1.1 PUT per
file to /submit.php?project=<p>&FileName=<name>&MD5=<md5>..., answered with
<cdash><status>OK</status>...<md5>...</md5><buildId>N</buildId></cdash>.
A body whose MD5 differs from the MD5 parameter is answered with status
ERROR. With --token-env, a request whose "Authorization: Bearer" header is
not the token in that environment variable is refused (401). The first
--fail-first PUTs are answered 503, so the client's retries are exercised.

Each accepted file is stored as DIR/<FileName>; every request is logged in
DIR/requests.jsonl (method, file, status, whether the MD5 and the token
matched; never the token itself).
"""

import argparse
import hashlib
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.parse

CDASH_VERSION = "3.2.0"


class Receiver(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, store, token, fail_first):
        super().__init__(("127.0.0.1", 0), Handler)
        self.store = store
        self.token = token
        self.fail_first = fail_first
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

    def answer(self, code, body, record):
        record["status"] = code
        self.server.log_request_record(record)
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/xml" if code == 200 else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

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
        query = urllib.parse.parse_qs(url.query)
        name = query.get("FileName", [""])[0]
        body = self.read_body()
        md5 = hashlib.md5(body).hexdigest()
        record = {"method": "PUT", "path": url.path, "file": name, "bytes": len(body),
                  "project": query.get("project", [""])[0], "auth": self.auth_state(),
                  "md5_ok": query.get("MD5", [""])[0].lower() == md5}
        with self.server.lock:
            self.server.puts += 1
            fail = self.server.puts <= self.server.fail_first
        if url.path != "/submit.php" or not name or "/" in name or name.startswith("."):
            return self.answer(400, "bad submit request\n", record)
        if fail:
            return self.answer(503, "simulated outage\n", record)
        if record["auth"] not in ("ok", "not required"):
            return self.answer(401, "invalid or missing bearer token\n", record)
        if not record["md5_ok"]:
            return self.answer(200, cdash_answer("ERROR", "Checksum failed", md5, 0), record)
        with open(os.path.join(self.server.store, name), "wb") as out:
            out.write(body)
        return self.answer(200, cdash_answer("OK", "", md5, self.server.build_id), record)

    def refuse(self):
        self.read_body()  # so that a kept-alive connection stays in step
        self.answer(405, "only PUT is supported\n", {"method": self.command, "path": self.path})

    do_GET = do_POST = do_HEAD = refuse


def cdash_answer(status, message, md5, build_id):
    return ('<cdash version="%s">\n  <status>%s</status>\n  <message>%s</message>\n'
            '  <md5>%s</md5>\n  <buildId>%d</buildId>\n</cdash>\n'
            % (CDASH_VERSION, status, message, md5, build_id))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--project", default="kbench")
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

    server = Receiver(args.store, token, args.fail_first)
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
