# The dashboard self-test (cmake -P): runs ctest_scripts/dashboard.cmake for
# real, against cdash_receiver.py on loopback, and checks what arrived.
#   1. record a baseline for swish.cpu.fp32 (so the run reports ratios);
#   2. run the dashboard (Experimental, cpu, coverage and memcheck on) over the
#      harness's tests and two perf tests, with a random bearer token; the
#      receiver refuses the first PUT, so the retry path runs;
#   3. check_submission.py: every part arrived once with its MD5 and the
#      token, each test once, every perf test with all its numeric
#      measurements and its result JSON, the report uploaded, coverage and
#      memcheck's per-test results submitted, and the token in no log or file;
#   4. the checker itself fails when a part is missing.
# Before all that: bad parameters (a submit URL without project= among them)
# must stop the script before it configures; the receiver must answer as
# CDash 5.3 does (check_receiver.py); and a submission CDash refuses with a
# 4xx (wrong token, unknown project) must fail the run without a retry,
# which a tiny project shows in seconds.
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

# The receiver answers as CDash 5.3's submit.php: 503 (outage), 200 OK without
# <md5>, 400 + JSON (checksum, project missing), 403 (token), 404 (project).
set(ENV{KBENCH_RECEIVER_TOKEN} "kbench-selftest-probe")
run("the receiver answers as CDash" 0 "${WORK}/receiver.log"
  "${PYTHON}" "${here}/cdash_receiver.py" --store "${WORK}/probe"
    --token-env KBENCH_RECEIVER_TOKEN --fail-first 1 --timeout 120 --
  "${PYTHON}" "${here}/check_receiver.py" --token-env KBENCH_RECEIVER_TOKEN)

# A project with one trivial test: configured, built and tested in seconds.
file(MAKE_DIRECTORY "${WORK}/tiny")
file(COPY "${SOURCE_DIR}/CTestConfig.cmake" DESTINATION "${WORK}/tiny")
file(WRITE "${WORK}/tiny/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\n"
  "project(tiny NONE)\nenable_testing()\nadd_test(NAME tiny COMMAND \${CMAKE_COMMAND} -E true)\n")

# The dashboard run on the tiny project against a receiver that refuses every
# file with `status`: the run fails saying so, and no file is sent twice
# although KBENCH_SUBMIT_RETRIES allows 2 more attempts.
function(refused_without_retry label status text)
  set(store "${WORK}/refused-${status}")
  execute_process(COMMAND "${PYTHON}" "${here}/cdash_receiver.py" --store "${store}"
      --token-env KBENCH_RECEIVER_TOKEN --timeout 300 ${ARGN} --
    "${CTEST}" -S "${SOURCE_DIR}/ctest_scripts/dashboard.cmake"
      -DKBENCH_SOURCE_DIR=${WORK}/tiny -DKBENCH_BINARY_DIR=${WORK}/tiny-${status}
      -DKBENCH_SUBMIT_RETRIES=2 -DKBENCH_SUBMIT_RETRY_DELAY=0
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- ${label}: exit ${rc}\n${out}${err}")
  string(FIND "${out}${err}" "${text}" at)
  if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "${label}: expected the run to fail saying '${text}'")
  endif()
  file(STRINGS "${store}/requests.jsonl" requests)
  set(sent "")
  foreach(request IN LISTS requests)
    string(JSON answer GET "${request}" status)
    string(JSON name GET "${request}" file)
    if(NOT answer EQUAL status OR name IN_LIST sent)
      message(FATAL_ERROR "${label}: ${name} answered ${answer} or was sent twice "
        "(${store}/requests.jsonl)")
    endif()
    list(APPEND sent "${name}")
  endforeach()
  list(LENGTH sent n)
  if(n LESS 3)
    message(FATAL_ERROR "${label}: expected Configure, Build, Test... each refused once, "
      "got ${n} requests")
  endif()
endfunction()
set(ENV{KBENCH_CDASH_TOKEN} "kbench-selftest-wrong-token")
refused_without_retry("a wrong token: 403, no retry" 403
  "refused Configure with HTTP 403; not retrying")
set(ENV{KBENCH_CDASH_TOKEN} "$ENV{KBENCH_RECEIVER_TOKEN}")
refused_without_retry("an unknown project: 404, no retry" 404
  "refused Configure with HTTP 404; not retrying" --project no-such-project)
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
set(parts Configure,Build,Test,Coverage,CoverageLog-0,DynamicAnalysis,DynamicAnalysis-Test,Notes)
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
