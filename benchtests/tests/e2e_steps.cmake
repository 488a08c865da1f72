# Steps shared by the end-to-end scripts (include()d by e2e_gate.cmake,
# e2e_modes.cmake, e2e_variants.cmake and e2e_report.cmake): run a command,
# or the driver with the script's ${common} arguments, and check its exit
# status, then look for text in what it printed or for values in the JSON it
# wrote.

# Runs the command ARGN, shows its output and fails unless it exits with
# expect_rc; leaves stdout + stderr in step_output.
function(run_step label expect_rc)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # Measurement tags would be cut out of this test's stored output by CTest;
  # show the step's output without them.
  string(REGEX REPLACE "<CTestMeasurement[^\n]*\n" "" shown "${out}")
  message("---- ${label}: exit ${rc}\n${shown}${err}")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${label}: expected exit ${expect_rc}, got ${rc}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

# run_step on ${DRIVER} ${common} <extra args>.
function(run_driver label expect_rc)
  run_step("${label}" ${expect_rc} "${DRIVER}" ${common} ${ARGN})
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

function(expect_text label text)
  string(FIND "${step_output}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${label}: the output does not contain '${text}'")
  endif()
endfunction()

# The value at a path (e.g. cases 1 variant) of a JSON file; fails when
# the path is not there.
function(json_get out label file)
  file(READ "${file}" json)
  string(JSON value ERROR_VARIABLE err GET "${json}" ${ARGN})
  if(err)
    string(REPLACE ";" "." path "${ARGN}")
    message(FATAL_ERROR "${label}: ${file}: no '${path}': ${err}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(expect_json label file expected)
  json_get(value "${label}" "${file}" ${ARGN})
  if(NOT value STREQUAL expected)
    string(REPLACE ";" "." path "${ARGN}")
    message(FATAL_ERROR "${label}: ${file}: '${path}' is '${value}', expected '${expected}'")
  endif()
endfunction()

# The value at a path must match the regular expression `pattern`.
function(expect_json_matches label file pattern)
  json_get(value "${label}" "${file}" ${ARGN})
  if(NOT value MATCHES "${pattern}")
    string(REPLACE ";" "." path "${ARGN}")
    message(FATAL_ERROR "${label}: ${file}: '${path}' is '${value}', expected '${pattern}'")
  endif()
endfunction()

function(expect_positive label file)
  json_get(value "${label}" "${file}" ${ARGN})
  if(NOT value MATCHES "^[0-9.eE+-]+$" OR value LESS_EQUAL 0)
    string(REPLACE ";" "." path "${ARGN}")
    message(FATAL_ERROR "${label}: ${file}: '${path}' is '${value}', expected a positive number")
  endif()
endfunction()
