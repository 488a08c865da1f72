# The GPU backends: finding their toolchains and building a kernel's GPU
# driver. CUDA is a CMake language (nvcc); HIP objects are compiled by
# Debian's hipcc through a custom command, because CMake 3.25's HIP language
# does not find Debian's layout (docs/gpu.md). Installed with the package:
# the driver functions read only cache variables and kbench:: targets.

include(CheckLanguage)

# The GPU targets. CUDA: CMake's CMAKE_CUDA_ARCHITECTURES (default 80;90,
# A100 and H100), checked against `nvcc --list-gpu-arch` before CMake tries
# the compiler. HIP: KBENCH_HIP_ARCHITECTURES (hipcc --offload-arch), checked
# against the device libraries the toolchain ships (one
# oclc_isa_version_<N>.bc per target gfx<N>): Debian's ROCm 5.2 has gfx600 ..
# gfx90c, gfx940, gfx1010 .. gfx1036, so MI100 (gfx908) and MI200 (gfx90a)
# but not MI300 (gfx942, ROCm 5.7 or later; gfx940 is a pre-production MI300
# target). docs/gpu.md has the lists.
set(KBENCH_HIP_ARCHITECTURES "gfx908;gfx90a" CACHE STRING
  "AMD GPU targets of the HIP objects (hipcc --offload-arch=...): gfx908 (MI100), gfx90a (MI200); ROCm 5.2 cannot target MI300 (gfx942)")

# Fails configure naming each entry of CMAKE_CUDA_ARCHITECTURES that `nvcc`
# cannot compile for, with the ones it can.
function(kbench_check_cuda_architectures nvcc)
  execute_process(COMMAND "${nvcc}" --list-gpu-arch RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_QUIET)
  if(NOT rc EQUAL 0)
    return() # an nvcc without --list-gpu-arch: enable_language(CUDA) is the check
  endif()
  string(REGEX MATCHALL "compute_[0-9]+" computes "${out}")
  string(REPLACE "compute_" "" supported "${computes}")
  foreach(entry IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(entry MATCHES "^(all|all-major|native|OFF)$")
      continue()
    endif()
    # 90a-real -> 90: the arch-specific (a) and family (f) variants and the
    # -real / -virtual forms of an architecture nvcc lists.
    string(REGEX REPLACE "^([0-9]+)[af]?(-real|-virtual)?$" "\\1" arch "${entry}")
    if(NOT arch IN_LIST supported)
      string(REPLACE ";" " " list "${supported}")
      message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES: '${entry}' is not an architecture "
        "${nvcc} compiles for; it supports: ${list} (e.g. -DCMAKE_CUDA_ARCHITECTURES=\"80;90\")")
    endif()
  endforeach()
endfunction()

# Fails configure naming each entry of KBENCH_HIP_ARCHITECTURES that has no
# device library here (hipcc could not link code for it), with the targets
# that have one.
function(kbench_check_hip_architectures)
  find_path(KBENCH_HIP_BITCODE_DIR NAMES oclc_isa_version_90a.bc
    PATHS "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode" /usr/lib/amdgcn/bitcode
      /opt/rocm/amdgcn/bitcode /opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode
    NO_DEFAULT_PATH)
  mark_as_advanced(KBENCH_HIP_BITCODE_DIR)
  if(NOT KBENCH_HIP_ARCHITECTURES)
    message(FATAL_ERROR "KBENCH_HIP_ARCHITECTURES is empty: name the AMD targets to build for, "
      "e.g. -DKBENCH_HIP_ARCHITECTURES=\"gfx908;gfx90a\"")
  endif()
  if(NOT KBENCH_HIP_BITCODE_DIR)
    message(WARNING "HIP device libraries (oclc_isa_version_*.bc) not found: "
      "KBENCH_HIP_ARCHITECTURES (${KBENCH_HIP_ARCHITECTURES}) is not checked")
    return()
  endif()
  file(GLOB isa RELATIVE "${KBENCH_HIP_BITCODE_DIR}" "${KBENCH_HIP_BITCODE_DIR}/oclc_isa_version_*.bc")
  list(TRANSFORM isa REPLACE "^oclc_isa_version_(.*)[.]bc$" "gfx\\1")
  # gfx600 .. gfx940, then gfx1010 ..
  set(short "${isa}")
  set(long "${isa}")
  list(FILTER short EXCLUDE REGEX "^gfx....$")
  list(FILTER long INCLUDE REGEX "^gfx....$")
  list(SORT short)
  list(SORT long)
  set(isa ${short} ${long})
  foreach(entry IN LISTS KBENCH_HIP_ARCHITECTURES)
    string(REGEX REPLACE ":.*$" "" arch "${entry}") # gfx90a:xnack+ -> gfx90a
    if(NOT arch IN_LIST isa)
      string(REPLACE ";" " " list "${isa}")
      message(FATAL_ERROR "KBENCH_HIP_ARCHITECTURES: '${entry}' is not a target of this HIP "
        "toolchain (no device library ${KBENCH_HIP_BITCODE_DIR}/oclc_isa_version_*.bc for "
        "it); it supports: "
        "${list}. MI300 (gfx942) needs ROCm 5.7 or later.")
    endif()
  endforeach()
endfunction()

# Detection and enabling run at file scope (enable_language may not run in a
# function): kbench_detect_gpu_toolchains() sets KBENCH_HAVE_CUDA/_HIP,
# kbench_enable_gpu_backends() fails configure, saying what to install, when
# a requested backend's toolchain is missing.
macro(kbench_detect_gpu_toolchains)
  # Only what KBENCH_BACKENDS may use is looked for: checking a language
  # runs a test project (seconds), which a CPU-only configure need not pay.
  set(KBENCH_HAVE_CUDA OFF)
  set(KBENCH_HAVE_HIP OFF)
  if(KBENCH_BACKENDS STREQUAL "auto" OR "cuda" IN_LIST KBENCH_BACKENDS)
    _kb_detect_cuda()
  endif()
  if(KBENCH_BACKENDS STREQUAL "auto" OR "hip" IN_LIST KBENCH_BACKENDS)
    _kb_detect_hip()
  endif()
endmacro()

macro(_kb_detect_cuda)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING
      "CUDA architectures to build for (default 80;90: A100, H100); nvcc --list-gpu-arch lists what the toolkit supports")
  endif()
  # Checked before check_language(), which would otherwise reject a bad
  # entry quietly (no CUDA backend) or with nvcc's own error.
  if(CMAKE_CUDA_COMPILER)
    kbench_check_cuda_architectures("${CMAKE_CUDA_COMPILER}")
  else()
    find_program(KBENCH_NVCC nvcc)
    mark_as_advanced(KBENCH_NVCC)
    if(KBENCH_NVCC)
      kbench_check_cuda_architectures("${KBENCH_NVCC}")
    endif()
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(KBENCH_HAVE_CUDA ON)
  endif()
endmacro()

macro(_kb_detect_hip)
  find_program(KBENCH_HIPCC hipcc)
  mark_as_advanced(KBENCH_HIPCC)
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
  if("hip" IN_LIST KBENCH_BACKENDS)
    if(NOT KBENCH_HAVE_HIP)
      message(FATAL_ERROR "KBENCH_BACKENDS has 'hip' but hipcc, a C++ compiler and the hip "
        "CMake package were not all found: install the Debian packages hipcc libamdhip64-dev "
        "rocm-device-libs g++")
    endif()
    kbench_check_hip_architectures()
  endif()
endmacro()

# The backends of `available` (a ;-list) this build registers tests for,
# from KBENCH_BACKENDS ("auto": each whose toolchain is found), with their
# languages enabled; a requested backend that is not available or has no
# toolchain fails configure. kbench's own build offers cpu, cuda and hip, a
# consumer of the installed package those it was built with (kbenchConfig).
# A macro: enable_language() only works at directory scope.
macro(kbench_resolve_backends available)
  kbench_detect_gpu_toolchains()
  if(KBENCH_BACKENDS STREQUAL "auto")
    set(KBENCH_BACKENDS cpu)
    if(KBENCH_HAVE_CUDA AND "cuda" IN_LIST ${available})
      list(APPEND KBENCH_BACKENDS cuda)
    endif()
    if(KBENCH_HAVE_HIP AND "hip" IN_LIST ${available})
      list(APPEND KBENCH_BACKENDS hip)
    endif()
  endif()
  foreach(_kb_backend IN LISTS KBENCH_BACKENDS)
    if(NOT _kb_backend MATCHES "^(cpu|cuda|hip)$")
      message(FATAL_ERROR "KBENCH_BACKENDS: unknown backend '${_kb_backend}' "
        "(known: cpu cuda hip, or auto)")
    elseif(NOT _kb_backend IN_LIST ${available})
      message(FATAL_ERROR "KBENCH_BACKENDS: backend '${_kb_backend}' is not in this kbench "
        "installation (it has: ${${available}}; or auto)")
    endif()
  endforeach()
  kbench_enable_gpu_backends()
  # What kbench_add_kernel reads, from any directory (a parent project does
  # not see this directory's variables).
  set_property(GLOBAL PROPERTY KBENCH_ENABLED_BACKENDS "${KBENCH_BACKENDS}")
endmacro()

# kbench-<name>-cuda: the kernel's host objects (C sources and reference)
# with <name>.cu compiled by nvcc and the CUDA backend.
function(kbench_add_cuda_driver name exe host gpu_source)
  add_executable(${exe} "${gpu_source}")
  set_source_files_properties("${gpu_source}" PROPERTIES LANGUAGE CUDA)
  target_compile_options(${exe} PRIVATE
    -std=c++17 -Xcompiler=-Wall,-Wextra
    $<$<BOOL:${KBENCH_WERROR}>:-Werror=all-warnings -Xcompiler=-Werror>)
  target_link_libraries(${exe} PRIVATE ${host} kbench::backend_cuda)
  # libcudart and libcublas live in the toolkit, which ld.so may not search
  # (a GPU box without the ld.so.conf entry would give exit 127): a RUNPATH.
  set_target_properties(${exe} PROPERTIES
    BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}"
    INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endfunction()

# The custom command compiling `source` with hipcc into the object `obj`
# (CMake 3.25's HIP language cannot be used, docs/gpu.md): kbench's include
# directories (the source tree's or the installed package's) and the
# targets' architectures; ARGN: further flags.
function(_kb_hip_object obj source)
  get_filename_component(dir "${obj}" DIRECTORY)
  get_filename_component(file "${obj}" NAME)
  file(MAKE_DIRECTORY "${dir}")
  set(arch_flags "")
  foreach(arch IN LISTS KBENCH_HIP_ARCHITECTURES)
    list(APPEND arch_flags "--offload-arch=${arch}")
  endforeach()
  set(werror "")
  if(KBENCH_WERROR)
    set(werror -Werror)
  endif()
  set(includes "$<TARGET_PROPERTY:kbench::harness,INTERFACE_INCLUDE_DIRECTORIES>")
  add_custom_command(OUTPUT "${obj}"
    COMMAND "${KBENCH_HIPCC}" -x hip -std=c++17 -O3 -fPIC ${arch_flags} -Wall -Wextra ${werror}
      ${ARGN} "-I$<JOIN:${includes},;-I>" -MD -MF "${obj}.d" -c "${source}" -o "${obj}"
    DEPENDS "${source}"
    DEPFILE "${obj}.d"
    COMMENT "Building HIP object ${file}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
endfunction()

# kbench-<name>-hip: the same with <name>.cu compiled by hipcc as HIP.
function(kbench_add_hip_driver name exe host gpu_source)
  set(obj "${CMAKE_CURRENT_BINARY_DIR}/hip/${name}.o")
  _kb_hip_object("${obj}" "${gpu_source}")
  add_executable(${exe} "${obj}")
  target_link_libraries(${exe} PRIVATE ${host} kbench::backend_hip)
  # The HIP runtime's directory (/opt/rocm/lib on AMD's packages), as for CUDA.
  set_target_properties(${exe} PROPERTIES LINKER_LANGUAGE CXX
    BUILD_RPATH "$<TARGET_FILE_DIR:hip::amdhip64>"
    INSTALL_RPATH "$<TARGET_FILE_DIR:hip::amdhip64>")
endfunction()

# The device code of kbench's GPU backend `backend` (cuda or hip), the
# sources in ARGN: the compute roofs (benchtests/src/backend/gpu_roofs.cu,
# docs/gpu-timing.md "GPU roofs") and the stream hold of the timed calls
# (gpu_hold.cu, "Timing"), a static library kb_gpu_roofs_<backend> (named
# for its first source; the name is kept for the installed package) that
# the backend objects kb_backend_<backend> link; they name the harness's
# headers by layer ("backend/gpu_hold.h"), from the folder above theirs. nvcc compiles them as CUDA;
# for HIP, hipcc compiles each through a custom command as the kernels' GPU
# sources are (a static library, not the backend's object library, because
# an object library cannot hold a prebuilt object). For kbench's own build
# only: the installed package carries the library.
# The library is installed, so the source tree's path must not end up in it:
# __FILE__ in kb/gpu.h's launch check is mapped to a relative path.
function(kbench_add_gpu_backend_device_code backend)
  set(lib kb_gpu_roofs_${backend})
  set(no_source_path "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
  if(backend STREQUAL "cuda")
    add_library(${lib} STATIC ${ARGN})
    target_compile_options(${lib} PRIVATE -std=c++17 -Xcompiler=-Wall,-Wextra
      "-Xcompiler=${no_source_path}"
      $<$<BOOL:${KBENCH_WERROR}>:-Werror=all-warnings -Xcompiler=-Werror>)
    foreach(source IN LISTS ARGN)
      get_filename_component(src_dir "${source}" DIRECTORY)
      get_filename_component(src_root "${src_dir}" DIRECTORY)
      target_include_directories(${lib} PRIVATE "${src_root}")
    endforeach()
    # cuBLAS for the tensor-core figure.
    target_link_libraries(${lib} PUBLIC kbench::harness CUDA::cudart CUDA::cublas)
  else()
    set(objs "")
    foreach(source IN LISTS ARGN)
      get_filename_component(src_dir "${source}" DIRECTORY)
      get_filename_component(src_root "${src_dir}" DIRECTORY)
      get_filename_component(name "${source}" NAME_WE)
      set(obj "${CMAKE_CURRENT_BINARY_DIR}/hip/${name}.o")
      _kb_hip_object("${obj}" "${source}" "${no_source_path}" "-I${src_root}")
      list(APPEND objs "${obj}")
    endforeach()
    add_library(${lib} STATIC ${objs})
    set_target_properties(${lib} PROPERTIES LINKER_LANGUAGE CXX)
    target_link_libraries(${lib} PUBLIC kbench::harness hip::host)
  endif()
  set_target_properties(${lib} PROPERTIES EXPORT_NAME gpu_roofs_${backend})
  target_link_libraries(kb_backend_${backend} PUBLIC ${lib})
  set_property(GLOBAL APPEND PROPERTY KBENCH_INSTALL_TARGETS ${lib})
endfunction()
