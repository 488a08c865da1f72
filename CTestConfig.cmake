# CDash settings. Read at configure time by include(CTest) (for
# `ctest -D Experimental` and `ctest -T Submit` in a build tree) and by
# ctest_start() in the dashboard script ctest_scripts/dashboard.cmake.
#
# No server is written here: the submit URL comes from the cache variable or
# the script's -D variable KBENCH_CDASH_SUBMIT_URL, else from the environment
# variable of the same name, e.g.
#   https://cdash.example.org/submit.php?project=kbench
# Without one, nothing can be submitted (docs/cdash.md).

set(CTEST_PROJECT_NAME "kbench")
set(CTEST_NIGHTLY_START_TIME "01:00:00 UTC")

if(KBENCH_CDASH_SUBMIT_URL)
  set(CTEST_SUBMIT_URL "${KBENCH_CDASH_SUBMIT_URL}")
elseif(NOT "$ENV{KBENCH_CDASH_SUBMIT_URL}" STREQUAL "")
  set(CTEST_SUBMIT_URL "$ENV{KBENCH_CDASH_SUBMIT_URL}")
endif()
