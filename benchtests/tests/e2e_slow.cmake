# End-to-end test of the slow test kernel's slowdown on demand in A/B mode
# (benchtests/tests/slow; cmake -P; inputs DRIVER, MANIFEST, WORK; PYTHON and
# AB_SUMMARY from the environment, optional). KB_TEST_SLOW=<pct>@<dir> slows
# the driver whose executable lies in <dir> (slow.c); the head is a copy of
# DRIVER in WORK/head, the base DRIVER's own directory:
#   1. KB_TEST_SLOW=50@WORK/head                 -> exit 1, every case
#      "regression" (more multiply-adds, and more elements for "memory"),
#      the results still exact; ab_summary.py counts each case caught
#   2. KB_TEST_SLOW unset                         -> exit 0, not a regression
#   3. KB_TEST_SLOW=50@<the base's directory>    -> exit 0, the head "faster"
#   4. malformed values, alone and in A/B mode    -> exit 1, the message names
#      KB_TEST_SLOW and what is wrong
#   5. baseline mode, against a baseline of the unslowed driver:
#      the head slowed                            -> exit 1, "regression",
#        confirmed by a fresh process of the head (its rounds, process 1)
#      only the head's lead process slowed (KB_TEST_SLOW_PROCESS=lead: a
#        placement, not the code)                 -> exit 0, "inconclusive",
#        the fresh process not confirming it
# 50 % is five times the 10 % tolerance: the verdicts hold on a noisy
# machine (a CPU-bound process on every CPU).

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_slow.cmake: -D${var}=... is required")
  endif()
endforeach()
set(PYTHON "$ENV{PYTHON}")
set(AB_SUMMARY "$ENV{AB_SUMMARY}")
unset(ENV{KB_TEST_SLOW})

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/head")
file(COPY "${DRIVER}" DESTINATION "${WORK}/head")
get_filename_component(name "${DRIVER}" NAME)
get_filename_component(base "${DRIVER}" DIRECTORY)
set(head "${WORK}/head/${name}")

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

# The head against the base with KB_TEST_SLOW=`slow` ("" unset), its
# results in WORK/<label>/; ARGN: more driver options.
function(run_ab label expect_rc slow)
  if(slow STREQUAL "")
    unset(ENV{KB_TEST_SLOW})
  else()
    set(ENV{KB_TEST_SLOW} "${slow}")
  endif()
  run_step("${label}" ${expect_rc} "${head}" --manifest "${MANIFEST}" --profile e2e
    --results-dir "${WORK}/${label}" --ab-base "${base}" --ab-ref e2e-unslowed ${ARGN})
  unset(ENV{KB_TEST_SLOW})
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

# ---- 1. the head slowed: caught in every case
run_ab(slowed 1 "50@${WORK}/head")
set(result "${WORK}/slowed/slow.cpu.fp32.json")
expect_json(slowed "${result}" "ab" mode)
foreach(i 0 1 2)
  expect_json(slowed "${result}" "regression" cases ${i} latency verdict)
  expect_json(slowed "${result}" "measured" cases ${i} latency ab base)
  expect_json(slowed "${result}" "0" cases ${i} accuracy rmse)
  expect_json(slowed "${result}" "0" cases ${i} accuracy max_abs_err)
endforeach()
expect_json(slowed "${result}" "memory" cases 2 case)
# the memory case's head checked its grown tensors: 50 % more elements
json_get(elements slowed "${result}" cases 2 accuracy elements)
json_get(n slowed "${result}" cases 2 dims n)
math(EXPR grown "${n} * 3 / 2")
if(NOT elements EQUAL grown)
  message(FATAL_ERROR "slowed: the memory case checked ${elements} elements, expected ${grown}")
endif()
if(PYTHON AND AB_SUMMARY)
  run_step("summary of the slowed run" 0 "${PYTHON}" "${AB_SUMMARY}" --detect "${WORK}/slowed"
    --detect-pct 50)
  foreach(c tiny compute memory)
    expect_text("summary of the slowed run" "| slow.cpu.fp32 | ${c} | 1/1 | regression=1 |")
  endforeach()
  expect_text("summary of the slowed run" "(the head does 50 % more work)")
else()
  message("summary of the slowed run: no python3, ab_summary.py not run")
endif()

# ---- 2. no slowdown
run_ab(unslowed 0 "" --case compute)
json_get(verdict unslowed "${WORK}/unslowed/slow.cpu.fp32.json" cases 0 latency verdict)
if(verdict STREQUAL "regression")
  message(FATAL_ERROR "unslowed: verdict regression against an identical base")
endif()

# ---- 3. the base slowed instead: the head is the faster one
run_ab(base_slowed 0 "50@${base}" --case compute)
expect_json(base_slowed "${WORK}/base_slowed/slow.cpu.fp32.json" "faster" cases 0 latency verdict)

# ---- 4. malformed values: an error, never a run without the slowdown
function(expect_refused label value why)
  set(ENV{KB_TEST_SLOW} "${value}")
  run_step("${label}" 1 "${head}" --manifest "${MANIFEST}" --profile e2e --case tiny
    --results-dir "${WORK}/refused" --baseline-dir "${WORK}/no-baselines" ${ARGN})
  unset(ENV{KB_TEST_SLOW})
  expect_text("${label}" "KB_TEST_SLOW='${value}': ${why}")
  expect_text("${label}" "the implementation reported an error")
endfunction()
expect_refused("no @" "50" "no '@'")
expect_refused("no directory" "50@" "no directory after '@'")
expect_refused("a word" "fifty@${WORK}/head" "'fifty' is not a percentage from 0 to 1000")
expect_refused("a sign" "-5@${WORK}/head" "'-5' is not a percentage")
expect_refused("an exponent" "1e2@${WORK}/head" "'1e2' is not a percentage")
expect_refused("a trailing point" "5.@${WORK}/head" "'5.' is not a percentage")
expect_refused("above 1000" "1000.5@${WORK}/head" "'1000.5' is not a percentage")
expect_refused("a missing directory" "50@${WORK}/missing"
  "directory '${WORK}/missing': No such file or directory")
expect_refused("a file" "50@${MANIFEST}" "'${MANIFEST}' is not a directory")
expect_refused("in A/B mode" "50" "no '@'" --ab-base "${base}")

# ---- 5. baseline mode: a slowdown fails only if a fresh process confirms it
set(baselines "${WORK}/baselines")
run_step("record the unslowed base" 0 "${DRIVER}" --manifest "${MANIFEST}" --profile e2e
  --case compute --results-dir "${WORK}/record" --baseline-dir "${baselines}"
  --update-baselines --latency-tolerance 10)
function(run_gate label expect_rc)
  set(ENV{KB_TEST_SLOW} "50@${WORK}/head")
  run_step("${label}" ${expect_rc} "${head}" --manifest "${MANIFEST}" --profile e2e
    --case compute --results-dir "${WORK}/${label}" --baseline-dir "${baselines}")
  unset(ENV{KB_TEST_SLOW})
  unset(ENV{KB_TEST_SLOW_PROCESS})
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()
run_gate(gated_slowed 1)
set(result "${WORK}/gated_slowed/slow.cpu.fp32.json")
expect_json(gated_slowed "${result}" "regression" cases 0 latency verdict)
expect_json(gated_slowed "${result}" "regression" cases 0 latency fresh_process verdict)
expect_json(gated_slowed "${result}" "1" cases 0 rounds 4 process)
expect_text(gated_slowed "and a fresh process confirmed it")
set(ENV{KB_TEST_SLOW_PROCESS} lead)
run_gate(lead_slowed 0)
set(result "${WORK}/lead_slowed/slow.cpu.fp32.json")
expect_json(lead_slowed "${result}" "inconclusive" cases 0 latency verdict)
json_get(fresh lead_slowed "${result}" cases 0 latency fresh_process verdict)
if(fresh STREQUAL "regression")
  message(FATAL_ERROR "lead_slowed: the fresh process, not slowed, was called slower")
endif()
expect_text(lead_slowed "not in a fresh process")

message("e2e slow: all steps behaved as expected")
