# The steps of dashboard.cmake, one function each (the submission is in
# dashboard_submit.cmake). State shared between them (the uploads, the parts
# that could not be submitted) lives in global properties, so it survives
# function scopes.

# A fresh tree starts from KBENCH_INITIAL_CACHE plus the backends (a cache
# line, because a ;-list cannot travel through ctest_configure's OPTIONS). A
# tree kept with KBENCH_FRESH=OFF keeps its cache.
function(_kb_write_initial_cache)
  set(cache "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  if(EXISTS "${cache}")
    return()
  endif()
  set(text "")
  if(KBENCH_INITIAL_CACHE)
    file(READ "${KBENCH_INITIAL_CACHE}" text)
    string(APPEND text "\n")
  endif()
  string(APPEND text "KBENCH_BACKENDS:STRING=${KBENCH_BACKENDS}\n")
  file(WRITE "${cache}" "${text}")
endfunction()

# Fails before anything is built when the submission could not go anywhere,
# or would send the token in clear text to another host.
function(_kb_check_submit_url)
  if(NOT KBENCH_SUBMIT)
    message("dashboard: KBENCH_SUBMIT=OFF: nothing will be submitted")
    return()
  endif()
  if(NOT CTEST_SUBMIT_URL)
    message(FATAL_ERROR "dashboard: no submit URL: set KBENCH_CDASH_SUBMIT_URL (environment or "
      "-D), e.g. https://cdash.example.org/submit.php?project=kbench, or run with "
      "-DKBENCH_SUBMIT=OFF")
  endif()
  if(NOT CTEST_SUBMIT_URL MATCHES "^https?://[^/]+/")
    message(FATAL_ERROR "dashboard: KBENCH_CDASH_SUBMIT_URL='${CTEST_SUBMIT_URL}': expected "
      "http(s)://host/submit.php?project=...")
  endif()
  # CDash files a submission under the project= of its URL, nothing else
  # (CTEST_PROJECT_NAME is not sent): without one, every file is refused.
  if(NOT CTEST_SUBMIT_URL MATCHES "[?&]project=([^&#]+)")
    message(FATAL_ERROR "dashboard: KBENCH_CDASH_SUBMIT_URL='${CTEST_SUBMIT_URL}' names no CDash "
      "project: CDash takes the project only from the submit URL's (drop location's) project= "
      "parameter, e.g. https://cdash.example.org/submit.php?project=kbench")
  endif()
  message("dashboard: submitting to CDash project '${CMAKE_MATCH_1}', group '${KBENCH_GROUP}'")
  if(NOT KBENCH_GROUP MATCHES "^(Nightly|Continuous|Experimental)$")
    message("dashboard: CDash creates no group: unless the project has a group named "
      "'${KBENCH_GROUP}', the build is shown under Experimental")
  endif()
  set(loopback "^http://(127[.][0-9.]+|localhost|\\[::1\\])(:[0-9]+)?/")
  if(NOT "$ENV{KBENCH_CDASH_TOKEN}" STREQUAL "" AND CTEST_SUBMIT_URL MATCHES "^http://"
     AND NOT CTEST_SUBMIT_URL MATCHES "${loopback}")
    message(FATAL_ERROR "dashboard: refusing to send KBENCH_CDASH_TOKEN over plain http to "
      "another host; use an https:// submit URL")
  endif()
endfunction()

# A note on the dashboard that says how this build was made (never the token).
macro(_kb_write_notes)
  set(_kb_notes "${CTEST_BINARY_DIRECTORY}/kbench-dashboard.txt")
  set(_kb_token_state "not set")
  if(NOT "$ENV{KBENCH_CDASH_TOKEN}" STREQUAL "")
    set(_kb_token_state "set (not shown)")
  endif()
  execute_process(COMMAND "${CTEST_GIT_COMMAND}" -C "${CTEST_SOURCE_DIRECTORY}" describe --always --dirty
    OUTPUT_VARIABLE _kb_commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(WRITE "${_kb_notes}"
    "kbench dashboard\n"
    "model: ${KBENCH_MODEL}\ngroup: ${KBENCH_GROUP}\nbackends: ${KBENCH_BACKENDS}\n"
    "commit: ${_kb_commit}\nbuild type: ${KBENCH_BUILD_TYPE}\n"
    "tests: labels '${KBENCH_TEST_LABELS}', names '${KBENCH_TEST_INCLUDE}', "
    "excluded labels '${KBENCH_TEST_EXCLUDE_LABELS}'\n"
    "coverage: ${KBENCH_COVERAGE}\nmemcheck: ${KBENCH_MEMCHECK}\ntoken: ${_kb_token_state}\n")
  set(CTEST_NOTES_FILES "${_kb_notes}")
endmacro()

function(_kb_configure_options out)
  set(options "-DCMAKE_BUILD_TYPE=${KBENCH_BUILD_TYPE}" "-DKBENCH_COVERAGE=${KBENCH_COVERAGE}"
    ${KBENCH_CONFIGURE_OPTIONS})
  set(${out} "${options}" PARENT_SCOPE)
endfunction()

# A GPU backend's tests get a resource spec naming their GPU
# (docs/resource-spec.md): KBENCH_RESOURCE_SPEC=auto generates one when the
# build has exactly one GPU backend; a path uses that file; none, no spec.
function(_kb_resource_spec out)
  set(${out} "" PARENT_SCOPE)
  if(KBENCH_RESOURCE_SPEC STREQUAL "none")
    return()
  elseif(NOT KBENCH_RESOURCE_SPEC STREQUAL "auto")
    if(NOT EXISTS "${KBENCH_RESOURCE_SPEC}")
      message(FATAL_ERROR "dashboard: KBENCH_RESOURCE_SPEC='${KBENCH_RESOURCE_SPEC}': no such file")
    endif()
    set(${out} "${KBENCH_RESOURCE_SPEC}" PARENT_SCOPE)
    return()
  endif()
  set(gpus ${KBENCH_BACKENDS})
  list(REMOVE_ITEM gpus cpu)
  list(LENGTH gpus n)
  if(NOT n EQUAL 1)
    return()
  endif()
  set(spec "${CTEST_BINARY_DIRECTORY}/resource-spec.json")
  execute_process(COMMAND "${CMAKE_COMMAND}" -DOUTPUT=${spec} -DVENDOR=${gpus}
      -P "${CTEST_SOURCE_DIRECTORY}/cmake/kbench_resource_spec.cmake"
    RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    set(${out} "${spec}" PARENT_SCOPE)
  else()
    message("dashboard: no ${gpus} GPU found for a resource spec; the ${gpus} tests run on "
      "device 0, one at a time")
  endif()
endfunction()

function(_kb_test_arguments out)
  set(args PARALLEL_LEVEL ${KBENCH_TEST_JOBS})
  if(KBENCH_TEST_LABELS)
    list(APPEND args INCLUDE_LABEL "${KBENCH_TEST_LABELS}")
  endif()
  if(KBENCH_TEST_INCLUDE)
    list(APPEND args INCLUDE "${KBENCH_TEST_INCLUDE}")
  endif()
  if(KBENCH_TEST_EXCLUDE_LABELS)
    list(APPEND args EXCLUDE_LABEL "${KBENCH_TEST_EXCLUDE_LABELS}")
  endif()
  _kb_memcheck_tests(memchecked)
  if(memchecked)
    list(APPEND args EXCLUDE "${memchecked}")
  endif()
  _kb_resource_spec(spec)
  if(spec)
    list(APPEND args RESOURCE_SPEC_FILE "${spec}")
  endif()
  set(${out} "${args}" PARENT_SCOPE)
endfunction()

# Whether the build's kernel code may hold instructions valgrind does not
# emulate (AVX-512: the kernels' flags enable it, KBENCH_KERNELS_AVX512 in
# the build's cache). The tests labelled `native` run such code; valgrind
# would stop them at the first one as an unrecognised instruction.
function(_kb_native_unrunnable out)
  set(${out} FALSE PARENT_SCOPE)
  set(cache "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  if(EXISTS "${cache}")
    file(STRINGS "${cache}" line REGEX "^KBENCH_KERNELS_AVX512:[A-Z]+=")
    if(line MATCHES "=(1|ON|TRUE)$")
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

# With KBENCH_MEMCHECK, a regex naming exactly the tests ctest_memcheck will
# run (empty when none). They run under memcheck only: its
# DynamicAnalysis-Test.xml reports them to CDash as tests of the build, so
# running them in ctest_test too would show each of them twice.
function(_kb_memcheck_tests out)
  set(${out} "" PARENT_SCOPE)
  if(NOT KBENCH_MEMCHECK)
    return()
  endif()
  set(filter -L "${KBENCH_MEMCHECK_LABELS}")
  if(KBENCH_MEMCHECK_EXCLUDE)
    list(APPEND filter -E "${KBENCH_MEMCHECK_EXCLUDE}")
  endif()
  _kb_native_unrunnable(unrunnable)
  if(unrunnable)
    list(APPEND filter -LE "^native$")
  endif()
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${CTEST_BINARY_DIRECTORY}"
      --show-only=json-v1 ${filter}
    OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dashboard: could not list the tests to memcheck (ctest exit ${rc})")
  endif()
  string(JSON n LENGTH "${json}" tests)
  set(names "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" tests ${i} name)
      string(REGEX REPLACE "([][.*+?^$(){}|\\\\])" "\\\\\\1" name "${name}")
      list(APPEND names "${name}")
    endforeach()
  endif()
  if(names)
    list(JOIN names "|" names)
    set(${out} "^(${names})$" PARENT_SCOPE)
  endif()
endfunction()

# The run report (kbench-report): printed here, its files uploaded.
function(_kb_run_report)
  set(tool "${CTEST_BINARY_DIRECTORY}/bin/kbench-report")
  set(out "${CTEST_BINARY_DIRECTORY}/kbench-report")
  execute_process(COMMAND "${tool}" "${CTEST_BINARY_DIRECTORY}/kbench-results" --out "${out}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message("dashboard: kbench-report failed (exit ${rc})")
    set_property(GLOBAL APPEND PROPERTY KBENCH_STEP_FAILED report)
    return()
  endif()
  foreach(name summary.md summary.json summary.svg regressions.md)
    if(EXISTS "${out}/${name}")
      set_property(GLOBAL APPEND PROPERTY KBENCH_UPLOADS "${out}/${name}")
    endif()
  endforeach()
endfunction()

# ctest_coverage (CTest's gcov reader, for CDash's coverage pages), then the
# project's gcovr report and line floor (the 'coverage' target), whose
# Cobertura XML and text summary are uploaded.
function(_kb_coverage ok_out)
  load_cache("${CTEST_BINARY_DIRECTORY}" READ_WITH_PREFIX _kb_ KBENCH_GCOV)
  set(CTEST_COVERAGE_COMMAND "${_kb_KBENCH_GCOV}")
  set(CTEST_CUSTOM_COVERAGE_EXCLUDE "/kernels/" "/reference/" "/benchtests/tests/" "^/usr/"
    "${CTEST_BINARY_DIRECTORY}/")
  ctest_coverage(RETURN_VALUE rc CAPTURE_CMAKE_ERROR error)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${CTEST_BINARY_DIRECTORY}" --target coverage
    RESULT_VARIABLE floor_rc)
  foreach(name coverage.xml coverage.txt)
    set(file "${CTEST_BINARY_DIRECTORY}/coverage/${name}")
    if(EXISTS "${file}")
      set_property(GLOBAL APPEND PROPERTY KBENCH_UPLOADS "${file}")
    endif()
  endforeach()
  if(rc EQUAL 0 AND NOT error EQUAL -1 AND floor_rc EQUAL 0)
    set(${ok_out} TRUE PARENT_SCOPE)
  else()
    set(${ok_out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# Valgrind's memcheck over the unit tests (the kernels are built for this
# machine's ISA, which valgrind may not emulate; docs/cdash.md).
function(_kb_memcheck defects_out)
  find_program(valgrind valgrind)
  if(NOT valgrind)
    message(FATAL_ERROR "dashboard: KBENCH_MEMCHECK=ON needs valgrind (apt-get install valgrind)")
  endif()
  set(CTEST_MEMORYCHECK_TYPE Valgrind)
  set(CTEST_MEMORYCHECK_COMMAND "${valgrind}")
  set(CTEST_MEMORYCHECK_COMMAND_OPTIONS
    "--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-origins=yes --num-callers=30")
  _kb_native_unrunnable(unrunnable)
  if(unrunnable)
    message("dashboard: the kernels are built with AVX-512, which valgrind does not emulate: "
      "the tests labelled 'native' run without memcheck (in the Test step)")
  endif()
  _kb_memcheck_tests(tests)
  if(NOT tests)
    message("dashboard: no test matches KBENCH_MEMCHECK_LABELS='${KBENCH_MEMCHECK_LABELS}': "
      "nothing to memcheck")
    set(${defects_out} 0 PARENT_SCOPE)
    return()
  endif()
  ctest_memcheck(INCLUDE "${tests}" PARALLEL_LEVEL ${KBENCH_TEST_JOBS}
    DEFECT_COUNT defects RETURN_VALUE rc)
  if(NOT rc EQUAL 0 AND defects EQUAL 0)
    set(defects "failed tests")
  endif()
  set(${defects_out} "${defects}" PARENT_SCOPE)
endfunction()

# Uploads the report files, submits Upload and Done, then fails naming every
# step that did not work (`failed`, the report, the parts not submitted).
function(_kb_finish failed)
  get_property(uploads GLOBAL PROPERTY KBENCH_UPLOADS)
  if(uploads)
    ctest_upload(FILES ${uploads} QUIET)
  endif()
  _kb_submit(Upload Done)
  get_property(steps GLOBAL PROPERTY KBENCH_STEP_FAILED)
  _kb_submit_failures(parts)
  list(APPEND failed ${steps})
  list(REMOVE_ITEM failed "")
  if(parts)
    list(APPEND failed "submission of ${parts}")
  endif()
  if(failed)
    list(JOIN failed "; " failed)
    message(FATAL_ERROR "dashboard: ${KBENCH_MODEL} ${CTEST_BUILD_NAME}: failed: ${failed}")
  endif()
  message("dashboard: ${KBENCH_MODEL} ${CTEST_BUILD_NAME}: every step passed")
endfunction()
