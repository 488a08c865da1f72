# End-to-end test of the driver's --profile-with (cmake -P; inputs DRIVER
# (kbench-test-pair), MANIFEST, WORK; perf on PATH):
#   1. a baseline recorded: a plain run of the case compares with it
#   2. --profile-with perf on one case and variant -> exit 0, not gated (the
#      baseline is not read, nor written), <results>/<test>.<case>.<variant>
#      .perf.data that `perf report -i` reads, the command in the result
#   3. several cases selected, perf absent from PATH, a "perf" that writes
#      nothing -> exit 2, saying why
# Skipped (kbench-skip:) where perf is missing or cannot record here (e.g.
# kernel.perf_event_paranoid, or a container without perf events).

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_profile.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(results "${WORK}/results")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --warmup 0 --min-time 0 --max-time 0.05 --results-dir "${results}")
include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

find_program(PERF perf)
if(NOT PERF)
  message("kbench-skip: perf not found on PATH (Debian: apt-get install linux-perf)")
  return()
endif()
execute_process(COMMAND "${PERF}" record -g -o "${WORK}/probe.data" -- true
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK}/probe.data")
  message("kbench-skip: perf cannot record here (exit ${rc}): ${err}")
  return()
endif()

# ---- 1. a baseline the plain run compares with
run_driver("record" 0 --update-baselines --latency-tolerance 10)
set(base "${WORK}/baselines/e2e/pair.json")
file(SHA256 "${base}" base_hash)
set(test_name "pair.cpu.fp32")
set(result "${results}/${test_name}.json")
execute_process(COMMAND "${DRIVER}" ${common} --case small --variant onepass OUTPUT_QUIET)
expect_positive("gated" "${result}" cases 0 latency ratio)

# ---- 2. profiled
set(data "${results}/${test_name}.small.onepass.perf.data")
run_driver("profile" 0 --case small --variant onepass --profile-with perf)
expect_text("profile" "perf record -g -o ${data} -- ")
expect_text("profile" "--profiled-by perf")
expect_text("profile" "run under a profiler (--profile-with): latency not gated")
if(NOT EXISTS "${data}")
  message(FATAL_ERROR "profile: ${data} was not written")
endif()
file(SHA256 "${base}" after)
if(NOT after STREQUAL base_hash)
  message(FATAL_ERROR "profile: the run under perf changed the baseline ${base}")
endif()
run_step("perf report" 0 "${PERF}" report -i "${data}" --stdio)
expect_text("perf report" "kbench-test-pa") # the command perf sampled (its name, cut to 15)
expect_json("profile" "${result}" "perf" profiler tool)
expect_json("profile" "${result}" "${data}" profiler output)
expect_json("profile" "${result}" "passed" status)
file(READ "${result}" result_json)
string(JSON n_cases LENGTH "${result_json}" cases)
if(NOT n_cases EQUAL 1)
  message(FATAL_ERROR "profile: ${result} holds ${n_cases} cases, expected the one profiled")
endif()
json_get(command "profile" "${result}" profiler command)
if(NOT command MATCHES "^perf record -g -o .* -- .*kbench-test-pair .*--case small --variant onepass .*--profiled-by perf$"
   OR command MATCHES "--profile-with")
  message(FATAL_ERROR "profile: the recorded command is '${command}'")
endif()
expect_json("profile" "${result}" "no_baseline" cases 0 latency verdict)

# ---- 3. refused
run_driver("several cases" 2 --profile-with perf)
expect_text("several cases" "these options select 4")
expect_text("several cases" "small/onepass")
expect_text("several cases" "choose one with --case NAME and --variant NAME")
file(MAKE_DIRECTORY "${WORK}/empty-path")
run_step("perf absent" 2 ${CMAKE_COMMAND} -E env "PATH=${WORK}/empty-path" "${DRIVER}" ${common}
  --case small --variant onepass --profile-with perf)
expect_text("perf absent" "perf not found on PATH")
file(MAKE_DIRECTORY "${WORK}/fake")
file(WRITE "${WORK}/fake/perf" "#!/bin/sh\nexit 0\n")
file(CHMOD "${WORK}/fake/perf" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
run_step("perf writes nothing" 2 ${CMAKE_COMMAND} -E env "PATH=${WORK}/fake" "${DRIVER}"
  ${common} --case large --variant onepass --profile-with perf)
expect_text("perf writes nothing" "perf exited with status 0 and wrote no")

message("e2e profile: all steps behaved as expected")
