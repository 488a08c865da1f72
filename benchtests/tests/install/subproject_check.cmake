# kbench.e2e.subproject: kbench added to another project with
# add_subdirectory() (as FetchContent does), then the example's kernel and a
# kernel made by kbench-new-kernel registered with kbench_add_kernel: their
# drivers build (only theirs), their tests are those kbench registers for its
# own kernels and pass, with results in the wrapper's build tree. Also checks
# that kbench-new-kernel refuses a bad or reserved name and an existing
# folder, kbench_add_kernel a wrong or missing argument or a reserved name,
# and a wrapper without the C language. CPU only, to keep it short.
#
#   cmake -DSOURCE=... -DBUILD=... -DWORK=... -DGENERATOR=... -DC_COMPILER=...
#     -P subproject_check.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
set(scaffold "${SOURCE}/cmake/kbench-new-kernel")
run_step("scaffold" 0 "${CMAKE_COMMAND}" -P "${scaffold}" --gpu fresh "${WORK}/kernels")
foreach(file kernel.json fresh.c reference.c fresh.cu)
  if(NOT EXISTS "${WORK}/kernels/fresh/${file}")
    message(FATAL_ERROR "scaffold: ${WORK}/kernels/fresh/${file} was not written")
  endif()
endforeach()
run_step("scaffold: existing folder" 1 "${CMAKE_COMMAND}" -P "${scaffold}" fresh "${WORK}/kernels")
expect_said("scaffold: existing folder" "${WORK}/kernels/fresh already exists")
# An empty NAME must not make DIR the name (run_step's list would drop it).
execute_process(COMMAND "${CMAKE_COMMAND}" -P "${scaffold}" "" "${WORK}/kernels/empty"
  RESULT_VARIABLE rc OUTPUT_VARIABLE step_output ERROR_VARIABLE step_output)
expect_said("scaffold: empty name (exit ${rc})" "an argument is empty")
if(rc EQUAL 0 OR EXISTS "${WORK}/kernels/empty")
  message(FATAL_ERROR "scaffold: an empty name was taken (exit ${rc})")
endif()
# Names the scaffold's code could not build with: kb_ is the harness's prefix
# (a kernel "kb" would define kb_layout), kbench-calibrate a driver of kbench's;
# and a name longer than the driver reads (63 characters).
string(REPEAT "k" 64 too_long)
foreach(name 9lives kb kb_x calibrate ${too_long})
  run_step("scaffold: bad name ${name}" 1 "${CMAKE_COMMAND}" -P "${scaffold}" ${name}
    "${WORK}/kernels")
  expect_said("scaffold: bad name ${name}" "'${name}' is ")
  if(EXISTS "${WORK}/kernels/${name}")
    message(FATAL_ERROR "scaffold: a folder was written for the refused name ${name}")
  endif()
endforeach()

# The wrapper: kbench as a subproject, then the kernels. EXTRA, if given, is
# one more kbench_add_kernel call, its arguments separated by '|' (the
# argument checks below).
set(wrapper "${WORK}/wrapper")
file(MAKE_DIRECTORY "${wrapper}")
file(WRITE "${wrapper}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)
project(kbench_wrapper LANGUAGES C)
enable_testing()
add_subdirectory(\"${SOURCE}\" kbench)
kbench_add_kernel(NAME scale_shift DIRECTORY \"${SOURCE}/examples/consumer/kernels/scale_shift\"
  LABELS example TIMEOUT 120)
kbench_add_kernel(NAME fresh DIRECTORY \"${WORK}/kernels/fresh\")
if(EXTRA)
  string(REPLACE \"|\" \";\" extra \"\${EXTRA}\")
  kbench_add_kernel(\${extra})
endif()
")
set(bin "${WORK}/wrapper-build")
configure_project("wrapper: configure" 0 "${wrapper}" "${bin}" -DKBENCH_BACKENDS=cpu)
expect_tests("wrapper" "${bin}" kbench.calibrate.cpu scale_shift.cpu.fp32 scale_shift.cpu.bf16
  fresh.cpu.fp64 fresh.cpu.fp16)
# kbench's own suite stays out of a consumer's build.
if(step_output MATCHES "swish[.]cpu")
  message(FATAL_ERROR "wrapper: kbench's own kernels are registered in a consumer's build")
endif()
run_step("wrapper: build" 0 "${CMAKE_COMMAND}" --build "${bin}" -j 2
  --target kbench-scale_shift kbench-fresh kbench-calibrate)
run_step("wrapper: ctest" 0 ctest --test-dir "${bin}" --output-on-failure
  -R "^(scale_shift|fresh)[.]cpu[.](fp32|bf16)$")
foreach(test scale_shift.cpu.fp32 fresh.cpu.bf16)
  json_get(kernel "wrapper" "${bin}/kbench-results/${test}.json" kernel)
endforeach()
# LABELS adds to kbench's labels; TIMEOUT replaces the manifest's.
test_property(labels "${bin}" scale_shift.cpu.fp32 LABELS)
foreach(label cpu fp32 scale_shift perf example)
  if(NOT labels MATCHES "\"${label}\"")
    message(FATAL_ERROR "wrapper: scale_shift.cpu.fp32 has labels ${labels}, without ${label}")
  endif()
endforeach()
test_property(timeout "${bin}" scale_shift.cpu.fp32 TIMEOUT)
test_property(fresh_timeout "${bin}" fresh.cpu.fp32 TIMEOUT)
if(NOT timeout EQUAL 120 OR NOT fresh_timeout EQUAL 300)
  message(FATAL_ERROR "wrapper: TIMEOUT ${timeout} and ${fresh_timeout}, expected 120 (given) "
    "and 300 (the default)")
endif()

# kbench_add_kernel's argument errors name the argument. Each case: the
# arguments, separated by '|', then '=' and what the error must say. The
# wrapper registers fresh itself: these calls use a copy of its folder,
# kernels2/fresh, so that no name clash fires first.
file(COPY "${WORK}/kernels/fresh" DESTINATION "${WORK}/kernels2")
set(fresh2 "${WORK}/kernels2/fresh")
# A label of 64 characters, one more than a manifest's labels may have.
string(REPEAT "l" 64 long_label)
# A kernel named calibrate: its driver would be the calibration kernel's.
file(READ "${fresh2}/kernel.json" manifest)
string(REPLACE "\"fresh\"" "\"calibrate\"" manifest "${manifest}")
file(WRITE "${WORK}/kernels2/calibrate/kernel.json" "${manifest}")
set(example "${SOURCE}/examples/consumer/kernels/scale_shift")
foreach(case "NAME|scale_shift|DIRECTORY|${example}|FROB|1=unknown argument 'FROB'"
    "DIRECTORY|${fresh2}=argument NAME is missing"
    "NAME|fresh|DIRECTORY=argument DIRECTORY needs a value"
    "NAME|fresh|DIRECTORY|${fresh2}|TIMEOUT|0=argument TIMEOUT: expected whole seconds"
    "NAME|other|DIRECTORY|${fresh2}=but kbench_add_kernel was given NAME other"
    "NAME|fresh|DIRECTORY|${fresh2}|BACKENDS|tpu=argument BACKENDS: unknown backend 'tpu'"
    "NAME|fresh|DIRECTORY|${fresh2}|LINK_LIBRARIES|nosuch::lib=argument LINK_LIBRARIES: 'nosuch::lib' is not a target"
    "NAME|calibrate|DIRECTORY|${WORK}/kernels2/calibrate=field 'name': 'calibrate' is reserved"
    "NAME|fresh|DIRECTORY|${fresh2}|LABELS|${long_label}=argument LABELS: '${long_label}' is not a plain label"
    "NAME|fresh|DIRECTORY|${fresh2}=kernel 'fresh' is already registered from ${WORK}/kernels/fresh/kernel.json")
  string(REGEX REPLACE "=[^=]*$" "" args "${case}")
  string(REGEX REPLACE "^[^=]*=" "" want "${case}")
  # Reconfigured in place: the compiler checks are cached.
  run_step("wrapper: kbench_add_kernel(${args})" 1 "${CMAKE_COMMAND}" -S "${wrapper}" -B "${bin}"
    "-DEXTRA=${args}")
  expect_said("wrapper: kbench_add_kernel(${args})" "${want}")
endforeach()

# The public C headers compile in a consumer that adds -Wpedantic -Werror to
# its flags (kbench's sources then get them too, as a subproject).
file(GLOB_RECURSE headers RELATIVE "${SOURCE}/benchtests/include" "${SOURCE}/benchtests/include/kb/*.h")
list(FILTER headers EXCLUDE REGEX "^kb/gpu|^kb/vendor/cudnn")
set(includes "")
foreach(header IN LISTS headers)
  string(APPEND includes "#include \"${header}\"\n")
endforeach()
file(WRITE "${WORK}/pedantic.c" "${includes}")
run_step("public headers with -Wpedantic" 0 "${C_COMPILER}" -std=c11 -Wall -Wextra -Wpedantic
  -Werror -fsyntax-only "-I${SOURCE}/benchtests/include" "${WORK}/pedantic.c")

# A project without C: kbench_add_kernel says so (CMake itself would only
# say that the driver has no sources).
file(READ "${wrapper}/CMakeLists.txt" text)
string(REPLACE "LANGUAGES C)" "LANGUAGES CXX)" text "${text}")
file(WRITE "${WORK}/wrapper-cxx/CMakeLists.txt" "${text}")
configure_project("wrapper without C" 1 "${WORK}/wrapper-cxx" "${WORK}/wrapper-cxx-build"
  -DKBENCH_BACKENDS=cpu)
expect_said("wrapper without C" "the kernel's sources are C, which this project does not enable")
message("kbench.e2e.subproject: passed")
