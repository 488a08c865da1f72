#!/usr/bin/env bash
# The checks a CUDA machine is for, in one command, each step's full log in
# OUT (docs/gpu.md, "Checking a GPU machine"):
#
#   benchtests/tools/gpu_check.sh BUILD OUT [STEP ...]
#
# BUILD is a build with the cuda backend (-DKBENCH_BACKENDS="cpu;cuda"); the
# steps run in the order given (default: device suite sanitize profile):
#   device    what the machine is: nvidia-smi, driver, clocks, the profile slug
#   suite     ctest -L cuda: calibration, every cuda test, the report (gated
#             against baselines/<profile>/ where there are any)
#   record    KBENCH_UPDATE_BASELINES=1 ctest -L cuda: record this GPU's baselines
#   gate      ctest -L cuda again, gated against what is recorded
#   sanitize  every cuda driver and precision once under compute-sanitizer
#             memcheck (one sample per case, not gated, results aside)
#   profile   --profile-with ncu on one case (the profiler hook end to end)
#   ab        the A/B gate (docs/ab.md) on this GPU: detection, a copy of the
#             slow test kernel's driver made slower by KB_TEST_SLOW against
#             the build's own, on its three GPU cases; then A/A, every cuda
#             perf test against this same build, several times; then
#             ab_summary.py's summary (OUT/<N>-ab/summary.txt)
# The Nth step's log is OUT/<N>-<step>.log (a step may be given twice, as in
# `record gate gate`), and the ctest steps' results, report and LastTest.log
# are copied beside it as OUT/<N>-<step>-*, also when the step failed or ran
# out of time (step ab keeps its runs in OUT/<N>-ab/); a step's failure is
# reported and the next one still runs; the exit status is 1 when any step
# failed.
# KB_GPU_CHECK_STEP_TIMEOUT (whole seconds above 0, default 540) bounds each step.
# Step ab: KB_GPU_CHECK_AB_RUNS A/A runs (default 5) and
# KB_GPU_CHECK_AB_DETECT_RUNS detection runs of each case (default 10), each
# 0 to 999 (0 leaves that part out), the head
# KB_GPU_CHECK_AB_DETECT_PCT % slower (default 15; 0 to 1000). It begins no
# run it does not expect to end within the step's limit (the longest of its
# kind so far; detection takes at most a third of the time when A/A runs
# too) and stops one that would not, so the summary always comes.
set -u
known_steps="device suite record gate sanitize profile ab"
is_step() {
  local k
  for k in $known_steps; do [ "$k" = "$1" ] && return 0; done
  return 1
}

# One step, run by the loop below as a child of timeout(1): the step and
# its number.
child_step=
child_n=
if [ "${1:-}" = --child-step ] && [ $# -ge 5 ]; then
  child_step=$2
  child_n=$3
  shift 3
fi
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD OUT [STEP ...], STEP one of: $known_steps" >&2
  exit 2
fi
build=$(CDPATH='' cd -- "$1" && pwd) || exit 2
out=$2
shift 2
mkdir -p -- "$out" || exit 2
out=$(CDPATH='' cd -- "$out" && pwd) || exit 2
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(device suite sanitize profile)
for s in "${steps[@]}"; do
  is_step "$s" || { echo "unknown step '$s' (known: $known_steps)" >&2; exit 2; }
done
limit=${KB_GPU_CHECK_STEP_TIMEOUT:-540}
# timeout(1) takes 0 as "no limit": a step must have one.
case $limit in
  '' | *[!0-9]* | 0*) echo "KB_GPU_CHECK_STEP_TIMEOUT='$limit': a whole number of seconds above 0" >&2; exit 2 ;;
esac
ab_runs=${KB_GPU_CHECK_AB_RUNS:-5}
detect_runs=${KB_GPU_CHECK_AB_DETECT_RUNS:-10}
detect_pct=${KB_GPU_CHECK_AB_DETECT_PCT:-15}
if [[ " ${steps[*]} " == *" ab "* ]]; then
  for v in KB_GPU_CHECK_AB_RUNS=$ab_runs KB_GPU_CHECK_AB_DETECT_RUNS=$detect_runs; do
    [[ ${v#*=} =~ ^(0|[1-9][0-9]{0,2})$ ]] || {
      echo "${v%%=*}='${v#*=}': a whole number of runs from 0 to 999" >&2
      exit 2
    }
  done
  # what KB_TEST_SLOW takes (benchtests/tests/slow/slow.c)
  if ! [[ $detect_pct =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
    ! awk -v p="$detect_pct" 'BEGIN { exit !(p <= 1000) }'; then
    echo "KB_GPU_CHECK_AB_DETECT_PCT='$detect_pct': a percentage from 0 to 1000 (digits," \
      "optionally a decimal point)" >&2
    exit 2
  fi
fi
bin=$build/bin
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$src" ] || { echo "$build: not a configured build (no CMakeCache.txt)" >&2; exit 2; }
# Every step needs the CUDA drivers: without them ctest -L cuda would find
# no test and pass.
[ -x "$bin/kbench-bandwidth-cuda" ] || {
  echo "$build has no cuda backend ($bin/kbench-bandwidth-cuda missing): configure with" \
    "-DKBENCH_BACKENDS=\"cpu;cuda\" and build" >&2
  exit 2
}

# A GPU machine without a usable device fails every step rather than
# skipping every test (docs/gpu.md, KBENCH_REQUIRE_DEVICE).
export KBENCH_REQUIRE_DEVICE=1

# One GPU: the resource spec makes ctest run the GPU tests one at a time
# whatever -j says (they are RUN_SERIAL too).
spec=$out/resource-spec.json
printf '{"version":{"major":1,"minor":0},"local":[{"gpus":[{"id":"0","slots":1}]}]}\n' >"$spec"

step_device() {
  date -u
  uname -a
  nvidia-smi || return 1
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,ECC
  command -v nvcc && nvcc --version
  command -v ncu && ncu --version
  command -v compute-sanitizer && compute-sanitizer --version
  "$bin/kbench-bandwidth-cuda" --backend cuda --print-profile \
    --manifest "$src/kernels/bandwidth/kernel.json"
}

# The ctest command of the cuda steps in ctest_cmd, ARGN appended.
ctest_cuda_cmd() {
  # KB_GPU_CHECK_CTEST_ARGS: extra ctest words (-R ...), split on blanks and
  # never expanded as file names.
  local extra=()
  read -r -a extra <<<"${KB_GPU_CHECK_CTEST_ARGS:-}"
  ctest_cmd=(ctest --test-dir "$build" -L cuda --output-on-failure --timeout "$limit"
    --resource-spec-file "$spec" "${extra[@]}" "$@")
}
ctest_cuda() {
  ctest_cuda_cmd
  "${ctest_cmd[@]}"
}

step_suite() { ctest_cuda; }
step_record() { KBENCH_UPDATE_BASELINES=1 ctest_cuda; }
step_gate() { ctest_cuda; }

# What a ctest step leaves in the build, copied to OUT/<prefix>-* (whatever
# the step's outcome: a step stopped at its limit leaves its partial results).
keep_ctest_files() {
  local prefix=$1
  rm -rf -- "$out/$prefix-results" "$out/$prefix-report"
  cp -r -- "$build/kbench-results" "$out/$prefix-results" 2>/dev/null
  cp -r -- "$build/kbench-report" "$out/$prefix-report" 2>/dev/null
  cp -- "$build/Testing/Temporary/LastTest.log" "$out/$prefix-LastTest.log" 2>/dev/null
  return 0
}

# Every driver and precision once under memcheck: out-of-bounds accesses,
# misaligned vector loads and unchecked runtime errors show up here, which
# the accuracy check alone can miss (a stray write outside the output).
step_sanitize() {
  local rc=0 drv k p dir=$out/sanitize-results
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer is not on PATH"; return 1; }
  mkdir -p "$dir"
  for drv in "$bin"/kbench-*-cuda; do
    k=${drv##*/kbench-}
    k=${k%-cuda}
    for p in fp64 fp32 fp16 bf16; do
      grep -q "\"precisions\".*\"$p\"" "$src/kernels/$k/kernel.json" || continue
      echo "== $k $p"
      compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
        "$drv" --backend cuda --precision "$p" --manifest "$src/kernels/$k/kernel.json" \
        --baseline-dir "$dir/no-baselines" --results-dir "$dir" \
        --min-samples 1 --max-samples 1 --min-time 0 --max-time 0 --warmup 0 \
        --confirm-rounds 0 >"$dir/$k.$p.log" 2>&1
      local r=$?
      tail -n 25 "$dir/$k.$p.log"
      echo "== $k $p: exit $r"
      [ "$r" -eq 0 ] || [ "$r" -eq 77 ] || rc=1 # 77: every case declined (the device is there)
    done
  done
  return "$rc"
}

step_profile() {
  "$bin/kbench-softmax-cuda" --backend cuda --precision fp16 \
    --manifest "$src/kernels/softmax/kernel.json" --results-dir "$out/profile" \
    --baseline-dir "$out/profile/no-baselines" --case "$(
      "$bin/kbench-softmax-cuda" --backend cuda --manifest "$src/kernels/softmax/kernel.json" \
        --list | awk 'NR > 1 && NF { print $1; exit }')" \
    --variant default --profile-with ncu --warmup 0 --max-time 0.05 || return 1
  ls -la "$out/profile"
}

# ---- step ab: the A/B gate on this GPU (docs/gpu.md, "Checking a GPU machine")
# Step ab's folder: detect/head/ (the slowed copy of the driver),
# detect/<case>/run-<k>/ and aa/run-<k>/ (a run's results, log, wall_s; cut
# when it was stopped at the step's limit), summary.txt.
ab_summarize() {
  local dir=$1
  command -v python3 >/dev/null || {
    echo "python3 is not on PATH: no summary (the runs are in $dir; benchtests/tools/ab_summary.py)"
    return 1
  }
  python3 "$src/benchtests/tools/ab_summary.py" --step "$dir" --detect-pct "$detect_pct" \
    >"$dir/summary.txt"
}

# A run of detection: the slowed copy of the slow test kernel's CUDA driver
# as the head, the build's as the base, one case; exit 1 is the regression
# it should find, 2 and up an error.
ab_detect_run() {
  local case=$1 d=$2 left=$3 t=$SECONDS x
  mkdir -p "$d"
  KB_TEST_SLOW="$detect_pct@$ab_head" timeout -k 5 "$left" "$ab_head/kbench-test-slow-cuda" \
    --backend cuda --precision fp32 --manifest "$src/benchtests/tests/slow/kernel.json" \
    --case "$case" --ab-base "$build/benchtests/tests" --ab-ref "kbench-test-slow-cuda, not slowed" \
    --results-dir "$d" >"$d/log" 2>&1
  x=$?
  echo $((SECONDS - t)) >"$d/wall_s"
  case $x in 124 | 137) : >"$d/cut" ;; esac
  echo "  $case: exit $x (1: a regression found), $((SECONDS - t)) s"
  [ "$x" -le 1 ]
}

# An A/A run: every cuda perf test (and KB_GPU_CHECK_CTEST_ARGS) in A/B mode
# against this build, as kbench-ab runs them; the results it wrote kept.
ab_aa_run() {
  local d=$1 left=$2 t=$SECONDS x how
  mkdir -p "$d/results"
  : >"$d/.start"
  ctest_cuda_cmd -L perf
  KBENCH_AB_BASE=$bin KBENCH_AB_SOURCE=$src KBENCH_AB_REF="this build (A/A)" \
    timeout -k 10 "$left" "${ctest_cmd[@]}" >"$d/ctest.log" 2>&1
  x=$?
  echo $((SECONDS - t)) >"$d/wall_s"
  how=$(grep -E 'tests passed|tests failed' "$d/ctest.log" | tail -n 1)
  case $x in 124 | 137)
    : >"$d/cut"
    how="stopped at the step's limit"
    ;;
  esac
  [ ! -d "$build/kbench-results" ] ||
    find "$build/kbench-results" -maxdepth 1 -name '*.json' -newer "$d/.start" \
      -exec cp -- {} "$d/results/" \;
  cp -r -- "$build/kbench-report" "$d/report" 2>/dev/null
  echo "  ctest exit $x: $how, $((SECONDS - t)) s"
  [ "$x" -eq 0 ]
}

step_ab() {
  local dir=$out/$child_n-ab rc=0 r c t0 t longest left
  local cases=(gpu_tiny gpu_compute gpu_memory) slow=$build/benchtests/tests/kbench-test-slow-cuda
  # SECONDS counts from this child's start, the step's: runs end by `end`,
  # leaving time for the summary.
  local end=$((limit - 20)) detect_end
  detect_end=$end
  [ "$ab_runs" -eq 0 ] || detect_end=$((end / 3))
  rm -rf -- "$dir"
  mkdir -p "$dir/aa" "$dir/detect"
  ab_head=$dir/detect/head

  echo "== detection: $detect_runs run(s) of ${cases[*]}, the head doing $detect_pct % more work"
  t0=$SECONDS longest=0
  if [ "$detect_runs" -eq 0 ]; then
    :
  elif [ ! -x "$slow" ]; then
    echo "$slow is missing: build the target kbench-test-slow-cuda"
    rc=1
  elif ! { mkdir -p "$ab_head" && cp -- "$slow" "$ab_head/"; }; then
    echo "cannot copy $slow into $ab_head"
    rc=1
  else
    for ((r = 1; r <= detect_runs; ++r)); do
      left=$((detect_end - SECONDS))
      if [ "$r" -eq 1 ] && [ "$left" -le 0 ]; then
        echo "detection: not begun: no time left (KB_GPU_CHECK_STEP_TIMEOUT=$limit)"
        rc=1
        break
      elif [ "$r" -gt 1 ] && [ "$longest" -ge "$left" ]; then
        echo "detection: stopped after $((r - 1)) of $detect_runs runs: another would pass its" \
          "share of the step's time (a run took up to $longest s; KB_GPU_CHECK_STEP_TIMEOUT=$limit)"
        break
      fi
      echo "detection run $r:"
      t=$SECONDS
      for c in "${cases[@]}"; do
        left=$((end - SECONDS))
        [ "$left" -gt 0 ] || break
        ab_detect_run "$c" "$dir/detect/$c/run-$r" "$left" || rc=1
      done
      [ $((SECONDS - t)) -le "$longest" ] || longest=$((SECONDS - t))
    done
  fi
  echo "== detection took $((SECONDS - t0)) s"

  echo "== A/A: $ab_runs run(s) of every cuda perf test against this build"
  t0=$SECONDS longest=0
  for ((r = 1; r <= ab_runs; ++r)); do
    left=$((end - SECONDS))
    # a first run needs a minute at least, a later one the longest so far
    if [ "$r" -eq 1 ] && [ "$left" -lt 60 ]; then
      echo "A/A: not begun: $left s left of the step's time, a run needs a minute at least" \
        "(KB_GPU_CHECK_STEP_TIMEOUT=$limit)"
      rc=1
      break
    elif [ "$longest" -ge "$left" ]; then
      echo "A/A: stopped after $((r - 1)) of $ab_runs runs: another would pass the step's time" \
        "($left s left, a run took up to $longest s; KB_GPU_CHECK_STEP_TIMEOUT=$limit)"
      break
    fi
    echo "A/A run $r (at most $left s):"
    t=$SECONDS
    ab_aa_run "$dir/aa/run-$r" "$left" || rc=1
    [ $((SECONDS - t)) -le "$longest" ] || longest=$((SECONDS - t))
  done
  echo "== A/A took $((SECONDS - t0)) s"

  ab_summarize "$dir" || rc=1
  [ -s "$dir/summary.txt" ] && cat "$dir/summary.txt"
  return "$rc"
}

if [ -n "$child_step" ]; then
  is_step "$child_step" || { echo "--child-step '$child_step': not a step" >&2; exit 2; }
  step_"$child_step"
  exit
fi

status=0
n=0
for s in "${steps[@]}"; do
  n=$((n + 1))
  log=$out/$n-$s.log
  echo "### $n: $s (limit ${limit} s) $(date -u +%T)"
  start=$(date +%s)
  # timeout stops the step at its limit (and kills it 30 s later if it
  # ignores that); the partial log stays.
  timeout -k 30 "$limit" bash "$0" --child-step "$s" "$n" "$build" "$out" >"$log" 2>&1
  rc=$?
  case $s in suite | record | gate) keep_ctest_files "$n-$s" ;; esac
  echo "### $n: $s: exit $rc after $(($(date +%s) - start)) s"
  if [ "$s" = ab ]; then
    # the summary whole; made here from what the runs left if the step was stopped first
    [ -s "$out/$n-ab/summary.txt" ] || ab_summarize "$out/$n-ab" >>"$log" 2>&1
    grep -E '^(== |detection: stopped|A/A: stopped)' "$log"
    cat "$out/$n-ab/summary.txt" 2>/dev/null || tail -n 40 "$log"
  else
    tail -n 40 "$log"
  fi
  [ $rc -eq 0 ] || status=1
done
exit $status
