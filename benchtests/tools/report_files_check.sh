#!/usr/bin/env bash
# kbench.unit.report_files: kbench-report on result "files" that are not
# regular files, which the bad-input matrix cannot make: a FIFO (opening it
# would wait for a writer forever) and a link to a device (read without
# end). Each must be refused at once, exit 2, naming the file, writing no
# report. And a report file that is a symbolic link: the report writes into
# its directory only, so it is refused too, the file the link points to
# unchanged and nothing written; a backend named "../../x" gives a chart in
# the report directory, not above it.
#
# usage: report_files_check.sh KBENCH_REPORT WORK_DIR
set -uo pipefail

report=$1
work=$2
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

# check NAME: RESULTS/NAME.json is already in place.
check() {
  local name=$1 out rc
  out=$(timeout 20 "$report" "$work/$name" --out "$work/$name-out" 2>&1)
  rc=$?
  [[ $rc == 2 ]] || fail "$name: exit $rc, expected 2 (124: it hung): $out"
  [[ $out == *"$work/$name/t.json"* ]] || fail "$name: the output does not name the file: $out"
  [[ -e $work/$name-out ]] && fail "$name: wrote $work/$name-out"
}

rm -rf "$work" && mkdir -p "$work/fifo" "$work/device"
if mkfifo "$work/fifo/t.json"; then
  check fifo
else
  echo "no mkfifo here: the FIFO is not tried"
fi
ln -s /dev/zero "$work/device/t.json"
check device

# A report file linked to a file outside the report directory.
fixture=$(dirname "$0")/../tests/roofline/results/swish.cpu.fp32.json
mkdir -p "$work/link/r" "$work/link/out"
cp "$fixture" "$work/link/r/"
echo "not the report's" > "$work/link/elsewhere.md"
ln -s ../elsewhere.md "$work/link/out/summary.md"
out=$(timeout 20 "$report" "$work/link/r" --out "$work/link/out" 2>&1)
rc=$?
[[ $rc == 2 ]] || fail "link: exit $rc, expected 2: $out"
[[ $out == *"$work/link/out/summary.md"*"symbolic link"* ]] ||
  fail "link: the output does not name the link: $out"
[[ $(cat "$work/link/elsewhere.md") == "not the report's" ]] ||
  fail "link: the file it points to was written"
[[ $(ls -A "$work/link/out") == summary.md ]] || fail "link: wrote $(ls -A "$work/link/out")"

# A file name made of a result's field stays in the report directory: a
# backend "../../x" gives roofline-______x.svg there, nothing above it.
mkdir -p "$work/escape/r"
sed 's#"backend": "cpu"#"backend": "../../x"#' "$fixture" > "$work/escape/r/t.json"
out=$(timeout 20 "$report" "$work/escape/r" --out "$work/escape/out" 2>&1)
rc=$?
[[ $rc == 0 ]] || fail "escape: exit $rc, expected 0: $out"
[[ -f $work/escape/out/roofline-______x.svg ]] || fail "escape: no roofline-______x.svg: $out"
[[ $(ls -A "$work/escape") == $'out\nr' ]] || fail "escape: wrote beside the report: $(ls -A "$work/escape")"
[[ -e $work/x.svg || -e $work/roofline-x.svg ]] && fail "escape: wrote above the report"

((failed)) && exit 1
echo "kbench-report: a FIFO and a device among the results, and a link among the report's files, refused; a backend's name kept in the report directory"
