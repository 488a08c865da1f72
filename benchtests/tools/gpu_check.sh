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
# The Nth step's log is OUT/<N>-<step>.log (a step may be given twice, as in
# `record gate gate`), and the ctest steps' results, report and LastTest.log
# are copied beside it as OUT/<N>-<step>-*, also when the step failed or ran
# out of time; a step's failure is reported and the next one still runs; the
# exit status is 1 when any step failed.
# KB_GPU_CHECK_STEP_TIMEOUT (whole seconds above 0, default 540) bounds each step.
set -u
known_steps="device suite record gate sanitize profile"
is_step() {
  local k
  for k in $known_steps; do [ "$k" = "$1" ] && return 0; done
  return 1
}

# One step, run by the loop below as a child of timeout(1).
child_step=
if [ "${1:-}" = --child-step ] && [ $# -ge 4 ]; then
  child_step=$2
  shift 2
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

ctest_cuda() {
  # KB_GPU_CHECK_CTEST_ARGS: extra ctest words (-R ...), split on blanks and
  # never expanded as file names.
  local extra=()
  read -r -a extra <<<"${KB_GPU_CHECK_CTEST_ARGS:-}"
  ctest --test-dir "$build" -L cuda --output-on-failure --timeout "$limit" \
    --resource-spec-file "$spec" "${extra[@]}"
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
  timeout -k 30 "$limit" bash "$0" --child-step "$s" "$build" "$out" >"$log" 2>&1
  rc=$?
  case $s in suite | record | gate) keep_ctest_files "$n-$s" ;; esac
  echo "### $n: $s: exit $rc after $(($(date +%s) - start)) s"
  tail -n 40 "$log"
  [ $rc -eq 0 ] || status=1
done
exit $status
