#!/usr/bin/env bash
# kbench-ab [--build DIR] [--all] [--list] BASE_REF [ctest arguments...]
#
# Compares a build (the head: the working tree it was built from) with
# BASE_REF measured on the same machine in the same run: builds BASE_REF in a
# git worktree beside the build, with the build's configure options, then
# runs the selected perf tests with KBENCH_AB_BASE pointing at the base's
# drivers. Each test then measures every case in interleaved pairs of rounds,
# head and base on the same CPUs (docs/ab.md). Works for any project whose
# kernels kbench_add_kernel registers: the configure step copies it into
# <build>/bin, and an installed kbench has it in its bin/.
#
# Exit status: ctest's (0 when no selected test failed); 2 on bad usage or
# when the base cannot be checked out, configured or built.
set -euo pipefail

prog=kbench-ab

usage() {
  cat <<EOF
usage: $prog [--build DIR] [--all] [--list] BASE_REF [ctest arguments...]

Builds BASE_REF beside a build and runs the selected perf tests so that
each compares the head with the base, measured interleaved (docs/ab.md).

  --build DIR  the build tree to compare (default: the one this script
               sits in, as <build>/bin/kbench-ab; else the working
               directory, or ./build, when it holds CMakeCache.txt)
  --all        every selected perf test, not only those the diff can reach
  --list       print the base commit, the changed files' reach and the
               tests that would run; build and run nothing
  BASE_REF     a commit, branch or tag of the build's source repository
               (in CI: the merge base with the target branch)

By default only the tests the diff between BASE_REF and the working tree can
reach run: a change in a kernel's folder (the folders kbench_add_kernel
registered, listed in <build>/kbench/kernels.txt) reaches that kernel; docs,
Markdown, the baselines, CI files and kbench's own self-tests reach nothing;
anything else (CMake files, shared sources and headers) reaches every
kernel. Kernels whose folder lies outside the repository always run.

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
build=
while (($#)); do
  case "$1" in
  --all) all=1 ;;
  --list) list=1 ;;
  --build)
    if (($# < 2)) || [[ -z $2 ]]; then
      die "--build needs a directory"
    fi
    build=$2
    shift
    ;;
  --build=*) build=${1#--build=} ;;
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

# The build: named, or the one around this script, or the working directory.
if [[ -z $build ]]; then
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  for candidate in "$here" "$PWD" "$PWD/build"; do
    if [[ -f $candidate/CMakeCache.txt ]]; then
      build=$candidate
      break
    fi
  done
  [[ -n $build ]] || die "no build tree here: run it in one, or name it with --build DIR"
fi
[[ -d $build ]] || die "--build: '$build' is not a directory"
build=$(cd "$build" && pwd)
cache="$build/CMakeCache.txt"
[[ -f $cache ]] || die "$build is not a configured build tree (no CMakeCache.txt)"

# The value of a cache entry, or nothing.
cache_get() {
  sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1
}

# The project's top-level source tree: kbench's own, or a consumer's.
src=$(cache_get CMAKE_HOME_DIRECTORY)
[[ -n $src && -d $src ]] || die "$cache names no source directory"
kernel_map="$build/kbench/kernels.txt"
[[ -f $kernel_map ]] ||
  die "$build registers no kbench kernel ($kernel_map is missing; kbench_add_kernel writes it)"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
  die "$src is not a git checkout: A/B mode needs the repository to build BASE_REF from"
# git names changed files relative to the repository's top, which may lie
# above the project's source tree.
top=$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)
commit=$(git -C "$src" rev-parse --verify --quiet "$ref^{commit}") ||
  die "'$ref' is not a commit of $src (fetch it first, e.g. git fetch origin main)"
short=${commit:0:12}
work=${KBENCH_AB_WORK:-$build/kbench-ab}
# Absolute: git -C "$src" would take a relative path from the source tree
# (the worktree would land there), the rest of the script from here.
[[ $work == /* ]] || work=$PWD/$work
base_top="$work/src-$short"
src_real=$(cd "$src" && pwd -P)
base_src="$base_top${src_real#"$top"}"
base_build="$work/build-$short"

# ---- which kernels the diff reaches ------------------------------------------

# `path` (a directory) relative to the repository's top, or nothing when it
# lies outside.
in_repo() {
  local dir
  dir=$(cd "$1" 2>/dev/null && pwd -P) || return 0
  [[ $dir == "$top"/* ]] && echo "${dir#"$top"/}"
  return 0
}

# The registered kernels, "name<TAB>folder in the repository" (the folder
# empty when it lies outside).
folders=$(while IFS=$'\t' read -r name dir; do
  [[ -n $name ]] && printf '%s\t%s\n' "$name" "$(in_repo "$dir")"
done <"$kernel_map")
baselines=$(in_repo "$(cache_get KBENCH_BASELINE_DIR)")
# A build tree (and the base's worktree) inside the repository is not part
# of the diff, ignored by git or not.
build_in_repo=$(in_repo "$build")

# Prints one kernel name per line, or '*' for every kernel.
reached_kernels() {
  local path name dir hit
  {
    git -C "$top" diff --name-only "$commit" --
    git -C "$top" ls-files --others --exclude-standard
  } | sort -u | while IFS= read -r path; do
    hit=
    while IFS=$'\t' read -r name dir; do
      if [[ -n $dir && $path == "$dir"/* ]]; then
        echo "$name"
        hit=1
      fi
    done <<<"$folders"
    [[ -n $hit || (-n $baselines && $path == "$baselines"/*) ]] && continue
    [[ -n $build_in_repo && $path == "$build_in_repo"/* ]] && continue
    case "$path" in
    docs/* | *.md | .gitlab-ci.yml | .github/* | .ci/* | ctest_scripts/*) ;;
    .clang-format | .gitignore | CTestConfig.cmake | LICENSE*) ;;
    # kbench's own self-tests (its test kernels there are registered folders).
    benchtests/tests/*) [[ -f $top/benchtests/include/kb/kernel.h ]] || echo '*' ;;
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
  # A kernel whose folder lies outside the repository: no diff reaches it.
  folder=$(awk -F '\t' -v k="$kernel" '$1 == k { print $2 }' <<<"$folders")
  if ((all)) || grep -qxF '*' <<<"$reach" || grep -qxF "$kernel" <<<"$reach" ||
    [[ -z $folder ]]; then
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

if [[ ! -d $base_top ]] || [[ $(git -C "$base_top" rev-parse HEAD 2>/dev/null) != "$commit" ]]; then
  git -C "$src" worktree remove --force "$base_top" >/dev/null 2>&1 || rm -rf "$base_top"
  git -C "$src" worktree prune
  mkdir -p "$work"
  git -C "$src" worktree add --detach --force "$base_top" "$commit" >/dev/null ||
    die "cannot check out $short into $base_top"
  rm -rf "$base_build"
fi

# The base is $ref as committed: a worktree kept from an earlier run that
# was edited since (or holds new files) would be built and measured as
# $ref. It is refused, not reset: the edits may be someone's work.
changes=$(git -C "$base_top" status --porcelain --untracked-files=normal) ||
  die "cannot tell whether the base's worktree $base_top holds changes (git status failed)"
if [[ -n $changes ]]; then
  mapfile -t changed <<<"$changes"
  die "the base's worktree $base_top differs from $ref ($short), so it is not $ref:
$(printf '  %s\n' "${changed[@]:0:20}")
remove it (git -C '$src' worktree remove --force '$base_top') or restore it, then run again"
fi

# This build's configure options: every setting of its cache (kbench's
# options, the build type, compilers and flags, where packages such as an
# installed kbench were found), less those naming a place in this source or
# build tree and the project's baselines and CDash address.
configure_args=(-S "$base_src" -B "$base_build" -G "$(cache_get CMAKE_GENERATOR)")
build_real=$(cd "$build" && pwd -P)
while IFS= read -r entry; do
  value=${entry#*=}
  case "$value" in
  *"$src"* | *"$src_real"* | *"$build"* | *"$build_real"*) continue ;;
  esac
  configure_args+=("-D$entry")
done < <(grep -E '^[A-Za-z_][A-Za-z0-9_.+-]*:(BOOL|STRING|PATH|FILEPATH|UNINITIALIZED)=' "$cache" |
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
