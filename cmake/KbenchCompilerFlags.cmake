# Warnings for all of kbench's own C code, and the extra flags CPU kernels get.

# The warnings (exported as kbench::warnings: a consumer's kernels get the same
# ones) and -Werror (this build only: KBENCH_WERROR is kbench's own choice,
# never imposed on an installed package's consumers).
add_library(kb_warnings INTERFACE)
target_compile_options(kb_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wformat=2 -Wundef>
  $<BUILD_INTERFACE:$<$<AND:$<BOOL:${KBENCH_WERROR}>,$<COMPILE_LANG_AND_ID:C,GNU,Clang>>:-Werror>>)
set_target_properties(kb_warnings PROPERTIES EXPORT_NAME warnings)
add_library(kbench::warnings ALIAS kb_warnings)

# No contraction of a*b + c into an FMA unless a kernel writes fma(): the
# tolerances are measured with the rounding the source states (GCC's ISO C
# mode already does this; Clang contracts by default). Carried by the
# INTERFACE target kbench::kernel_flags, which every kernel's sources get
# (kbench_add_kernel), in this build and in a consumer's.
set(KBENCH_KERNEL_FLAGS -ffp-contract=off)
if(KBENCH_CPU_NATIVE)
  include(CheckCCompilerFlag)
  check_c_compiler_flag(-march=native KBENCH_HAVE_MARCH_NATIVE)
  if(KBENCH_HAVE_MARCH_NATIVE)
    list(APPEND KBENCH_KERNEL_FLAGS -march=native)
  endif()
endif()
# Whether those flags let the compiler emit AVX-512, which valgrind does not
# emulate: the memcheck dashboard then leaves out the tests labelled
# `native` (the ones that run code built with these flags; docs/cdash.md).
# Checked at every configure (the flags or the machine may have changed
# since the cached answer).
include(CheckCSourceCompiles)
set(_kb_saved_required_flags "${CMAKE_REQUIRED_FLAGS}")
list(JOIN KBENCH_KERNEL_FLAGS " " CMAKE_REQUIRED_FLAGS)
unset(KBENCH_KERNELS_AVX512 CACHE)
check_c_source_compiles("#ifndef __AVX512F__\n#error no AVX-512\n#endif\nint main(void) { return 0; }"
  KBENCH_KERNELS_AVX512)
set(CMAKE_REQUIRED_FLAGS "${_kb_saved_required_flags}")
add_library(kb_kernel_flags INTERFACE)
# Plain flags, no generator expressions: kbench_add_kernel also reads them
# back (INTERFACE_COMPILE_OPTIONS) for the build information of the drivers.
target_compile_options(kb_kernel_flags INTERFACE ${KBENCH_KERNEL_FLAGS})
set_target_properties(kb_kernel_flags PROPERTIES EXPORT_NAME kernel_flags)
add_library(kbench::kernel_flags ALIAS kb_kernel_flags)
