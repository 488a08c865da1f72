# End-to-end test of the run report (cmake -P; inputs DRIVER (kbench-test-pair),
# MANIFEST, TOOL (kbench-baseline), REPORT (kbench-report), WORK; xmllint on PATH):
#   1. real result JSONs from the pair test kernel: a calibration, a fresh
#      baseline, a test gated on it, one against a copy 2x faster with its
#      rmse shifted (fails: accuracy drift, and likely latency), one whose
#      name needs escaping, and a full-set run without a baseline
#   2. kbench-report                                 -> exit 0, four files
#   3. summary.json                                  -> the results' figures
#   4. summary.md, regressions.md, summary.svg       -> failure listed first,
#      the rule, onepass's speedup over twopass in the leaderboard,
#      well-formed SVG with a row and a ratio mark per test;
#      roofline-cpu.svg well-formed, a point per case with flops
#   5. malformed result, missing field, empty and missing directory, --out
#      onto the results, unknown option              -> exit 2, says why
#   6. a test that stopped before its cases (its result: status error, the
#      error, no case)                               -> regressions.md,
#      summary.md and summary.json give the result's error, not "see the log"

foreach(var DRIVER MANIFEST TOOL REPORT WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_report.cmake: -D${var}=... is required")
  endif()
endforeach()
find_program(XMLLINT xmllint)
if(NOT XMLLINT)
  message(FATAL_ERROR "e2e_report.cmake: xmllint not found, needed to check that summary.svg "
    "is well-formed XML (Debian/Ubuntu: apt-get install libxml2-utils)")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(results "${WORK}/results")
set(report "${WORK}/report")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --calibration "${WORK}/calibration.cpu.json" --warmup 0 --min-time 0 --max-time 0.05)

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

# ---- 1. real results
run_driver("calibrate" 0 --calibrate --results-dir "${results}")
# Recorded with --latency-tolerance 10, which no rounds exceed: a noisy
# machine spends no further attempts on a test that is not about recording
# (kbench.e2e.gate is).
run_driver("record" 0 --update-baselines --latency-tolerance 10 --results-dir "${WORK}/recorded")
set(base "${WORK}/baselines/e2e/pair.json")
foreach(step "scale-ms;0.5;${base};${WORK}/fast.json"
             "shift-rmse;0.01;${WORK}/fast.json;${WORK}/drifted.json")
  execute_process(COMMAND "${TOOL}" ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kbench-baseline ${step} failed")
  endif()
endforeach()
# Gated on the fresh baseline: passes unless the machine is very noisy; the
# checks below compare the report with whatever the result says.
execute_process(COMMAND "${DRIVER}" ${common} --results-dir "${results}" OUTPUT_QUIET)
run_driver("drifted" 1 --results-dir "${results}" --baseline "${WORK}/drifted.json"
  --test-name pair.drifted.fp32)
# A name that needs escaping in every format. The step is about the name,
# not the gate, so its exit status must not depend on how steady this
# machine's timing is in the minute it runs: no baseline of this profile.
set(odd "pair.<odd & \"name\">")
run_driver("odd name" 0 --results-dir "${results}" --case small --variant onepass
  --test-name "${odd}" --baseline-dir "${WORK}/no-baselines")
run_driver("full set" 0 --results-dir "${results}" --set full)

file(GLOB result_files "${results}/*.json")
list(LENGTH result_files n_results)
if(NOT n_results EQUAL 5)
  message(FATAL_ERROR "setup: ${n_results} result files in ${results}, expected 5")
endif()

# ---- 2. the report
run_step("report" 0 "${REPORT}" "${results}" --out "${report}")
foreach(name summary.json summary.md regressions.md summary.svg)
  expect_text("report" "wrote ${report}/${name}")
  if(NOT EXISTS "${report}/${name}")
    message(FATAL_ERROR "report: ${report}/${name} was not written")
  endif()
endforeach()
string(FIND "${step_output}" "pair.drifted.fp32" first_failed)
string(FIND "${step_output}" "kbench.calibrate.cpu" first_passed)
if(first_failed GREATER first_passed)
  message(FATAL_ERROR "report: the table does not list the failed test first")
endif()

# ---- 3. summary.json against the results
set(summary "${report}/summary.json")
file(READ "${summary}" summary_json)
string(JSON n_tests LENGTH "${summary_json}" tests)
expect_json("summary" "${summary}" "${n_results}" counts tests)
set(failed_tests 0)
set(n_cases 0)
foreach(i RANGE 0 4)
  string(JSON name GET "${summary_json}" tests ${i} test)
  set(file "${results}/${name}.json")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "summary: test '${name}' has no result ${file}")
  endif()
  foreach(key kernel backend precision status)
    json_get(want "summary" "${file}" ${key})
    expect_json("summary" "${summary}" "${want}" tests ${i} ${key})
  endforeach()
  json_get(status "summary" "${file}" status)
  if(status STREQUAL "failed")
    math(EXPR failed_tests "${failed_tests} + 1")
  endif()
  json_get(cases "summary" "${file}" cases)
  string(JSON n LENGTH "${cases}")
  math(EXPR n_cases "${n_cases} + ${n}")
  math(EXPR last "${n} - 1")
  foreach(j RANGE 0 ${last})
    foreach(pair "case;case" "variant;variant" "passed;passed" "median_ms;median_ms"
                 "gbps;gbps" "pct_peak_bw;pct_peak_bw" "accuracy;rmse;rmse"
                 "latency;verdict;verdict")
      list(POP_BACK pair key)
      json_get(want "summary" "${file}" cases ${j} ${pair})
      expect_json("summary" "${summary}" "${want}" tests ${i} cases ${j} ${key})
    endforeach()
  endforeach()
endforeach()
expect_json("summary" "${summary}" "${failed_tests}" counts tests_failed)
expect_json("summary" "${summary}" "${n_cases}" counts cases)
json_get(host "summary" "${results}/pair.drifted.fp32.json" environment hostname)
expect_json("summary" "${summary}" "${host}" environment hostname)
# The drifted test: its cases failed on accuracy, and its ratio is the
# result's (about 2: the baseline was made twice as fast).
set(drifted "${results}/pair.drifted.fp32.json")
foreach(i RANGE 0 4)
  string(JSON name GET "${summary_json}" tests ${i} test)
  if(name STREQUAL "pair.drifted.fp32")
    set(d ${i})
  endif()
endforeach()
expect_json("summary" "${summary}" "failed" tests ${d} verdict)
expect_json("summary" "${summary}" "OFF" tests ${d} cases 0 passed)
json_get(ratio "summary" "${drifted}" cases 0 latency ratio)
expect_json("summary" "${summary}" "${ratio}" tests ${d} cases 0 ratio)
json_get(why "summary" "${summary}" tests ${d} cases 0 accuracy_failures)
if(NOT why MATCHES "rmse drifted from the baseline")
  message(FATAL_ERROR "summary: accuracy_failures of the drifted case is '${why}'")
endif()
expect_json("summary" "${summary}" "onepass" tests ${d} cases 1 variant)
expect_json("summary" "${summary}" "twopass" tests ${d} cases 1 compare_to)

# ---- 4. the markdown files and the chart
file(READ "${report}/summary.md" md)
string(FIND "${md}" "## Regressions" at_regressions)
string(FIND "${md}" "`pair.drifted.fp32`" at_failed)
string(FIND "${md}" "## Leaderboard" at_leaderboard)
if(at_regressions EQUAL -1 OR at_leaderboard EQUAL -1 OR NOT at_regressions LESS at_failed
   OR NOT at_failed LESS at_leaderboard)
  message(FATAL_ERROR "summary.md: the failed test is not listed under Regressions before the "
    "leaderboard (at ${at_regressions}, ${at_failed}, ${at_leaderboard})")
endif()
foreach(text "![ratio to baseline](summary.svg)" "## Variant speedups" "## Environment"
             "**FAILED: ${failed_tests} of 5 tests**")
  string(FIND "${md}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "summary.md: no '${text}'")
  endif()
endforeach()
# No variant is called vendor: the leaderboard sets onepass against the
# variant its manifest compares it with, named, with the speedup; a row for
# every comparison summary.json holds.
string(FIND "${md}" "## Variant speedups" at_speedups)
math(EXPR length "${at_speedups} - ${at_leaderboard}")
string(SUBSTRING "${md}" ${at_leaderboard} ${length} board)
string(REGEX MATCHALL "\\| `onepass` \\|[^\n]*\\| `twopass` x[0-9]+\\.[0-9][0-9] \\|" rows
  "${board}")
string(REGEX MATCHALL "\"compare_to\": \"twopass\"" comparisons "${summary_json}")
list(LENGTH rows n_rows)
list(LENGTH comparisons n_comparisons)
if(n_comparisons EQUAL 0 OR NOT n_rows EQUAL n_comparisons)
  message(FATAL_ERROR "summary.md: ${n_rows} leaderboard rows set onepass against `twopass`, "
    "summary.json has ${n_comparisons} comparisons")
endif()

file(READ "${report}/regressions.md" regressions)
foreach(text "## `pair.drifted.fp32` · case `small` · variant `twopass`" "**Rule: accuracy**"
             "rmse drifted from the baseline's")
  string(FIND "${regressions}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "regressions.md: no '${text}'")
  endif()
endforeach()

set(svg "${report}/summary.svg")
execute_process(COMMAND "${XMLLINT}" --noout "${svg}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "summary.svg is not well-formed XML: ${err}")
endif()
file(READ "${svg}" chart)
string(REGEX MATCHALL "<g class=\"row " rows "${chart}")
string(REGEX MATCHALL "class=\"(ratio-bar|no-baseline)\"" marks "${chart}")
list(LENGTH rows n_rows)
list(LENGTH marks n_marks)
if(NOT n_rows EQUAL n_results OR NOT n_marks EQUAL n_results)
  message(FATAL_ERROR "summary.svg: ${n_rows} rows and ${n_marks} ratio marks for ${n_results} tests")
endif()
string(FIND "${chart}" "<g class=\"row failed\">" at_failed_row)
string(FIND "${chart}" "<g class=\"row " at_row)
string(FIND "${chart}" "<title>pair.drifted.fp32: failed;" at_drifted)
if(NOT at_failed_row EQUAL at_row OR at_drifted EQUAL -1)
  message(FATAL_ERROR "summary.svg: the first row is not a failed test, or the drifted test "
    "is not shown as failed")
endif()
string(FIND "${chart}" "pair.&lt;odd &amp; &quot;name&quot;&gt;" at)
if(at EQUAL -1)
  message(FATAL_ERROR "summary.svg: the test name '${odd}' is not escaped")
endif()

# The roofline chart of the real results (roofline_check.py checks its
# geometry on hand-made ones): well-formed, one point per case of the
# pair tests (the calibration's left out) that did floating-point work.
set(roofline "${report}/roofline-cpu.svg")
execute_process(COMMAND "${XMLLINT}" --noout "${roofline}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "roofline-cpu.svg is missing or not well-formed XML: ${err}")
endif()
set(with_flops 0)
foreach(file IN LISTS result_files)
  file(READ "${file}" result)
  string(JSON set ERROR_VARIABLE none GET "${result}" case_set)
  if(set STREQUAL "calibration")
    continue()
  endif()
  string(JSON n LENGTH "${result}" cases)
  math(EXPR last "${n} - 1")
  foreach(j RANGE 0 ${last})
    string(JSON gflops ERROR_VARIABLE none GET "${result}" cases ${j} gflops)
    if(gflops MATCHES "^[0-9.eE+-]+$" AND gflops GREATER 0)
      math(EXPR with_flops "${with_flops} + 1")
    endif()
  endforeach()
endforeach()
file(READ "${roofline}" roofline_svg)
string(REGEX MATCHALL "<g class=\"point" points "${roofline_svg}")
list(LENGTH points n_points)
if(NOT n_points EQUAL with_flops OR n_points EQUAL 0)
  message(FATAL_ERROR "roofline-cpu.svg: ${n_points} points for ${with_flops} cases with flops")
endif()
string(FIND "${md}" "![roofline roofline-cpu.svg](roofline-cpu.svg)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "summary.md: no link to roofline-cpu.svg")
endif()

# ---- 5. bad input
set(bad "${WORK}/bad")
file(COPY "${drifted}" DESTINATION "${bad}")
file(WRITE "${bad}/broken.json" "{\"test\": \"broken\", ")
run_step("malformed result" 2 "${REPORT}" "${bad}" --out "${WORK}/bad-report")
expect_text("malformed result" "${bad}/broken.json:1:")
file(READ "${drifted}" good)
string(JSON no_variant REMOVE "${good}" cases 0 variant)
file(WRITE "${bad}/broken.json" "${no_variant}")
run_step("missing field" 2 "${REPORT}" "${bad}" --out "${WORK}/bad-report")
expect_text("missing field" "${bad}/broken.json: field 'cases[0].variant': missing")
file(MAKE_DIRECTORY "${WORK}/empty")
run_step("empty results" 2 "${REPORT}" "${WORK}/empty")
expect_text("empty results" "no results: run ctest first")
run_step("no results dir" 2 "${REPORT}" "${WORK}/nowhere")
expect_text("no results dir" "no results: run ctest first")
run_step("report into the results" 2 "${REPORT}" "${results}" --out "${results}/")
expect_text("report into the results" "is the results directory")
run_step("unknown option" 2 "${REPORT}" "${results}" --colour)
expect_text("unknown option" "usage: kbench-report RESULTS_DIR [--out DIR]")
run_step("help" 0 "${REPORT}" --help)
expect_text("help" "usage: kbench-report")

# ---- 6. a test that stopped before its cases: its result's error is the reason
# The driver stops before its first case (here: no case of that name) and
# its result holds only the error (docs/report.md, "Results of runs that did
# not finish").
set(stopped "${WORK}/stopped")
run_driver("a run that stops before its cases" 2 --results-dir "${stopped}" --case nosuch
  --test-name pair.stopped.fp32)
json_get(why "setup" "${stopped}/pair.stopped.fp32.json" error)
string(FIND "${why}" "nosuch" at)
if(at EQUAL -1)
  message(FATAL_ERROR "setup: the stopped test's result holds error '${why}'")
endif()
file(COPY "${drifted}" DESTINATION "${stopped}")
run_step("report of the stopped test" 0 "${REPORT}" "${stopped}" --out "${WORK}/stopped-report")
file(READ "${WORK}/stopped-report/regressions.md" regressions)
file(READ "${WORK}/stopped-report/summary.md" md)
foreach(file regressions md)
  string(FIND "${${file}}" "${why}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${file}: the stopped test's reason (its result's error) is not given:\n"
      "${${file}}")
  endif()
endforeach()
string(FIND "${regressions}" "## `pair.stopped.fp32`" at)
if(at EQUAL -1)
  message(FATAL_ERROR "regressions.md: no block for the stopped test")
endif()
set(summary "${WORK}/stopped-report/summary.json")
expect_json("stopped summary" "${summary}" "pair.stopped.fp32" tests 1 test)
expect_json("stopped summary" "${summary}" "error" tests 1 status)
expect_json("stopped summary" "${summary}" "${why}" tests 1 error)

message("e2e report: all steps behaved as expected")
