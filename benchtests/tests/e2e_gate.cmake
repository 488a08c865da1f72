# End-to-end test of the gate on a real kernel (cmake -P):
#   1. record a fresh baseline into a scratch directory     -> exit 0
#   2. re-run against it                                     -> exit 0
#   3. against a copy with every _ms value x 0.25 (4x slower) -> exit 1, regression message
#   4. against a copy 4x slower whose recorded machine probe figures (probe_*)
#      are 8x what they are now: the machine explains it      -> exit 0, drift note
#   5. against a copy with every rmse shifted by +0.01       -> exit 1, drift message
#   6. against a copy 4x slower whose calls were timed another way (held
#      GPU calls, where this CPU run's are host-timed)    -> exit 0, other_timing
#   7. recording with a tolerance finer than its rounds' noise -> exit 0, recorded
#      after three attempts to gate at that noise, and saying so
# Inputs: DRIVER (kbench-<kernel>), TOOL (kbench-baseline), WORK (scratch dir).

foreach(var DRIVER TOOL WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_gate.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
# The kernel's own variant: swish's oneDNN variant would double every count.
set(common --precision fp32 --case n32k --variant default --profile e2e
  --results-dir "${WORK}/results")

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

function(derive what factor in out)
  execute_process(COMMAND "${TOOL}" ${what} ${factor} "${in}" "${out}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kbench-baseline ${what} failed")
  endif()
endfunction()

set(dir "${WORK}/baselines")
set(base "${dir}/e2e/swish.json")

run_driver("record" 0 --baseline-dir "${dir}" --update-baselines)
expect_text("record" "recorded 1 of 1 cases")
if(NOT EXISTS "${base}")
  message(FATAL_ERROR "record: ${base} was not written")
endif()
file(READ "${base}" recorded)
# The machine model: every CPU probe figure, and what bounds the case with
# the intensity and balance it was decided by. Which bound it is depends on
# the build (a -O0 coverage build's multiply-adds are slower than its
# streaming) and the machine, so only that one was recorded is checked here;
# the rule itself is unit-tested (kbench.unit.model, kbench.unit.gate).
foreach(key probe_gbps probe_copy_gbps probe_madd_gflops probe_chain_gsteps)
  if(NOT recorded MATCHES "\"${key}\": [0-9]")
    message(FATAL_ERROR "record: ${base} has no ${key} (the machine probe at recording)")
  endif()
endforeach()
if(NOT recorded MATCHES "\"bound\": \"(memory|compute)\"" OR
   NOT recorded MATCHES "\"balance\": [0-9]*\\.?[0-9]*[1-9]" OR
   NOT recorded MATCHES "\"intensity\": 0\\.5[,\n]")
  message(FATAL_ERROR "record: ${base} lacks the case's bound, the machine's balance or the "
    "case's intensity (0.5 flop per byte for swish fp32):\n${recorded}")
endif()
# The recording's five rounds went round three processes (the default):
# the spread between processes is in the recorded round medians.
if(NOT recorded MATCHES "\"processes\": 3[,\n]")
  message(FATAL_ERROR "record: ${base} does not say its rounds came from 3 processes:\n${recorded}")
endif()
if(NOT recorded MATCHES "\"timing\": \"host\"")
  message(FATAL_ERROR "record: ${base} does not say how the calls were timed (host):\n${recorded}")
endif()

run_driver("same code, fresh baseline" 0 --baseline-dir "${dir}")
expect_text("same code" "passed")

# The simulated slowdowns are 4x: the gate calls a slowdown real only when
# it exceeds the tolerance plus half the samples' p10-p90 spread, and on a
# loaded 2-vCPU machine this 10 us case has shown a spread of 264 %, under
# which a 2x slowdown is rightly "not significant" (and the step's expected
# outcome would not come). 4x stays significant up to a spread of about 580 %.
derive(scale-ms 0.25 "${base}" "${WORK}/slow.json")
run_driver("simulated 4x slowdown" 1 --baseline "${WORK}/slow.json")
expect_text("slowdown" "FAIL latency")
expect_text("slowdown" "confirmation rounds")
expect_text("slowdown" "probe scale baseline")
if(NOT step_output MATCHES "((memory|compute)-bound|near the ridge) \\(recorded: (memory|compute)")
  message(FATAL_ERROR "slowdown: the failure block does not say what bounds the case:\n${step_output}")
endif()
if(CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
  # Each confirmation round names the CPU it ran on (rounds rotate over them).
  expect_text("slowdown" ", cpu ")
endif()
if(step_output MATCHES "build:      the baseline was recorded")
  message(FATAL_ERROR "slowdown: a baseline of this build is said to be of another:\n${step_output}")
endif()

# The same slowdown against a baseline an unoptimised build recorded: the
# failure block says the builds differ, and the result JSON holds both.
file(READ "${WORK}/slow.json" slow)
string(REGEX REPLACE "\"c_flags\": \"[^\"]*\"" "\"c_flags\": \"-g -ffp-contract=off\"" slow "${slow}")
file(WRITE "${WORK}/slow_O0.json" "${slow}")
run_driver("slowdown against an unoptimised build's baseline" 1 --baseline "${WORK}/slow_O0.json")
expect_text("unoptimised build" "build:      the baseline was recorded by a build with -O0 -ffp-contract=off")
expect_json("unoptimised build" "${WORK}/results/swish.cpu.fp32.json" "-O0 -ffp-contract=off"
  optimisation baseline)

# A 4x slowdown, with the machine's bandwidth at recording set 8x higher
# than it is: the machine explains the slowdown, so the case passes and
# says why.
derive(scale-ms 0.25 "${base}" "${WORK}/slower.json")
derive(scale-probe 8 "${WORK}/slower.json" "${WORK}/machine.json")
run_driver("slowdown the machine explains" 0 --baseline "${WORK}/machine.json")
expect_text("machine explains" "machine slower by as much")

derive(shift-rmse 0.01 "${base}" "${WORK}/drift.json")
run_driver("simulated accuracy drift" 1 --baseline "${WORK}/drift.json")
expect_text("drift" "rmse drifted from the baseline")

# A 4x slowdown against a baseline whose calls were timed another way (a
# GPU's held calls): a slowdown timed unlike the baseline is not failed,
# and the table, its note and the result say so.
derive(scale-ms 0.25 "${base}" "${WORK}/slow_held.json")
file(READ "${WORK}/slow_held.json" held)
string(REPLACE "\"timing\": \"host\"" "\"timing\": \"held\"" held "${held}")
file(WRITE "${WORK}/slow_held.json" "${held}")
run_driver("baseline timed another way" 0 --baseline "${WORK}/slow_held.json")
expect_text("timed another way" "ok (slower, timed unlike baseline)")
expect_text("timed another way" "timed host against a baseline timed held")
expect_json("timed another way" "${WORK}/results/swish.cpu.fp32.json" "other_timing" cases 0
  latency verdict)
expect_json("timed another way" "${WORK}/results/swish.cpu.fp32.json" "held" cases 0 latency
  baseline_timing)
expect_json("timed another way" "${WORK}/results/swish.cpu.fp32.json" "host" cases 0 timing)

# A tolerance of 0.01 % no real rounds meet: the case is measured again
# twice (three attempts), recorded all the same with the steadiest
# attempt, and set to gate at the noise of its rounds, which the table
# note, the summary line and the result say.
run_driver("finer than the noise" 0 --baseline-dir "${dir}" --update-baselines
  --latency-tolerance 0.0001)
expect_text("finer than the noise" "recorded 1 of 1 cases")
expect_text("finer than the noise" "1 gate coarser than the 0 % tolerance")
if(NOT step_output MATCHES
    "n32k default: recorded to gate at [0-9.]+ %, not 0 %: the noise of its rounds \\(attempts' noise [0-9.]+ %, [0-9.]+ %, [0-9.]+ %; attempt [123] kept\\)")
  message(FATAL_ERROR "finer than the noise: no note of the case's tolerance and its three "
    "attempts:\n${step_output}")
endif()
expect_json("finer than the noise" "${WORK}/results/swish.cpu.fp32.json" "recorded" cases 0
  latency verdict)
file(READ "${WORK}/results/swish.cpu.fp32.json" result)
string(JSON tolerance GET "${result}" cases 0 latency tolerance)
string(JSON noise GET "${result}" cases 0 latency record_noise)
string(JSON attempts LENGTH "${result}" cases 0 latency attempt_noise)
if(NOT tolerance EQUAL noise OR NOT attempts EQUAL 3)
  message(FATAL_ERROR "finer than the noise: tolerance ${tolerance} is not the record noise "
    "${noise}, or ${attempts} attempts instead of 3")
endif()
file(READ "${base}" recorded)
string(JSON kept_rounds LENGTH "${recorded}" entries cpu.fp32.default.n32k round_medians_ms)
if(NOT kept_rounds EQUAL 5)
  message(FATAL_ERROR "finer than the noise: the baseline holds ${kept_rounds} round medians, "
    "not the kept attempt's 5:\n${recorded}")
endif()

message("e2e gate: all seven steps behaved as expected")
