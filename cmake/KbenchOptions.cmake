# The user-facing cache options (docs/baselines.md, CONTRACT.md).

set(KBENCH_BACKENDS "auto" CACHE STRING
  "Backends to build and register tests for: ;-list of cpu, cuda, hip, or auto (cpu plus each GPU backend whose toolchain is found)")
# KBENCH_PROFILE, KBENCH_BASELINE_DIR, KBENCH_FULL, KBENCH_GPU_PARALLEL: the
# test options a consumer has too. The baselines are the top-level project's:
# kbench's own when it is built alone, the consumer's when kbench is added with
# add_subdirectory()/FetchContent.
kbench_declare_test_options()
option(KBENCH_CPU_NATIVE "Compile CPU kernels for this machine's ISA (-march=native)" ON)
# Off by default inside another project: a newer compiler's new warning in
# kbench must not break a consumer's build.
option(KBENCH_WERROR "Treat compiler warnings as errors" ${PROJECT_IS_TOP_LEVEL})
# kbench's own suite (its kernels, self-tests and fuzzers) is registered when
# kbench is the top-level project; a consumer gets the harness, the tools and
# kbench_add_kernel() only.
option(KBENCH_SUITE "Register kbench's own kernels and self-tests" ${PROJECT_IS_TOP_LEVEL})
option(KBENCH_INSTALL "Add kbench's install rules (cmake --install)" ${PROJECT_IS_TOP_LEVEL})
set(KBENCH_KERNEL_DIRS "" CACHE STRING
  ";-list of directories whose kernel folders (<dir>/<name>/kernel.json) join kbench's own suite like kernels/")

set(KBENCH_CDASH_SUBMIT_URL "" CACHE STRING
  "CDash submit URL (https://host/submit.php?project=kbench); empty: the environment variable KBENCH_CDASH_SUBMIT_URL, if set")

# Where every test of this build tree writes its result (kbench_add_kernel
# computes the same path for a consumer's kernels: _kb_results_dir).
set(KBENCH_RESULTS_DIR "${CMAKE_BINARY_DIR}/kbench-results")

include(KbenchGpu)
set(_kb_all_backends cpu cuda hip)
kbench_resolve_backends(_kb_all_backends)
