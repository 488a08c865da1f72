# Warnings for all of kbench's own C code, and the extra flags CPU kernels get.

add_library(kb_warnings INTERFACE)
target_compile_options(kb_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wformat=2 -Wundef>
  $<$<AND:$<BOOL:${KBENCH_WERROR}>,$<COMPILE_LANG_AND_ID:C,GNU,Clang>>:-Werror>)

set(KBENCH_KERNEL_FLAGS "")
if(KBENCH_CPU_NATIVE)
  include(CheckCCompilerFlag)
  check_c_compiler_flag(-march=native KBENCH_HAVE_MARCH_NATIVE)
  if(KBENCH_HAVE_MARCH_NATIVE)
    set(KBENCH_KERNEL_FLAGS -march=native)
  endif()
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" _kb_build_type)
set(KBENCH_BUILD_TYPE_STRING "${CMAKE_BUILD_TYPE}")
string(STRIP "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_kb_build_type}} ${KBENCH_KERNEL_FLAGS}"
  KBENCH_C_FLAGS_STRING)
