# Kernel discovery: every kernels/<name>/kernel.json becomes a driver
# executable kbench-<name> and one CTest test per backend x precision,
# <name>.<backend>.<precision>. Nothing central lists the kernels.

set(KBENCH_DEFAULT_TEST_TIMEOUT 300)
set(KBENCH_FULL_TEST_TIMEOUT 3600)

# string(JSON <mode> ...) on the manifest text, failing configure with the
# manifest and the field named. The text is passed by variable name: it may
# hold semicolons, which an argument list would split.
function(_kb_json out manifest json_var mode)
  string(JSON value ERROR_VARIABLE err ${mode} "${${json_var}}" ${ARGN})
  if(err)
    string(REPLACE ";" "." field "${ARGN}")
    message(FATAL_ERROR "${manifest}: field '${field}': ${err}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The elements of a JSON array of strings as a CMake list.
function(_kb_json_strings out manifest json_var field)
  _kb_json(type "${manifest}" ${json_var} TYPE ${field})
  if(NOT type STREQUAL "ARRAY")
    message(FATAL_ERROR "${manifest}: field '${field}': expected an array of strings")
  endif()
  _kb_json(n "${manifest}" ${json_var} LENGTH ${field})
  set(items "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      _kb_json(item "${manifest}" ${json_var} GET ${field} ${i})
      list(APPEND items "${item}")
    endforeach()
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

function(_kb_check_members manifest kind values known)
  foreach(v IN LISTS values)
    if(NOT v IN_LIST known)
      message(FATAL_ERROR "${manifest}: field '${kind}': unknown value '${v}' "
        "(expected one of: ${known})")
    endif()
  endforeach()
endfunction()

# Libraries a manifest may ask for ("libraries": [...]): each is linked into
# the drivers of the backend it serves and announced to the sources as
# KB_HAVE_<NAME>. There is no hipBLAS: Debian does not package it, so HIP
# kernels have their hand-written variants only.
set(KBENCH_KNOWN_LIBRARIES openblas cublas)

# The targets and KB_HAVE_<NAME> definitions of the manifest's libraries
# that serve `backend`: openblas the CPU side, cublas the CUDA driver.
function(_kb_backend_libraries targets_out defines_out libraries backend)
  set(targets "")
  set(defines "")
  if(backend STREQUAL "cpu" AND "openblas" IN_LIST libraries)
    list(APPEND targets kb::openblas)
    list(APPEND defines KB_HAVE_OPENBLAS)
  elseif(backend STREQUAL "cuda" AND "cublas" IN_LIST libraries)
    list(APPEND targets CUDA::cublas)
    list(APPEND defines KB_HAVE_CUBLAS)
  endif()
  set(${targets_out} "${targets}" PARENT_SCOPE)
  set(${defines_out} "${defines}" PARENT_SCOPE)
endfunction()

# One timed test (a kernel test or a calibration): never two at once on a
# machine, and GPU tests take a GPU from the resource spec. RUN_SERIAL: two
# timed tests never share the machine under ctest -j, with or without a
# resource spec. KBENCH_GPU_PARALLEL lets GPU kernel tests run side by side,
# each owning the GPU the resource spec gives it; the driver then refuses to
# run without one. Every one requires the backend's calibration fixture, so
# a run measures the attainable bandwidth first (docs/calibration.md). The
# result JSON goes to CDash with the test (ATTACHED_FILES, docs/cdash.md).
function(_kb_add_timed_test test backend gpu_labels timeout labels)
  add_test(NAME ${test} COMMAND ${ARGN})
  set_tests_properties(${test} PROPERTIES
    LABELS "${labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${timeout}
    FIXTURES_REQUIRED kbench_calibration_${backend}
    ATTACHED_FILES "${KBENCH_RESULTS_DIR}/${test}.json")
  if(gpu_labels)
    set_tests_properties(${test} PROPERTIES RESOURCE_GROUPS "gpus:1")
  endif()
  if(gpu_labels AND KBENCH_GPU_PARALLEL)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "KBENCH_REQUIRE_RESOURCE_SPEC=1")
  else()
    set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()

# kbench.calibrate.<backend>: the manifest's "calibration" cases, measured
# before the backend's other tests (a CTest fixture they require); writes
# <results>/calibration.<backend>.json.
function(_kb_add_calibration_test backend gpu_labels timeout kernel)
  set(test kbench.calibrate.${backend})
  if(TEST ${test})
    message(FATAL_ERROR "kernels/${kernel}/kernel.json: field 'calibration': another kernel "
      "already calibrates backend '${backend}'; only one may")
  endif()
  add_test(NAME ${test} COMMAND ${ARGN})
  set_tests_properties(${test} PROPERTIES
    LABELS "${backend};calibrate;${kernel};${gpu_labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${timeout}
    RUN_SERIAL TRUE
    FIXTURES_SETUP kbench_calibration_${backend}
    ATTACHED_FILES "${KBENCH_RESULTS_DIR}/${test}.json;${KBENCH_RESULTS_DIR}/calibration/${backend}.json")
endfunction()

# Registers the tests of one kernel folder.
function(kbench_add_kernel dir)
  set(manifest "${dir}/kernel.json")
  get_filename_component(folder "${dir}" NAME)
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${manifest}")
  file(READ "${manifest}" json)
  _kb_json(name "${manifest}" json GET name)
  if(NOT name STREQUAL folder)
    message(FATAL_ERROR "${manifest}: field 'name': '${name}' differs from its folder '${folder}'")
  endif()
  _kb_json_strings(backends "${manifest}" json backends)
  _kb_json_strings(precisions "${manifest}" json precisions)
  _kb_check_members("${manifest}" backends "${backends}" "${KBENCH_KNOWN_BACKENDS}")
  _kb_check_members("${manifest}" precisions "${precisions}" "${KBENCH_KNOWN_PRECISIONS}")
  set(extra_labels "")
  string(JSON has_labels ERROR_VARIABLE no_labels GET "${json}" labels)
  if(NOT no_labels)
    _kb_json_strings(extra_labels "${manifest}" json labels)
  endif()
  set(timeout ${KBENCH_DEFAULT_TEST_TIMEOUT})
  string(JSON t ERROR_VARIABLE no_timeout GET "${json}" timeout)
  if(NOT no_timeout)
    if(NOT t MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${manifest}: field 'timeout': expected whole seconds, got '${t}'")
    endif()
    set(timeout ${t})
  endif()

  # "full": the large sweep, registered as <test>.full with the one label
  # full, only when KBENCH_FULL is ON: in a default build no label or name
  # regex (-L cpu, -L fp16, -R layernorm) can pull a long sweep in.
  string(JSON full_type ERROR_VARIABLE no_full TYPE "${json}" full)
  set(has_full OFF)
  if(NOT no_full)
    set(has_full ON)
  endif()
  string(JSON calibration_type ERROR_VARIABLE no_calibration TYPE "${json}" calibration)
  set(has_calibration OFF)
  if(NOT no_calibration)
    set(has_calibration ON)
  endif()
  list(GET precisions 0 first_prec)

  set(libraries "")
  string(JSON has_libraries ERROR_VARIABLE no_libraries GET "${json}" libraries)
  if(NOT no_libraries)
    _kb_json_strings(libraries "${manifest}" json libraries)
    _kb_check_members("${manifest}" libraries "${libraries}" "${KBENCH_KNOWN_LIBRARIES}")
  endif()

  set(reference "${PROJECT_SOURCE_DIR}/reference/${name}.c")
  if(NOT EXISTS "${reference}")
    message(FATAL_ERROR "${manifest}: kernel '${name}' has no reference (expected ${reference})")
  endif()
  file(GLOB cpu_sources CONFIGURE_DEPENDS "${dir}/*.c")
  if(NOT cpu_sources)
    message(FATAL_ERROR "${manifest}: kernel '${name}' has no C source in ${dir}")
  endif()

  # The kernel's C sources and reference, compiled once for every driver.
  set(exe kbench-${name})
  set(host ${exe}-host)
  add_library(${host} OBJECT ${cpu_sources} "${reference}")
  target_include_directories(${host} PRIVATE "${PROJECT_SOURCE_DIR}")
  target_compile_options(${host} PRIVATE ${KBENCH_KERNEL_FLAGS})
  target_link_libraries(${host} PUBLIC kb::driver m PRIVATE kb_warnings)
  add_executable(${exe})
  target_link_libraries(${exe} PRIVATE ${host})
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  _kb_backend_libraries(targets defines "${libraries}" cpu)
  target_link_libraries(${host} PUBLIC ${targets})
  target_compile_definitions(${host} PUBLIC ${defines})

  foreach(backend IN LISTS backends)
    if(NOT backend IN_LIST KBENCH_BACKENDS)
      continue()
    endif()
    set(driver ${exe})
    set(gpu_labels "")
    if(NOT backend STREQUAL "cpu")
      set(gpu_source "${dir}/${name}.cu")
      if(NOT EXISTS "${gpu_source}")
        message(FATAL_ERROR "${manifest}: field 'backends': '${backend}' is declared but the "
          "kernel has no GPU source (expected ${gpu_source})")
      endif()
      set(driver ${exe}-${backend})
      cmake_language(CALL kbench_add_${backend}_driver ${name} ${driver} ${host} "${gpu_source}")
      _kb_backend_libraries(targets defines "${libraries}" ${backend})
      target_link_libraries(${driver} PRIVATE ${targets})
      target_compile_definitions(${driver} PRIVATE ${defines})
      set_target_properties(${driver} PROPERTIES
        RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
      set(gpu_labels gpu)
    endif()
    foreach(prec IN LISTS precisions)
      set(test ${name}.${backend}.${prec})
      _kb_add_timed_test(${test} ${backend} "${gpu_labels}" ${timeout}
        "${backend};${prec};${name};perf;${gpu_labels};${extra_labels}"
        ${driver} --backend ${backend} --precision ${prec} --manifest "${manifest}")
      if(has_full AND KBENCH_FULL)
        _kb_add_timed_test(${test}.full ${backend} "${gpu_labels}" ${KBENCH_FULL_TEST_TIMEOUT} full
          ${driver} --backend ${backend} --precision ${prec} --manifest "${manifest}" --set full)
      endif()
    endforeach()
    if(has_calibration)
      _kb_add_calibration_test(${backend} "${gpu_labels}" ${timeout} ${name}
        ${driver} --backend ${backend} --precision ${first_prec} --manifest "${manifest}"
        --calibrate)
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY KBENCH_KERNELS ${name})
endfunction()

function(kbench_discover_kernels root)
  file(GLOB manifests CONFIGURE_DEPENDS "${root}/*/kernel.json")
  list(SORT manifests)
  foreach(manifest IN LISTS manifests)
    get_filename_component(dir "${manifest}" DIRECTORY)
    kbench_add_kernel("${dir}")
  endforeach()
  get_property(kernels GLOBAL PROPERTY KBENCH_KERNELS)
  message(STATUS "kbench kernels: ${kernels}")
endfunction()
