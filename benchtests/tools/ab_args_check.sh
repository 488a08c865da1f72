#!/usr/bin/env bash
# kbench.unit.ab_args: kbench-ab's bad arguments, without building anything
# (--list stops before the base is checked out): an unknown option, a ref
# that is no commit (one with a space, one like an option, an empty one) exit
# 2 naming it; a relative KBENCH_AB_WORK is taken from the current directory
# (git -C would otherwise take it from the source tree and put the base's
# worktree there); a base worktree edited by hand exits 2 naming it and its
# changes.
#
# usage: ab_args_check.sh BUILD_DIR WORK_DIR
set -uo pipefail

build=$(cd "$1" && pwd) || exit 1
work=$2
ab="$build/bin/kbench-ab"
src=$(sed -n 's/^kbench_SOURCE_DIR:[A-Z]*=//p' "$build/CMakeCache.txt" | head -n 1)
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
printf 'kbench_SOURCE_DIR:STATIC=%s\nCMAKE_GENERATOR:INTERNAL=Ninja\n' "$repo" >"$fake/CMakeCache.txt"
printf 'add_test(swish.cpu.fp32 "true")\nset_tests_properties(swish.cpu.fp32 PROPERTIES LABELS "perf")\n' \
  >"$fake/CTestTestfile.cmake"
short=$(git -C "$repo" rev-parse HEAD | cut -c1-12)
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
echo "an edited base worktree refused"
