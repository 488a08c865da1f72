# The dashboard self-test (cmake -P): runs ctest_scripts/dashboard.cmake for
# real, against cdash_receiver.py on loopback, and checks what arrived.
#   1. record a baseline for swish.cpu.fp32 (so the run reports ratios);
#   2. run the dashboard (Experimental, cpu, coverage and memcheck on) over the
#      harness's tests and two perf tests, with a random bearer token; the
#      receiver refuses the first PUT, so the retry path runs;
#   3. check_submission.py: every part was accepted once with its MD5 and the
#      token, each test once, every perf test with all its numeric
#      measurements and its result JSON, the report uploaded, coverage and
#      memcheck's per-test results submitted, and the token in no log or file;
#   4. the checker itself fails when a part is missing.
# Before all that: bad parameters (a submit URL without project= among them)
# must stop the script before it configures; the receiver must answer as
# CDash 5.3 and 2.6 do (check_receiver.py); and, on a tiny project that runs
# in seconds, the run must pass when the server takes every file and fail,
# naming the parts and the answer, when it refuses them: with a 4xx (5.3's
# 400, 403, 404; 2.6's 401, without a retry), with CDash 2.6's HTTP 200 +
# <status>ERROR</status> (unknown project, wrong checksum; without a retry),
# with an answer that holds no CDash status or with none at all (after the
# retries).
# Inputs: PYTHON, CTEST, SOURCE_DIR, WORK, SWISH (kbench-swish), GCOVR, VALGRIND.

cmake_minimum_required(VERSION 3.25)
foreach(var PYTHON CTEST SOURCE_DIR WORK SWISH GCOVR VALGRIND)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "dashboard_check.cmake: -D${var}=... is required")
  endif()
endforeach()
# What the run needs and a developer machine may lack: a skip that says so
# (.ci/run installs all three).
foreach(tool PYTHON GCOVR VALGRIND)
  if(NOT ${tool} OR ${tool} MATCHES "-NOTFOUND$")
    string(TOLOWER "${tool}" name)
    message("kbench-skip: ${name} not found (apt-get install python3 gcovr valgrind)")
    return()
  endif()
endforeach()

set(here "${CMAKE_CURRENT_LIST_DIR}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run label expect_rc log)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE "${log}" "${out}${err}")
  # CTest would cut measurement tags (and what lies between) out of this
  # test's own stored output: show the step without them.
  string(REGEX REPLACE "<(/?)CTestMeasurement" "[\\1measurement" shown "${out}${err}")
  string(LENGTH "${shown}" n)
  if(n GREATER 6000)
    math(EXPR from "${n} - 6000")
    string(SUBSTRING "${shown}" ${from} -1 shown)
    set(shown "[... ${log}]\n${shown}")
  endif()
  message("---- ${label}: exit ${rc}\n${shown}")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${label}: expected exit ${expect_rc}, got ${rc} (full log: ${log})")
  endif()
endfunction()

# Bad parameters stop the script before it builds anything, naming them.
function(refused label text)
  execute_process(COMMAND "${CTEST}" -S "${SOURCE_DIR}/ctest_scripts/dashboard.cmake"
      -DKBENCH_BINARY_DIR=${WORK}/refused ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- ${label}: exit ${rc}\n${out}${err}")
  string(FIND "${out}${err}" "${text}" at)
  if(rc EQUAL 0 OR at EQUAL -1 OR EXISTS "${WORK}/refused/CMakeCache.txt")
    message(FATAL_ERROR "${label}: expected a refusal saying '${text}' before configuring")
  endif()
endfunction()
unset(ENV{KBENCH_CDASH_SUBMIT_URL})
unset(ENV{KBENCH_CDASH_TOKEN})
refused("unknown model" "KBENCH_MODEL='Weekly': expected one of" -DKBENCH_MODEL=Weekly)
refused("unknown backend" "unknown backend 'rocm'" -DKBENCH_BACKENDS=rocm)
refused("no submit URL" "no submit URL")
refused("submit URL without project=" "names no CDash project"
  "-DKBENCH_CDASH_SUBMIT_URL=https://cdash.example.org/submit.php")
refused("submit URL with an empty project=" "names no CDash project"
  "-DKBENCH_CDASH_SUBMIT_URL=https://cdash.example.org/submit.php?project=&x=1")
set(ENV{KBENCH_CDASH_TOKEN} "not-sent")
refused("token over plain http" "refusing to send KBENCH_CDASH_TOKEN over plain http"
  "-DKBENCH_CDASH_SUBMIT_URL=http://cdash.example.org/submit.php?project=kbench")

# The receiver answers as CDash's submit.php: 5.3's 503 (outage), 200 OK
# without <md5>, 400 + JSON (checksum, project missing), 403 (token), 404
# (project); 2.6's 200 OK with <md5>, 200 + <status>ERROR</status> (project,
# checksum), 401 with an empty body (token).
set(ENV{KBENCH_RECEIVER_TOKEN} "kbench-selftest-probe")
foreach(version 5.3 2.6)
  run("the receiver answers as CDash ${version}" 0 "${WORK}/receiver-${version}.log"
    "${PYTHON}" "${here}/cdash_receiver.py" --store "${WORK}/probe-${version}" --cdash ${version}
      --token-env KBENCH_RECEIVER_TOKEN --fail-first 1 --timeout 120 --
    "${PYTHON}" "${here}/check_receiver.py" --token-env KBENCH_RECEIVER_TOKEN --cdash ${version})
endforeach()

# A project with one trivial test, configured, built and tested in seconds,
# and a stand-in for kbench-report, so that its dashboard passes whenever the
# server takes every file.
file(MAKE_DIRECTORY "${WORK}/tiny")
file(COPY "${SOURCE_DIR}/CTestConfig.cmake" DESTINATION "${WORK}/tiny")
file(WRITE "${WORK}/tiny/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\n"
  "project(tiny NONE)\nenable_testing()\nadd_test(NAME tiny COMMAND \${CMAKE_COMMAND} -E true)\n"
  "file(WRITE \${CMAKE_BINARY_DIR}/bin/kbench-report \"#!/bin/sh\\nexit 0\\n\")\n"
  "file(CHMOD \${CMAKE_BINARY_DIR}/bin/kbench-report PERMISSIONS OWNER_READ OWNER_WRITE "
  "OWNER_EXECUTE)\n")

# The dashboard run on the tiny project against a receiver started with the
# arguments after `expect`: it exits `expect` (0, or "fail": non-zero), its
# output says `text` (whitespace runs compared as one space, since CMake
# wraps a fatal message), and every file it sent was answered `status`
# ("null": not at all) and sent `sends` times (1: no retry although
# KBENCH_SUBMIT_RETRIES allows 2).
function(tiny_dashboard label expect text status sends)
  string(MAKE_C_IDENTIFIER "${label}" id)
  set(store "${WORK}/tiny-store-${id}")
  execute_process(COMMAND "${PYTHON}" "${here}/cdash_receiver.py" --store "${store}"
      --token-env KBENCH_RECEIVER_TOKEN --timeout 300 ${ARGN} --
    "${CTEST}" -S "${SOURCE_DIR}/ctest_scripts/dashboard.cmake"
      -DKBENCH_SOURCE_DIR=${WORK}/tiny -DKBENCH_BINARY_DIR=${WORK}/tiny-build-${id}
      -DKBENCH_SUBMIT_RETRIES=2 -DKBENCH_SUBMIT_RETRY_DELAY=0
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- ${label}: exit ${rc}\n${out}${err}")
  string(REGEX REPLACE "[ \t\r\n]+" " " said "${out}${err}")
  string(FIND "${said}" "${text}" at)
  set(exit_ok FALSE)
  if((expect STREQUAL "0" AND rc EQUAL 0) OR (expect STREQUAL "fail" AND NOT rc EQUAL 0))
    set(exit_ok TRUE)
  endif()
  if(NOT exit_ok OR at EQUAL -1)
    message(FATAL_ERROR "${label}: expected exit ${expect} and the output to say '${text}'")
  endif()
  file(STRINGS "${store}/requests.jsonl" requests)
  set(sent "")
  foreach(request IN LISTS requests)
    string(JSON answer GET "${request}" status)
    string(JSON name GET "${request}" file)
    if(answer STREQUAL "")  # JSON null
      set(answer null)
    endif()
    if(NOT answer STREQUAL status)
      message(FATAL_ERROR "${label}: ${name} was answered ${answer}, not ${status} "
        "(${store}/requests.jsonl)")
    endif()
    list(APPEND sent "${name}")
  endforeach()
  set(files ${sent})
  list(REMOVE_DUPLICATES files)
  list(LENGTH files n)
  list(LENGTH sent n_sent)
  math(EXPR expected "${n} * ${sends}")
  if(n LESS 5 OR NOT n_sent EQUAL expected)
    message(FATAL_ERROR "${label}: expected Configure, Notes, Build, Test and Done each sent "
      "${sends} time(s), got ${n_sent} requests for ${n} files")
  endif()
endfunction()

set(ENV{KBENCH_CDASH_TOKEN} "$ENV{KBENCH_RECEIVER_TOKEN}")
set(parts "Configure, Notes, Build, Test, Done")
tiny_dashboard("CDash 2.6 takes every file" 0 "every step passed" 200 1 --cdash 2.6)
tiny_dashboard("CDash 5.3 takes every file" 0 "every step passed" 200 1)
# CDash 2.6 refuses with HTTP 200 and <status>ERROR</status>: the run fails,
# naming the parts and CDash's message, and retries nothing.
tiny_dashboard("CDash 2.6, an unknown project: 200 + ERROR" fail
  "failed: submission of ${parts} (CDash answered ERROR \"Not a valid project.\")" 200 1
  --cdash 2.6 --project no-such-project)
tiny_dashboard("CDash 2.6, a wrong checksum: 200 + ERROR" fail
  "(CDash answered ERROR \"Checksum failed for file. Expected " 200 1 --cdash 2.6 --corrupt)
tiny_dashboard("CDash 5.3, a wrong checksum: 400" fail
  "refused Configure: HTTP 400; not retrying" 400 1 --corrupt)
tiny_dashboard("an answer without a CDash status is retried, then fails" fail
  "failed: submission of ${parts} (HTTP 200 with an empty answer, no CDash status)" 200 3 --blank)
tiny_dashboard("no answer at all is retried, then fails" fail
  "failed: submission of ${parts} (no answer: Server returned nothing (no headers, no data))"
  null 3 --hang-up)
set(ENV{KBENCH_CDASH_TOKEN} "kbench-selftest-wrong-token")
tiny_dashboard("CDash 2.6, a wrong token: 401" fail
  "failed: submission of ${parts} (HTTP 401)" 401 1 --cdash 2.6)
tiny_dashboard("CDash 5.3, a wrong token: 403" fail
  "refused Configure: HTTP 403; not retrying" 403 1)
set(ENV{KBENCH_CDASH_TOKEN} "$ENV{KBENCH_RECEIVER_TOKEN}")
tiny_dashboard("CDash 5.3, an unknown project: 404" fail
  "refused Configure: HTTP 404; not retrying" 404 1 --project no-such-project)
unset(ENV{KBENCH_RECEIVER_TOKEN})

set(profile dashboard-selftest)
run("record a swish baseline" 0 "${WORK}/record.log"
  "${SWISH}" --precision fp32 --profile ${profile} --baseline-dir "${WORK}/baselines"
  --results-dir "${WORK}/record-results" --update-baselines
  --latency-tolerance 10) # the dashboard gates it: recorded whatever the machine's noise
file(WRITE "${WORK}/initial-cache.txt"
  "KBENCH_BASELINE_DIR:PATH=${WORK}/baselines\nKBENCH_PROFILE:STRING=${profile}\n")
# The environment overrides the configured baseline settings at test time
# (the test preset sets KBENCH_BASELINE_DIR): clear what this run must not
# inherit.
foreach(var KBENCH_BASELINE_DIR KBENCH_PROFILE KBENCH_UPDATE_BASELINES KBENCH_RESULTS_DIR
    KBENCH_LATENCY_TOLERANCE KBENCH_ACCURACY_DRIFT)
  unset(ENV{${var}})
endforeach()

# A fresh random token, handed down through the environment only.
string(RANDOM LENGTH 32 secret)
set(ENV{KBENCH_CDASH_TOKEN} "kbench-selftest-${secret}")
unset(ENV{KBENCH_CDASH_SUBMIT_URL})

set(tests "^(kbench[.](unit|e2e)[.].*|swish[.]cpu[.]fp32|cross_entropy[.]cpu[.]fp32)$")
run("dashboard" 0 "${WORK}/dashboard.log"
  "${PYTHON}" "${here}/cdash_receiver.py" --store "${WORK}/received"
    --token-env KBENCH_CDASH_TOKEN --fail-first 1 --timeout 1200 --
  "${CTEST}" -VV -S "${SOURCE_DIR}/ctest_scripts/dashboard.cmake"
    -DKBENCH_SOURCE_DIR=${SOURCE_DIR} -DKBENCH_BINARY_DIR=${WORK}/build
    -DKBENCH_MODEL=Experimental -DKBENCH_GROUP=selftest -DKBENCH_SITE=kbench-selftest
    -DKBENCH_BUILD_NAME=selftest-cpu-coverage-memcheck -DKBENCH_BACKENDS=cpu
    -DKBENCH_COVERAGE=ON -DKBENCH_MEMCHECK=ON -DKBENCH_INITIAL_CACHE=${WORK}/initial-cache.txt
    -DKBENCH_TEST_INCLUDE=${tests} -DKBENCH_SUBMIT_RETRY_DELAY=1)

set(check "${PYTHON}" "${here}/check_submission.py" --store "${WORK}/received"
  --results "${WORK}/build/kbench-results" --token-env KBENCH_CDASH_TOKEN)
file(READ "${WORK}/dashboard.log" log)
if(NOT log MATCHES "CDash creates no group: unless the project has a group named 'selftest'")
  message(FATAL_ERROR "the run did not warn that CDash creates no group 'selftest'")
endif()
set(parts Configure,Build,Test,Coverage,CoverageLog-*,DynamicAnalysis,DynamicAnalysis-Test,Notes)
string(APPEND parts ,Upload,Done)
run("check the submission" 0 "${WORK}/check.log" ${check} --retried --coverage --memcheck
  --baselined swish.cpu.fp32 --parts ${parts}
  --uploads summary.md,summary.json,summary.svg,regressions.md,coverage.xml
  --scan "${WORK}/dashboard.log" "${WORK}/build/Testing" "${WORK}/received")
run("the checker notices a missing part" 1 "${WORK}/check-missing.log" ${check}
  --parts ${parts},NoSuchPart --scan "${WORK}/dashboard.log")
file(READ "${WORK}/check-missing.log" missing)
if(NOT missing MATCHES "FAIL: part NoSuchPart arrived once" OR NOT missing MATCHES "1 check[(]s[)] failed")
  message(FATAL_ERROR "the checker failed, but not (only) for the missing part: ${WORK}/check-missing.log")
endif()
