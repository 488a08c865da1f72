# Checks that every C source of the project follows .clang-format (cmake -P).
# Inputs: CLANG_FORMAT (path, or empty when not found), SOURCE_DIR, and
# FORMAT_MAJOR: the clang-format major version the tree is formatted with.
# Other versions format some constructs differently, so with one of them the
# check skips (the test matches "kbench-skip:") rather than fail on style
# drift between releases.

if(NOT CLANG_FORMAT)
  message("kbench-skip: clang-format not found (Debian/Ubuntu: apt-get install clang-format)")
  return()
endif()
execute_process(COMMAND "${CLANG_FORMAT}" --version OUTPUT_VARIABLE version)
if(NOT version MATCHES "version ([0-9]+)\\.")
  message(FATAL_ERROR "format check: cannot read the version of ${CLANG_FORMAT}: ${version}")
endif()
if(NOT CMAKE_MATCH_1 EQUAL FORMAT_MAJOR)
  message("kbench-skip: clang-format ${CMAKE_MATCH_1} found; the tree is formatted with "
          "clang-format ${FORMAT_MAJOR}")
  return()
endif()

set(globs)
foreach(dir benchtests kernels reference examples)
  foreach(ext c h cu cuh)
    list(APPEND globs "${SOURCE_DIR}/${dir}/*.${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE sources ${globs})
if(NOT sources)
  message(FATAL_ERROR "format check: no sources found under ${SOURCE_DIR}")
endif()
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${sources}
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE out)
list(LENGTH sources n)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out}\nformat check: files above differ from .clang-format; "
          "run: clang-format -i <file>")
endif()
message("format check: ${n} files follow .clang-format")
