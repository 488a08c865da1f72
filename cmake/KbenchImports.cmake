# kbench's names for its dependencies, created after find_package(cJSON) and
# find_package(OpenBLAS) in kbench's build (KbenchDependencies.cmake) and in a
# consumer's (kbenchConfig.cmake): the exported kbench::harness links them by
# these names. Debian's cJSON config defines 'cjson' without a namespace and
# Debian's OpenBLAS config only variables.
macro(_kb_import_dependencies)
  if(NOT TARGET cjson)
    message(FATAL_ERROR "cJSON was found at ${cJSON_DIR} but defines no 'cjson' target")
  endif()
  if(NOT TARGET kb::cjson)
    add_library(kb::cjson INTERFACE IMPORTED)
    target_link_libraries(kb::cjson INTERFACE cjson)
    target_include_directories(kb::cjson INTERFACE ${CJSON_INCLUDE_DIRS})
  endif()
  if(NOT TARGET kb::openblas)
    add_library(kb::openblas INTERFACE IMPORTED)
    target_include_directories(kb::openblas INTERFACE ${OpenBLAS_INCLUDE_DIRS})
    target_link_libraries(kb::openblas INTERFACE ${OpenBLAS_LIBRARIES})
  endif()
endmacro()

# kb::onednn: oneDNN (CMake package 'dnnl', target DNNL::dnnl) and the
# OpenMP runtime it is built on, for the CPU side of a kernel whose manifest
# lists "onednn". Looked for only then, in kbench's build and in a
# consumer's alike: a project without such a kernel does not need it. The
# kernels link OpenMP themselves to run oneDNN on one thread
# (omp_set_num_threads, kb/vendor/onednn.h): Debian's oneDNN uses OpenMP.
function(_kb_import_onednn)
  if(TARGET kb::onednn)
    return()
  endif()
  # Debian's oneDNN package requires OpenCL (its GPU runtime) and would stop
  # configure with its own message: look first, to say what to install.
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND)
    find_package(dnnl CONFIG QUIET)
  endif()
  if(NOT OpenCL_FOUND OR NOT dnnl_FOUND OR NOT TARGET DNNL::dnnl)
    message(FATAL_ERROR "a kernel lists the library 'onednn' (its \"libraries\"), which needs "
      "oneDNN (CMake package 'dnnl', target DNNL::dnnl). On Debian/Ubuntu: "
      "apt-get install libdnnl-dev ocl-icd-opencl-dev (oneDNN's package needs OpenCL)")
  endif()
  find_package(OpenMP QUIET COMPONENTS C)
  if(NOT OpenMP_C_FOUND)
    message(FATAL_ERROR "oneDNN was found at ${dnnl_DIR}, but not OpenMP for C, which kbench "
      "needs to run it on one thread (Debian's oneDNN is built on GCC's OpenMP, libgomp)")
  endif()
  add_library(kb::onednn INTERFACE IMPORTED)
  target_link_libraries(kb::onednn INTERFACE DNNL::dnnl OpenMP::OpenMP_C)
endfunction()
