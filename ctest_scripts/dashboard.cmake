# kbench CDash dashboard: configure, build, test (and optionally coverage and
# memcheck) one build of this checkout and submit every step to CDash.
#
#   KBENCH_CDASH_SUBMIT_URL=https://cdash.example.org/submit.php?project=kbench \
#   KBENCH_CDASH_TOKEN=<token> \
#   ctest -S ctest_scripts/dashboard.cmake -DKBENCH_MODEL=Nightly -DKBENCH_BACKENDS=cuda
#
# Parameters (-D, or the environment variable of the same name;
# docs/cdash.md has the full table):
#   KBENCH_MODEL           Experimental (default) | Nightly | Continuous
#   KBENCH_GROUP           CDash group/track (default: the model)
#   KBENCH_BACKENDS        ;-list of cpu, cuda, hip (default cpu)
#   KBENCH_SITE, KBENCH_BUILD_NAME   how the dashboard names this build
#   KBENCH_BINARY_DIR      build tree (default <source>/build-dashboard),
#                          emptied first unless KBENCH_FRESH=OFF
#   KBENCH_INITIAL_CACHE   a file of NAME:TYPE=VALUE cache lines
#   KBENCH_CONFIGURE_OPTIONS  ;-list of extra cmake arguments (-DNAME=VALUE)
#   KBENCH_TEST_LABELS, KBENCH_TEST_INCLUDE, KBENCH_TEST_EXCLUDE_LABELS
#                          which tests run (label regex, name regex,
#                          excluded labels; default excludes full, dashboard)
#   KBENCH_COVERAGE=ON     gcov build, ctest_coverage, gcovr report + floor
#   KBENCH_MEMCHECK=ON     valgrind memcheck of the unit tests (which then run
#                          under memcheck only, so CDash counts each test once)
#   KBENCH_SUBMIT=OFF      run everything, submit nothing
#   KBENCH_SUBMIT_RETRIES, KBENCH_SUBMIT_RETRY_DELAY   per-file retries after no
#                          answer, a 5xx or an answer that is not CDash's (3,
#                          10 s); none after a 4xx or CDash's <status>ERROR</status>
# The submit URL is CTestConfig.cmake's (KBENCH_CDASH_SUBMIT_URL) and must name
# the CDash project (?project=...): CDash reads it from nowhere else. The token is
# read from the environment only (KBENCH_CDASH_TOKEN), sent as an
# "Authorization: Bearer" header, and never printed.
#
# Exit status: 0 when every step worked, every test passed and CDash answered
# <status>OK</status> to every file; otherwise the script still submits what it
# has, then fails naming the steps that did not and, for each part not taken,
# what the server answered.

cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/dashboard_settings.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/dashboard_steps.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/dashboard_submit.cmake")

set(CTEST_SOURCE_DIRECTORY "${KBENCH_SOURCE_DIR}")
set(CTEST_BINARY_DIRECTORY "${KBENCH_BINARY_DIR}")
set(CTEST_SITE "${KBENCH_SITE}")
set(CTEST_BUILD_NAME "${KBENCH_BUILD_NAME}")
set(CTEST_CONFIGURATION_TYPE "${KBENCH_BUILD_TYPE}")
set(CTEST_BUILD_CONFIGURATION "${KBENCH_BUILD_TYPE}")
set(CTEST_CMAKE_GENERATOR "Unix Makefiles")
set(CTEST_BUILD_FLAGS "-j${KBENCH_BUILD_JOBS}")
set(CTEST_OUTPUT_ON_FAILURE ON)
find_program(CTEST_GIT_COMMAND git)
set(CTEST_UPDATE_COMMAND "${CTEST_GIT_COMMAND}")

if(KBENCH_FRESH AND EXISTS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  ctest_empty_binary_directory("${CTEST_BINARY_DIRECTORY}")
endif()
file(MAKE_DIRECTORY "${CTEST_BINARY_DIRECTORY}")
ctest_start(${KBENCH_MODEL} GROUP "${KBENCH_GROUP}")
_kb_check_submit_url()
_kb_write_initial_cache()
_kb_write_notes()

set(failed "")
if(KBENCH_UPDATE)
  ctest_update(RETURN_VALUE updated)
  if(updated LESS 0)
    list(APPEND failed update)
  elseif(updated EQUAL 0 AND KBENCH_MODEL STREQUAL "Continuous")
    message("dashboard: the checkout has not changed; nothing to build")
    return()
  endif()
endif()

_kb_configure_options(options)
ctest_configure(OPTIONS "${options}" RETURN_VALUE rc)
_kb_submit(Update Configure Notes)
if(NOT rc EQUAL 0)
  _kb_finish("${failed};configure")
endif()

ctest_build(RETURN_VALUE rc NUMBER_ERRORS errors)
_kb_submit(Build)
if(NOT rc EQUAL 0 OR errors GREATER 0)
  _kb_finish("${failed};build")
endif()

_kb_test_arguments(test_args)
ctest_test(${test_args} RETURN_VALUE rc)
_kb_submit(Test)
if(NOT rc EQUAL 0)
  list(APPEND failed tests)
endif()

# The tests memcheck runs are left out of ctest_test (_kb_test_arguments):
# they reach CDash once, from ctest_memcheck, before the coverage is read.
if(KBENCH_MEMCHECK)
  _kb_memcheck(defects)
  _kb_submit(MemCheck)
  if(NOT defects EQUAL 0)
    list(APPEND failed "memcheck (${defects} defects)")
  endif()
endif()

_kb_run_report()

if(KBENCH_COVERAGE)
  _kb_coverage(coverage_ok)
  _kb_submit(Coverage)
  if(NOT coverage_ok)
    list(APPEND failed coverage)
  endif()
endif()

_kb_finish("${failed}")
