# Steps shared by the packaging checks (install_check.cmake,
# subproject_check.cmake, kernel_dirs_check.cmake): run_step and the JSON
# helpers of the end-to-end scripts, plus configure/build/ctest of a project
# with this build's generator and compilers.
include("${CMAKE_CURRENT_LIST_DIR}/../e2e_steps.cmake")

foreach(var SOURCE BUILD WORK GENERATOR C_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "-D${var}=... is required")
  endif()
endforeach()

# A run that is not gated on anyone's baselines, whatever the caller's
# environment says.
foreach(var KBENCH_BASELINE_DIR KBENCH_PROFILE KBENCH_UPDATE_BASELINES KBENCH_AB_BASE)
  unset(ENV{${var}})
endforeach()

# Configures `src` into `bin` (fresh) with this build's generator and C
# compiler and the extra -D arguments in ARGN, expecting exit `expect_rc`.
function(configure_project label expect_rc src bin)
  file(REMOVE_RECURSE "${bin}")
  run_step("${label}" ${expect_rc} "${CMAKE_COMMAND}" -S "${src}" -B "${bin}" -G "${GENERATOR}"
    "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_BUILD_TYPE=Release ${ARGN})
  set(step_output "${step_output}" PARENT_SCOPE)
endfunction()

# Fails unless `ctest -N` in `bin` lists every test named in ARGN.
function(expect_tests label bin)
  run_step("${label}: ctest -N" 0 ctest --test-dir "${bin}" -N)
  foreach(test IN LISTS ARGN)
    string(REPLACE "." "[.]" pattern "${test}")
    if(NOT step_output MATCHES "Test +#[0-9]+: ${pattern}\n")
      message(FATAL_ERROR "${label}: no test '${test}' registered in ${bin}")
    endif()
  endforeach()
endfunction()

# Fails naming the file and the text when a file under ARGN (directories or
# files) holds `path` other than as the start of a path under one of the
# `allowed` prefixes (a ;-list): what a build must not bake into what it
# installs or links.
function(expect_no_path label path allowed)
  execute_process(COMMAND grep -raoF "${path}" ${ARGN} OUTPUT_VARIABLE hits ERROR_QUIET)
  if(hits STREQUAL "")
    return()
  endif()
  # Each hit again, with the path characters after it.
  string(REGEX REPLACE "([][.+*?^$()|\\\\])" "\\\\\\1" escaped "${path}")
  execute_process(COMMAND grep -raoE "${escaped}[A-Za-z0-9_./+-]*" ${ARGN} OUTPUT_VARIABLE hits)
  string(REPLACE "\n" ";" hits "${hits}")
  foreach(hit IN LISTS hits)
    string(REGEX REPLACE "^([^:]*):(.*)$" "\\2" where "${hit}")
    set(ok OFF)
    foreach(prefix IN LISTS allowed)
      string(FIND "${where}" "${prefix}" at)
      if(at EQUAL 0)
        set(ok ON)
      endif()
    endforeach()
    if(NOT ok AND NOT hit STREQUAL "")
      message(FATAL_ERROR "${label}: ${hit}: holds kbench's source path ${path}")
    endif()
  endforeach()
endfunction()

# expect_text for CMake's own messages, which it wraps: compared with the
# line breaks and indents gone.
function(expect_said label text)
  string(REGEX REPLACE "\n *" " " flat "${step_output}")
  string(FIND "${flat}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${label}: the output does not say '${text}'")
  endif()
endfunction()

# The value of property `prop` of test `test` in `bin` (ctest's JSON listing);
# fails when the test or the property is not there.
function(test_property out bin test prop)
  execute_process(COMMAND ctest --test-dir "${bin}" --show-only=json-v1 OUTPUT_VARIABLE json
    RESULT_VARIABLE rc)
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" tests)
  if(NOT rc EQUAL 0 OR err)
    message(FATAL_ERROR "ctest --show-only=json-v1 in ${bin} failed: ${err}")
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" tests ${i} name)
    if(NOT name STREQUAL test)
      continue()
    endif()
    string(JSON np LENGTH "${json}" tests ${i} properties)
    math(EXPR plast "${np} - 1")
    foreach(j RANGE ${plast})
      string(JSON pname GET "${json}" tests ${i} properties ${j} name)
      if(pname STREQUAL prop)
        string(JSON value GET "${json}" tests ${i} properties ${j} value)
        set(${out} "${value}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  message(FATAL_ERROR "${bin}: no test '${test}' with property ${prop}")
endfunction()
