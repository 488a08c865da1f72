# kbench.results_schema (cmake -P): every result file this ctest run's timed
# tests wrote (RESULTS, newer than kbench.session's mark) validated against
# the result file's schema (SCHEMA) with check-jsonschema (CHECK_JSONSCHEMA).
# A cleanup of the run like kbench.report, so it sees every result the run
# produced, whatever their tests' outcome.
foreach(var SCHEMA RESULTS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "results_schema_run.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CHECK_JSONSCHEMA)
  message("kbench-skip: check-jsonschema not found (.ci/install-deps.sh installs it into "
    "~/.cache/kbench/ci-venv): this run's results are not checked against ${SCHEMA}")
  return()
endif()
set(session "${RESULTS}/.session")
if(NOT EXISTS "${session}")
  message(FATAL_ERROR "kbench.results_schema: ${session} is missing: kbench.session did not run first")
endif()
file(GLOB results LIST_DIRECTORIES false "${RESULTS}/*.json")
set(fresh "")
foreach(result IN LISTS results)
  if("${result}" IS_NEWER_THAN "${session}")
    list(APPEND fresh "${result}")
  endif()
endforeach()
list(LENGTH fresh n)
if(n EQUAL 0)
  message("kbench-skip: no test of this run left a result in ${RESULTS}: nothing to check")
  return()
endif()
execute_process(COMMAND "${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" ${fresh}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kbench.results_schema: results of this run do not follow ${SCHEMA}:\n${out}")
endif()
message("kbench.results_schema: ${n} results of this run follow ${SCHEMA}")
