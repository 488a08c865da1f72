#!/usr/bin/env bash
# kbench.unit.ab_args: kbench-ab's bad arguments, without building anything
# (--list stops before the base is checked out): an unknown option, a ref
# that is no commit (one with a space, one like an option, an empty one) exit
# 2 naming it; a relative KBENCH_AB_WORK is taken from the current directory
# (git -C would otherwise take it from the source tree and put the base's
# worktree there); --build names the build; the diff reaches the kernels
# whose registered folders it touches, every kernel when it touches anything
# else but docs, and a kernel whose folder lies outside the repository
# always; a base worktree edited by hand exits 2 naming it and its changes.
#
# usage: ab_args_check.sh BUILD_DIR WORK_DIR
set -uo pipefail

build=$(cd "$1" && pwd) || exit 1
work=$2
ab="$build/bin/kbench-ab"
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:[A-Z]*=//p' "$build/CMakeCache.txt" | head -n 1)
if ! git -C "$src" rev-parse --verify --quiet 'HEAD^{commit}' >/dev/null 2>&1; then
  echo "kbench-skip: $src is not a git checkout with a commit"
  exit 0
fi

failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

# expect STATUS TEXT ARGS...: kbench-ab ARGS exits STATUS, its output holding TEXT.
expect() {
  local want=$1 text=$2 out rc
  shift 2
  out=$("$ab" "$@" 2>&1)
  rc=$?
  [[ $rc == "$want" ]] || fail "kbench-ab $*: exit $rc, expected $want: $out"
  [[ $out == *"$text"* ]] || fail "kbench-ab $*: the output does not name '$text': $out"
}

expect 2 "'--frobnicate'" --frobnicate HEAD
expect 2 "'no such ref'" --list "no such ref"
expect 2 "'-x'" --list -- -x
expect 2 "''" --list ""
expect 2 "usage" --list
expect 2 "--build needs a directory" --build
expect 2 "'/nonexistent/build' is not a directory" --build /nonexistent/build --list HEAD
expect 0 "usage: kbench-ab" --help

rm -rf "$work" && mkdir -p "$work/here"
cd "$work/here" || exit 1
# -R '^$' selects no test: it stops right after naming the worktree.
export KBENCH_AB_WORK=rel
expect 0 "$work/here/rel/src-" --list HEAD -R '^$'
[[ -e $src/rel ]] && fail "a relative KBENCH_AB_WORK made $src/rel"

unset KBENCH_AB_WORK

# A base worktree kept from an earlier run and edited since is refused,
# naming it and what changed, before anything is built from it. On a
# scratch repository and a stand-in build (its cache names the repository;
# ctest -N lists one perf test), so that neither this checkout's worktrees
# nor a build are touched; a clean worktree gets past the check, to a
# configure that fails (the scratch repository has no CMakeLists.txt).
repo="$work/repo" fake="$work/fake-build"
mkdir -p "$repo" "$fake/bin"
cp "$ab" "$fake/bin/kbench-ab"
echo base >"$repo/f.txt"
if ! { git -C "$repo" init -q && git -C "$repo" add f.txt &&
  git -C "$repo" -c user.name=kbench -c user.email=kbench@localhost commit -q -m base; }; then
  fail "cannot make the scratch repository $repo"
fi
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\nCMAKE_GENERATOR:INTERNAL=Ninja\n' "$repo" >"$fake/CMakeCache.txt"
mkdir -p "$fake/kbench" "$repo/kernels/swish" "$repo/kernels/gelu" "$work/outside/far"
printf 'swish\t%s\ngelu\t%s\nfar\t%s\n' "$repo/kernels/swish" "$repo/kernels/gelu" \
  "$work/outside/far" >"$fake/kbench/kernels.txt"
for t in swish.cpu.fp32 gelu.cpu.fp32 far.cpu.fp32; do
  printf 'add_test(%s "true")\nset_tests_properties(%s PROPERTIES LABELS "perf")\n' "$t" "$t"
done >"$fake/CTestTestfile.cmake"
short=$(git -C "$repo" rev-parse HEAD | cut -c1-12)

# What the diff reaches (--list, from outside the build, which --build names).
ab="$fake/bin/kbench-ab"
cd "$work" || exit 1
expect 0 "1 tests: far.cpu.fp32" --build "$fake" --list HEAD
echo x >"$repo/kernels/swish/swish.c"
expect 0 "2 tests: swish.cpu.fp32 far.cpu.fp32" --build "$fake" --list HEAD
echo x >"$repo/README.md"
expect 0 "2 tests: swish.cpu.fp32 far.cpu.fp32" --build "$fake" --list HEAD
echo x >"$repo/CMakeLists.txt"
expect 0 "3 tests: swish.cpu.fp32 gelu.cpu.fp32 far.cpu.fp32" --build "$fake" --list HEAD
rm -rf "$repo/kernels" "$repo/README.md" "$repo/CMakeLists.txt"
cd "$work/here" || exit 1
base_src="$work/ab-work/src-$short"
git -C "$repo" worktree add -q --detach "$base_src" HEAD || fail "cannot add the worktree $base_src"
echo edited >"$base_src/f.txt" && echo new >"$base_src/new.txt"
export KBENCH_AB_WORK="$work/ab-work"
ab="$fake/bin/kbench-ab"
expect 2 "the base's worktree $base_src differs from HEAD" --all HEAD
expect 2 " M f.txt" --all HEAD
expect 2 "?? new.txt" --all HEAD
[[ $(cat "$base_src/f.txt") == edited ]] || fail "the edited worktree was reset"
git -C "$base_src" checkout -q -- f.txt && rm "$base_src/new.txt"
expect 2 "configuring the base failed" --all HEAD

((failed)) && exit 1
echo "kbench-ab: bad arguments refused, a relative KBENCH_AB_WORK taken from the current directory,"
echo "the diff's reach read from the registered kernel folders, an edited base worktree refused"
