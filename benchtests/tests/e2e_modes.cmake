# End-to-end test of two harness modes on the test kernel benchtests/tests/decline
# (cmake -P; inputs DRIVER, MANIFEST, WORK):
#   1. an implementation that declines every case (kb_unsupported)   -> exit 77, its reason
#   2. one that declines one case of two: the other runs and passes -> exit 0, "skipped: why"
#   3. recording skips the declined case                           -> baseline without it
#   4. --cold-cache: one call per sample, variant keyed "+cold"     -> result JSON says so
#   5. a test that must run under a resource spec (KBENCH_GPU_PARALLEL) but
#      was started without one                                       -> exit 2, says why

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_modes.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --results-dir "${WORK}/results" --warmup 0 --min-time 0 --max-time 0.05)

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

run_driver("every case declined" 77 --precision fp16)
expect_text("every case declined" "SKIP: the test kernel declines fp16")

run_driver("one case declined" 0 --precision fp32)
expect_text("one case declined" "skipped: the test kernel declines n = 4096")
set(result "${WORK}/results/decline.cpu.fp32.json")
expect_json("one case declined" "${result}" "the test kernel declines n = 4096" cases 1 skipped)
expect_json("one case declined" "${result}" "ON" cases 0 passed)

# Recorded with --latency-tolerance 10, which no rounds exceed: a noisy
# machine spends no further attempts on a test that is not about recording
# (kbench.e2e.gate is).
run_driver("recording" 0 --precision fp32 --update-baselines --latency-tolerance 10)
expect_text("recording" "recorded 1 of 2 cases")
set(baseline "${WORK}/baselines/e2e/decline.json")
file(READ "${baseline}" json)
string(FIND "${json}" "cpu.fp32.default.small" has_small)
string(FIND "${json}" "large" has_large)
if(has_small EQUAL -1 OR NOT has_large EQUAL -1)
  message(FATAL_ERROR "recording: ${baseline} should hold the small case only:\n${json}")
endif()

run_driver("cold cache" 0 --precision fp32 --case small --cold-cache)
expect_json("cold cache" "${result}" "ON" cold_cache)
expect_json("cold cache" "${result}" "default+cold" cases 0 variant)
expect_json("cold cache" "${result}" "1" cases 0 rounds 0 reps)
expect_json("cold cache" "${result}" "no_baseline" cases 0 latency verdict)
set(ENV{KBENCH_REQUIRE_RESOURCE_SPEC} 1)
unset(ENV{CTEST_RESOURCE_GROUP_COUNT})
run_driver("no resource spec" 2 --precision fp32 --case small)
expect_text("no resource spec" "run ctest with --resource-spec-file")
set(ENV{CTEST_RESOURCE_GROUP_COUNT} 1)
set(ENV{CTEST_RESOURCE_GROUP_0} gpus)
set(ENV{CTEST_RESOURCE_GROUP_0_GPUS} "id:0,slots:1")
run_driver("with a resource spec" 0 --precision fp32 --case small)
message("e2e modes: all steps behaved as expected")
