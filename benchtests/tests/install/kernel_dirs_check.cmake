# kbench.e2e.kernel_dirs: KBENCH_KERNEL_DIRS on kbench itself. The example's
# kernels directory adds scale_shift.cpu.<precision> beside kbench's own
# tests (given relative to kbench's source tree, and checked by the schema
# lint); a missing directory, one without kernel folders, a kernel whose
# name clashes with one of kbench's and a manifest with an unknown top-level
# key each fail configure naming the path (and the key). Configure only, CPU
# only.
#
#   cmake -DSOURCE=... -DBUILD=... -DWORK=... -DGENERATOR=... -DC_COMPILER=...
#     -P kernel_dirs_check.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

file(REMOVE_RECURSE "${WORK}")
set(bin "${WORK}/build")
set(example "${SOURCE}/examples/consumer/kernels")
# A relative directory is taken from kbench's source tree: the example's
# kernel copied to ${WORK}/external and named from there.
file(COPY "${example}/scale_shift" DESTINATION "${WORK}/external")
file(RELATIVE_PATH relative "${SOURCE}" "${WORK}/external")
configure_project("KBENCH_KERNEL_DIRS=${relative}" 0 "${SOURCE}" "${bin}" -DKBENCH_BACKENDS=cpu
  "-DKBENCH_KERNEL_DIRS=${relative}")
expect_tests("KBENCH_KERNEL_DIRS" "${bin}" scale_shift.cpu.fp64 scale_shift.cpu.fp32
  scale_shift.cpu.fp16 scale_shift.cpu.bf16 swish.cpu.fp32 kbench.calibrate.cpu)
# Labelled like kbench's own: backend, precision, kernel name, perf.
run_step("KBENCH_KERNEL_DIRS: labels" 0 ctest --test-dir "${bin}" -N -L "^scale_shift$" -L "^perf$"
  -L "^cpu$" -L "^bf16$")
expect_text("KBENCH_KERNEL_DIRS: labels" "scale_shift.cpu.bf16\n")
# The schema lint validates the manifests found there too.
run_step("KBENCH_KERNEL_DIRS: schema lint" 0 ctest --test-dir "${bin}" -N -V -R "^kbench[.]lint[.]schema$")
string(FIND "${step_output}" "${WORK}/external/scale_shift/kernel.json" at)
if(at EQUAL -1)
  message(FATAL_ERROR "KBENCH_KERNEL_DIRS=${relative}: kbench.lint.schema does not check "
    "${WORK}/external/scale_shift/kernel.json")
endif()

# The bad directories, each configured over the same build tree (its
# compiler checks cached).
file(MAKE_DIRECTORY "${WORK}/empty/not-a-kernel")
file(COPY "${SOURCE}/kernels/swish" DESTINATION "${WORK}/clash")
file(COPY "${example}/scale_shift" DESTINATION "${WORK}/unknown_key")
file(READ "${example}/scale_shift/kernel.json" manifest)
string(REPLACE "\"cases\":" "\"frobnicate\": 1, \"cases\":" manifest "${manifest}")
file(WRITE "${WORK}/unknown_key/scale_shift/kernel.json" "${manifest}")
foreach(case "${WORK}/missing=KBENCH_KERNEL_DIRS: '${WORK}/missing' is not a directory"
    "${WORK}/empty=KBENCH_KERNEL_DIRS: '${WORK}/empty' holds no kernel folder"
    "${WORK}/clash=${WORK}/clash/swish/kernel.json: kernel 'swish' is already registered from ${SOURCE}/kernels/swish/kernel.json"
    "${WORK}/unknown_key=${WORK}/unknown_key/scale_shift/kernel.json: field 'frobnicate': unknown key")
  string(REGEX REPLACE "=.*$" "" dir "${case}")
  string(REGEX REPLACE "^[^=]*=" "" want "${case}")
  run_step("KBENCH_KERNEL_DIRS=${dir}" 1 "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${bin}"
    "-DKBENCH_KERNEL_DIRS=${dir}")
  expect_said("KBENCH_KERNEL_DIRS=${dir}" "${want}")
endforeach()
message("kbench.e2e.kernel_dirs: passed")
