# kbench.e2e.install: installs this build to a fresh prefix and builds the
# example consumer (examples/consumer, copied out of the source tree) against
# it with find_package(kbench), then runs the consumer's tests. Fails when the
# installed tree holds kbench's internal headers, when an installed tool does
# not answer --help and -h with its usage, when an installed file or a
# consumer driver holds kbench's source path, when a test the consumer should
# have is missing or fails, or when a result is not written in the consumer's
# build tree, when a multi-config build does not record each configuration,
# and when a consumer without the C language is not told so.
#
#   cmake -DSOURCE=<kbench source> -DBUILD=<kbench build> -DWORK=<dir>
#     -DGENERATOR=<generator> -DC_COMPILER=<cc> [-DBINARIES_HOLD_PATHS=ON]
#     -P install_check.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
run_step("install" 0 "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${prefix}")

# The public headers only: none of the harness's own (benchtests/src/<layer>/*.h).
file(GLOB_RECURSE internal RELATIVE "${SOURCE}/benchtests/src" "${SOURCE}/benchtests/src/*.h")
foreach(header IN LISTS internal)
  get_filename_component(header "${header}" NAME)
  file(GLOB_RECURSE found "${prefix}/${header}" "${prefix}/*/${header}")
  if(found)
    message(FATAL_ERROR "install: internal header ${header} installed as ${found}")
  endif()
endforeach()
foreach(file include/kb/kernel.h include/kb/build.h lib/cmake/kbench/kbenchConfig.cmake
    lib/cmake/kbench/kbenchConfigVersion.cmake share/kbench/calibration/bandwidth/kernel.json
    bin/kbench-report bin/kbench-baseline bin/kbench-new-kernel)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "install: ${prefix}/${file} is missing")
  endif()
endforeach()

# Every installed tool answers --help and -h with its own usage on stdout,
# no CMake error and exit 0 (kbench-new-kernel runs cmake from PATH: this
# one's first), and refuses an unknown option naming it, with a non-zero exit.
get_filename_component(cmake_dir "${CMAKE_COMMAND}" DIRECTORY)
set(ENV{PATH} "${cmake_dir}:$ENV{PATH}")
set(tools kbench-new-kernel kbench-report kbench-baseline)
if(EXISTS "${prefix}/bin/kbench-ab")
  list(APPEND tools kbench-ab)
endif()
foreach(tool IN LISTS tools)
  foreach(arg --help -h --no-such-option)
    set(label "install: ${tool} ${arg}")
    execute_process(COMMAND "${prefix}/bin/${tool}" ${arg} WORKING_DIRECTORY "${WORK}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message("---- ${label}: exit ${rc}\n${out}${err}")
    if(arg STREQUAL "--no-such-option")
      if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "--no-such-option")
        message(FATAL_ERROR "${label}: exit ${rc}, expected a refusal naming the option")
      endif()
    elseif(NOT rc EQUAL 0)
      message(FATAL_ERROR "${label}: expected exit 0, got ${rc}")
    elseif(NOT out MATCHES "usage: ${tool} ")
      message(FATAL_ERROR "${label}: stdout does not hold 'usage: ${tool} '")
    elseif("${out}${err}" MATCHES "CMake Error")
      message(FATAL_ERROR "${label}: the output holds a CMake error")
    endif()
  endforeach()
endforeach()
# Compiled files record their sources' paths in debug information and
# coverage notes, by design: in such a build (BINARIES_HOLD_PATHS) only the
# text files are checked.
if(BINARIES_HOLD_PATHS)
  message("note: a build with debug information or coverage: the installed libraries and the "
    "consumer's drivers are not checked for kbench's source path")
  expect_no_path("install" "${SOURCE}" "${BUILD}" "${prefix}/lib/cmake" "${prefix}/include"
    "${prefix}/share" "${prefix}/bin/kbench-new-kernel")
else()
  expect_no_path("install" "${SOURCE}" "${BUILD}" "${prefix}")
endif()

# The consumer, as another project would hold it: outside kbench's tree.
set(consumer "${WORK}/consumer")
file(COPY "${SOURCE}/examples/consumer/" DESTINATION "${consumer}")
configure_project("consumer: configure" 0 "${consumer}" "${WORK}/consumer-build"
  "-DCMAKE_PREFIX_PATH=${prefix}" ${CONSUMER_ARGS})
run_step("consumer: build" 0 "${CMAKE_COMMAND}" --build "${WORK}/consumer-build" -j 2)
expect_tests("consumer" "${WORK}/consumer-build" kbench.calibrate.cpu
  scale_shift.cpu.fp64 scale_shift.cpu.fp32 scale_shift.cpu.fp16 scale_shift.cpu.bf16)
run_step("consumer: ctest" 0 ctest --test-dir "${WORK}/consumer-build" --output-on-failure)

# Its results in its own build tree, its baselines looked for in its own
# source tree (none there: the latency check says "no baseline").
set(result "${WORK}/consumer-build/kbench-results/scale_shift.cpu.fp32.json")
if(NOT EXISTS "${result}")
  message(FATAL_ERROR "consumer: no result ${result}")
endif()
json_get(baseline "consumer" "${result}" baseline_file)
string(FIND "${baseline}" "${consumer}/baselines/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "consumer: ${result}: baseline '${baseline}' is not under ${consumer}/baselines")
endif()
json_get(kernel "consumer" "${result}" kernel)
if(NOT kernel STREQUAL "scale_shift")
  message(FATAL_ERROR "consumer: ${result}: kernel '${kernel}', expected scale_shift")
endif()
if(NOT BINARIES_HOLD_PATHS)
  expect_no_path("consumer drivers" "${SOURCE}" "${BUILD}" "${WORK}/consumer-build/bin")
endif()

# With a multi-config generator each configuration's drivers record their own
# build type (and flags): one build information file per configuration.
find_program(ninja ninja)
if(ninja)
  file(REMOVE_RECURSE "${WORK}/consumer-multi")
  run_step("consumer: Ninja Multi-Config" 0 "${CMAKE_COMMAND}" -S "${consumer}"
    -B "${WORK}/consumer-multi" -G "Ninja Multi-Config" "-DCMAKE_C_COMPILER=${C_COMPILER}"
    "-DCMAKE_PREFIX_PATH=${prefix}" ${CONSUMER_ARGS})
  foreach(config Debug Release)
    set(info "${WORK}/consumer-multi/kbench-scale_shift-host-build-${config}.c")
    if(NOT EXISTS "${info}")
      message(FATAL_ERROR "consumer: Ninja Multi-Config: no build information ${info}")
    endif()
    file(READ "${info}" text)
    string(FIND "${text}" ".build_type = \"${config}\"" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "consumer: ${info} does not record build type ${config}")
    endif()
  endforeach()
else()
  message("note: ninja not found: the build information of a multi-config build is not checked")
endif()

# A consumer without the C language is told so by find_package.
file(READ "${consumer}/CMakeLists.txt" text)
string(REPLACE "LANGUAGES C)" "LANGUAGES CXX)" text "${text}")
file(COPY "${consumer}/kernels" DESTINATION "${WORK}/consumer-cxx")
file(WRITE "${WORK}/consumer-cxx/CMakeLists.txt" "${text}")
configure_project("consumer without C" 1 "${WORK}/consumer-cxx" "${WORK}/consumer-cxx-build"
  "-DCMAKE_PREFIX_PATH=${prefix}")
expect_said("consumer without C" "kbench needs the C language in the calling project")
message("kbench.e2e.install: passed")
