# End-to-end test of A/B mode on the test kernel benchtests/tests/ab, built
# with several costs into BIN/<build>/kbench-test-ab (cmake -P; inputs BIN,
# MANIFEST, SOURCE, REPORT, WORK). The base is BIN/base (8 multiply-adds a value):
#   1. same code as the base                     -> exit 0, verdict ok (or
#                                                    inconclusive, never failed)
#   2. 2x the work                               -> exit 1, regression, the rule;
#      kbench-report on its result                -> regressions.md states the A/B rule
#   3. a quarter of the work                     -> exit 0, verdict faster
#   4. output shifted by 0.01                    -> exit 1, rmse drift against the base's
#   5. a base whose source lacks the kernel,     -> exit 0, every case new
#      backend or precision; a base build        -> exit 2, naming it
#      without the driver, or no base directory
#   6. a base whose manifest lacks a case        -> exit 0, that case new, the other ok
#   7. a base speaking another protocol version  -> exit 2, names both versions
#   8. a base that predates the protocol, or     -> exit 2, says so for every case
#      greets otherwise; one that greets without -> killed at the test's time limit,
#      a newline or never answers a case            named
#   9. a base that dies in the middle            -> exit 1, the case errors, says how it ended
#  10. A/B while recording baselines             -> exit 2
#  11. bad A/B options                           -> exit 2, naming the option
#  12. a head that declines a case the base      -> exit 0, that case skipped, the
#      prepares (both prepare it at once)           next one measured against the base
#  13. each side's rounds over 3 processes       -> every pairing of a head and a base
#      (the default), and over 1                    process within the first 9 pairs;
#      a verdict fresh processes do not reach      inconclusive; one they reach stands
#      again
#  14. a base that cannot set its backend up     -> exit 2, the base's reason;
#      base processes answering unalike            -> exit 1, the case an error
#  15. the driver as a partner: it sets its      -> ready and samples; when the setup
#      backend up before serving                    fails it declines with one line

foreach(var BIN MANIFEST SOURCE REPORT WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_ab.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(results "${WORK}/results")
set(result "${results}/ab.cpu.fp32.json")
set(common --manifest "${MANIFEST}" --results-dir "${results}" --profile e2e
  --ab-source "${SOURCE}" --ab-ref e2e-base)

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

function(run_head label expect_rc head base)
  run_step("${label}" ${expect_rc} "${BIN}/${head}/kbench-test-ab" ${common} --ab-base "${base}"
    ${ARGN})
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

# The same code is never failed nor called faster: "ok", or "inconclusive"
# where this build's own processes differ by more than the interval allows
# (under a sanitizer one process of each side ran 7 % faster than the
# others, and the rule may not call that ok).
set(same "^(ok|inconclusive)$")
run_head("same code" 0 same "${BIN}/base")
expect_text("same code" "A/B against e2e-base")
expect_json("same code" "${result}" "ab" mode)
foreach(i 0 1)
  expect_json_matches("same code" "${result}" "${same}" cases ${i} latency verdict)
  expect_json("same code" "${result}" "measured" cases ${i} latency ab base)
  expect_positive("same code" "${result}" cases ${i} latency ab n_pairs)
  expect_positive("same code" "${result}" cases ${i} latency ratio)
endforeach()

run_head("twice the work" 1 slow "${BIN}/base")
expect_text("twice the work" "FAIL latency")
expect_text("twice the work" "the head is slower than the base beyond doubt")
expect_text("twice the work" "fresh ones measured it again")
expect_json("twice the work" "${result}" "regression" cases 0 latency verdict)
# measured again in fresh processes, which found it too
expect_json("twice the work" "${result}" "2" cases 0 latency ab stages)
expect_json("twice the work" "${result}" "regression" cases 0 latency ab first_stage verdict)
expect_json("twice the work" "${result}" "failed" status)
run_step("report of the A/B run" 0 "${REPORT}" "${results}" --out "${WORK}/report")
file(READ "${WORK}/report/regressions.md" regressions)
foreach(text "**Rule: A/B latency regression**" "`e2e-base`" "ratio to base (A/B)")
  string(FIND "${regressions}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "report of the A/B run: regressions.md lacks '${text}':\n${regressions}")
  endif()
endforeach()
file(READ "${WORK}/report/summary.json" summary)
if(NOT summary MATCHES "\"mode\": \"ab\"" OR NOT summary MATCHES "\"ab_pairs\": [0-9]")
  message(FATAL_ERROR "report of the A/B run: summary.json lacks the A/B mode or pairs")
endif()

run_head("a quarter of the work" 0 fast "${BIN}/base")
expect_json("a quarter of the work" "${result}" "faster" cases 0 latency verdict)
expect_text("a quarter of the work" "ok (faster than base)")

run_head("output shifted" 1 drift "${BIN}/base")
expect_text("output shifted" "rmse drifted from the baseline's")

# A kernel the base's source does not have is new: every case "new".
file(MAKE_DIRECTORY "${WORK}/empty" "${WORK}/src-without")
run_step("a kernel the base lacks" 0 "${BIN}/same/kbench-test-ab" --manifest "${MANIFEST}"
  --results-dir "${results}" --profile e2e --ab-source "${WORK}/src-without"
  --ab-base "${WORK}/empty")
expect_text("a kernel the base lacks" "every case new, the base has no such manifest")
expect_json("a kernel the base lacks" "${result}" "new" cases 0 latency verdict)
expect_json("a kernel the base lacks" "${result}" "no driver" cases 0 latency ab base)
# So is a backend its manifest does not declare.
file(READ "${MANIFEST}" manifest_text)
string(JSON other_backend SET "${manifest_text}" backends "[\"hip\"]")
file(RELATIVE_PATH rel "${SOURCE}" "${MANIFEST}")
file(WRITE "${WORK}/src-hip/${rel}" "${other_backend}")
run_step("a backend the base lacks" 0 "${BIN}/same/kbench-test-ab" --manifest "${MANIFEST}"
  --results-dir "${results}" --profile e2e --ab-source "${WORK}/src-hip" --ab-base "${WORK}/empty")
expect_text("a backend the base lacks" "every case new, the base's manifest does not declare this backend")
# And a precision.
string(JSON other_precision SET "${manifest_text}" precisions "[\"fp64\"]")
file(WRITE "${WORK}/src-fp64/${rel}" "${other_precision}")
run_step("a precision the base lacks" 0 "${BIN}/same/kbench-test-ab" --manifest "${MANIFEST}"
  --results-dir "${results}" --profile e2e --ab-source "${WORK}/src-fp64" --ab-base "${WORK}/empty")
expect_text("a precision the base lacks" "every case new, the base's manifest does not declare this precision")
# A base that has the kernel but not its driver was not built, or is not
# the base build's driver directory: an error naming it, never "new".
run_head("no driver in the base" 2 same "${WORK}/empty")
expect_text("no driver in the base" "the base build has no driver ${WORK}/empty/kbench-test-ab")
run_head("no base at all" 2 same "${WORK}/nosuch")
expect_text("no base at all" "--ab-base (KBENCH_AB_BASE) ${WORK}/nosuch: No such file")

# The base's source tree: the same manifest without the "medium" case.
file(READ "${MANIFEST}" manifest_text)
string(JSON manifest_text REMOVE "${manifest_text}" cases 1)
file(RELATIVE_PATH rel "${SOURCE}" "${MANIFEST}")
file(WRITE "${WORK}/src/${rel}" "${manifest_text}")
run_step("a case the base lacks" 0 "${BIN}/same/kbench-test-ab" --manifest "${MANIFEST}"
  --results-dir "${results}" --profile e2e --ab-source "${WORK}/src" --ab-base "${BIN}/base")
expect_json_matches("a case the base lacks" "${result}" "${same}" cases 0 latency verdict)
expect_json("a case the base lacks" "${result}" "new" cases 1 latency verdict)
expect_json("a case the base lacks" "${result}" "no such case" cases 1 latency ab base)

# Bases that are not what the head expects: shell scripts in its place.
function(fake_base name body)
  file(MAKE_DIRECTORY "${WORK}/${name}")
  file(WRITE "${WORK}/${name}/kbench-test-ab" "#!/bin/sh\n${body}\n")
  file(CHMOD "${WORK}/${name}/kbench-test-ab" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()
fake_base(v999 "echo 'kbench-partner 999 ab'; cat >/dev/null")
run_head("another protocol version" 2 same "${WORK}/v999")
expect_text("another protocol version" "protocol version 999, this driver version 3")

# A base older than the protocol fails every case with why, on the console
# and in each case's "error" (the report's failure reason), and the test.
fake_base(old "echo \"kbench: error: unknown option '--partner'\" >&2; exit 2")
run_head("a base without the protocol" 2 same "${WORK}/old")
set(why "${WORK}/old/kbench-test-ab does not speak the A/B partner protocol: it ended without a greeting (exited with status 2")
expect_text("a base without the protocol" "${why}")
expect_text("a base without the protocol" "rebuild the base")
foreach(i 0 1)
  json_get(error "a base without the protocol" "${result}" cases ${i} error)
  string(FIND "${error}" "${why}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "a base without the protocol: case ${i}'s error '${error}' lacks the reason")
  endif()
endforeach()
expect_json("a base without the protocol" "${result}" "error" status)
string(REGEX MATCHALL "FAILED ab[.]cpu[.]fp32  case [a-z]+  variant default\n  error: +base driver [^\n]*does not speak" blocks "${step_output}")
list(LENGTH blocks n_blocks)
if(NOT n_blocks EQUAL 2)
  message(FATAL_ERROR "a base without the protocol: ${n_blocks} case blocks name the reason, not 2")
endif()
fake_base(talks "echo 'kbench-swish 1.0 ready'; cat >/dev/null")
run_head("a base that answers otherwise" 2 same "${WORK}/talks")
expect_text("a base that answers otherwise" "does not speak the A/B partner protocol: it greeted with 'kbench-swish 1.0 ready'")

# Every answer has a limit, bounded by the test's own (--timeout): a base
# that greets without ending the line, or never answers a case, is killed
# and named.
fake_base(unended "printf 'kbench-partner 3 ab'; exec sleep 300")
run_head("a greeting without its newline" 2 same "${WORK}/unended" --timeout 6)
expect_text("a greeting without its newline" "did not greet within 4 s (the test's time limit")
expect_text("a greeting without its newline" "it sent 'kbench-partner 3 ab' without ending the line")
fake_base(mute "echo 'kbench-partner 3 ab'; exec sleep 300")
run_head("a base that never answers a case" 1 same "${WORK}/mute" --timeout 6)
expect_text("a base that never answers a case" "did not answer 'case default small' within")
expect_text("a base that never answers a case" "was stopped earlier: it did not answer")

fake_base(dies "echo 'kbench-partner 3 ab'; read line; exit 3")
run_head("a base that dies" 1 same "${WORK}/dies")
expect_text("a base that dies" "stopped answering case default small (exited with status 3")

run_head("recording in A/B mode" 2 same "${BIN}/base" --update-baselines)
expect_text("recording in A/B mode" "does not record baselines")

run_head("bad pair limits" 2 same "${BIN}/base" --ab-min-pairs 10 --ab-max-pairs 8)
expect_text("bad pair limits" "--ab-min-pairs 10 is above --ab-max-pairs 8")
run_head("too few pairs to decide" 2 same "${BIN}/base" --ab-min-pairs 6 --ab-max-pairs 5)
expect_text("too few pairs to decide" "--ab-max-pairs 5: below 6, the fewest pairs")
run_head("bad pair count" 2 same "${BIN}/base" --ab-max-pairs 65)
expect_text("bad pair count" "--ab-max-pairs")

# The base prepares each case while the head does; a head that then
# declines the case must still take the base's answer and release it, or
# the next case would read the wrong line.
run_head("the head declines a case" 0 declines "${BIN}/base")
expect_json("the head declines a case" "${result}" "this build declines n = 8192" cases 0 skipped)
expect_json_matches("the head declines a case" "${result}" "${same}" cases 1 latency verdict)
expect_json("the head declines a case" "${result}" "measured" cases 1 latency ab base)

# Every pairing of a head process (0: the test's own) with a base process
# comes once in the first 9 pairs (the "same code" run above).
run_head("three processes a side" 0 same "${BIN}/base")
expect_json("three processes a side" "${result}" "3" cases 0 latency ab processes)
set(pairings "")
foreach(k RANGE 8)
  json_get(h "three processes a side" "${result}" cases 0 latency ab pairs ${k} head_process)
  json_get(b "three processes a side" "${result}" cases 0 latency ab pairs ${k} base_process)
  list(APPEND pairings "${h}${b}")
endforeach()
list(REMOVE_DUPLICATES pairings)
list(LENGTH pairings n_pairings)
if(NOT n_pairings EQUAL 9)
  message(FATAL_ERROR "three processes a side: the first 9 pairs paired ${pairings}, not all 9")
endif()
run_head("one process a side" 0 same "${BIN}/base" --ab-processes 1)
expect_json("one process a side" "${result}" "1" cases 0 latency ab processes)
expect_json("one process a side" "${result}" "0" cases 0 latency ab pairs 1 head_process)
run_head("too many processes" 2 same "${BIN}/base" --ab-processes 9)
expect_text("too many processes" "--ab-processes")

# A base whose device cannot be set up (a GPU base given a device that is
# not there) says so in place of its greeting.
fake_base(nodevice "echo 'error no cuda device 3 (1 present)'; cat >/dev/null")
run_head("a base without its device" 2 same "${WORK}/nodevice")
expect_text("a base without its device" "cannot serve this test: no cuda device 3 (1 present)")

# The base's processes run one build: one that answers otherwise than the
# others (here the first one started has no such case) is an error, never a
# verdict from some of them.
fake_base(disagree "echo 'kbench-partner 3 ab'
if mkdir '${WORK}/disagree/first' 2>/dev/null; then a=absent; else a='ready 0 0'; fi
while read -r cmd rest; do
  case \$cmd in case) echo \"\$a\" ;; end) echo ended ;; quit) exit 0 ;; *) exit 2 ;; esac
done")
run_head("base processes that disagree" 1 same "${WORK}/disagree")
expect_text("base processes that disagree" "two processes of the same build disagree on the case")

# A verdict the fresh processes do not reach again is no verdict: the first
# three base processes answer as if the base were far faster than the head,
# the three started to confirm it as if far slower.
fake_base(flip "echo 'kbench-partner 3 ab'
n=\$(ls -d '${WORK}/flip/started.'* 2>/dev/null | wc -l)
mkdir '${WORK}/flip/started.'\$\$
if [ \$n -lt 3 ]; then ms=0.000001; else ms=1000; fi
while read -r cmd rest; do
  case \$cmd in case) echo 'ready 0 0' ;; round) echo \"samples 0 0 1 1 \$ms\" ;;
  end) echo ended ;; quit) exit 0 ;; *) exit 2 ;; esac
done")
run_head("fresh processes that disagree" 0 same "${WORK}/flip" --case small)
expect_json("fresh processes that disagree" "${result}" "inconclusive" cases 0 latency verdict)
expect_json("fresh processes that disagree" "${result}" "regression"
  cases 0 latency ab first_stage verdict)

# The driver as a partner, by hand: it sets its backend up as a run does
# before it serves (the CPU backend refuses work before that, as a GPU one
# would fail it), so the case is set up and timed.
file(WRITE "${WORK}/session.txt"
  "case default small\nround -1 0 1 3 0 0.01 0 0 0\nend\nquit\n")
execute_process(COMMAND "${BIN}/base/kbench-test-ab" --partner --manifest "${MANIFEST}"
  INPUT_FILE "${WORK}/session.txt" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("---- the partner by hand: exit ${rc}\n${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "^kbench-partner [0-9]+ ab\nready [^\n]*\nsamples [^\n]*\nended\n$")
  message(FATAL_ERROR "the partner by hand: expected a greeting, ready, samples and ended")
endif()
# When its setup fails it declines with one line the head can report.
execute_process(COMMAND ${CMAKE_COMMAND} -E env KBENCH_REQUIRE_RESOURCE_SPEC=1
  --unset=CTEST_RESOURCE_GROUP_COUNT "${BIN}/base/kbench-test-ab" --partner --manifest "${MANIFEST}"
  INPUT_FILE "${WORK}/session.txt" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("---- a partner whose setup fails: exit ${rc}\n${out}${err}")
if(NOT rc EQUAL 2 OR NOT out MATCHES "^error [^\n]*--resource-spec-file[^\n]*\n$")
  message(FATAL_ERROR "a partner whose setup fails: expected exit 2 and one 'error' line")
endif()

message("e2e ab: all steps behaved as expected")
