# kbench.e2e.consumer: a project of its own benchmarking an outside library
# (examples/sleef: SLEEF through pkg-config, two kernels) with a fresh installation of
# this build, following docs/using-kbench-in-your-project.md as written: no
# build type (the kernels must still be compiled with -O3), the library
# linked with LINK_LIBRARIES, the run report and the `report` target, and
# A/B mode with the installed kbench-ab: an unchanged tree passes, and a
# kernel made twice as slow in the working tree fails as a regression
# against the committed HEAD while its unchanged variant passes. Skips,
# saying why, where pkg-config or SLEEF is missing.
#
#   cmake -DSOURCE=<kbench source> -DBUILD=<kbench build> -DWORK=<dir>
#     -DGENERATOR=<generator> -DC_COMPILER=<cc> -P consumer_check.cmake
cmake_policy(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

find_program(pkg_config pkg-config)
if(pkg_config)
  execute_process(COMMAND "${pkg_config}" --exists sleef RESULT_VARIABLE rc)
endif()
if(NOT pkg_config OR NOT rc EQUAL 0)
  message("kbench-skip: pkg-config or SLEEF's pkg-config module 'sleef' is missing "
    "(Debian/Ubuntu: apt-get install pkg-config libsleef-dev; .ci/install-deps.sh test)")
  return()
endif()
find_program(git git)
if(NOT git)
  message("kbench-skip: git is missing (kbench-ab needs it)")
  return()
endif()

file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
run_step("install" 0 "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${prefix}")

# The example as a repository of its own, committed: the A/B base.
set(project "${WORK}/sleef")
file(COPY "${SOURCE}/examples/sleef/" DESTINATION "${project}")
set(git_id -c user.name=kbench -c user.email=kbench@localhost)
run_step("git init" 0 "${git}" -C "${project}" init -q)
run_step("git add" 0 "${git}" -C "${project}" add -A)
run_step("git commit" 0 "${git}" -C "${project}" ${git_id} commit -q -m example)

# Configured as the guide says: no build type.
set(bin "${project}/build")
run_step("configure" 0 "${CMAKE_COMMAND}" -S "${project}" -B "${bin}" -G "${GENERATOR}"
  "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}")
run_step("build" 0 "${CMAKE_COMMAND}" --build "${bin}")
run_step("ctest" 0 ctest --test-dir "${bin}" --output-on-failure)
expect_tests("sleef" "${bin}" kbench.calibrate.cpu sleef_exp.cpu.fp64 sleef_exp.cpu.fp32
  sleef_erf.cpu.fp64 sleef_erf.cpu.fp32 kbench.session kbench.report)

# Optimised though no build type was given, and said so in the result.
foreach(test sleef_exp.cpu.fp64 sleef_exp.cpu.fp32)
  json_get(flags "sleef" "${bin}/kbench-results/${test}.json" environment c_flags)
  if(NOT " ${flags} " MATCHES " -O3 ")
    message(FATAL_ERROR "sleef: ${test} was compiled with '${flags}', without -O3")
  endif()
endforeach()

# The run report after ctest, and again from the `report` target.
foreach(file summary.json summary.md summary.txt)
  if(NOT EXISTS "${bin}/kbench-report/${file}")
    message(FATAL_ERROR "sleef: the run report ${bin}/kbench-report/${file} is missing")
  endif()
endforeach()
file(REMOVE "${bin}/kbench-report/summary.md")
run_step("report target" 0 "${CMAKE_COMMAND}" --build "${bin}" --target report)
if(NOT EXISTS "${bin}/kbench-report/summary.md")
  message(FATAL_ERROR "sleef: the report target wrote no ${bin}/kbench-report/summary.md")
endif()

# A/B with the installed kbench-ab, from outside the build. Unchanged: the
# diff reaches nothing (the build tree inside the repository is no change),
# and run all the same (--all), no regression.
set(ab_cmd "${prefix}/bin/kbench-ab" --build "${bin}")
run_step("kbench-ab --list" 0 ${ab_cmd} --list HEAD)
expect_text("kbench-ab --list" "the diff reaches: nothing")
run_step("kbench-ab unchanged" 0 ${ab_cmd} --all HEAD -R "sleef_exp[.]cpu[.]fp32")
json_get(mode "kbench-ab unchanged" "${bin}/kbench-results/sleef_exp.cpu.fp32.json" mode)
if(NOT mode STREQUAL "ab")
  message(FATAL_ERROR "kbench-ab unchanged: the result's mode is '${mode}', not 'ab'")
endif()

# The sleef variant computes its vectors twice: the diff reaches the kernel,
# its fp32 test fails, the sleef cases as regressions, the libm ones not.
set(source "${project}/kernels/sleef_exp/sleef_exp.c")
file(READ "${source}" text)
set(loop "    for (; i + SLEEF_F32_WIDTH <= n; i += SLEEF_F32_WIDTH) SLEEF_F32(exp, x, y, i);\n")
string(FIND "${text}" "${loop}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "sleef: ${source} has no fp32 vector loop to slow down")
endif()
string(REPLACE "${loop}"
  "    for (size_t j = 0; j + SLEEF_F32_WIDTH <= n; j += SLEEF_F32_WIDTH) SLEEF_F32(exp, x, y, j);\n${loop}"
  text
  "${text}")
file(WRITE "${source}" "${text}")
run_step("kbench-ab slower" 8 ${ab_cmd} HEAD -R "sleef_exp[.]cpu[.]fp32")
expect_text("kbench-ab slower" "the diff reaches: sleef_exp")
set(result "${bin}/kbench-results/sleef_exp.cpu.fp32.json")
file(READ "${result}" json)
string(JSON n LENGTH "${json}" cases)
math(EXPR last "${n} - 1")
set(regressions 0)
foreach(i RANGE ${last})
  string(JSON variant GET "${json}" cases ${i} variant)
  string(JSON verdict GET "${json}" cases ${i} latency verdict)
  if(variant STREQUAL "sleef" AND NOT verdict STREQUAL "regression")
    message(FATAL_ERROR "kbench-ab slower: case ${i} (sleef) is '${verdict}', not a regression")
  elseif(variant STREQUAL "libm" AND verdict STREQUAL "regression")
    message(FATAL_ERROR "kbench-ab slower: case ${i} (libm, unchanged) is a regression")
  endif()
  if(verdict STREQUAL "regression")
    math(EXPR regressions "${regressions} + 1")
  endif()
endforeach()
if(regressions EQUAL 0)
  message(FATAL_ERROR "kbench-ab slower: no case was found a regression")
endif()
message("kbench.e2e.consumer: passed")
