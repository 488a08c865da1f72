# The GPU backends: finding their toolchains and building a kernel's GPU
# driver. CUDA is a CMake language (nvcc); HIP objects are compiled by
# Debian's hipcc through a custom command, because CMake 3.25's HIP language
# does not find Debian's layout (docs/gpu.md).

include(CheckLanguage)

# Detection and enabling run at file scope (enable_language may not run in a
# function): kbench_detect_gpu_toolchains() sets KBENCH_HAVE_CUDA/_HIP,
# kbench_enable_gpu_backends() fails configure, saying what to install, when
# a requested backend's toolchain is missing.
macro(kbench_detect_gpu_toolchains)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures to build for")
  endif()
  check_language(CUDA)
  set(KBENCH_HAVE_CUDA OFF)
  if(CMAKE_CUDA_COMPILER)
    set(KBENCH_HAVE_CUDA ON)
  endif()
  find_program(KBENCH_HIPCC hipcc)
  mark_as_advanced(KBENCH_HIPCC)
  set(KBENCH_HAVE_HIP OFF)
  if(KBENCH_HIPCC)
    check_language(CXX)
    if(CMAKE_CXX_COMPILER)
      enable_language(CXX) # hip-config.cmake needs it; HIP drivers link as C++
      find_package(hip CONFIG QUIET)
      if(hip_FOUND)
        set(KBENCH_HAVE_HIP ON)
      endif()
    endif()
  endif()
endmacro()

macro(kbench_enable_gpu_backends)
  if("cuda" IN_LIST KBENCH_BACKENDS)
    if(NOT KBENCH_HAVE_CUDA)
      message(FATAL_ERROR "KBENCH_BACKENDS has 'cuda' but no CUDA compiler was found: install "
        "the CUDA toolkit (nvcc; e.g. /usr/local/cuda/bin on PATH) or set CMAKE_CUDA_COMPILER")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
  endif()
  if("hip" IN_LIST KBENCH_BACKENDS AND NOT KBENCH_HAVE_HIP)
    message(FATAL_ERROR "KBENCH_BACKENDS has 'hip' but hipcc, a C++ compiler and the hip CMake "
      "package were not all found: install the Debian packages hipcc libamdhip64-dev "
      "rocm-device-libs g++")
  endif()
endmacro()

set(KBENCH_HIP_ARCHITECTURES "gfx90a;gfx940" CACHE STRING
  "AMD GPU targets of the HIP objects (hipcc --offload-arch)")
set(KBENCH_GPU_INCLUDE "${PROJECT_SOURCE_DIR}/benchtests/include")

# kbench-<name>-cuda: the kernel's host objects (C sources and reference)
# with <name>.cu compiled by nvcc and the CUDA backend.
function(kbench_add_cuda_driver name exe host gpu_source)
  add_executable(${exe} "${gpu_source}")
  set_source_files_properties("${gpu_source}" PROPERTIES LANGUAGE CUDA)
  target_compile_options(${exe} PRIVATE
    -std=c++17 -Xcompiler=-Wall,-Wextra
    $<$<BOOL:${KBENCH_WERROR}>:-Werror=all-warnings -Xcompiler=-Werror>)
  target_link_libraries(${exe} PRIVATE ${host} kb_backend_cuda)
endfunction()

# kbench-<name>-hip: the same with <name>.cu compiled by hipcc as HIP.
function(kbench_add_hip_driver name exe host gpu_source)
  set(obj "${CMAKE_CURRENT_BINARY_DIR}/hip/${name}.o")
  file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/hip")
  set(arch_flags "")
  foreach(arch IN LISTS KBENCH_HIP_ARCHITECTURES)
    list(APPEND arch_flags "--offload-arch=${arch}")
  endforeach()
  set(werror "")
  if(KBENCH_WERROR)
    set(werror -Werror)
  endif()
  add_custom_command(OUTPUT "${obj}"
    COMMAND "${KBENCH_HIPCC}" -x hip -std=c++17 -O3 -fPIC ${arch_flags} -Wall -Wextra ${werror}
      -I "${KBENCH_GPU_INCLUDE}" -MD -MF "${obj}.d" -c "${gpu_source}" -o "${obj}"
    DEPENDS "${gpu_source}"
    DEPFILE "${obj}.d"
    COMMENT "Building HIP object ${name}.o"
    VERBATIM)
  add_executable(${exe} "${obj}")
  target_link_libraries(${exe} PRIVATE ${host} kb_backend_hip)
  set_target_properties(${exe} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()
