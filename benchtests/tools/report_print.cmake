# Run by ctest after its own summary (CTEST_CUSTOM_POST_TEST, written into the
# build tree's CTestCustom.cmake): prints the headline of the run report that
# kbench.report wrote during this ctest run, once. Without such a report (a
# run of unit tests only) it prints nothing.
if(NOT DEFINED OUT OR NOT EXISTS "${OUT}/.pending")
  return()
endif()
file(REMOVE "${OUT}/.pending")
if(EXISTS "${OUT}/summary.txt")
  file(READ "${OUT}/summary.txt" headline)
  message("\n${headline}")
endif()
