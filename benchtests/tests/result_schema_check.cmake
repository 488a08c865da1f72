# The result file's schema (benchtests/schema/result.schema.json) against
# real results (cmake -P; docs/report.md, "The result file's schema"):
#   1. the schema is a valid JSON Schema (its metaschema)
#   2. the hand-made results of the roofline fixtures (FIXTURES/*.json) validate
#   3. results the test kernels' drivers write here, each checked for the
#      part it is there for, validate: a calibration measured and one reused,
#      a recording, a run gated on it, cold cache, transcendental counts, an
#      error before the cases, a skipped case, A/B against this build, a
#      multithreaded case in baseline and A/B mode (MTMAP, two CPUs or
#      more), a crash, a timeout, a run killed outright, and a run under
#      perf when perf is on PATH
#   4. copies of them with one planted error each (a wrong type, an unknown
#      key, a missing required key, a bad status or verdict, ...) are
#      refused, the schema's words naming the field
# Inputs: CHECK_JSONSCHEMA (empty or *-NOTFOUND: the test reports itself
# skipped, "kbench-skip:"), SCHEMA, FIXTURES (a folder of results), PAIR,
# PAIR_MANIFEST, DECLINE, DECLINE_MANIFEST, FAULT, FAULT_MANIFEST (the test
# kernels' drivers and manifests), MTMAP, MTMAP_MANIFEST (empty: no
# multithreaded case), WORK.

foreach(var SCHEMA FIXTURES PAIR PAIR_MANIFEST DECLINE DECLINE_MANIFEST FAULT FAULT_MANIFEST
    MTMAP MTMAP_MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "result_schema_check.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CHECK_JSONSCHEMA)
  message("kbench-skip: check-jsonschema not found (.ci/install-deps.sh installs it into "
    "~/.cache/kbench/ci-venv): the result schema is not checked")
  return()
endif()
foreach(var KBENCH_UPDATE_BASELINES KBENCH_AB_BASE KBENCH_AB_SOURCE KBENCH_AB_REF
    KBENCH_BASELINE_DIR KBENCH_PROFILE KBENCH_ACCURACY_DRIFT KBENCH_LATENCY_TOLERANCE
    KBENCH_COLD_CACHE KBENCH_TIMEOUT KBENCH_RESULTS_DIR KBENCH_RECALIBRATE
    KBENCH_CALIBRATION_MAX_AGE KB_TEST_FAULT)
  unset(ENV{${var}})
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

macro(_kb_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
endmacro()

# ---- 1. the schema
_kb_run("${CHECK_JSONSCHEMA}" --check-metaschema "${SCHEMA}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "result schema: ${SCHEMA} is not a valid JSON Schema:\n${out}")
endif()

# Validates the files ARGN; fails naming `what` unless all are valid.
function(_kb_validate what)
  list(LENGTH ARGN n)
  if(n EQUAL 0)
    message(FATAL_ERROR "result schema: no ${what} to validate")
  endif()
  _kb_run("${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" ${ARGN})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "result schema: the schema refuses ${what}:\n${out}")
  endif()
  message("result schema: ${n} ${what} valid")
endfunction()

# ---- 2. the roofline fixtures
file(GLOB fixtures "${FIXTURES}/*.json")
_kb_validate("roofline fixtures" ${fixtures})

# ---- 3. real results, each in WORK/<label>/
set(common --profile e2e --baseline-dir "${WORK}/baselines" --warmup 0 --min-time 0
  --max-time 0.05)
set(calibration "${WORK}/calibration.cpu.json")
set(produced "")

# Runs ARGN with its results in WORK/<label>; fails unless the exit status
# is one of `codes` (a list) or, for "signal", a signal ended it. Sets
# `result` to WORK/<label>/<name> and fails when it was not written.
function(run_result label codes name)
  execute_process(COMMAND ${ARGN} --results-dir "${WORK}/${label}" RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  string(REGEX REPLACE "<CTestMeasurement[^\n]*\n" "" shown "${out}")
  message("---- ${label}: exit ${rc}\n${shown}${err}")
  if(codes STREQUAL "signal")
    if(rc MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${label}: expected the process to end by a signal, got exit ${rc}")
    endif()
  else()
    list(FIND codes "${rc}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${label}: expected exit ${codes}, got ${rc}")
    endif()
  endif()
  set(result "${WORK}/${label}/${name}" PARENT_SCOPE)
  if(NOT EXISTS "${WORK}/${label}/${name}")
    message(FATAL_ERROR "${label}: ${WORK}/${label}/${name} was not written")
  endif()
  set(produced ${produced} "${WORK}/${label}/${name}" PARENT_SCOPE)
endfunction()

function(expect_present label file)
  json_get(value "${label}" "${file}" ${ARGN})
endfunction()

set(pair "${PAIR}" --manifest "${PAIR_MANIFEST}" ${common})
run_result(calibrate 0 kbench.calibrate.cpu.json ${pair} --calibrate --calibration "${calibration}")
expect_json(calibrate "${result}" "calibration" case_set)
expect_json(calibrate "${result}" "OFF" calibration reused)
expect_present(calibrate "${result}" calibration why_measured)
run_result(reused 0 kbench.calibrate.cpu.json ${pair} --calibrate --calibration "${calibration}")
expect_json(reused "${result}" "ON" calibration reused)
expect_present(reused "${result}" calibration age_s)
set(pair_cal ${pair} --calibration "${calibration}")

# Recorded with --latency-tolerance 10, which no rounds exceed: no further
# attempts on a noisy machine.
run_result(record 0 pair.cpu.fp32.json ${pair_cal} --update-baselines --latency-tolerance 10)
set(recorded "${result}")
expect_json(record "${result}" "passed" status)
expect_json(record "${result}" "recorded" cases 0 latency verdict)
expect_present(record "${result}" cases 0 latency attempt_noise)
expect_present(record "${result}" cases 0 rounds 0 process)
# A slowdown on a busy machine may fail it: the file is what matters.
run_result(gated "0;1" pair.cpu.fp32.json ${pair_cal})
set(gated "${result}")
expect_present(gated "${result}" cases 0 latency baseline_median_ms)
expect_present(gated "${result}" cases 0 roofline intensity)
expect_present(gated "${result}" cases 0 rounds 0 samples_ms 0)
expect_present(gated "${result}" environment git_commit)
run_result(cold 0 pair.cpu.fp32.json ${pair_cal} --cold-cache --case small --variant onepass)
expect_json(cold "${result}" "ON" cold_cache)
expect_json(cold "${result}" "onepass+cold" cases 0 variant)

file(READ "${PAIR_MANIFEST}" manifest)
string(JSON manifest SET "${manifest}" transcendentals "{\"count\": \"n\", \"flops_each\": 10}")
file(WRITE "${WORK}/transcendentals.json" "${manifest}")
run_result(transcendentals 0 pair.cpu.fp32.json "${PAIR}" --manifest "${WORK}/transcendentals.json"
  ${common} --baseline-dir "${WORK}/none" --case small)
expect_json(transcendentals "${result}" "4096" cases 0 transcendentals)
expect_present(transcendentals "${result}" cases 0 flops_arith)

run_result(error 2 pair.cpu.fp32.json ${pair} --case nosuch)
expect_json(error "${result}" "error" status)
expect_present(error "${result}" error)

run_result(skipped 0 decline.cpu.fp32.json "${DECLINE}" --manifest "${DECLINE_MANIFEST}" ${common}
  --baseline-dir "${WORK}/none")
set(skipped "${result}")
expect_present(skipped "${result}" cases 1 skipped)

get_filename_component(pair_dir "${PAIR}" DIRECTORY)
run_result(ab "0;1" pair.cpu.fp32.json ${pair} --case small --ab-base "${pair_dir}" --ab-ref same
  --ab-max-time 1)
set(ab "${result}")
expect_json(ab "${result}" "ab" mode)
expect_json(ab "${result}" "measured" cases 0 latency ab base)
expect_present(ab "${result}" cases 0 latency ab pairs 0 head_ms)

if(MTMAP)
  set(mtmap "${MTMAP}" --manifest "${MTMAP_MANIFEST}" ${common} --baseline-dir "${WORK}/none"
    --case two)
  file(READ "/proc/self/status" status)
  if(status MATCHES "Cpus_allowed_list:[ \t]*([0-9]+)[,-]")
    run_result(threads 0 mtmap.cpu.fp32.json ${mtmap})
    expect_json(threads "${result}" "2" cases 0 threads)
    expect_present(threads "${result}" cases 0 cpus 1)
    expect_present(threads "${result}" cases 0 rounds 0 cpus 1)
    get_filename_component(mtmap_dir "${MTMAP}" DIRECTORY)
    run_result(threads-ab "0;1" mtmap.cpu.fp32.json ${mtmap} --ab-base "${mtmap_dir}"
      --ab-ref same --ab-max-time 1)
    expect_present(threads-ab "${result}" cases 0 latency ab pairs 0 cpus 1)
  else()
    message("threads: this process may use one CPU: no multithreaded case")
  endif()
endif()

set(fault "${FAULT}" --manifest "${FAULT_MANIFEST}" ${common})
set(ENV{KB_TEST_FAULT} "second:segv-check")
run_result(crashed signal fault.cpu.fp32.json ${fault})
set(crashed "${result}")
expect_json(crashed "${result}" "crashed" status)
expect_json(crashed "${result}" "SIGSEGV" in_progress signal)
set(ENV{KB_TEST_FAULT} "second:hang-measure")
run_result(timeout 2 fault.cpu.fp32.json ${fault} --timeout 3)
expect_json(timeout "${result}" "timeout" status)
expect_positive(timeout "${result}" in_progress limit_s)
# Killed outright: what was written before the case began. The first case
# takes well under a second; the kill comes after 6.
execute_process(COMMAND ${fault} --results-dir "${WORK}/running" TIMEOUT 6
  OUTPUT_QUIET ERROR_QUIET)
unset(ENV{KB_TEST_FAULT})
set(result "${WORK}/running/fault.cpu.fp32.json")
list(APPEND produced "${result}")
expect_json(running "${result}" "running" status)
expect_json(running "${result}" "second" in_progress case)

find_program(PERF perf)
if(PERF)
  # perf may be there and refused (perf_event_paranoid): the result, when
  # one is written, is validated whatever the exit status.
  execute_process(COMMAND ${pair} --baseline-dir "${WORK}/none" --case small --variant onepass
    --profile-with perf --results-dir "${WORK}/profile" RESULT_VARIABLE rc OUTPUT_QUIET
    ERROR_QUIET TIMEOUT 120)
  if(EXISTS "${WORK}/profile/pair.cpu.fp32.json")
    list(APPEND produced "${WORK}/profile/pair.cpu.fp32.json")
    if(rc EQUAL 0)
      expect_json(profile "${WORK}/profile/pair.cpu.fp32.json" "perf" profiler tool)
    endif()
  endif()
endif()

# Every result file written here, and nothing else.
file(GLOB written "${WORK}/*/*.json")
list(LENGTH written n_written)
list(LENGTH produced n_produced)
if(NOT n_written EQUAL n_produced)
  message(FATAL_ERROR "result schema: ${n_written} result files under ${WORK}, expected "
    "${n_produced}:\n${written}")
endif()
_kb_validate("results of real runs" ${written})

# ---- 4. planted errors: refused, the schema's words holding `where` (a
# regular expression on "$.<path>: <why>")
# Writes `source` with `op` (SET <path...> <value> or REMOVE <path...>)
# applied to WORK/planted/<name>.json and checks that the schema refuses it.
function(_kb_refused name source where)
  file(READ "${source}" json)
  list(GET ARGN 0 op)
  list(SUBLIST ARGN 1 -1 args)
  string(JSON json ${op} "${json}" ${args})
  set(copy "${WORK}/planted/${name}.json")
  file(WRITE "${copy}" "${json}")
  _kb_run("${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" "${copy}")
  string(REPLACE "${copy}" "" words "${out}") # the file's name is no match
  if(rc EQUAL 0 OR NOT words MATCHES "${where}")
    message(FATAL_ERROR "result schema: ${name}: the schema does not refuse it at '${where}' "
      "(exit ${rc}):\n${out}")
  endif()
  message("result schema: ${name}: refused")
endfunction()

_kb_refused(median-string "${gated}" "[.]median_ms: '0.5' is not of type"
  SET cases 0 median_ms "\"0.5\"")
_kb_refused(median-null "${gated}" "[.]median_ms: None is not of type" SET cases 0 median_ms "null")
_kb_refused(passed-string "${gated}" "[.]passed: 'true' is not of type"
  SET cases 0 passed "\"true\"")
_kb_refused(gbps-negative "${gated}" "[.]gbps: -1 is less than" SET cases 0 gbps "-1")
_kb_refused(seed-fraction "${gated}" "[$][.]seed: 1.5 is not of type" SET seed "1.5")
_kb_refused(tolerance-above "${gated}" "[$][.]latency_tolerance: 11 is greater"
  SET latency_tolerance "11")
_kb_refused(unknown-key "${gated}" "'statsu' was unexpected" SET statsu "\"passed\"")
_kb_refused(unknown-case-key "${gated}" "'median_s' was unexpected" SET cases 0 median_s "1")
_kb_refused(unknown-latency-key "${gated}" "'verdcit' was unexpected"
  SET cases 0 latency verdcit "\"ok\"")
_kb_refused(unknown-round-key "${gated}" "'sample_ms' was unexpected"
  SET cases 0 rounds 0 sample_ms "[1]")
_kb_refused(unknown-environment-key "${gated}" "'gpu' was unexpected" SET environment gpu "\"x\"")
_kb_refused(no-test "${gated}" "'test' is a required" REMOVE test)
_kb_refused(no-cases "${gated}" "'cases' is a required" REMOVE cases)
_kb_refused(no-variant "${gated}" "'variant' is a required" REMOVE cases 0 variant)
_kb_refused(no-rmse "${gated}" "'rmse' is a required" REMOVE cases 0 accuracy rmse)
_kb_refused(no-samples "${gated}" "'samples_ms' is a required" REMOVE cases 0 rounds 0 samples_ms)
_kb_refused(samples-empty "${gated}" "[.]samples_ms: \\[\\] should be non-empty"
  SET cases 0 rounds 0 samples_ms "[]")
_kb_refused(status-pass "${gated}" "[$][.]status: 'pass' is not one of" SET status "\"pass\"")
_kb_refused(status-upper "${gated}" "[$][.]status: 'PASSED' is not one of" SET status "\"PASSED\"")
_kb_refused(verdict-okay "${gated}" "[.]verdict: 'okay' is not one of"
  SET cases 0 latency verdict "\"okay\"")
_kb_refused(timing-word "${gated}" "[.]timing: 'wall' is not one of" SET cases 0 timing "\"wall\"")
_kb_refused(backend-rocm "${gated}" "[$][.]backend: 'rocm' is not one of" SET backend "\"rocm\"")
_kb_refused(passed-no-case "${recorded}" "[$][.]cases: \\[\\] should be non-empty" SET cases "[]")
_kb_refused(skipped-with-figures "${skipped}" "'median_ms' is not one of" SET cases 1 median_ms "1")
_kb_refused(error-and-skipped "${skipped}" "[$][.]cases\\[1\\]: .* should not be valid"
  SET cases 1 error "\"x\"")
_kb_refused(ab-base-word "${ab}" "[.]ab[.]base: 'ready' is not one of"
  SET cases 0 latency ab base "\"ready\"")
_kb_refused(ab-pair-key "${ab}" "'head' was unexpected" SET cases 0 latency ab pairs 0 head "1")
_kb_refused(ab-pair-order "${ab}" "[.]order: 'head-base' is not one of"
  SET cases 0 latency ab pairs 0 order "\"head-base\"")
_kb_refused(stage-word "${crashed}" "[.]stage: 'checking' is not one of"
  SET in_progress stage "\"checking\"")
_kb_refused(signal-word "${crashed}" "[.]signal: 'SIGKILL' is not one of"
  SET in_progress signal "\"SIGKILL\"")
_kb_refused(crashed-no-in-progress "${crashed}" "'in_progress' is a required" REMOVE in_progress)
message("result schema: every planted error refused")
