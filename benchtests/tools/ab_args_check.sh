#!/usr/bin/env bash
# kbench.unit.ab_args: kbench-ab's bad arguments, without building anything
# (--list stops before the base is checked out): an unknown option, a ref
# that is no commit (one with a space, one like an option, an empty one) exit
# 2 naming it; a relative KBENCH_AB_WORK is taken from the current directory
# (git -C would otherwise take it from the source tree and put the base's
# worktree there).
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

((failed)) && exit 1
echo "kbench-ab: bad arguments refused, a relative KBENCH_AB_WORK taken from the current directory"
