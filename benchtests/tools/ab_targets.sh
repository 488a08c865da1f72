#!/usr/bin/env bash
# Measures A/B mode against its targets (docs/gate.md, "A/B mode: measured").
#
#   ab_targets.sh aa BUILD RUNS [NEIGHBOURS]
#       RUNS times `BUILD/bin/kbench-ab --all HEAD -L '^cpu$'` (A/A: the
#       working tree against its own commit; run it on a clean tree), with
#       NEIGHBOURS CPU-bound processes (`yes >/dev/null`) beside it (default
#       0). Prints per run: failing tests, verdict counts, the median and
#       90th percentile of the cases' resolution, wall time.
#
#   ab_targets.sh detect BUILD RUNS KERNEL[:CASE]...
#       Real code changes: for each kernel, a worktree of HEAD whose CPU
#       implementation does 15 % (then 25 %; KB_AB_DETECT_PCTS="15 25" lists
#       them) more work on every call of CASE
#       (default: the manifest's first case): after computing, it keeps its
#       core busy for that share of the time the call took; built with
#       BUILD's options. (A first version ran the whole kernel a second time
#       on that share of the calls: where a sample holds one or two calls,
#       most samples then held none of the extra work, and the median, which
#       is meant to shrug off a few slow samples, did.) Each
#       is compared RUNS times with BUILD (the unchanged HEAD) as base:
#       counted as caught when the case's verdict is "regression". Then the
#       other way round (the changed build as base, so the head is faster):
#       counted when the verdict is "faster", and any failure is reported.
#       The driver is run directly on the case (what its CTest test runs,
#       one case), in fp32.
#
# Results and logs: BUILD/ab-targets/ (each A/A run's results with its wall
# time: benchtests/tools/ab_summary.py --aa BUILD/ab-targets/aa-n0-*.results
# adds process spreads and cases off 1). Needs a clean working tree for aa and
# detect (the base is HEAD). Exit status 0 unless a step could not run.
set -euo pipefail

die() {
  echo "ab_targets: $*" >&2
  exit 2
}

[[ $# -ge 3 ]] || die "usage: ab_targets.sh aa BUILD RUNS [NEIGHBOURS] | detect BUILD RUNS KERNEL[:CASE]..."
mode=$1
build=$(cd "$2" && pwd)
runs=$3
shift 3
[[ $runs =~ ^[0-9]+$ ]] || die "RUNS must be a number: '$runs'"
src=$(sed -n 's/^kbench_SOURCE_DIR:STATIC=//p' "$build/CMakeCache.txt")
[[ -n $src ]] || die "$build is not a configured kbench build"
out="$build/ab-targets"
mkdir -p "$out"

# Verdict counts and resolutions of the A/B result JSONs in a directory.
summarise_results() {
  python3 - "$1" <<'EOF'
import glob, json, statistics, sys
verdicts, res, spread = {}, [], []
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    if d.get("mode") != "ab":
        continue
    for c in d["cases"]:
        lat = c.get("latency")
        if lat is None:
            # a case its implementation declines (oneDNN's fp64) has no latency
            k = "skipped" if c.get("skipped") else "error"
            verdicts[k] = verdicts.get(k, 0) + 1
            continue
        verdicts[lat["verdict"]] = verdicts.get(lat["verdict"], 0) + 1
        r = lat.get("ab", {}).get("resolution")
        if r is not None:
            res.append(r)
        s = lat.get("ab", {}).get("process_spread")
        if s is not None:
            spread.append(s)
res.sort()
v = " ".join(f"{k}={n}" for k, n in sorted(verdicts.items()))
if res:
    v += (f"; resolution median {100 * statistics.median(res):.2f} %, "
          f"p90 {100 * res[int(0.9 * (len(res) - 1))]:.2f} %")
if spread:
    v += f"; process spread median {100 * statistics.median(spread):.2f} %"
print(v)
EOF
}

# shellcheck source=benchtests/tools/neighbours.sh
source "$(dirname "${BASH_SOURCE[0]}")/neighbours.sh"

aa() {
  local n=${1:-0} run log t0 t1 failed
  [[ -z $(git -C "$src" status --porcelain --untracked-files=no) ]] ||
    die "aa: the working tree has changes; A/A compares HEAD with itself"
  for ((run = 1; run <= runs; ++run)); do
    log="$out/aa-n$n-$run.log"
    start_neighbours "$n"
    t0=$(date +%s)
    "$build/bin/kbench-ab" --all HEAD -L '^cpu$' >"$log" 2>&1 || true
    t1=$(date +%s)
    stop_neighbours
    rm -rf "$out/aa-n$n-$run.results"
    cp -r "$build/kbench-results" "$out/aa-n$n-$run.results"
    echo $((t1 - t0)) >"$out/aa-n$n-$run.results/wall_s"
    failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed.*/\1/p' "$log")
    printf 'aa run %d (neighbours %d): %s failed tests; %s; %d s\n' "$run" "$n" "${failed:-?}" \
      "$(summarise_results "$out/aa-n$n-$run.results")" $((t1 - t0))
  done
}

# Patches the worktree's kernel source: every call of case `case` to a
# registered CPU implementation keeps its core busy `pct` % longer.
patch_kernel() {
  local dir=$1 kernel=$2 case=$3 pct=$4
  local file="$dir/kernels/$kernel/$kernel.c"
  python3 - "$file" "$case" "$pct" <<'EOF'
import re, sys
path, case, pct = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path).read()
fns = re.findall(r'\{"cpu", "[^"]+", (\w+)\}', text)
if not fns:
    sys.exit(f"{path}: no CPU implementation found")
# Seconds since the first reading, which a double keeps to the nanosecond:
# seconds since 1970 round to 238 ns there, which turned a 15 % wait in a
# 1.5 us call into 10 %.
wrappers = """#include <string.h>
#include <time.h>

static double kb__seconds(void) {
    static time_t start;
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    if (start == 0) start = t.tv_sec;
    return (double)(t.tv_sec - start) + 1e-9 * (double)t.tv_nsec;
}
"""
for fn in sorted(set(fns)):
    wrappers += f"""
/* Detection experiment: every call of case {case} works {pct} % longer
 * (it computes, then keeps its core busy for {pct} % of that time). */
static int kb__more_{fn}(const kb_args *a) {{
    if (strcmp(kb_case_name(a->c), "{case}") != 0) return {fn}(a);
    double t0 = kb__seconds();
    int rc = {fn}(a);
    double t1 = kb__seconds(), until = t1 + (t1 - t0) * {pct} / 100.0;
    while (kb__seconds() < until) {{
    }}
    return rc;
}}
"""
    text = re.sub(r'(\{"cpu", "[^"]+", )' + fn + r'\}', r'\1kb__more_' + fn + '}', text)
at = text.index("static const kb_kernel")
open(path, "w").write(text[:at] + wrappers + "\n" + text[at:])
EOF
}

# Builds HEAD with kernel's case `case` doing pct % more work.
build_changed() {
  local kernel=$1 case=$2 pct=$3
  local dir="$out/detect/$kernel-$pct"
  git -C "$src" worktree remove --force "$dir/src" >/dev/null 2>&1 || rm -rf "$dir/src"
  git -C "$src" worktree prune
  mkdir -p "$dir"
  git -C "$src" worktree add --detach --force "$dir/src" HEAD >/dev/null 2>&1
  patch_kernel "$dir/src" "$kernel" "$case" "$pct"
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DKBENCH_BACKENDS=cpu \
    >"$dir/configure.log" 2>&1 || die "configure failed: $dir/configure.log"
  cmake --build "$dir/build" --target "kbench-$kernel" -j "$(nproc)" >"$dir/build.log" 2>&1 ||
    die "build failed: $dir/build.log"
}

# Runs head against base on one case `runs` times; prints how many runs
# ended with the verdict `want`, and the ratios seen.
count_verdicts() {
  local head_bin=$1 base_bin=$2 base_src=$3 kernel=$4 case=$5 want=$6 run hits=0 ratios=""
  local results="$out/detect/results"
  for ((run = 1; run <= runs; ++run)); do
    rm -rf "$results"
    "$head_bin/kbench-$kernel" --precision fp32 --case "$case" --ab-base "$base_bin" \
      --ab-source "$base_src" --results-dir "$results" >"$out/detect/last.log" 2>&1 || true
    local verdict ratio
    read -r verdict ratio < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
lat = d["cases"][0].get("latency", {})
print(lat.get("verdict", "error"), round(lat.get("ratio", 0), 3))' "$results/$kernel.cpu.fp32.json")
    [[ $verdict == "$want" ]] && hits=$((hits + 1))
    ratios+=" $ratio"
  done
  echo "$hits/$runs ($want; ratios:$ratios)"
}

detect() {
  local spec kernel case pct dir
  [[ -z $(git -C "$src" status --porcelain --untracked-files=no) ]] ||
    die "detect: the working tree has changes; the base is HEAD, built in $build"
  for spec in "$@"; do
    kernel=${spec%%:*}
    case=${spec#*:}
    [[ $case == "$spec" ]] && case=$(python3 -c '
import json, sys; print(json.load(open(sys.argv[1]))["cases"][0]["name"])' "$src/kernels/$kernel/kernel.json")
    cmake --build "$build" --target "kbench-$kernel" >/dev/null
    for pct in ${KB_AB_DETECT_PCTS:-15 25}; do
      [[ $pct =~ ^[1-9][0-9]?$ ]] || die "KB_AB_DETECT_PCTS: '$pct' is not a percentage from 1 to 99"
      build_changed "$kernel" "$case" "$pct"
      dir="$out/detect/$kernel-$pct"
      printf '%s %s x1.%02d slower: caught %s\n' "$kernel" "$case" "$pct" \
        "$(count_verdicts "$dir/build/bin" "$build/bin" "$src" "$kernel" "$case" regression)"
      printf '%s %s x1/1.%02d faster: reported faster %s\n' "$kernel" "$case" "$pct" \
        "$(count_verdicts "$build/bin" "$dir/build/bin" "$dir/src" "$kernel" "$case" faster)"
    done
  done
}

case "$mode" in
aa) aa "${1:-0}" ;;
detect) detect "$@" ;;
*) die "unknown mode '$mode' (aa or detect)" ;;
esac
