#!/usr/bin/env bash
# Measures the README's third step against its targets (docs/baselines.md):
# recording on this machine passes and keeps every case, and the plain runs
# after it gate every case at the tolerance it was recorded for, failing
# nothing while the code is unchanged.
#
#   record_targets.sh BUILD RUNS [NEIGHBOURS]
#       1. `KBENCH_UPDATE_BASELINES=1 ctest --test-dir BUILD -L cpu` into a
#          scratch baseline directory (BUILD/record-targets/baselines; the
#          committed baselines/ are not touched);
#       2. RUNS plain `ctest --test-dir BUILD -L cpu` against it.
#       NEIGHBOURS CPU-bound processes (`yes >/dev/null`) run beside every
#       step (default 0), to stand for a noisy host.
#
# Prints per step: tests failed, cases recorded or gated and their verdicts,
# how many cases gate at the configured tolerance and how many coarser (with
# the coarsest), the report's headline, wall time. Logs and each step's
# results: BUILD/record-targets/. Exit status 0 unless a step could not run.
set -euo pipefail

die() {
  echo "record_targets: $*" >&2
  exit 2
}

[[ $# -ge 2 ]] || die "usage: record_targets.sh BUILD RUNS [NEIGHBOURS]"
build=$(cd "$1" && pwd)
runs=$2
n=${3:-0}
[[ $runs =~ ^[0-9]+$ ]] || die "RUNS must be a number: '$runs'"
[[ $n =~ ^[0-9]+$ ]] || die "NEIGHBOURS must be a number: '$n'"
[[ -f $build/CMakeCache.txt ]] || die "$build is not a configured kbench build"
out="$build/record-targets"
rm -rf "$out"
mkdir -p "$out"
export KBENCH_BASELINE_DIR="$out/baselines"

# shellcheck source=benchtests/tools/neighbours.sh
source "$(dirname "${BASH_SOURCE[0]}")/neighbours.sh"

# The step's cases from its result JSONs: verdicts, and the tolerance each
# recorded or gated case has.
summarise() {
  python3 - "$1" <<'EOF'
import glob, json, sys
verdicts, tols = {}, []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    try:
        d = json.load(open(f))
    except ValueError:
        continue
    if not isinstance(d, dict) or "cases" not in d or d.get("mode") == "ab":
        continue
    for c in d["cases"]:
        lat = c.get("latency")
        if lat is None:
            k = "skipped" if c.get("skipped") else "error"
            verdicts[k] = verdicts.get(k, 0) + 1
            continue
        verdicts[lat["verdict"]] = verdicts.get(lat["verdict"], 0) + 1
        if "tolerance" in lat:
            tols.append((lat["tolerance"], f"{d['test']} {c['case']} {c.get('variant', '')}"))
v = " ".join(f"{k}={n}" for k, n in sorted(verdicts.items()))
if tols:
    floor = min(t for t, _ in tols)
    coarse = sorted((t, w) for t, w in tols if t > floor + 1e-12)
    v += f"; {len(tols) - len(coarse)} at {100 * floor:.0f} %, {len(coarse)} coarser"
    if coarse:
        v += f" (coarsest {100 * coarse[-1][0]:.1f} %: {coarse[-1][1]})"
print(v)
EOF
}

step() {
  local name=$1 log="$out/$1.log" t0 t1 failed
  shift
  rm -rf "$build/kbench-results"
  start_neighbours "$n"
  t0=$(date +%s)
  env "$@" ctest --test-dir "$build" -L cpu >"$log" 2>&1 || true
  t1=$(date +%s)
  stop_neighbours
  cp -r "$build/kbench-results" "$out/$name.results"
  failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed.*/\1/p' "$log")
  printf '%s (neighbours %d): %s failed tests; %s; %d s\n' "$name" "$n" "${failed:-?}" \
    "$(summarise "$out/$name.results")" $((t1 - t0))
  grep -A5 -m1 '^kbench run report' "$log" | sed 's/^/  /' || true
}

step record KBENCH_UPDATE_BASELINES=1
for ((run = 1; run <= runs; ++run)); do
  step "run$run" KBENCH_UPDATE_BASELINES=
done
