# kbench.unit.report_headline (cmake -DREPORT=<kbench-report> -DFIXTURES=<dir
# of result JSONs> -DWORK=<dir> -P ...): the report's headline (summary.txt,
# printed last) names the failed tests and says how many were gated against
# what ("committed" baselines only when git tracks them); with nothing gated
# it says how to get a gate, naming the documentation where the results say
# it is; --since reads only the results written after its
# file; a --since that does not exist is an error.
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
# The fixtures name no baseline file: whether it is committed is unknown.
expect(all "${headline}" "Gated: 10 of 10 tests against baselines of profile 'fixture'")
expect(all "${out}" "${headline}") # printed last, as written
file(READ "${WORK}/all-out/summary.md" md)
expect(all "${md}" "**Gated: 10 of 10 tests** against baselines of profile `fixture`")

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
# The documentation is named where the driver said it is.
string(JSON docs SET "${swish}" docs_dir "\"/opt/kbench/share/doc/kbench\"")
file(WRITE "${WORK}/docs/swish.cpu.fp32.json" "${docs}")
report(docs)
file(READ "${WORK}/docs-out/summary.txt" headline)
expect(docs "${headline}" "them (/opt/kbench/share/doc/kbench/baselines.md):")

# Tolerances: a gated run says how many cases gate at the tolerance and
# how many coarser; a recording run how the next run will gate and, for
# cases noisy by drift between rounds, that A/B mode would gate them finer;
# a recording that kept nothing says so.
string(REPLACE "\"verdict\": \"no_baseline\"" "\"verdict\": \"ok\"" gated "${swish}")
string(JSON gated SET "${gated}" cases 0 latency tolerance 0.1)
string(JSON gated SET "${gated}" cases 2 latency tolerance 0.3)
file(WRITE "${WORK}/coarse/swish.cpu.fp32.json" "${gated}")

# A baseline file git tracks is committed; one it does not track is not.
find_program(git git REQUIRED)
set(repo "${WORK}/repo")
file(WRITE "${repo}/baselines/fixture/swish.json" "{}")
file(WRITE "${repo}/baselines/fixture/local.json" "{}")
execute_process(COMMAND "${git}" -C "${repo}" init -q COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${git}" -C "${repo}" add baselines/fixture/swish.json
  COMMAND_ERROR_IS_FATAL ANY)
foreach(which swish local)
  string(JSON tracked SET "${gated}" baseline_file "\"${repo}/baselines/fixture/${which}.json\"")
  file(WRITE "${WORK}/${which}/swish.cpu.fp32.json" "${tracked}")
  report(${which})
  file(READ "${WORK}/${which}-out/summary.txt" headline_${which})
endforeach()
expect(tracked "${headline_swish}" "against committed baselines of profile 'fixture'")
expect(untracked "${headline_local}" "against baselines of profile 'fixture' (1 of them not committed to git)")

# Baselines recorded by a differently optimised build: said after the gate.
string(JSON other SET "${gated}" optimisation "{\"build\": \"-O0\", \"baseline\": \"-O3 -march=native\"}")
file(WRITE "${WORK}/otherbuild/swish.cpu.fp32.json" "${other}")
report(otherbuild)
file(READ "${WORK}/otherbuild-out/summary.txt" headline)
expect(otherbuild "${headline}" "Builds differ: 1 of these tests compared a build with '-O0' against baselines recorded with '-O3 -march=native' (swish.cpu.fp32)")
if(headline_swish MATCHES "Builds differ")
  message(FATAL_ERROR "tracked: the builds are said to differ:\n${headline_swish}")
endif()
report(coarse)
file(READ "${WORK}/coarse-out/summary.txt" headline)
expect(coarse "${headline}" "Tolerance: 1 cases at 10 % and 1 coarser, their baselines being noisier (coarsest 30.0 %: swish.cpu.fp32 n16m default).")
file(READ "${WORK}/coarse-out/summary.md" md)
expect(coarse "${md}" "| **30.0 %** | ok |")
string(REPLACE "\"verdict\": \"no_baseline\"" "\"verdict\": \"recorded\"" recorded "${swish}")
foreach(i 0 1 2 3)
  string(JSON recorded SET "${recorded}" cases ${i} latency tolerance 0.1)
  string(JSON recorded SET "${recorded}" cases ${i} latency record_noise 0.02)
  string(JSON recorded SET "${recorded}" cases ${i} latency record_drift 0.01)
endforeach()
string(JSON recorded SET "${recorded}" cases 3 latency tolerance 0.234)
string(JSON recorded SET "${recorded}" cases 3 latency record_noise 0.234)
string(JSON recorded SET "${recorded}" cases 3 latency record_drift 0.234)
file(WRITE "${WORK}/recorded/swish.cpu.fp32.json" "${recorded}")
report(recorded)
file(READ "${WORK}/recorded-out/summary.txt" headline)
set(want "Baselines were recorded for profile 'fixture' (4 cases; kbench's docs/baselines.md): commit them; ")
string(APPEND want "the next run gates 3 cases at 10 % and 1 coarser, their rounds being noisier ")
string(APPEND want "(coarsest 23.4 %: swish.cpu.fp32 n16m vendor).")
expect(recorded "${headline}" "${want}")
expect(recorded "${headline}" "A/B mode would gate 1 of the coarser finer here")
foreach(i 0 1 2 3)
  string(JSON recorded SET "${recorded}" cases ${i} passed false)
endforeach()
string(JSON recorded SET "${recorded}" status "\"failed\"")
file(WRITE "${WORK}/unrecorded/swish.cpu.fp32.json" "${recorded}")
report(unrecorded)
file(READ "${WORK}/unrecorded-out/summary.txt" headline)
expect(unrecorded "${headline}" "No baseline was recorded: every case of the 1 recording tests failed or was skipped")
if(headline MATCHES "Baselines were recorded")
  message(FATAL_ERROR "unrecorded: the headline says baselines were recorded:\n${headline}")
endif()

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
