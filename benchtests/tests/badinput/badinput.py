#!/usr/bin/env python3
"""kbench.badinput: the bad-input matrix (cases.txt) run against the real tools.

Every case of the table sets up files in a directory of its own, runs one
command (a kernel driver, kbench-baseline, kbench-report, or a configure of a
small project using cmake/KbenchKernels.cmake) and checks that

  - the process did not die by a signal and printed no sanitizer report;
  - it exited with the expected status (2 for bad input), and a bad input
    never exited 0 (a "silent pass");
  - what it printed names what is wrong: every `says` substring of the case
    (the file, and the field, option, variable or case);
  - it changed nothing: every file of the case directory is byte-identical
    afterwards, nothing new appeared (no leftover *.tmp* file, nothing
    written outside the directories it was given); the one tolerated
    write is a result JSON with status "error" in the results directory.

Python 3 standard library only. Usage:

  badinput.py --table cases.txt --work DIR --bin BUILD/bin --source SRC
              --cmake CMAKE [--filter REGEX] [--list] [--json OUT]

Exit status: 0 every case behaved, 1 some did not (the summary names them),
2 the table or the arguments are wrong.

The table format is described at the top of cases.txt.
"""

import argparse
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time

# ---- values the table's expressions build files from ----------------------


class Raw:
    """Text written verbatim where a JSON value goes (1e999, NaN, -0)."""

    def __init__(self, text):
        self.text = text


class Dup:
    """A JSON object whose keys may repeat: Dup(("a", 1), ("a", 2))."""

    def __init__(self, *pairs):
        self.pairs = list(pairs)


DEL = object()  # in an override: remove the key


def dump(v):
    """JSON text of v, with Raw and Dup as above (never NaN/Infinity)."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, Dup):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.pairs) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    if isinstance(v, float) and v != v:
        raise ValueError("NaN is not JSON: use Raw('NaN')")
    return json.dumps(v, allow_nan=False)


def _copy(v):
    return json.loads(json.dumps(v)) if isinstance(v, (dict, list)) else v


def _split(path):
    return [int(p) if p.isdigit() else p for p in path.split(".")] if path else []


def patch(obj, path, value):
    """A copy of obj with the member at path ("cases.0.dims.n") set to value,
    or removed when value is DEL; missing objects on the way are created."""
    obj = _copy(obj)
    keys = _split(path)
    node = obj
    for k in keys[:-1]:
        if isinstance(node, dict) and k not in node:
            node[k] = {}
        node = node[k]
    if value is DEL:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return obj


def edit(obj, changes):
    """obj with every "path": value of changes applied (patch)."""
    for path, value in changes.items():
        obj = patch(obj, path, value)
    return obj


def _with(base, overrides, kw):
    out = edit(base, overrides or {})
    for k, v in kw.items():
        out = patch(out, k, v)
    return out


SWISH = {
    "name": "swish",
    "description": "badinput matrix: the swish kernel on tiny cases",
    "backends": ["cpu"],
    "precisions": ["fp32"],
    "tolerance": {"fp32": {"rmse": 1e-6, "max_abs": 1e-5}},
    "flops": "4 * n",
    "bytes": "2 * n * elem",
    "cases": [{"name": "t", "dims": {"n": 64}}, {"name": "u", "dims": {"n": 128}}],
}
LAYERNORM = {
    "name": "layernorm",
    "description": "badinput matrix: the layernorm kernel on tiny cases",
    "backends": ["cpu"],
    "precisions": ["fp32"],
    "tolerance": {"fp32": {"rmse": 5e-7, "max_abs": 1e-5}},
    "flops": "8 * batch * seq * hidden",
    "bytes": "(2 * batch * seq * hidden + 2 * hidden) * elem",
    "cases": [{"name": "t", "dims": {"batch": 1, "seq": 2, "hidden": 8}}],
}
ENTRY = {
    "case": "t",
    "environment": {"hardware_id": "badinput: other hardware", "compiler": "none"},
    "median_ms": 0.5,
    "min_ms": 0.4,
    "rmse": 1e-8,
    "samples_ms": [0.5, 0.51, 0.49],
    "round_medians_ms": [0.5, 0.52],
    "probe_gbps": 20.0,
    "bound": "memory",
    "intensity": 0.5,
    "balance": 1.5,
    "recorded_at": "2026-11-21T10:00:00Z",
    "variant": "default",
}
KEY = "cpu.fp32.default.t"
CALIBRATION = {
    "backend": "cpu",
    "hardware_id": "badinput: other hardware",
    "kernel": "bandwidth",
    "measured_at": "2026-11-21T10:00:00Z",
    "peak_gbps": 20.0,
    "precision": "fp64",
    "profile": "badinput",
    "cases": [{"case": "copy", "variant": "default", "median_ms": 1.0, "bytes": 2e7, "gbps": 20.0}],
}


def M(overrides=None, **kw):
    """The swish test manifest with overrides {"path": value} (DEL removes)."""
    return _with(SWISH, overrides, kw)


def LN(overrides=None, **kw):
    """The layernorm test manifest with overrides."""
    return _with(LAYERNORM, overrides, kw)


def E(overrides=None, **kw):
    """One baseline entry (of other hardware: never gated) with overrides."""
    return _with(ENTRY, overrides, kw)


def B(entries=None, overrides=None, **kw):
    """A swish baseline file holding entries (default: one entry, key KEY)."""
    base = {
        "entries": {KEY: E()} if entries is None else entries,
        "format": "kbench-baseline-1",
        "kernel": "swish",
        "profile": "badinput",
    }
    return _with(base, overrides, kw)


def C(overrides=None, **kw):
    """A calibration file of backend cpu with overrides."""
    return _with(CALIBRATION, overrides, kw)


def long(n=5000, ch="x"):
    return ch * n


def nest(n=100000, open_="[", close="]", inner=""):
    return open_ * n + inner + close * n


def cases(n, dims=None):
    return [{"name": "c%d" % i, "dims": dims or {"n": 64}} for i in range(n)]


GARBAGE = bytes((i * 151 + 7) % 256 for i in range(4096))

# ---- the table --------------------------------------------------------------


class TableError(Exception):
    pass


KNOWN = {"class", "file", "dir", "chmod", "env", "unset", "run", "exit", "says", "needs"}


def expand_for(header, lines, lineno):
    """`for VAR in a b c` lines multiply the block: one case per combination,
    $VAR replaced in the header and every line."""
    loops, body = [], []
    for text in lines:
        m = re.match(r"for\s+(\w+)\s+in\s+(.*)$", text)
        if m:
            loops.append((m.group(1), shlex.split(m.group(2))))
        else:
            body.append(text)
    combos = [{}]
    for var, values in loops:
        combos = [dict(c, **{var: v}) for c in combos for v in values]
    out = []
    for c in combos:

        def sub(s, c=c):
            for var in sorted(c, key=len, reverse=True):
                s = s.replace("$" + var, c[var])
            return s

        out.append((sub(header), [sub(t) for t in body], lineno))
    return out


def parse_table(path):
    blocks, header, lines, lineno = [], None, [], 0
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.rstrip("\n")
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            m = re.match(r"^\[([^\]]+)\]\s*(.*)$", text)
            if m:
                if header:
                    blocks.extend(expand_for(header, lines, lineno))
                header, lines, lineno = m.group(1), [], n
                rest = m.group(2)
                if rest:
                    lines.extend(p.strip() for p in rest.split(";;") if p.strip())
                continue
            if header is None:
                raise TableError("%s:%d: a line outside any [case]" % (path, n))
            lines.extend(p.strip() for p in text.split(";;") if p.strip())
    if header:
        blocks.extend(expand_for(header, lines, lineno))
    cases_ = []
    seen = set()
    for name, body, lineno in blocks:
        case = {"name": name, "line": lineno, "files": [], "dirs": [], "chmod": [], "env": {},
                "unset": [], "run": None, "exit": None, "says": [], "needs": []}
        for text in body:
            key, _, arg = text.partition(" ")
            arg = arg.strip()
            if key not in KNOWN:
                raise TableError("%s:%d: [%s]: unknown directive '%s'" % (path, lineno, name, key))
            if key == "file":
                target, eq, expr = arg.partition("=")
                if not eq:
                    raise TableError("%s:%d: [%s]: file NAME = EXPR" % (path, lineno, name))
                case["files"].append((target.strip(), expr.strip()))
            elif key == "dir":
                case["dirs"].append(arg)
            elif key == "chmod":
                target, mode = arg.split()
                case["chmod"].append((target, int(mode, 8)))
            elif key == "env":
                var, eq, expr = arg.partition("=")
                case["env"][var.strip()] = expr.strip()
            elif key == "unset":
                case["unset"].append(arg)
            elif key == "run":
                case["run"] = arg
            elif key == "exit":
                case["exit"] = int(arg)
            elif key == "says":
                case["says"].append(arg)
            elif key == "needs":
                if arg != "unreadable":
                    raise TableError("%s:%d: [%s]: unknown need '%s'" % (path, lineno, name, arg))
                case["needs"].append(arg)
            elif key == "class":
                case["class"] = arg
        if case["run"] is None or case["exit"] is None:
            raise TableError("%s:%d: [%s]: needs 'run' and 'exit'" % (path, lineno, name))
        if case["exit"] != 0 and not case["says"]:
            raise TableError("%s:%d: [%s]: a bad input must name what is wrong ('says')"
                             % (path, lineno, name))
        if name in seen:
            raise TableError("%s:%d: case [%s] appears twice" % (path, lineno, name))
        seen.add(name)
        case.setdefault("class", name.split("/")[0])
        cases_.append(case)
    return cases_


# ---- running ------------------------------------------------------------------


def snapshot(root):
    """path -> what it is (content hash, or dir, or link), for every entry
    under root; unreadable files by size, mode and mtime."""
    out = {}
    for top, dirs, files in os.walk(root):
        for d in dirs:
            p = os.path.join(top, d)
            out[os.path.relpath(p, root)] = "dir %o" % stat.S_IMODE(os.lstat(p).st_mode)
        for f in files:
            p = os.path.join(top, f)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[os.path.relpath(p, root)] = "link " + os.readlink(p)
                continue
            try:
                with open(p, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                digest = "unreadable %d %d" % (st.st_size, st.st_mtime_ns)
            out[os.path.relpath(p, root)] = "file %o %s" % (stat.S_IMODE(st.st_mode), digest)
    return out


def is_error_record(path):
    """A result JSON the driver may leave for a run it refused: status error."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("status") == "error"
    except (OSError, ValueError, AttributeError):
        return False


SANITIZER = re.compile(r"ERROR: (Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer|"
                       r"runtime error: |\*\*\* stack smashing detected|"
                       r"(double free|free\(\): invalid|malloc\(\): |corrupted size)")


class Runner:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.bin = os.path.abspath(args.bin)
        self.source = os.path.abspath(args.source)
        self.here = os.path.dirname(os.path.abspath(__file__))
        self._result_fixture = None
        self.asan = {}
        self.dirs = {}

    # -- tools

    def exe(self, name):
        path = os.path.join(self.bin, name)
        if not os.access(path, os.X_OK):
            raise TableError("no executable %s (build it first)" % path)
        return path

    def has_asan(self, path):
        if path not in self.asan:
            with open(path, "rb") as f:
                self.asan[path] = b"__asan_init" in f.read()
        return self.asan[path]

    def command(self, case, d, words):
        tool, args = words[0], words[1:]
        if tool in ("swish", "layernorm"):
            # The case's options come last, so they override these.
            return [self.exe("kbench-" + tool), "--manifest", os.path.join(d, "kernel.json"),
                    "--warmup", "0", "--min-time", "0", "--max-time", "0.01",
                    "--confirm-rounds", "0"] + args
        if tool == "baseline":
            return [self.exe("kbench-baseline")] + args
        if tool == "report":
            return [self.exe("kbench-report")] + args
        if tool == "configure":
            return [self.args.cmake, "-S", os.path.join(d, "consumer"), "-B",
                    os.path.join(d, "consumer-build"), "-DKBENCH_SOURCE=" + self.source] + args
        raise TableError("[%s]: unknown tool '%s'" % (case["name"], tool))

    def result_fixture(self):
        """A real result JSON of the swish driver (for the report's cases)."""
        if self._result_fixture is None:
            d = os.path.join(self.work, "_fixture")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            with open(os.path.join(d, "kernel.json"), "w") as f:
                f.write(dump(M()))
            cmd = [self.exe("kbench-swish"), "--manifest", os.path.join(d, "kernel.json"),
                   "--warmup", "0", "--min-time", "0", "--max-time", "0.01", "--case", "t",
                   "--results-dir", os.path.join(d, "results"), "--baseline-dir",
                   os.path.join(d, "baselines"), "--profile", "badinput", "--test-name", "fixture"]
            p = subprocess.run(cmd, capture_output=True, text=True, env=self.base_env(d))
            path = os.path.join(d, "results", "fixture.json")
            if p.returncode != 0 or not os.path.exists(path):
                raise TableError("the fixture run failed (exit %d):\n%s%s"
                                 % (p.returncode, p.stdout, p.stderr))
            with open(path, encoding="utf-8") as f:
                self._result_fixture = json.load(f)
        return _copy(self._result_fixture)

    def base_env(self, d):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("KBENCH_") and not k.startswith("CTEST_RESOURCE_")}
        env.update({
            "KBENCH_RESULTS_DIR": os.path.join(d, "results"),
            "KBENCH_BASELINE_DIR": os.path.join(d, "baselines"),
            "KBENCH_PROFILE": "badinput",
            "TMPDIR": os.path.join(d, "tmp"),
            "LC_ALL": "C",
            "OPENBLAS_NUM_THREADS": "1",
            # A sanitizer build: an impossible allocation returns NULL, as
            # without the sanitizer, rather than abort.
            "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "allocator_may_return_null=1"),
        })
        return env

    # -- one case

    def namespace(self, d):
        def R(overrides=None, **kw):
            return _with(self.result_fixture(), overrides, kw)

        return {"M": M, "LN": LN, "E": E, "B": B, "C": C, "R": R, "KEY": KEY, "Raw": Raw,
                "Dup": Dup, "DEL": DEL, "dump": dump, "patch": patch, "long": long,
                "nest": nest, "cases": cases, "GARBAGE": GARBAGE, "D": d}

    def evaluate(self, expr, d):
        names = dict(self.namespace(d), len=len, range=range, bytes=bytes, str=str, dict=dict,
                     list=list, chr=chr, int=int)
        names["__builtins__"] = {}
        return eval(expr, names)  # the table is part of the project: trusted

    def expand(self, text, d):
        return re.sub(r"\{([^{}\s]+)\}", lambda m: os.path.join(d, m.group(1)), text)

    def setup(self, case, d):
        shutil.rmtree(d, ignore_errors=True)
        for sub in ("cwd", "tmp", "results", "baselines"):
            os.makedirs(os.path.join(d, sub))
        # A result of another test: the run must leave it alone.
        with open(os.path.join(d, "results", "other.cpu.fp32.json"), "w") as f:
            f.write('{"test": "other.cpu.fp32", "status": "passed"}\n')
        tool = case["run"].split()[0]
        if tool == "configure":
            cons = os.path.join(d, "consumer")
            os.makedirs(os.path.join(cons, "kernels", "swish"))
            shutil.copy(os.path.join(self.here, "consumer", "CMakeLists.txt"), cons)
            for stub in ("kernels/swish/reference.c", "kernels/swish/swish.c"):
                open(os.path.join(cons, stub), "w").close()
        files = dict(case["files"])
        if tool in ("swish", "layernorm") and "kernel.json" not in files:
            files["kernel.json"] = "M()" if tool == "swish" else "LN()"
        if tool == "configure" and "kernel.json" not in files:
            files["kernel.json"] = "M(cases=[{'name': 't', 'dims': {'n': 64}}])"
        ns = self.namespace(d)
        for target, expr in files.items():
            value = self.evaluate(expr, d)
            path = os.path.join(d, target)
            if tool == "configure" and target == "kernel.json":
                path = os.path.join(d, "consumer", "kernels", "swish", "kernel.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if isinstance(value, bytes):
                data = value
            elif isinstance(value, str):
                data = value.encode("utf-8", "surrogateescape")
            else:
                data = dump(value).encode("utf-8", "surrogateescape")
            with open(path, "wb") as f:
                f.write(data)
        for target in case["dirs"]:
            os.makedirs(os.path.join(d, target), exist_ok=True)
        for target, mode in case["chmod"]:
            os.chmod(os.path.join(d, target), mode)

    def unreadable_works(self):
        """Whether chmod 000 stops this process reading a file (not as root
        or with CAP_DAC_OVERRIDE)."""
        probe = os.path.join(self.work, "_unreadable_probe")
        with open(probe, "w") as f:
            f.write("x")
        os.chmod(probe, 0)
        try:
            with open(probe):
                return False
        except OSError:
            return True
        finally:
            os.chmod(probe, 0o600)
            os.unlink(probe)

    def run_case(self, case):
        name = case["name"]
        d = os.path.join(self.work, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        if d in self.dirs:
            raise TableError("[%s] and [%s] would share the directory %s"
                             % (self.dirs[d], name, d))
        self.dirs[d] = name
        res = {"name": name, "class": case["class"], "line": case["line"], "problems": [],
               "kinds": [], "skipped": None}
        if "unreadable" in case["needs"] and not self.unreadable_works():
            res["skipped"] = ("chmod 000 does not stop this process reading files (uid %d: root "
                              "or CAP_DAC_OVERRIDE), so an unreadable file cannot be made"
                              % os.getuid())
            return res
        self.setup(case, d)
        env = self.base_env(d)
        for var, expr in case["env"].items():
            env[var] = self.expand(str(self.evaluate(expr, d)), d)
        for var in case["unset"]:
            env.pop(var, None)
        # %{EXPR}% in the command: the value of EXPR, as one word.
        run = re.sub(r"%\{(.+?)\}%", lambda m: shlex.quote(str(self.evaluate(m.group(1), d))),
                     case["run"])
        words = [self.expand(w, d) for w in shlex.split(run)]
        cmd = self.command(case, d, words)
        res["command"] = " ".join(shlex.quote(c) for c in cmd)
        before = snapshot(d)
        top_before = sorted(os.listdir(self.work))
        asan = self.has_asan(cmd[0]) if case["run"].split()[0] != "configure" else False

        def limits():
            if not asan:  # an ASan build reserves terabytes of address space
                limit = 8 << 30  # a runaway allocation fails instead of paging
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        start = time.monotonic()
        try:
            p = subprocess.Popen(cmd, cwd=os.path.join(d, "cwd"), env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, start_new_session=True,
                                 preexec_fn=limits)
            try:
                out, err = p.communicate(timeout=self.args.timeout)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                rc = None
        except OSError as e:
            out, err, rc = b"", str(e).encode(), 127
        res["seconds"] = round(time.monotonic() - start, 3)
        text = (out + b"\n" + err).decode("utf-8", "replace")
        res["exit"] = rc
        res["output"] = text
        expect = case["exit"]

        def problem(kind, msg):
            res["kinds"].append(kind)
            res["problems"].append(msg)

        if rc is None:
            problem("hang", "did not finish within %g s (killed)" % self.args.timeout)
        elif rc < 0:
            problem("crash", "killed by signal %d (%s)" % (-rc, signal.Signals(-rc).name))
        elif SANITIZER.search(text):
            problem("crash", "sanitizer or allocator report: %s"
                    % SANITIZER.search(text).group(0))
        if rc is not None and rc >= 0:
            if expect != 0 and rc == 0:
                problem("silent-pass", "exit 0 on bad input (expected %d)" % expect)
            elif rc != expect:
                problem("wrong-exit", "exit %d, expected %d" % (rc, expect))
        for s in case["says"]:
            want = self.expand(s, d)
            if want not in text:
                problem("missing-name", "the output does not name '%s'" % want)
        # What changed on disk.
        after = snapshot(d)
        notes = []
        for path in sorted(set(before) | set(after)):
            if before.get(path) == after.get(path):
                continue
            full = os.path.join(d, path)
            if ".tmp" in os.path.basename(path):
                problem("tmp-left", "left a temporary file behind: %s" % full)
            elif (os.path.dirname(path) == "results" and path not in before
                  and (expect in (0, 1) or is_error_record(full))):
                # The result of a run that ran (passed or failed); a refused
                # run's record with status "error".
                notes.append("wrote %s" % full)
            elif path.startswith("consumer-build"):
                continue  # the configure's own build tree
            elif path not in after:
                problem("changed-files", "removed %s" % full)
            elif path not in before and os.path.dirname(path) == "results":
                problem("changed-files", "created %s, neither the result of a run nor a UTF-8 "
                        "JSON record with status \"error\"" % full)
            elif path not in before:
                problem("changed-files", "created %s" % full)
            else:
                problem("changed-files", "modified %s" % full)
        top_after = sorted(os.listdir(self.work))
        for extra in sorted(set(top_after) - set(top_before)):
            problem("changed-files", "wrote outside its directory: %s"
                    % os.path.join(self.work, extra))
        res["notes"] = notes
        return res


# ---- main ----------------------------------------------------------------------


KIND_TITLES = [("crash", "crashes (signal or sanitizer report)"),
               ("hang", "hangs"),
               ("silent-pass", "silent passes (exit 0 on bad input)"),
               ("wrong-exit", "wrong exit codes"),
               ("missing-name", "outputs not naming the file/field/option"),
               ("changed-files", "files changed or written outside the given dirs"),
               ("tmp-left", "leftover temporary files")]


def indent(text, limit=25):
    lines = [l for l in text.strip("\n").splitlines() if not l.startswith("<CTestMeasurement")]
    if len(lines) > limit:
        lines = lines[:limit] + ["... (%d more lines)" % (len(lines) - limit)]
    return "\n".join("      | " + l[:300] for l in lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--bin", required=True, help="the build's bin/ (kbench-swish, ...)")
    ap.add_argument("--source", required=True, help="kbench's source tree")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--filter", default="", help="only cases whose name matches this regex")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--json", help="write every case's outcome here")
    args = ap.parse_args()
    try:
        table = parse_table(args.table)
    except (TableError, OSError, ValueError) as e:
        print("badinput: %s" % e, file=sys.stderr)
        return 2
    if args.filter:
        table = [c for c in table if re.search(args.filter, c["name"])]
    if args.list:
        for c in table:
            print("%-60s exit %d  %s" % (c["name"], c["exit"], c["run"]))
        print("%d cases" % len(table))
        return 0
    runner = Runner(args)
    shutil.rmtree(runner.work, ignore_errors=True)
    os.makedirs(runner.work)
    results = []
    start = time.monotonic()
    try:
        for case in table:
            results.append(runner.run_case(case))
    except TableError as e:
        print("badinput: %s" % e, file=sys.stderr)
        return 2
    elapsed = time.monotonic() - start
    failed = [r for r in results if r["problems"]]
    skipped = [r for r in results if r["skipped"]]
    for r in failed:
        print("FAIL [%s] (cases.txt:%d, %s)" % (r["name"], r["line"], r["class"]))
        print("    $ %s" % r["command"])
        for p in r["problems"]:
            print("    - %s" % p)
        print("    output (exit %s):\n%s" % (r["exit"], indent(r["output"])))
    for r in skipped:
        print("SKIP [%s]: %s" % (r["name"], r["skipped"]))
    classes = {}
    for r in results:
        c = classes.setdefault(r["class"], [0, 0])
        c[0] += 1
        c[1] += bool(r["problems"])
    print("\nbad-input matrix: %d cases in %.1f s, %d behaved, %d failed, %d skipped"
          % (len(results), elapsed, len(results) - len(failed) - len(skipped), len(failed),
             len(skipped)))
    for kind, title in KIND_TITLES:
        n = sum(kind in r["kinds"] for r in results)
        print("  %-52s %d" % (title + ":", n))
    print("  by class (failed/cases):")
    for cls in sorted(classes):
        n, bad = classes[cls]
        print("    %-28s %3d/%d" % (cls, bad, n))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
