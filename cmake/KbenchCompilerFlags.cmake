# Warnings for all of kbench's own C code, and the extra flags CPU kernels get.

add_library(kb_warnings INTERFACE)
target_compile_options(kb_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wformat=2 -Wundef>
  $<$<AND:$<BOOL:${KBENCH_WERROR}>,$<COMPILE_LANG_AND_ID:C,GNU,Clang>>:-Werror>)

# No contraction of a*b + c into an FMA unless a kernel writes fma(): the
# tolerances are measured with the rounding the source states (GCC's ISO C
# mode already does this; Clang contracts by default).
set(KBENCH_KERNEL_FLAGS -ffp-contract=off)
if(KBENCH_CPU_NATIVE)
  include(CheckCCompilerFlag)
  check_c_compiler_flag(-march=native KBENCH_HAVE_MARCH_NATIVE)
  if(KBENCH_HAVE_MARCH_NATIVE)
    list(APPEND KBENCH_KERNEL_FLAGS -march=native)
  endif()
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" _kb_build_type)
set(KBENCH_BUILD_TYPE_STRING "${CMAKE_BUILD_TYPE}")
list(JOIN KBENCH_KERNEL_FLAGS " " _kb_kernel_flags)
string(STRIP "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_kb_build_type}} ${_kb_kernel_flags}"
  KBENCH_C_FLAGS_STRING)
