# End-to-end test of reusing a calibration, on the test kernel
# benchtests/tests/pair (cmake -P; inputs DRIVER, MANIFEST, REPORT (kbench-report),
# WORK):
#   1. --calibrate, no file yet                 -> measured, says why, file written
#   2. --calibrate again                        -> reused: says so with its age, measures
#                                                  nothing, leaves the file as it was; the
#                                                  result records reused and age_s
#   3. a test reading it                        -> its result records the age; the
#                                                  report says the calibration was
#                                                  reused and how old it was
#   4. KBENCH_RECALIBRATE=1                     -> measured, says why
#   5. a file of another boot, a malformed one  -> measured, says why, passes
#   6. KBENCH_CALIBRATION_MAX_AGE=0             -> measured
#   7. a bad KBENCH_RECALIBRATE or max age      -> exit 2 naming the variable

foreach(var DRIVER MANIFEST REPORT WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_calibration.cmake: -D${var}=... is required")
  endif()
endforeach()

# What the steps expect must not depend on the caller's settings.
unset(ENV{KBENCH_RECALIBRATE})
unset(ENV{KBENCH_CALIBRATION_MAX_AGE})

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(calibration "${WORK}/results/calibration/cpu.json")
set(cal_result "${WORK}/results/kbench.calibrate.cpu.json")
set(result "${WORK}/results/pair.cpu.fp32.json")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --results-dir "${WORK}/results" --warmup 0 --min-time 0 --max-time 0.05)

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

function(expect_no_text label text)
  string(FIND "${step_output}" "${text}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${label}: the output contains '${text}'")
  endif()
endfunction()

# The step measured the machine: it said why, measured the roofs and wrote
# the file.
function(expect_measured label why)
  expect_text("${label}" "calibration: measuring (${why}")
  expect_text("${label}" "calibration: roofs measured in ")
  expect_text("${label}" "GB/s peak written to ${calibration}")
  expect_no_text("${label}" "calibration reused")
  expect_json("${label}" "${cal_result}" "OFF" calibration reused)
  expect_json("${label}" "${cal_result}" "passed" status)
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

# ---- 1. the first calibration is measured
run_driver("first" 0 --calibrate)
expect_measured("first" "no calibration at ${calibration} yet")
expect_json_matches("first" "${calibration}" "^[0-9a-f-]+$" boot_id)
expect_json_matches("first" "${calibration}" "^fnv1a64:[0-9a-f]+$" build executable)
json_get(why "first" "${cal_result}" calibration why_measured)
if(NOT why MATCHES "^no calibration at ")
  message(FATAL_ERROR "first: calibration.why_measured is '${why}'")
endif()
file(READ "${calibration}" measured)

# ---- 2. the second reuses it: nothing measured, the file untouched
run_driver("second" 0 --calibrate)
expect_text("second" "calibration reused: measured ")
expect_text("second" " ago on this machine since its last boot, by this build, for the same cases (${calibration}); KBENCH_RECALIBRATE=1 re-measures")
expect_no_text("second" "calibration: measuring")
expect_no_text("second" "roofs measured")
expect_no_text("second" "peak written")
file(READ "${calibration}" after)
if(NOT after STREQUAL measured)
  message(FATAL_ERROR "second: ${calibration} was rewritten")
endif()
expect_json("second" "${cal_result}" "ON" calibration reused)
expect_json("second" "${cal_result}" "passed" status)
expect_json("second" "${cal_result}" "${calibration}" calibration file)
json_get(age "second" "${cal_result}" calibration age_s)
if(NOT age MATCHES "^[0-9]+$")
  message(FATAL_ERROR "second: calibration.age_s is '${age}', expected seconds")
endif()
json_get(peak "second" "${calibration}" peak_gbps)
expect_json("second" "${cal_result}" "${peak}" calibration peak_gbps)
expect_positive("second" "${cal_result}" calibration levels 0 gbps)
json_get(cases "second" "${cal_result}" cases)
string(JSON n_cases LENGTH "${cases}")
if(NOT n_cases EQUAL 0)
  message(FATAL_ERROR "second: ${cal_result} holds ${n_cases} cases; a reused calibration runs none")
endif()

# ---- 3. a test reading the calibration records its age
run_driver("reader" 0 --case small)
expect_text("reader" " ago)")
json_get(age "reader" "${result}" calibration age_s)
if(NOT age MATCHES "^[0-9]+$")
  message(FATAL_ERROR "reader: calibration.age_s is '${age}', expected seconds")
endif()
expect_positive("reader" "${result}" cases 0 pct_peak_bw)
run_step("report" 0 "${REPORT}" "${WORK}/results" --out "${WORK}/report")
file(READ "${WORK}/report/summary.md" summary)
string(REGEX MATCH "`kbench.calibrate.cpu`: calibration reused, measured [0-9TZ:-]+, [0-9.]+ (s|min) before this run \\(`([^`]*)`\\)" line "${summary}")
if(NOT line OR NOT "${CMAKE_MATCH_2}" STREQUAL "${calibration}")
  message(FATAL_ERROR "report: summary.md does not say the calibration was reused and its age:\n${summary}")
endif()
file(READ "${WORK}/report/roofline-cpu.svg" chart)
string(REGEX MATCH "Ceilings: the calibration in pair.cpu.fp32&apos;s result, measured [0-9TZ:-]+ \\([0-9.]+ (s|min) before the test\\)" line "${chart}")
if(NOT line)
  message(FATAL_ERROR "report: roofline-cpu.svg does not give the calibration's age")
endif()

# ---- 4. measured on demand
run_step("forced" 0 "${CMAKE_COMMAND}" -E env KBENCH_RECALIBRATE=1 "${DRIVER}" ${common} --calibrate)
expect_measured("forced" "KBENCH_RECALIBRATE=1)")
expect_json("forced" "${cal_result}" "KBENCH_RECALIBRATE=1" calibration why_measured)

# ---- 5. another boot's file, a malformed one: measured, never a failure
file(READ "${calibration}" good)
string(JSON other SET "${good}" boot_id "\"00000000-0000-0000-0000-000000000000\"")
file(WRITE "${calibration}" "${other}")
run_driver("other boot" 0 --calibrate)
expect_measured("other boot" "${calibration} was measured in another boot (its boot_id '00000000-0000-0000-0000-000000000000'")

file(WRITE "${calibration}" "{\"backend\": \"cpu\", ")
run_driver("malformed" 0 --calibrate)
expect_measured("malformed" "${calibration}")
expect_text("malformed" "malformed JSON")

# ---- 6. a maximum age of 0 measures every run
run_step("max age 0" 0 "${CMAKE_COMMAND}" -E env KBENCH_CALIBRATION_MAX_AGE=0 "${DRIVER}" ${common} --calibrate)
expect_measured("max age 0" "KBENCH_CALIBRATION_MAX_AGE=0)")
# and without it the fresh file is reused again
run_driver("reused again" 0 --calibrate)
expect_text("reused again" "calibration reused: measured ")

# ---- 7. bad settings
run_step("bad recalibrate" 2 "${CMAKE_COMMAND}" -E env KBENCH_RECALIBRATE=yes "${DRIVER}" ${common} --calibrate)
expect_text("bad recalibrate" "KBENCH_RECALIBRATE: 'yes' is not 0 or 1")
run_step("bad max age" 2 "${CMAKE_COMMAND}" -E env KBENCH_CALIBRATION_MAX_AGE=12h "${DRIVER}" ${common} --calibrate)
expect_text("bad max age" "KBENCH_CALIBRATION_MAX_AGE: '12h' is not a number of seconds")
message("e2e calibration: all steps behaved as expected")
