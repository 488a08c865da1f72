# KBENCH_COVERAGE: line coverage of the harness (docs/cdash.md).
#
# The harness, its tools and self-tests (everything under benchtests/) are
# compiled with gcov instrumentation and without optimisation, so every line
# maps to code; the kernels keep their flags, because their timings are what
# the perf tests measure. Everything links libgcov. After a test run,
# `cmake --build <build> --target coverage` writes Cobertura XML and an HTML
# report with gcovr and fails when the harness's line coverage is below
# KBENCH_COVERAGE_FLOOR.

option(KBENCH_COVERAGE "Build the harness with gcov instrumentation and add a 'coverage' target (gcovr)" OFF)
set(KBENCH_COVERAGE_FLOOR 88 CACHE STRING
  "Minimum line coverage (percent) of the harness that the 'coverage' target accepts")

# Compile options for the directory that holds the harness (benchtests/).
function(kbench_coverage_instrument_directory)
  if(KBENCH_COVERAGE)
    add_compile_options(-O0 -g --coverage)
  endif()
endfunction()

if(KBENCH_COVERAGE)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "KBENCH_COVERAGE needs GCC (gcov); the C compiler is "
      "${CMAKE_C_COMPILER_ID}")
  endif()
  if(NOT KBENCH_COVERAGE_FLOOR MATCHES "^[0-9]+([.][0-9]+)?$" OR KBENCH_COVERAGE_FLOOR GREATER 100)
    message(FATAL_ERROR "KBENCH_COVERAGE_FLOOR: expected a percentage, got '${KBENCH_COVERAGE_FLOOR}'")
  endif()
  find_program(KBENCH_GCOVR gcovr)
  if(NOT KBENCH_GCOVR)
    message(FATAL_ERROR "KBENCH_COVERAGE=ON needs gcovr. On Debian/Ubuntu: apt-get install gcovr")
  endif()
  # The gcov that reads this compiler's .gcda files (gcov-12 for gcc-12).
  get_filename_component(_kb_cc_dir "${CMAKE_C_COMPILER}" DIRECTORY)
  find_program(KBENCH_GCOV NAMES gcov-${CMAKE_C_COMPILER_VERSION_MAJOR} gcov
    HINTS "${_kb_cc_dir}")
  if(NOT KBENCH_GCOV)
    message(FATAL_ERROR "KBENCH_COVERAGE=ON needs gcov (it comes with gcc)")
  endif()
  # libgcov in every executable that holds instrumented objects (nvcc, the
  # CUDA drivers' linker, takes the library rather than the gcc flag).
  add_link_options($<$<LINK_LANGUAGE:C,CXX>:--coverage> $<$<LINK_LANGUAGE:CUDA>:-lgcov>)
endif()

# The 'coverage' target; call once, after every target is defined.
function(kbench_add_coverage_target)
  if(NOT KBENCH_COVERAGE)
    return()
  endif()
  set(out "${PROJECT_BINARY_DIR}/coverage")
  add_custom_target(coverage
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${out}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out}"
    # Only this build's .gcda files: gcovr searches --root (the sources) by
    # default, and with it any other build tree inside them, whose files of
    # other versions of the same sources it cannot merge.
    COMMAND "${KBENCH_GCOVR}" "${PROJECT_BINARY_DIR}"
      --root "${PROJECT_SOURCE_DIR}"
      --object-directory "${PROJECT_BINARY_DIR}"
      --gcov-executable "${KBENCH_GCOV}"
      --filter "${PROJECT_SOURCE_DIR}/benchtests/src/"
      --filter "${PROJECT_SOURCE_DIR}/benchtests/tools/"
      --exclude-unreachable-branches
      --xml-pretty --xml "${out}/coverage.xml"
      --html-details "${out}/index.html"
      --txt "${out}/coverage.txt"
      --print-summary
      --fail-under-line "${KBENCH_COVERAGE_FLOOR}"
    WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
    USES_TERMINAL
    COMMENT "Harness line coverage (floor ${KBENCH_COVERAGE_FLOOR} %): ${out}/index.html")
endfunction()
