# kbench.session (cmake -DRESULTS=<results dir> -DOUT=<report dir> -P ...):
# the fixture every timed test requires, so it runs first. It marks when this
# run of tests began (RESULTS/.session), so that kbench.report reports the
# results this run wrote and none left by an earlier one, and clears the
# "report not yet printed" flag of an earlier run.
foreach(var RESULTS OUT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "report_session.cmake: -D${var}=... is required")
  endif()
endforeach()
file(MAKE_DIRECTORY "${RESULTS}")
file(TOUCH "${RESULTS}/.session")
file(REMOVE "${OUT}/.pending")
message("kbench: this run's results: ${RESULTS} (report: ${OUT})")
