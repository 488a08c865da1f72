# The user-facing cache options (docs/baselines.md, CONTRACT.md).

set(KBENCH_BACKENDS "auto" CACHE STRING
  "Backends to build and register tests for: ;-list of cpu, cuda, hip, or auto (cpu plus each GPU backend whose toolchain is found)")
set(KBENCH_PROFILE "auto" CACHE STRING
  "Baseline profile (a directory under KBENCH_BASELINE_DIR); 'auto' = detected from the hardware at run time")
set(KBENCH_BASELINE_DIR "${PROJECT_SOURCE_DIR}/baselines" CACHE PATH
  "Root of the baseline tree: <dir>/<profile>/<kernel>.json")
option(KBENCH_CPU_NATIVE "Compile CPU kernels for this machine's ISA (-march=native)" ON)
option(KBENCH_WERROR "Treat compiler warnings as errors" ON)
option(KBENCH_FULL
  "Also register each kernel's large sweep as <kernel>.<backend>.<precision>.full (label full)"
  OFF)
option(KBENCH_GPU_PARALLEL
  "GPU tests run side by side, one per GPU of the CTest resource spec, instead of one at a time (ctest then needs --resource-spec-file; docs/resource-spec.md)"
  OFF)

set(KBENCH_CDASH_SUBMIT_URL "" CACHE STRING
  "CDash submit URL (https://host/submit.php?project=kbench); empty: the environment variable KBENCH_CDASH_SUBMIT_URL, if set")

set(KBENCH_RESULTS_DIR "${PROJECT_BINARY_DIR}/kbench-results")
set(KBENCH_KNOWN_BACKENDS cpu cuda hip)
set(KBENCH_KNOWN_PRECISIONS fp64 fp32 fp16 bf16)

include(KbenchGpu)
kbench_detect_gpu_toolchains()
if(KBENCH_BACKENDS STREQUAL "auto")
  set(KBENCH_BACKENDS cpu)
  if(KBENCH_HAVE_CUDA)
    list(APPEND KBENCH_BACKENDS cuda)
  endif()
  if(KBENCH_HAVE_HIP)
    list(APPEND KBENCH_BACKENDS hip)
  endif()
endif()
foreach(backend IN LISTS KBENCH_BACKENDS)
  if(NOT backend IN_LIST KBENCH_KNOWN_BACKENDS)
    message(FATAL_ERROR "KBENCH_BACKENDS: unknown backend '${backend}' "
      "(known: ${KBENCH_KNOWN_BACKENDS}, or auto)")
  endif()
endforeach()
kbench_enable_gpu_backends()
