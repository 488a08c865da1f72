#!/usr/bin/env bash
# kbench-ab [--all] [--list] BASE_REF [ctest arguments...]
#
# Compares this build (the head: the working tree it was built from) with
# BASE_REF measured on the same machine in the same run: builds BASE_REF in a
# git worktree beside this build, with this build's configure options, then
# runs the selected perf tests with KBENCH_AB_BASE pointing at the base's
# drivers. Each test then measures every case in interleaved pairs of rounds,
# head and base on the same CPU (docs/ab.md). Installed into <build>/bin by
# the configure step; the build it belongs to is the one around it.
#
# Exit status: ctest's (0 when no selected test failed); 2 on bad usage or
# when the base cannot be checked out, configured or built.
set -euo pipefail

prog=kbench-ab

usage() {
  cat <<EOF
usage: $prog [--all] [--list] BASE_REF [ctest arguments...]

Builds BASE_REF beside this build and runs the selected perf tests so that
each compares the head with the base, measured interleaved (docs/ab.md).

  --all     every selected perf test, not only those the diff can reach
  --list    print the base commit, the changed files' reach and the tests
            that would run; build and run nothing
  BASE_REF  a commit, branch or tag of this build's source repository
            (in CI: the merge base with the target branch)

By default only the tests the diff between BASE_REF and the working tree can
reach run: a change under kernels/<k>/ reaches kernel k (and so does
reference/<k>.c, where references lived before they moved into the folders); docs, baselines, CI files and the harness's own tests reach nothing;
anything else (the harness, CMake, shared headers) reaches every kernel.
Kernels from outside the repository (KBENCH_KERNEL_DIRS) are always run.

Environment: KBENCH_AB_WORK (default <build>/kbench-ab) holds the base's
worktree and build, reused while BASE_REF names the same commit.
EOF
}

die() {
  echo "$prog: $*" >&2
  exit 2
}

all=0
list=0
while (($#)); do
  case "$1" in
  --all) all=1 ;;
  --list) list=1 ;;
  -h | --help)
    usage
    exit 0
    ;;
  --) shift && break ;;
  -*) die "unknown option '$1' (options come before BASE_REF; ctest's after it)" ;;
  *) break ;;
  esac
  shift
done
(($#)) || {
  usage >&2
  exit 2
}
ref=$1
shift

build=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache="$build/CMakeCache.txt"
[[ -f $cache ]] || die "$build is not a configured build tree (no CMakeCache.txt)"

# The value of a cache entry, or nothing.
cache_get() {
  sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1
}

src=$(cache_get kbench_SOURCE_DIR)
[[ -n $src && -d $src ]] || die "$cache names no kbench source directory"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
  die "$src is not a git checkout: A/B mode needs the repository to build BASE_REF from"
commit=$(git -C "$src" rev-parse --verify --quiet "$ref^{commit}") ||
  die "'$ref' is not a commit of $src (fetch it first, e.g. git fetch origin main)"
short=${commit:0:12}
work=${KBENCH_AB_WORK:-$build/kbench-ab}
# Absolute: git -C "$src" would take a relative path from the source tree
# (the worktree would land there), the rest of the script from here.
[[ $work == /* ]] || work=$PWD/$work
base_src="$work/src-$short"
base_build="$work/build-$short"

# ---- which kernels the diff reaches ------------------------------------------

# Prints one kernel name per line, or '*' for every kernel.
reached_kernels() {
  local path
  {
    git -C "$src" diff --name-only "$commit" --
    git -C "$src" ls-files --others --exclude-standard
  } | sort -u | while IFS= read -r path; do
    case "$path" in
    kernels/*/*) path=${path#kernels/} && echo "${path%%/*}" ;;
    reference/*.c) path=${path#reference/} && echo "${path%.c}" ;;
    docs/* | baselines/* | *.md | .gitlab-ci.yml | .github/* | .ci/* | ctest_scripts/*) ;;
    benchtests/tests/* | .clang-format | .gitignore | CTestConfig.cmake) ;;
    *) echo '*' ;;
    esac
  done | sort -u
}

# The perf tests ctest selects with the user's arguments, one per line.
perf_tests() {
  ctest --test-dir "$1" -N -L perf "${@:2}" | sed -n 's/^ *Test *#[0-9]*: //p'
}

reach=$(reached_kernels)
selected=()
while IFS= read -r test; do
  [[ -n $test && $test != kbench.* ]] || continue # the harness's fixtures come by themselves
  kernel=${test%%.*}
  if ((all)) || grep -qxF '*' <<<"$reach" || grep -qxF "$kernel" <<<"$reach" ||
    [[ ! -f $src/kernels/$kernel/kernel.json ]]; then
    selected+=("$test")
  fi
done < <(perf_tests "$build" "$@")

echo "$prog: base $ref = $short; head = the working tree of $src"
echo "$prog: the base's worktree and build: $base_src, $base_build"
if ((all)); then
  echo "$prog: --all: every selected perf test"
else
  echo "$prog: the diff reaches: $(tr '\n' ' ' <<<"${reach:-nothing}")"
fi
if ((${#selected[@]} == 0)); then
  echo "$prog: no perf test to run (none selected, or none the diff reaches; --all runs them all)"
  exit 0
fi
printf '%s: %d tests: %s\n' "$prog" "${#selected[@]}" "${selected[*]}"
((list)) && exit 0

# The driver target of a test <kernel>.<backend>.<precision>[.full].
driver_of() {
  local kernel=${1%%.*} rest=${1#*.}
  local backend=${rest%%.*}
  [[ $backend == cpu ]] && echo "kbench-$kernel" || echo "kbench-$kernel-$backend"
}

mapfile -t head_targets < <(for t in "${selected[@]}"; do driver_of "$t"; done | sort -u)

# ---- the base: worktree, configure, build ------------------------------------

if [[ ! -d $base_src ]] || [[ $(git -C "$base_src" rev-parse HEAD 2>/dev/null) != "$commit" ]]; then
  git -C "$src" worktree remove --force "$base_src" >/dev/null 2>&1 || rm -rf "$base_src"
  git -C "$src" worktree prune
  mkdir -p "$work"
  git -C "$src" worktree add --detach --force "$base_src" "$commit" >/dev/null ||
    die "cannot check out $short into $base_src"
  rm -rf "$base_build"
fi

# The base is $ref as committed: a worktree kept from an earlier run that
# was edited since (or holds new files) would be built and measured as
# $ref. It is refused, not reset: the edits may be someone's work.
changes=$(git -C "$base_src" status --porcelain --untracked-files=normal) ||
  die "cannot tell whether the base's worktree $base_src holds changes (git status failed)"
if [[ -n $changes ]]; then
  mapfile -t changed <<<"$changes"
  die "the base's worktree $base_src differs from $ref ($short), so it is not $ref:
$(printf '  %s\n' "${changed[@]:0:20}")
remove it (git -C '$src' worktree remove --force '$base_src') or restore it, then run again"
fi

# This build's configure options: the kbench options, the build type, the
# compilers and their flags and architectures.
configure_args=(-S "$base_src" -B "$base_build" -G "$(cache_get CMAKE_GENERATOR)")
while IFS= read -r entry; do
  configure_args+=("-D$entry")
done < <(grep -E '^(KBENCH_[A-Z_]+|CMAKE_BUILD_TYPE|CMAKE_(C|CXX|CUDA|HIP)_(COMPILER|FLAGS|ARCHITECTURES)):(BOOL|STRING|PATH|FILEPATH)=' "$cache" |
  grep -vE '^KBENCH_(BASELINE_DIR|CDASH_SUBMIT_URL):')

if [[ ! -f $base_build/CMakeCache.txt ]]; then
  echo "$prog: configuring the base in $base_build"
  cmake "${configure_args[@]}" >"$work/configure-$short.log" 2>&1 ||
    die "configuring the base failed; see $work/configure-$short.log"
fi

mapfile -t base_tests < <(perf_tests "$base_build")
base_targets=()
for t in "${selected[@]}"; do
  if printf '%s\n' "${base_tests[@]}" | grep -qxF "$t"; then
    base_targets+=("$(driver_of "$t")")
  fi
done
mapfile -t base_targets < <(printf '%s\n' "${base_targets[@]}" | sed '/^$/d' | sort -u)

jobs=$(nproc 2>/dev/null || echo 2)
echo "$prog: building the head's drivers: ${head_targets[*]}"
cmake --build "$build" -j "$jobs" --target "${head_targets[@]}" >"$work/build-head.log" 2>&1 ||
  die "building the head failed; see $work/build-head.log"
if ((${#base_targets[@]})); then
  echo "$prog: building the base's drivers: ${base_targets[*]}"
  cmake --build "$base_build" -j "$jobs" --target "${base_targets[@]}" \
    >"$work/build-$short.log" 2>&1 || die "building the base failed; see $work/build-$short.log"
else
  echo "$prog: the base has none of these tests: every case is new"
fi

# ---- the run ------------------------------------------------------------------

regex="^($(printf '%s|' "${selected[@]}" | sed 's/[.]/[.]/g; s/|$//'))\$"
export KBENCH_AB_BASE="$base_build/bin" KBENCH_AB_SOURCE="$base_src" KBENCH_AB_REF="$ref ($short)"
exec ctest --test-dir "$build" "$@" -L perf -R "$regex"
