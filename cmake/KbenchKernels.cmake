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

# What a label (and a case name, in the C reader) may be: it becomes part of
# test names, file names and CTest label lists, so no ';', '/', whitespace,
# '..', and no leading '.' or '-'.
set(_KB_NAME_REGEX "^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
set(_KB_IDENTIFIER_REGEX "^[A-Za-z_][A-Za-z0-9_]*$")

# The elements of a JSON array of strings as a CMake list: each a string,
# none holding ';' (a list separator) and none listed twice; at least one
# when `required` is ON.
function(_kb_json_strings out manifest json_var field required)
  _kb_json(type "${manifest}" ${json_var} TYPE ${field})
  if(NOT type STREQUAL "ARRAY")
    message(FATAL_ERROR "${manifest}: field '${field}': expected an array of strings")
  endif()
  _kb_json(n "${manifest}" ${json_var} LENGTH ${field})
  if(n EQUAL 0 AND required)
    message(FATAL_ERROR "${manifest}: field '${field}': expected a non-empty array of names")
  endif()
  set(items "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      _kb_json(item_type "${manifest}" ${json_var} TYPE ${field} ${i})
      if(NOT item_type STREQUAL "STRING")
        message(FATAL_ERROR "${manifest}: field '${field}[${i}]': expected a string")
      endif()
      _kb_json(item "${manifest}" ${json_var} GET ${field} ${i})
      if(item MATCHES ";")
        message(FATAL_ERROR "${manifest}: field '${field}[${i}]': '${item}' contains ';', "
          "which would split it in two")
      endif()
      if(item IN_LIST items)
        message(FATAL_ERROR "${manifest}: field '${field}[${i}]': '${item}' is listed twice")
      endif()
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

# The path of the container entered at `depth` (for messages): its parent's
# path and the key or index it sits at.
macro(_kb_json_enter kind)
  set(_parent ${depth})
  math(EXPR depth "${depth} + 1")
  if(_parent EQUAL 0)
    set(path_${depth} "")
  elseif(kind_${_parent} STREQUAL "object")
    set(path_${depth} "${path_${_parent}}${dot_${_parent}}${key_${_parent}}")
  else()
    set(path_${depth} "${path_${_parent}}[${index_${_parent}}]")
  endif()
  set(kind_${depth} ${kind})
  set(keys_${depth} "")
  set(index_${depth} 0)
  set(dot_${depth} ".")
  if(path_${depth} STREQUAL "")
    set(dot_${depth} "")
  endif()
  set(expect_key ON)
endmacro()

# Fails naming the manifest unless its text is JSON as the driver's reader
# (cJSON) takes it: CMake's parser also accepts comments and text after the
# root, and keeps the last of a key given twice where cJSON keeps the first.
# Configure must not register tests from a file the driver refuses, nor read
# another value than the driver, so: no comments or stray characters, one
# root value, and no object holding a key twice (at any depth, named by its
# path). The text is scanned token by token; ';', '[' and ']' are masked
# first because CMake lists treat them specially.
# A JSON string literal, escapes included: what the checks below skip over.
set(_KB_JSON_STRING_REGEX "\"([^\"\\\\]|\\\\.)*\"")

function(_kb_json_check_text manifest json_var)
  string(REGEX REPLACE "${_KB_JSON_STRING_REGEX}" "\"\"" bare "${${json_var}}")
  string(REPLACE "[" "" bare "${bare}")
  string(REPLACE "]" "" bare "${bare}")
  string(REPLACE ";" "x" bare "${bare}")
  if(bare MATCHES "[^{}:,0-9eE.+ \t\r\n\"truefalsn-]")
    message(FATAL_ERROR "${manifest}: malformed JSON: '${CMAKE_MATCH_0}' outside a string "
      "(comments and text after the root are not JSON)")
  endif()
  set(text "${${json_var}}")
  string(REPLACE ";" "<kb_semi>" text "${text}")
  string(REPLACE "[" "<kb_lb>" text "${text}")
  string(REPLACE "]" "<kb_rb>" text "${text}")
  string(REGEX MATCHALL "${_KB_JSON_STRING_REGEX}|[{}:,]|<kb_lb>|<kb_rb>" tokens "${text}")
  set(roots 0)
  set(depth 0)
  set(expect_key OFF)
  foreach(tok IN LISTS tokens)
    if(depth EQUAL 0 AND roots GREATER 0)
      message(FATAL_ERROR "${manifest}: malformed JSON: text after the root object")
    endif()
    if(tok STREQUAL "{")
      _kb_json_enter(object)
    elseif(tok STREQUAL "<kb_lb>")
      _kb_json_enter(array)
    elseif(tok STREQUAL "}" OR tok STREQUAL "<kb_rb>")
      math(EXPR depth "${depth} - 1")
      if(depth EQUAL 0)
        set(roots 1)
      endif()
      set(expect_key OFF)
    elseif(tok STREQUAL ",")
      if(depth GREATER 0 AND kind_${depth} STREQUAL "object")
        set(expect_key ON)
      elseif(depth GREATER 0)
        math(EXPR index_${depth} "${index_${depth}} + 1")
      endif()
    elseif(tok STREQUAL ":")
      set(expect_key OFF)
    elseif(expect_key AND depth GREATER 0 AND kind_${depth} STREQUAL "object")
      string(REGEX REPLACE "^\"(.*)\"$" "\\1" key "${tok}")
      if(key IN_LIST keys_${depth})
        string(REPLACE "<kb_semi>" ";" shown "${path_${depth}}${dot_${depth}}${key}")
        string(REPLACE "<kb_lb>" "[" shown "${shown}")
        string(REPLACE "<kb_rb>" "]" shown "${shown}")
        message(FATAL_ERROR "${manifest}: field '${shown}': the key appears twice in one object")
      endif()
      list(APPEND keys_${depth} "${key}")
      set(key_${depth} "${key}")
    endif()
  endforeach()
endfunction()

# Fails naming the manifest when its brackets nest deeper than 64 levels
# (or do not pair up): CMake's own JSON parser aborts the whole configure,
# without a message, past about a thousand. Strings are dropped first; then
# each pass removes the innermost empty pairs.
function(_kb_json_check_depth manifest json_var)
  string(REGEX REPLACE "${_KB_JSON_STRING_REGEX}" "" nest "${${json_var}}")
  string(REPLACE "[" "(" nest "${nest}")
  string(REPLACE "]" ")" nest "${nest}")
  string(REGEX REPLACE "[^(){}]" "" nest "${nest}")
  foreach(level RANGE 64)
    if(nest STREQUAL "")
      return()
    endif()
    string(REGEX REPLACE "\\(\\)|{}" "" nest "${nest}")
  endforeach()
  message(FATAL_ERROR "${manifest}: malformed JSON: brackets nested deeper than 64 levels, "
    "or not in pairs")
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
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "KBENCH_TIMEOUT=${timeout}")
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
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "KBENCH_TIMEOUT=${timeout}")
endfunction()

# Reads and checks what configure needs from a manifest, failing with the
# manifest and the field named, and sets in the caller: name, backends,
# precisions, extra_labels, timeout, has_full, has_calibration, libraries.
# The driver validates the whole file (benchtests/src/manifest.c) with the
# same rules for these fields. Usable in script mode (cmake -P), which the
# unit test kbench.unit.manifest relies on.
function(_kb_read_manifest manifest folder)
  file(READ "${manifest}" json)
  _kb_json_check_depth("${manifest}" json)
  string(JSON root_type ERROR_VARIABLE err TYPE "${json}")
  if(err)
    message(FATAL_ERROR "${manifest}: malformed JSON: ${err}")
  elseif(NOT root_type STREQUAL "OBJECT")
    message(FATAL_ERROR "${manifest}: expected a JSON object, not a JSON ${root_type}")
  endif()
  _kb_json_check_text("${manifest}" json)
  _kb_json(name_type "${manifest}" json TYPE name)
  _kb_json(name "${manifest}" json GET name)
  if(NOT name_type STREQUAL "STRING" OR NOT name MATCHES "${_KB_IDENTIFIER_REGEX}")
    message(FATAL_ERROR "${manifest}: field 'name': '${name}' is not a plain identifier "
      "(letters, digits and '_'): it names the driver, the tests and the baseline file")
  endif()
  if(NOT name STREQUAL folder)
    message(FATAL_ERROR "${manifest}: field 'name': '${name}' differs from its folder '${folder}'")
  endif()
  _kb_json_strings(backends "${manifest}" json backends ON)
  _kb_json_strings(precisions "${manifest}" json precisions ON)
  _kb_check_members("${manifest}" backends "${backends}" "${KBENCH_KNOWN_BACKENDS}")
  _kb_check_members("${manifest}" precisions "${precisions}" "${KBENCH_KNOWN_PRECISIONS}")
  set(extra_labels "")
  string(JSON has_labels ERROR_VARIABLE no_labels GET "${json}" labels)
  if(NOT no_labels)
    _kb_json_strings(extra_labels "${manifest}" json labels ON)
    foreach(label IN LISTS extra_labels)
      string(LENGTH "${label}" label_length)
      if(NOT label MATCHES "${_KB_NAME_REGEX}" OR label MATCHES "[.][.]" OR label_length GREATER 63)
        message(FATAL_ERROR "${manifest}: field 'labels': '${label}' is not a plain label "
          "(1 to 63 letters, digits, '_', '.' and '-', not starting with '.' or '-', no '..')")
      endif()
    endforeach()
  endif()
  set(timeout ${KBENCH_DEFAULT_TEST_TIMEOUT})
  string(JSON t ERROR_VARIABLE no_timeout GET "${json}" timeout)
  if(NOT no_timeout)
    string(JSON t_type TYPE "${json}" timeout)
    string(LENGTH "${t}" t_len)
    if(NOT t_type STREQUAL "NUMBER" OR NOT t MATCHES "^[0-9]+$" OR t_len GREATER 6
        OR t EQUAL 0 OR t GREATER 604800)
      message(FATAL_ERROR "${manifest}: field 'timeout': expected whole seconds from 1 to "
        "604800, got '${t}'")
    endif()
    set(timeout ${t})
  endif()

  # "full": the large sweep (registered as <test>.full when KBENCH_FULL is ON).
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

  set(libraries "")
  string(JSON has_libraries ERROR_VARIABLE no_libraries GET "${json}" libraries)
  if(NOT no_libraries)
    _kb_json_strings(libraries "${manifest}" json libraries ON)
    _kb_check_members("${manifest}" libraries "${libraries}" "${KBENCH_KNOWN_LIBRARIES}")
  endif()
  foreach(var name backends precisions extra_labels timeout has_full has_calibration libraries)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()

# A C string literal holding `text` (a path may hold '"' or '\').
function(_kb_c_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# Gives `target` the kb_build facts (kb/build.h) of kernel `name`: a C file
# generated into the build tree, so the name is written only in the manifest.
function(kbench_add_build_info target name manifest)
  get_filename_component(manifest "${manifest}" ABSOLUTE)
  _kb_c_string(name_literal "${name}")
  _kb_c_string(manifest_literal "${manifest}")
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}-build.c")
  file(CONFIGURE OUTPUT "${file}" CONTENT
"/* Generated by kbench_add_kernel from ${name}'s manifest: do not edit. */
#include \"kb/build.h\"

const kb_build_info kb_build = {${name_literal}, ${manifest_literal}};
" @ONLY)
  target_sources(${target} PRIVATE "${file}")
endfunction()

# Registers the tests of one kernel folder.
function(kbench_add_kernel dir)
  set(manifest "${dir}/kernel.json")
  get_filename_component(folder "${dir}" NAME)
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${manifest}")
  _kb_read_manifest("${manifest}" "${folder}")
  list(GET precisions 0 first_prec)

  if(NOT EXISTS "${dir}/reference.c")
    message(FATAL_ERROR "${manifest}: kernel '${name}' has no reference (expected "
      "${dir}/reference.c, ending with KB_REGISTER_REFERENCE)")
  endif()
  file(GLOB cpu_sources CONFIGURE_DEPENDS "${dir}/*.c")

  # The kernel's C sources and reference, compiled once for every driver.
  set(exe kbench-${name})
  set(host ${exe}-host)
  add_library(${host} OBJECT ${cpu_sources})
  kbench_add_build_info(${host} ${name} "${manifest}")
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
