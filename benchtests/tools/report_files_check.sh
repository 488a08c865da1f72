#!/usr/bin/env bash
# kbench.unit.report_files: kbench-report on result "files" that are not
# regular files, which the bad-input matrix cannot make: a FIFO (opening it
# would wait for a writer forever) and a link to a device (read without
# end). Each must be refused at once, exit 2, naming the file, writing no
# report.
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

((failed)) && exit 1
echo "kbench-report: a FIFO and a device among the results refused"
