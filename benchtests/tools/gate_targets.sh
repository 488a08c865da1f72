#!/usr/bin/env bash
# Measures the latency gate's targets on this machine (see docs/gate.md):
#   1. record a baseline of the whole CPU perf suite into a scratch directory;
#   2. run the suite RUNS times against it and count failing perf tests (target: 0);
#   3. run it SLOW_RUNS times against copies with every _ms value x 0.8 (a 25 %
#      slowdown; target: >= 99 % of perf tests fail) and x 0.87 (15 %; >= 90 %).
# Also reports the wall time of each suite run (target: <= 120 s).
#
# usage: benchtests/tools/gate_targets.sh [BUILD_DIR] [RUNS] [SLOW_RUNS]
#        (defaults: build 20 3; the build must be configured and built)
# Every run's result JSON (all rounds, all samples) is kept under
# BUILD_DIR/gate-targets/results/<run>/ so a miss can be explained afterwards.
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
runs=${2:-20}
slow_runs=${3:-3}
work="$build/gate-targets"
tool="$build/bin/kbench-baseline"
rm -rf "$work"
mkdir -p "$work"
log="$work/summary.txt"

# Runs the perf suite against baseline root $1, keeps its log and result JSON
# as run $2; prints "<failed> <total> <seconds>".
suite() {
  local root=$1 keep="$work/results/$2" start end failed total
  mkdir -p "$keep"
  start=$(date +%s.%N)
  KBENCH_BASELINE_DIR="$root" KBENCH_RESULTS_DIR="$keep" \
    ctest --test-dir "$build" -L perf >"$work/last.log" 2>&1 || true
  end=$(date +%s.%N)
  cp "$work/last.log" "$keep/ctest.log"
  # ctest's closing line: "100% tests passed, 0 tests failed out of 16".
  read -r failed total < <(sed -n 's/.* \([0-9]*\) tests failed out of \([0-9]*\)$/\1 \2/p' "$work/last.log")
  if [ -z "${total:-}" ]; then
    echo "no ctest summary in $work/last.log" >&2
    exit 1
  fi
  echo "$failed $total $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
}

derive() { # $1 factor, $2 destination root
  local f
  for f in "$work"/baselines/*/*.json; do
    mkdir -p "$2/$(basename "$(dirname "$f")")"
    "$tool" scale-ms "$1" "$f" "$2/$(basename "$(dirname "$f")")/$(basename "$f")"
  done
}

echo "recording the baseline ..." | tee "$log"
KBENCH_BASELINE_DIR="$work/baselines" KBENCH_UPDATE_BASELINES=1 \
  ctest --test-dir "$build" -L perf >"$work/record.log" 2>&1 || {
  echo "recording failed: see $work/record.log" | tee -a "$log"; exit 1; }

fails=0
for i in $(seq 1 "$runs"); do
  read -r f t s < <(suite "$work/baselines" "unchanged-$i")
  fails=$((fails + f))
  printf 'unchanged baseline, run %2d: %d of %d perf tests failed, %.1f s\n' "$i" "$f" "$t" "$s" | tee -a "$log"
done
echo "unchanged baseline: $fails failing perf tests in $runs runs" | tee -a "$log"

for factor in 0.8 0.87; do
  derive "$factor" "$work/x$factor"
  caught=0 all=0
  for i in $(seq 1 "$slow_runs"); do
    read -r f t s < <(suite "$work/x$factor" "x$factor-$i")
    caught=$((caught + f)) all=$((all + t))
    printf 'baseline x %s, run %d: %d of %d perf tests failed, %.1f s\n' "$factor" "$i" "$f" "$t" "$s" | tee -a "$log"
  done
  echo "baseline x $factor: $caught of $all perf test runs failed ($(awk -v c="$caught" -v a="$all" 'BEGIN { printf "%.1f", 100 * c / a }') %)" | tee -a "$log"
done
echo "summary in $log"
