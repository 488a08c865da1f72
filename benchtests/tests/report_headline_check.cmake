# kbench.unit.report_headline (cmake -DREPORT=<kbench-report> -DFIXTURES=<dir
# of result JSONs> -DWORK=<dir> -P ...): the report's headline (summary.txt,
# printed last) names the failed tests and says how many were gated against
# what; with nothing gated it says how to get a gate; --since reads only the
# results written after its file; a --since that does not exist is an error.
foreach(var REPORT FIXTURES WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "report_headline_check.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")

function(report name)
  execute_process(COMMAND "${REPORT}" "${WORK}/${name}" --out "${WORK}/${name}-out" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect what text pattern)
  string(FIND "${text}" "${pattern}" at)
  if(at LESS 0)
    message(FATAL_ERROR "${what}: expected '${pattern}' in:\n${text}")
  endif()
endfunction()

# Every fixture: two failed, every test compared with its baseline.
file(GLOB fixtures "${FIXTURES}/*.json")
file(COPY ${fixtures} DESTINATION "${WORK}/all")
report(all)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "all: kbench-report exited ${rc}: ${err}")
endif()
file(READ "${WORK}/all-out/summary.txt" headline)
expect(all "${headline}" "FAILED: 2 of 10 tests")
expect(all "${headline}" "layernorm.cpu.bf16, softmax.cpu.fp32")
expect(all "${headline}" "Gated: 10 of 10 tests against committed baselines of profile 'fixture'")
expect(all "${out}" "${headline}") # printed last, as written
file(READ "${WORK}/all-out/summary.md" md)
expect(all "${md}" "**Gated: 10 of 10 tests** against committed baselines of profile `fixture`")

# Nothing gated: the way to a gate, as commands.
file(READ "${FIXTURES}/swish.cpu.fp32.json" swish)
string(REPLACE "\"verdict\": \"ok\"" "\"verdict\": \"no_baseline\"" swish "${swish}")
file(WRITE "${WORK}/nogate/swish.cpu.fp32.json" "${swish}")
report(nogate)
file(READ "${WORK}/nogate-out/summary.txt" headline)
expect(nogate "${headline}" "Passed: all 1 tests")
expect(nogate "${headline}" "Gated: 0 of 1 tests; not gated: 1 (1 with no baseline for profile 'fixture')")
expect(nogate "${headline}" "Nothing was gated")
expect(nogate "${headline}" "KBENCH_UPDATE_BASELINES=1 ctest --test-dir build -L cpu")
expect(nogate "${headline}" "build/bin/kbench-ab main -L cpu")

# --since: only what was written after the mark (one ctest run's results).
file(COPY ${fixtures} DESTINATION "${WORK}/since")
execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
file(TOUCH "${WORK}/since/.session")
execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.1)
file(TOUCH "${WORK}/since/gemm.cpu.fp32.json" "${WORK}/since/softmax.cpu.fp32.json")
report(since --since "${WORK}/since/.session")
file(READ "${WORK}/since-out/summary.txt" headline)
expect(since "${headline}" "kbench run report: 2 tests")
expect(since "${headline}" "FAILED: 1 of 2 tests (1 of 7 cases): softmax.cpu.fp32")

# A mark that is not there, and one older than nothing: errors, exit 2.
report(since --since "${WORK}/since/missing")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--since missing: expected exit 2, got ${rc}")
endif()
expect("--since missing" "${err}" "--since ${WORK}/since/missing: No such file or directory")
file(TOUCH "${WORK}/since/.later")
report(since --since "${WORK}/since/.later")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--since newer than every result: expected exit 2, got ${rc}")
endif()
expect("--since newer" "${err}" "no result written since")
message("report headline: every check passed")
