# End-to-end test of what a failing run leaves behind, on the test kernel
# benchtests/tests/fault (cmake -P; inputs DRIVER, MANIFEST, WORK; REPORT
# and KBENCH_E2E_BIN from the environment). KB_TEST_FAULT=<case>:<fault>
# makes one case hang or crash (fault.c):
#   1. a passing run, then one whose second case crashes (SIGSEGV) -> the
#      result is not the previous run's: status "crashed", the first case
#      kept, the second named with its stage; kbench-report counts it failed
#   2. a hang in the measurement, --timeout 3                 -> exit 2 before
#      the limit, status "timeout", case, stage, elapsed, limit, stage times;
#      the same hang killed outright (no --timeout)              -> status
#      "running", the first case kept, the second named
#   3. a hang in the checked run and in the reference, KBENCH_TIMEOUT=3 -> the
#      same, each stage named
#   4. an abort() while timed                                 -> "crashed", SIGABRT
#   5. no case selected (--set full without a full set), --baseline naming a
#      missing file, profile / test names that are not plain names, a path
#      too long                                               -> exit 2, says why
#   6. a GPU driver without a device (when one is built): skips (77), and
#      fails (2) under KBENCH_REQUIRE_DEVICE=1
#   7. a temporary result file left by a writer that was killed outright is
#      removed by the next run
#   8. the driver's git commands take no lock in the source checkout
#      (--no-optional-locks: "git status" would take .git/index.lock)
# Every hang sleeps: the timeouts are short and the test asserts what the
# result says, not how long anything took.

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_watchdog.cmake: -D${var}=... is required")
  endif()
endforeach()
set(REPORT "$ENV{REPORT}")

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(results "${WORK}/results")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --results-dir "${results}" --warmup 0 --min-time 0 --max-time 0.05)
set(result "${results}/fault.cpu.fp32.json")

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

# Runs the driver with KB_TEST_FAULT=fault; fails unless it ends by a signal
# (a crash re-raised after the result was written) or, with expect_rc, exits so.
# With expect_rc "killed", the driver runs without a time limit of its own and
# is killed (SIGKILL) when `kill_after` seconds have passed.
function(run_fault label fault expect_rc)
  set(ENV{KB_TEST_FAULT} "${fault}")
  set(limit 120)
  if(expect_rc STREQUAL "killed")
    set(limit ${kill_after})
  endif()
  execute_process(COMMAND "${DRIVER}" ${common} ${ARGN} RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${limit})
  unset(ENV{KB_TEST_FAULT})
  string(REGEX REPLACE "<CTestMeasurement[^\n]*\n" "" shown "${out}")
  message("---- ${label}: exit ${rc}\n${shown}${err}")
  if(expect_rc STREQUAL "killed")
    if(NOT rc MATCHES "timeout")
      message(FATAL_ERROR "${label}: expected the process to be killed, got exit ${rc}")
    endif()
  elseif(expect_rc STREQUAL "signal")
    if(rc MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${label}: expected the process to end by a signal, got exit ${rc}")
    endif()
  elseif(NOT rc STREQUAL expect_rc)
    message(FATAL_ERROR "${label}: expected exit ${expect_rc}, got ${rc}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_contains label file text)
  file(READ "${file}" content)
  string(FIND "${content}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${label}: ${file} does not contain '${text}':\n${content}")
  endif()
endfunction()

# The interrupted case's entry and the in_progress record.
function(expect_stopped label status case stage n_cases)
  expect_json("${label}" "${result}" "${status}" status)
  expect_json("${label}" "${result}" "${case}" in_progress case)
  expect_json("${label}" "${result}" "${stage}" in_progress stage)
  file(READ "${result}" json)
  string(JSON n LENGTH "${json}" cases)
  if(NOT n EQUAL n_cases)
    message(FATAL_ERROR "${label}: ${result}: ${n} cases, expected ${n_cases}")
  endif()
  math(EXPR last "${n_cases} - 1")
  expect_json("${label}" "${result}" "${case}" cases ${last} case)
  expect_json("${label}" "${result}" "OFF" cases ${last} passed)
  json_get(stage_s "${label}" "${result}" in_progress stages_s ${stage})
endfunction()

# ---- 1. a crash after a passing run
run_driver("passing run" 0)
expect_json("passing run" "${result}" "passed" status)
run_fault("crash in the check" "second:segv-check" signal)
expect_text("crash in the check" "SIGSEGV in stage check: case second, variant ")
expect_stopped("crash in the check" crashed second check 2)
expect_json("crash in the check" "${result}" "SIGSEGV" in_progress signal)
expect_json("crash in the check" "${result}" "ON" cases 0 passed)
expect_contains("crash in the check" "${result}" "crashed: SIGSEGV in stage 'check'")
if(REPORT)
  run_step("report after the crash" 0 "${REPORT}" "${results}" --out "${WORK}/report")
  expect_text("report after the crash" "1 tests, 1 failed; 2 cases, 1 failed")
  expect_contains("report after the crash" "${WORK}/report/regressions.md"
    "crashed: SIGSEGV in stage 'check'")
  expect_json("report after the crash" "${WORK}/report/summary.json" "crashed" tests 0 status)
endif()

# A layout whose byte sizes would wrap: the case fails naming the tensor,
# nothing is allocated, the other case runs.
run_fault("a layout too large" "second:huge-layout" 1)
expect_text("a layout too large"
  "case 'second': tensor 'x' of kernel 'fault' would hold 1152921504606846976 elements")
expect_json("a layout too large" "${result}" "failed" status)
expect_json("a layout too large" "${result}" "ON" cases 0 passed)

# ---- 2. a hang while timed
run_fault("hang in the measurement" "second:hang-measure" 2 --timeout 3)
expect_text("hang in the measurement" "timeout: stage 'measurement' still running")
expect_text("hang in the measurement" "the result says where: case second, variant ")
expect_stopped("hang in the measurement" timeout second measurement 2)
expect_json("hang in the measurement" "${result}" "ON" cases 0 passed)
expect_positive("hang in the measurement" "${result}" in_progress limit_s)
expect_positive("hang in the measurement" "${result}" in_progress elapsed_s)
json_get(check_s "hang in the measurement" "${result}" in_progress stages_s check)
expect_contains("hang in the measurement" "${result}" "timeout: stage 'measurement' ran ")
if(REPORT)
  run_step("report after the timeout" 0 "${REPORT}" "${results}" --out "${WORK}/report")
  expect_text("report after the timeout" "1 tests, 1 failed; 2 cases, 1 failed")
endif()

# Killed outright (SIGKILL, as by CTest's own timeout): the result written
# before the case began is what remains. The first case takes well under a
# second; the kill comes after 6.
set(kill_after 6)
run_fault("killed in a case" "second:hang-measure" killed)
expect_json("killed in a case" "${result}" "running" status)
expect_json("killed in a case" "${result}" "second" in_progress case)
expect_json("killed in a case" "${result}" "ON" cases 0 passed)
expect_json("killed in a case" "${result}" "second" cases 1 case)
expect_contains("killed in a case" "${result}" "running when the result was last written")
if(REPORT)
  run_step("report after the kill" 0 "${REPORT}" "${results}" --out "${WORK}/report")
  expect_text("report after the kill" "1 tests, 1 failed; 2 cases, 1 failed")
endif()

# ---- 3. hangs before the timing, the limit from the environment
set(ENV{KBENCH_TIMEOUT} 3)
run_fault("hang in the check" "first:hang-check" 2)
expect_stopped("hang in the check" timeout first check 1)
expect_positive("hang in the check" "${result}" in_progress stages_s check)
run_fault("hang in the reference" "first:hang-reference" 2)
expect_stopped("hang in the reference" timeout first reference 1)
unset(ENV{KBENCH_TIMEOUT})

# ---- 4. an abort while timed
run_fault("abort in the measurement" "first:abort-measure" signal)
expect_stopped("abort in the measurement" crashed first measurement 1)
expect_json("abort in the measurement" "${result}" "SIGABRT" in_progress signal)

# ---- 5. errors that used to pass or write elsewhere
run_driver("no full set" 2 --set full)
expect_text("no full set" "no 'full' cases to run")
expect_json("no full set" "${results}/fault.cpu.fp32.full.json" "error" status)
run_driver("missing --baseline" 2 --baseline "${WORK}/missing.json")
expect_text("missing --baseline" "--baseline: ${WORK}/missing.json: No such file")
run_driver("no baseline in the default directory" 0 --case first)
expect_text("no baseline in the default directory" "no baseline file: latency not gated")
run_driver("profile with a path" 2 --profile ../../escaped)
expect_text("profile with a path" "--profile: '../../escaped'")
set(ENV{KBENCH_PROFILE} "a/b")
run_driver("profile variable with a path" 2 --case first)
unset(ENV{KBENCH_PROFILE})
expect_text("profile variable with a path" "KBENCH_PROFILE: 'a/b'")
run_driver("test name with a path" 2 --test-name ../escaped)
expect_text("test name with a path" "--test-name: '../escaped'")
if(EXISTS "${WORK}/escaped.json" OR EXISTS "${WORK}/escaped")
  message(FATAL_ERROR "test name with a path: something was written outside ${results}")
endif()
string(REPEAT "d" 200 component)
set(deep "${results}")
string(LENGTH "${deep}" length)
while(length LESS 3880)
  string(APPEND deep "/${component}")
  string(LENGTH "${deep}" length)
endwhile()
math(EXPR pad "4085 - ${length} - 1")
string(REPEAT "e" ${pad} last)
string(APPEND deep "/${last}") # 4085 characters: a path, but not with /<test>.json after it
run_driver("result path too long" 2 --results-dir "${deep}")
expect_text("result path too long" "--results-dir: the path '")
expect_text("result path too long" "characters long, above the 4095 this build handles")
run_driver("results directory too long" 2 --results-dir "${deep}/${component}")
expect_text("results directory too long" "the longest path accepted is 4095")

# ---- 6. a GPU driver without a device
file(GLOB gpu_drivers "$ENV{KBENCH_E2E_BIN}/kbench-*-cuda" "$ENV{KBENCH_E2E_BIN}/kbench-*-hip")
if(gpu_drivers)
  list(GET gpu_drivers 0 gpu)
  string(REGEX MATCH "-(cuda|hip)$" backend "${gpu}")
  string(SUBSTRING "${backend}" 1 -1 backend)
  set(gpu_args --backend ${backend} --results-dir "${WORK}/gpu" --warmup 0 --min-time 0
    --max-time 0.01)
  execute_process(COMMAND "${gpu}" ${gpu_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err TIMEOUT 120)
  message("---- ${gpu} without KBENCH_REQUIRE_DEVICE: exit ${rc}\n${out}${err}")
  if(rc EQUAL 77)
    set(ENV{KBENCH_REQUIRE_DEVICE} 1)
    run_step("device required" 2 "${gpu}" ${gpu_args})
    unset(ENV{KBENCH_REQUIRE_DEVICE})
    expect_text("device required" "backend '${backend}' is not available: ")
    expect_text("device required" "KBENCH_REQUIRE_DEVICE=1")
    run_step("device required by option" 2 "${gpu}" ${gpu_args} --require-device)
  else()
    message("device required: ${gpu} found a device, nothing to check")
  endif()
else()
  message("device required: no GPU driver built, nothing to check")
endif()

# ---- 7. a temporary file of a writer killed outright (its pid is not running)
set(stale "${results}/fault.cpu.fp32.json.tmp.999999999.Ab12Cd")
set(live "${results}/fault.cpu.fp32.json.tmp.1.Ab12Cd")
file(WRITE "${stale}" "partial")
file(WRITE "${live}" "partial")
run_driver("stale temporary file" 0 --case first)
if(EXISTS "${stale}")
  message(FATAL_ERROR "stale temporary file: ${stale} was not removed")
endif()
if(NOT EXISTS "${live}")
  message(FATAL_ERROR "stale temporary file: ${live} (pid 1 is running) was removed")
endif()
# ---- 8. git without the optional locks: a git first on PATH records its arguments
set(fakebin "${WORK}/fakebin")
file(MAKE_DIRECTORY "${fakebin}")
file(WRITE "${fakebin}/git" "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '${WORK}/git-calls.txt'\nexit 1\n")
file(CHMOD "${fakebin}/git" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(path "$ENV{PATH}")
set(ENV{PATH} "${fakebin}:${path}")
run_driver("git without locks" 0 --case first)
set(ENV{PATH} "${path}")
file(STRINGS "${WORK}/git-calls.txt" git_calls)
if(NOT git_calls)
  message(FATAL_ERROR "git without locks: the driver ran no git command")
endif()
foreach(call IN LISTS git_calls)
  if(NOT call MATCHES "^--no-optional-locks ")
    message(FATAL_ERROR "git without locks: the driver ran 'git ${call}'")
  endif()
endforeach()
message("e2e watchdog: all steps behaved as expected")
