#!/usr/bin/env bash
# Measures what a project using an installed kbench gets, on examples/sleef
# (two kernels, SLEEF against libm), as docs/using-kbench-in-your-project.md
# sets it up:
#
#   detect  a commit making the sleef variant of sleef_exp 1.25x slower (its
#           fp64 and fp32 loops redo their first quarter of vectors), then
#           `kbench-ab HEAD~1` run RUNS times from the project's tree: how
#           often each sleef case is a regression, and that no libm case and
#           no sleef_erf test (which the diff does not reach) fails;
#   aa      `kbench-ab --all HEAD` RUNS times on the unchanged tree: failures;
#   calib   two ctest runs of both kernels: the seconds the calibration test
#           took when made to measure, then when it finds that one fresh.
#
#   consumer_targets.sh BUILD [RUNS] [STEP...]     (default RUNS 5, every step)
#
# BUILD is a configured and built kbench tree; everything else goes under
# BUILD/consumer-targets (its logs and result files kept per run).
set -euo pipefail

build=$(cd "${1:?usage: consumer_targets.sh BUILD [RUNS] [STEP...]}" && pwd)
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
steps=(detect aa calib)
if (($#)); then
  steps=("$@")
fi
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:[A-Z]*=//p' "$build/CMakeCache.txt")
work="$build/consumer-targets"
prefix="$work/prefix"
project="$work/sleef"

rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
cp -r "$src/examples/sleef" "$project"
git_c() { git -C "$project" -c user.name=kbench -c user.email=kbench@localhost "$@"; }
git_c init -q && git_c add -A && git_c commit -q -m base

cmake -S "$project" -B "$project/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/configure.log"
cmake --build "$project/build" >"$work/build.log"

# The verdicts of the cases of a result file: "variant case verdict ratio".
verdicts() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    lat = c.get("latency") or {}
    print(c["variant"], c["case"], lat.get("verdict"), lat.get("ratio"))
PY
}

# The sleef loops of sleef_exp redo their first quarter of vectors.
slow_down() {
  python3 - "$project/kernels/sleef_exp/sleef_exp.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
for w, f in (("SLEEF_F64_WIDTH", "SLEEF_F64"), ("SLEEF_F32_WIDTH", "SLEEF_F32")):
    loop = f"    for (; i + {w} <= n; i += {w}) {f}(exp, x, y, i);\n"
    assert loop in s, loop
    extra = f"    for (size_t j = 0; j + {w} <= n / 4; j += {w}) {f}(exp, x, y, j);\n"
    s = s.replace(loop, extra + loop)
open(p, "w").write(s)
PY
}

for step in "${steps[@]}"; do
  case "$step" in
  detect)
    slow_down
    git_c commit -q -am "sleef_exp 1.25x slower"
    for i in $(seq "$runs"); do
      rc=0
      (cd "$project" && "$prefix/bin/kbench-ab" HEAD~1 -L cpu) >"$work/detect-$i.log" 2>&1 || rc=$?
      echo "detect run $i: ctest exit $rc; $(grep -o 'the diff reaches: .*' "$work/detect-$i.log")"
      for t in sleef_exp.cpu.fp64 sleef_exp.cpu.fp32; do
        f="$project/build/kbench-results/$t.json"
        cp "$f" "$work/detect-$i-$t.json"
        verdicts "$f" | sed "s/^/  $t /"
      done
      grep -E 'sleef_erf.*(Passed|Failed|Not Run)' "$work/detect-$i.log" | sed 's/^/  /' || true
    done
    git_c reset -q --hard HEAD~1
    ;;
  aa)
    for i in $(seq "$runs"); do
      rc=0
      (cd "$project" && "$prefix/bin/kbench-ab" --all HEAD -L cpu) >"$work/aa-$i.log" 2>&1 || rc=$?
      echo "aa run $i: ctest exit $rc; $(grep -Eo '[0-9]+% tests passed.*' "$work/aa-$i.log")"
      for t in sleef_exp.cpu.fp64 sleef_exp.cpu.fp32 sleef_erf.cpu.fp64 sleef_erf.cpu.fp32; do
        verdicts "$project/build/kbench-results/$t.json" | sed "s/^/  $t /"
      done
    done
    ;;
  calib)
    # The first run measures (KBENCH_RECALIBRATE=1), the second finds that
    # calibration fresh.
    for i in 1 2; do
      recal=$((i == 1 ? 1 : 0))
      KBENCH_RECALIBRATE=$recal ctest --test-dir "$project/build" >"$work/calib-$i.log" 2>&1 || true
      echo "calib run $i: $(grep -E 'kbench.calibrate.cpu .*(Passed|Failed)' "$work/calib-$i.log" |
        sed 's/.*\(Passed\|Failed\)/\1/'); $(grep -o 'Total Test time (real) = .*' "$work/calib-$i.log")"
    done
    ;;
  *)
    echo "consumer_targets.sh: unknown step '$step' (detect, aa, calib)" >&2
    exit 2
    ;;
  esac
done
