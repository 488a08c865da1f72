# kbench.fuzz.smoke (cmake -P): configures benchtests/fuzz as a project of
# its own with clang, builds the libFuzzer harnesses into WORK and runs each
# one from its seed corpus for RUNS inputs or MAX_TIME seconds, whichever
# comes first (docs/fuzzing.md). A crash, a sanitizer report or a leak fails
# the test, naming the harness and the saved input. Without clang or
# libFuzzer the test skips, saying which (the test matches "kbench-skip:").
# Inputs: CLANG (path, or empty/NOTFOUND), SOURCE_DIR (benchtests/fuzz),
# WORK, RUNS, MAX_TIME.

foreach(var CLANG SOURCE_DIR WORK RUNS MAX_TIME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fuzz_smoke.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CLANG OR CLANG MATCHES "-NOTFOUND$")
  message("kbench-skip: clang not found: the fuzzers need clang with libFuzzer "
    "(Debian/Ubuntu: apt-get install clang libclang-rt-dev, or .ci/install-deps.sh fuzz)")
  return()
endif()

file(MAKE_DIRECTORY "${WORK}")
# libFuzzer present? One tiny harness, linked the way the real ones are.
set(probe "${WORK}/probe")
file(MAKE_DIRECTORY "${probe}")
file(WRITE "${probe}/probe.c" "#include <stddef.h>\n#include <stdint.h>\n"
  "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
  "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
execute_process(COMMAND "${CLANG}" -fsanitize=fuzzer,address,undefined "${probe}/probe.c"
    -o "${probe}/probe"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message("kbench-skip: ${CLANG} cannot link -fsanitize=fuzzer,address,undefined (libFuzzer "
    "missing: apt-get install libclang-rt-dev, or libclang-rt-<version>-dev):\n${out}${err}")
  return()
endif()

function(step label)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${out}\nfuzz smoke: ${label} failed (exit ${rc})")
  endif()
endfunction()

set(build "${WORK}/build")
# A fresh configure when the compiler changed; otherwise incremental.
step("configure" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${build}"
  "-DCMAKE_C_COMPILER=${CLANG}" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
step("build" "${CMAKE_COMMAND}" --build "${build}" -j2)

set(failed "")
foreach(harness manifest baseline calibration expr partner)
  set(dict "${SOURCE_DIR}/json.dict")
  if(harness STREQUAL "expr" OR harness STREQUAL "partner")
    set(dict "${SOURCE_DIR}/${harness}.dict")
  endif()
  # New inputs go to a corpus in the build tree; the committed seeds stay
  # as they are.
  set(corpus "${WORK}/corpus/${harness}")
  set(artifacts "${WORK}/artifacts/${harness}")
  file(REMOVE_RECURSE "${corpus}" "${artifacts}")
  file(MAKE_DIRECTORY "${corpus}" "${artifacts}")
  execute_process(
    COMMAND "${build}/fuzz_${harness}" -runs=${RUNS} -max_total_time=${MAX_TIME}
      -seed=1 -print_final_stats=1 -dict=${dict} -artifact_prefix=${artifacts}/
      "${corpus}" "${SOURCE_DIR}/corpus/${harness}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  file(WRITE "${WORK}/fuzz_${harness}.log" "${out}")
  string(REGEX MATCHALL "stat::[a-z_]+: +[0-9]+" stats "${out}")
  # The last status line: coverage (cov:) and features (ft:) at the end.
  string(REGEX MATCHALL "#[0-9]+\t(INITED|DONE)[^\n]*" status "${out}")
  set(last "")
  if(status)
    list(GET status -1 last)
  endif()
  message("fuzz_${harness}: exit ${rc}; ${last}")
  foreach(s IN LISTS stats)
    message("  ${s}")
  endforeach()
  if(NOT rc EQUAL 0)
    file(GLOB crashes "${artifacts}/*")
    string(LENGTH "${out}" n)
    if(n GREATER 6000)
      math(EXPR from "${n} - 6000")
      string(SUBSTRING "${out}" ${from} -1 out)
    endif()
    message("${out}\nfuzz_${harness}: FAILED (exit ${rc}); input: ${crashes}; "
      "log: ${WORK}/fuzz_${harness}.log")
    list(APPEND failed fuzz_${harness})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "fuzz smoke: ${failed} found a crash or a sanitizer report (above)")
endif()
message("fuzz smoke: every harness ran ${RUNS} inputs or ${MAX_TIME} s without a crash")
