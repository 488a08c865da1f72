# kbench.report (cmake -DREPORT=<kbench-report> -DRESULTS=<results dir>
# -DOUT=<report dir> -P ...): the cleanup fixture every timed test requires,
# so it runs after them whatever their outcome. Writes the run report of the
# results written since kbench.session marked the run's start, and flags it
# for ctest to print after its own summary (report_print.cmake). Fails only
# when the report cannot be written; failed tests fail on their own.
#
# With -DPRINT=ON (the `report` target): the report of the last ctest run
# again (every result, when no run was marked), with its table, and no flag.
foreach(var REPORT RESULTS OUT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "report_run.cmake: -D${var}=... is required")
  endif()
endforeach()
set(session "${RESULTS}/.session")
set(since --since "${session}")
if(NOT EXISTS "${session}")
  if(NOT PRINT)
    message(FATAL_ERROR "kbench.report: ${session} is missing: kbench.session did not run first")
  endif()
  set(since "")
endif()

# A run whose every test skipped (no GPU) or could not start leaves no
# result: nothing to report, and nothing failed here.
file(GLOB results LIST_DIRECTORIES false "${RESULTS}/*.json")
set(fresh 0)
foreach(result IN LISTS results)
  if(NOT since OR "${result}" IS_NEWER_THAN "${session}")
    math(EXPR fresh "${fresh} + 1")
  endif()
endforeach()
if(fresh EQUAL 0)
  message("kbench.report: no test of this run left a result in ${RESULTS} "
    "(every one skipped, or none ran): no report")
  return()
endif()

execute_process(COMMAND "${REPORT}" "${RESULTS}" --out "${OUT}" ${since} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kbench.report: kbench-report failed (${rc}): no report in ${OUT}")
endif()
if(NOT PRINT)
  file(TOUCH "${OUT}/.pending")
endif()
