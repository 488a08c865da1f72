#!/usr/bin/env bash
# Appends a run report's summary.md (kbench-report) to the GitHub Actions job
# summary ($GITHUB_STEP_SUMMARY; stdout when unset), for the perf jobs of
# .github/workflows/. The summary links summary.svg and its sibling files,
# which a job summary cannot show: the chart and the links become a pointer
# to the job's artifact, which holds them.
#
#   .ci/job-summary.sh REPORT_DIR ARTIFACT_NAME
set -euo pipefail

report=${1:?usage: .ci/job-summary.sh REPORT_DIR ARTIFACT_NAME}
artifact=${2:?usage: .ci/job-summary.sh REPORT_DIR ARTIFACT_NAME}
out=${GITHUB_STEP_SUMMARY:-/dev/stdout}

if [ ! -f "$report/summary.md" ]; then
  echo "No run report: $report/summary.md was not written (the build or the suite stopped first)." >>"$out"
  exit 0
fi
sed -E -e "s/^!\[[^]]*\]\(summary\.svg\)/(The chart, summary.svg, is in the artifact $artifact.)/" \
  -e 's/\[([^]]*)\]\(((summary|regressions)\.[a-z]+)\)/\1/g' "$report/summary.md" >>"$out"
