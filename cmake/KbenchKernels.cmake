# Kernel registration: every kernel folder (<dir>/kernel.json and its
# sources) becomes a driver executable kbench-<name> and one CTest test per
# backend x precision, <name>.<backend>.<precision>. Nothing central lists the
# kernels. kbench's own suite discovers kernels/ and KBENCH_KERNEL_DIRS with
# kbench_discover_kernels(); another project calls kbench_add_kernel() after
# find_package(kbench) or add_subdirectory() (docs/using-kbench-in-your-project.md).
#
# Installed with the package: the functions here read only what any caller can
# see (global properties, the exported targets kbench::*, cache variables and
# the caller's own CMAKE_*/PROJECT_* variables), never a variable of kbench's
# own directory. Also usable in script mode (cmake -P) for _kb_read_manifest.

# The fixed vocabulary, set in every function that needs it (a variable of
# this file's scope is not visible to a caller in another directory).
macro(_kb_constants)
  # The backends and which of them are GPUs, as the driver's table has them
  # (benchtests/src/formats/vocab.h; kbench.unit.backend_names compares).
  set(KBENCH_KNOWN_BACKENDS cpu cuda hip)
  set(KBENCH_GPU_BACKENDS cuda hip)
  set(KBENCH_KNOWN_PRECISIONS fp64 fp32 fp16 bf16)
  # Libraries a manifest may ask for ("libraries": [...]): each is linked into
  # the drivers of the backend it serves and announced to the sources as
  # KB_HAVE_<NAME>. There is no hipBLAS: Debian does not package it, so HIP
  # kernels have their hand-written variants only. onednn (CPU) is looked
  # for only when a manifest lists it (_kb_import_onednn, KbenchImports.cmake).
  # cublas brings cuBLAS and cuBLASLt (KB_HAVE_CUBLAS, KB_HAVE_CUBLASLT);
  # cudnn is cuDNN from the CUDA toolkit's directory (KB_HAVE_CUDNN, when
  # found).
  set(KBENCH_KNOWN_LIBRARIES openblas onednn cublas cudnn)
  # The top-level keys of a manifest; any key ending in "_note" is free text.
  # The driver's reader has the same list (root_keys in
  # benchtests/src/formats/manifest.c): change both together.
  set(KBENCH_MANIFEST_KEYS name description backends precisions tolerance flops bytes cases
    sweep full variants libraries labels calibration timeout transcendentals threads)
  set(KBENCH_DEFAULT_TEST_TIMEOUT 300)
  set(KBENCH_FULL_TEST_TIMEOUT 3600)
  # What a label (and a case name, in the C reader) may be: it becomes part
  # of test names, file names and CTest label lists, so no ';', '/',
  # whitespace, '..', and no leading '.' or '-'.
  set(_KB_NAME_REGEX "^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
  set(_KB_IDENTIFIER_REGEX "^[A-Za-z_][A-Za-z0-9_]*$")
  # A JSON string literal in text whose escaped quotes and backslashes are
  # masked (_kb_json_mask_escapes). A plain run of characters: CMake's regex
  # engine recurses once per repetition of a group, and a string of some
  # 100000 characters matched as one would overflow its stack.
  set(_KB_JSON_STRING_REGEX "\"[^\"]*\"")
  # The largest manifest configure reads: a kernel's manifest is a few KiB.
  set(_KB_MANIFEST_MAX_BYTES 1048576)
endmacro()
_kb_constants()
include("${CMAKE_CURRENT_LIST_DIR}/KbenchProject.cmake")

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

# The manifest's text (in `json_var`) with the escapes that could end a
# string masked, into `out`: each escaped backslash becomes <kb_bs> and each
# escaped quote <kb_q>, so that every string literal is a quote, characters
# other than a quote, and a quote (_KB_JSON_STRING_REGEX). Backslash pairs go
# first, left to right, as a JSON reader pairs them.
function(_kb_json_mask_escapes out json_var)
  string(REPLACE "\\\\" "<kb_bs>" text "${${json_var}}")
  string(REPLACE "\\\"" "<kb_q>" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Fails naming the manifest when anything but JSON's own characters stands
# outside its strings (in the masked text `json_var`). CMake's parser also
# takes comments, and a quote inside a comment would hide from the other
# checks what the parser then reads (brackets nested past its limit, which
# aborts configure), so this comes before anything else reads the text.
function(_kb_json_check_chars manifest json_var)
  string(REGEX REPLACE "${_KB_JSON_STRING_REGEX}" "\"\"" bare "${${json_var}}")
  string(REPLACE "[" "" bare "${bare}")
  string(REPLACE "]" "" bare "${bare}")
  string(REPLACE ";" "x" bare "${bare}")
  if(bare MATCHES "[^{}:,0-9eE.+ \t\r\n\"truefalsn-]")
    message(FATAL_ERROR "${manifest}: malformed JSON: '${CMAKE_MATCH_0}' outside a string "
      "(comments and text after the root are not JSON)")
  endif()
endfunction()

# Fails naming the manifest unless its text is JSON as the driver's reader
# (cJSON) takes it: CMake's parser keeps the last of a key given twice where
# cJSON keeps the first, and takes text after the root. Configure must not
# register tests from a file the driver refuses, nor read another value than
# the driver, so: one root value, and no object holding a key twice (at any
# depth, named by its path). The masked text (`json_var`) is scanned token by
# token; ';', '[' and ']' are masked first because CMake lists treat them
# specially.
function(_kb_json_check_text manifest json_var)
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
        string(REPLACE "<kb_q>" "\\\"" shown "${shown}")
        string(REPLACE "<kb_bs>" "\\\\" shown "${shown}")
        message(FATAL_ERROR "${manifest}: field '${shown}': the key appears twice in one object")
      endif()
      list(APPEND keys_${depth} "${key}")
      set(key_${depth} "${key}")
    endif()
  endforeach()
endfunction()

# Fails naming the manifest when its brackets nest deeper than 64 levels
# (or do not pair up): CMake's own JSON parser aborts the whole configure,
# without a message, past about a thousand. Strings of the masked text
# (`json_var`) are dropped first; then each pass removes the innermost empty
# pairs.
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

# cuDNN as the imported target kb::cudnn in `out`, or "" when the toolkit
# has none (the CUDA toolkit does not always carry it: the kernels' cuDNN
# variants are then left out, said once at configure).
function(_kb_cudnn_target out)
  if(NOT TARGET kb::cudnn)
    find_library(KBENCH_CUDNN_LIBRARY cudnn HINTS "${CUDAToolkit_LIBRARY_DIR}")
    find_path(KBENCH_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    mark_as_advanced(KBENCH_CUDNN_LIBRARY KBENCH_CUDNN_INCLUDE_DIR)
    if(NOT KBENCH_CUDNN_LIBRARY OR NOT KBENCH_CUDNN_INCLUDE_DIR)
      get_property(warned GLOBAL PROPERTY _KB_CUDNN_WARNED)
      if(NOT warned)
        set_property(GLOBAL PROPERTY _KB_CUDNN_WARNED ON)
        message(WARNING "cuDNN (libcudnn, cudnn.h) not found next to the CUDA toolkit "
          "(${CUDAToolkit_LIBRARY_DIR}): the kernels' cuDNN vendor variants are left out; "
          "set KBENCH_CUDNN_LIBRARY and KBENCH_CUDNN_INCLUDE_DIR to use one elsewhere")
      endif()
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
    add_library(kb::cudnn UNKNOWN IMPORTED GLOBAL)
    set_target_properties(kb::cudnn PROPERTIES IMPORTED_LOCATION "${KBENCH_CUDNN_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${KBENCH_CUDNN_INCLUDE_DIR}")
  endif()
  set(${out} kb::cudnn PARENT_SCOPE)
endfunction()

# The targets and KB_HAVE_<NAME> definitions of the manifest's libraries
# that serve `backend`: openblas and onednn the CPU side, cublas and cudnn
# the CUDA driver.
function(_kb_backend_libraries targets_out defines_out libraries backend)
  set(targets "")
  set(defines "")
  if(backend STREQUAL "cpu")
    if("openblas" IN_LIST libraries)
      list(APPEND targets kb::openblas)
      list(APPEND defines KB_HAVE_OPENBLAS)
    endif()
    if("onednn" IN_LIST libraries)
      _kb_import_onednn()
      list(APPEND targets kb::onednn)
      list(APPEND defines KB_HAVE_ONEDNN)
    endif()
  elseif(backend STREQUAL "cuda")
    if("cublas" IN_LIST libraries)
      list(APPEND targets CUDA::cublas CUDA::cublasLt)
      list(APPEND defines KB_HAVE_CUBLAS KB_HAVE_CUBLASLT)
    endif()
    if("cudnn" IN_LIST libraries)
      _kb_cudnn_target(cudnn)
      if(cudnn)
        list(APPEND targets ${cudnn})
        list(APPEND defines KB_HAVE_CUDNN)
      endif()
    endif()
  endif()
  set(${targets_out} "${targets}" PARENT_SCOPE)
  set(${defines_out} "${defines}" PARENT_SCOPE)
endfunction()


# Fails naming the manifest and the key when the root object holds a key
# the driver does not know (KBENCH_MANIFEST_KEYS; "<anything>_note" is free):
# a misspelt optional field would otherwise be ignored here and refused only
# when the test runs.
function(_kb_check_root_keys manifest json_var)
  string(JSON n LENGTH "${${json_var}}")
  if(n EQUAL 0)
    return()
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON key MEMBER "${${json_var}}" ${i})
    if(NOT key IN_LIST KBENCH_MANIFEST_KEYS AND NOT key MATCHES "^.+_note$")
      string(REPLACE ";" " " known "${KBENCH_MANIFEST_KEYS}")
      message(FATAL_ERROR "${manifest}: field '${key}': unknown key (known: ${known}, "
        "and any key ending in _note)")
    endif()
  endforeach()
endfunction()

# Fails naming `what` unless `label` is a plain label, in a manifest's
# "labels" and in kbench_add_kernel's LABELS alike.
function(_kb_check_label what label)
  _kb_constants()
  string(LENGTH "${label}" length)
  if(NOT label MATCHES "${_KB_NAME_REGEX}" OR label MATCHES "[.][.]" OR length GREATER 63)
    message(FATAL_ERROR "${what}: '${label}' is not a plain label "
      "(1 to 63 letters, digits, '_', '.' and '-', not starting with '.' or '-', no '..')")
  endif()
endfunction()

# Reads and checks what configure needs from a manifest, failing with the
# manifest and the field named, and sets in the caller: name, backends,
# precisions, extra_labels, timeout, has_full, has_calibration, libraries.
# The driver validates the whole file (benchtests/src/formats/manifest.c) with the
# same rules for these fields. Usable in script mode (cmake -P), which the
# unit test kbench.unit.manifest relies on.
function(_kb_read_manifest manifest folder)
  _kb_constants()
  # Everything CMake's JSON parser could crash on is refused before it reads
  # the file: a size no manifest has, comments, brackets nested too deep.
  file(SIZE "${manifest}" size)
  if(size GREATER _KB_MANIFEST_MAX_BYTES)
    message(FATAL_ERROR "${manifest}: ${size} bytes, more than the ${_KB_MANIFEST_MAX_BYTES} a "
      "kernel manifest may have")
  endif()
  file(READ "${manifest}" json)
  _kb_json_mask_escapes(masked json)
  _kb_json_check_chars("${manifest}" masked)
  _kb_json_check_depth("${manifest}" masked)
  string(JSON root_type ERROR_VARIABLE err TYPE "${json}")
  if(err)
    message(FATAL_ERROR "${manifest}: malformed JSON: ${err}")
  elseif(NOT root_type STREQUAL "OBJECT")
    message(FATAL_ERROR "${manifest}: expected a JSON object, not a JSON ${root_type}")
  endif()
  _kb_json_check_text("${manifest}" masked)
  _kb_check_root_keys("${manifest}" json)
  _kb_json(name_type "${manifest}" json TYPE name)
  _kb_json(name "${manifest}" json GET name)
  string(LENGTH "${name}" name_length)
  if(NOT name_type STREQUAL "STRING" OR NOT name MATCHES "${_KB_IDENTIFIER_REGEX}"
      OR name_length GREATER 63)
    message(FATAL_ERROR "${manifest}: field 'name': '${name}' is not a plain identifier "
      "(1 to 63 letters, digits and '_', as the driver reads it): it names the driver, the "
      "tests and the baseline file")
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
      _kb_check_label("${manifest}: field 'labels'" "${label}")
    endforeach()
  endif()
  set(timeout ${KBENCH_DEFAULT_TEST_TIMEOUT})
  string(JSON t ERROR_VARIABLE no_timeout GET "${json}" timeout)
  if(NOT no_timeout)
    string(JSON t_type TYPE "${json}" timeout)
    if(NOT t_type STREQUAL "NUMBER")
      set(t "${t_type}")
    endif()
    _kb_check_timeout("${manifest}: field 'timeout'" "${t}")
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
    foreach(library IN LISTS libraries)
      if(NOT library IN_LIST KBENCH_KNOWN_LIBRARIES)
        message(FATAL_ERROR "${manifest}: field 'libraries': unknown value '${library}' "
          "(expected one of: ${KBENCH_KNOWN_LIBRARIES}, the libraries kbench finds itself; "
          "link any other with kbench_add_kernel(... LINK_LIBRARIES <target or library>...))")
      endif()
    endforeach()
  endif()
  foreach(var name backends precisions extra_labels timeout has_full has_calibration libraries)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()


# The test options of a project whose kernels kbench registers: kbench's own
# (KbenchOptions.cmake) or a consumer's (kbenchConfig.cmake, or the first
# kbench_add_kernel after add_subdirectory). Baselines default to the
# top-level project's baselines/ (docs/using-kbench-in-your-project.md).
macro(kbench_declare_test_options)
  set(KBENCH_PROFILE "auto" CACHE STRING
    "Baseline profile (a directory under KBENCH_BASELINE_DIR); 'auto' = detected from the hardware at run time")
  set(KBENCH_BASELINE_DIR "${CMAKE_SOURCE_DIR}/baselines" CACHE PATH
    "Root of the baseline tree: <dir>/<profile>/<kernel>.json")
  option(KBENCH_FULL
    "Also register each kernel's large sweep as <kernel>.<backend>.<precision>.full (label full)"
    OFF)
  option(KBENCH_GPU_PARALLEL
    "GPU tests run side by side, one per GPU of the CTest resource spec, instead of one at a time (ctest then needs --resource-spec-file; docs/resource-spec.md)"
    OFF)
endmacro()

# Where every test of this build tree writes its result JSON.
function(_kb_results_dir out)
  set(${out} "${CMAKE_BINARY_DIR}/kbench-results" PARENT_SCOPE)
endfunction()

# The flags every reference is compiled with, in `out`: the reference
# library's sources (reference/) and each kernel folder's reference.c and
# reference_*.c, whatever the build type and KBENCH_CPU_NATIVE say. Placed
# after the build type's flags, so -O2 replaces -O3 or -O0; no contraction
# into FMAs and no fast-math, so every operation rounds as written; nothing
# for the machine (no -march). Read by kbench's own build and by a
# consumer's (this file is installed).
function(_kb_reference_flags out)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    set(flags -O2 -ffp-contract=off -fno-fast-math)
  elseif(CMAKE_C_COMPILER_ID STREQUAL "MSVC")
    set(flags /O2 /fp:precise)
  else()
    set(flags "")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# The flags a kernel's sources get beyond the build type's, in `out`: -O3
# when a single-config build has no build type, which would otherwise compile
# them without optimisation and time that (kbench's own top-level build
# defaults to Release instead; a consumer's build type is its own to choose).
function(_kb_default_optimisation out)
  set(flags "")
  if(NOT CMAKE_CONFIGURATION_TYPES AND "${CMAKE_BUILD_TYPE}" STREQUAL ""
      AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT " ${CMAKE_C_FLAGS}" MATCHES " -O")
    set(flags -O3)
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# A C string literal holding `text` (a path may hold '"' or '\').
function(_kb_c_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# Gives `target` the kb_build facts (kb/build.h) of kernel `name`: a C file
# generated into the calling project's build tree, so the name is written
# only in the manifest and nothing of the build that compiled kbench's
# libraries reaches a driver: this project's source tree (git state in
# results), its results and baseline directories and profile, the kernel's
# manifest, and the C compiler and flags the kernel's sources get.
function(kbench_add_build_info target name manifest)
  get_filename_component(manifest "${manifest}" ABSOLUTE)
  _kb_results_dir(results)
  set(kernel_flags "")
  if(TARGET kbench::kernel_flags)
    get_target_property(kernel_flags kbench::kernel_flags INTERFACE_COMPILE_OPTIONS)
  endif()
  _kb_default_optimisation(opt)
  list(APPEND kernel_flags ${opt})
  list(JOIN kernel_flags " " kernel_flags)
  # A multi-config generator (Ninja Multi-Config, Visual Studio, Xcode)
  # builds every configuration from one configure: one file per
  # configuration, each with its own build type and flags, and the driver
  # compiles the one of the configuration it is built in.
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  # A single-config build without CMAKE_BUILD_TYPE (a consumer that sets
  # none) still gets its one file: "(none)" stands for the empty type.
  set(configs "${CMAKE_BUILD_TYPE}")
  if(configs STREQUAL "")
    set(configs "(none)")
  endif()
  set(suffix "")
  if(multi_config)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
    set(suffix "-$<CONFIG>")
  endif()
  get_property(docs_dir GLOBAL PROPERTY KBENCH_DOCS_DIR)
  foreach(config IN LISTS configs)
    if(config STREQUAL "(none)")
      set(config "")
    endif()
    string(TOUPPER "${config}" build_type)
    string(STRIP "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${build_type}} ${kernel_flags}" c_flags)
    set(fields "")
    foreach(pair "kernel=${name}" "manifest=${manifest}" "source_dir=${PROJECT_SOURCE_DIR}"
        "results_dir=${results}" "baseline_dir=${KBENCH_BASELINE_DIR}" "profile=${KBENCH_PROFILE}"
        "compiler=${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}" "c_flags=${c_flags}"
        "build_type=${config}" "docs_dir=${docs_dir}")
      string(FIND "${pair}" "=" eq)
      string(SUBSTRING "${pair}" 0 ${eq} field)
      math(EXPR eq "${eq} + 1")
      string(SUBSTRING "${pair}" ${eq} -1 value)
      _kb_c_string(literal "${value}")
      string(APPEND fields "    .${field} = ${literal},\n")
    endforeach()
    string(REPLACE "$<CONFIG>" "${config}" file
      "${CMAKE_CURRENT_BINARY_DIR}/${target}-build${suffix}.c")
    file(CONFIGURE OUTPUT "${file}" CONTENT
"/* Generated by kbench_add_kernel from ${name}'s manifest: do not edit. */
#include \"kb/build.h\"

const kb_build_info kb_build = {
${fields}};
")
  endforeach()
  target_sources(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/${target}-build${suffix}.c")
endfunction()

# One timed test (a kernel test or a calibration): never two at once on a
# machine, and GPU tests take a GPU from the resource spec. RUN_SERIAL: two
# timed tests never share the machine under ctest -j, with or without a
# resource spec. KBENCH_GPU_PARALLEL lets GPU kernel tests run side by side,
# each owning the GPU the resource spec gives it; the driver then refuses to
# run without one. Every one requires the backend's calibration fixture, so
# a run measures the attainable bandwidth first (docs/calibration.md), and
# the run's report fixtures (kbench.session before, kbench.report after,
# whatever the outcome; registered by kbench's own suite, docs/report.md).
# The result JSON goes to CDash with the test (ATTACHED_FILES, docs/cdash.md).
function(_kb_add_timed_test test backend gpu_labels timeout labels)
  _kb_results_dir(results)
  add_test(NAME ${test} COMMAND ${ARGN})
  set_tests_properties(${test} PROPERTIES
    LABELS "${labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${timeout}
    FIXTURES_REQUIRED "kbench_calibration_${backend};kbench_session;kbench_report"
    ATTACHED_FILES "${results}/${test}.json")
  if(gpu_labels)
    set_tests_properties(${test} PROPERTIES RESOURCE_GROUPS "gpus:1")
  endif()
  if(gpu_labels AND KBENCH_GPU_PARALLEL)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "KBENCH_REQUIRE_RESOURCE_SPEC=1")
  else()
    set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE)
  endif()
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "KBENCH_TIMEOUT=${timeout}")
  set_property(GLOBAL APPEND PROPERTY KBENCH_TIMED_BACKENDS ${backend})
endfunction()

# kbench.calibrate.<backend>: the manifest's "calibration" cases, measured
# before the backend's other tests (a CTest fixture they require); writes
# <results>/calibration.<backend>.json. One per backend in a build tree.
function(_kb_add_calibration_test backend gpu_labels timeout kernel manifest)
  _kb_results_dir(results)
  set(test kbench.calibrate.${backend})
  get_property(calibrated GLOBAL PROPERTY KBENCH_CALIBRATED_BACKENDS)
  if(backend IN_LIST calibrated)
    message(FATAL_ERROR "${manifest}: field 'calibration': another kernel already calibrates "
      "backend '${backend}'; only one may")
  endif()
  set_property(GLOBAL APPEND PROPERTY KBENCH_CALIBRATED_BACKENDS ${backend})
  add_test(NAME ${test} COMMAND ${ARGN})
  set_tests_properties(${test} PROPERTIES
    LABELS "${backend};calibrate;${kernel};${gpu_labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${timeout}
    RUN_SERIAL TRUE
    FIXTURES_SETUP kbench_calibration_${backend}
    FIXTURES_REQUIRED "kbench_session;kbench_report"
    ATTACHED_FILES "${results}/${test}.json;${results}/calibration/${backend}.json")
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "KBENCH_TIMEOUT=${timeout}")
endfunction()

# Fails naming the argument unless `value` is whole seconds in 1..604800.
function(_kb_check_timeout what value)
  string(LENGTH "${value}" length)
  if(NOT value MATCHES "^[0-9]+$" OR length GREATER 6 OR value EQUAL 0 OR value GREATER 604800)
    message(FATAL_ERROR "${what}: expected whole seconds from 1 to 604800, got '${value}'")
  endif()
endfunction()

# kbench_add_kernel(NAME <name> DIRECTORY <dir> [BACKENDS <b>...]
#                   [LABELS <label>...] [TIMEOUT <seconds>]
#                   [LINK_LIBRARIES <target or library>...])
# Registers the kernel folder <dir> (kernel.json, its C sources, reference.c,
# <name>.cu): the object libraries kbench-<name>-host (the folder's C
# sources) and kbench-<name>-reference (reference.c and reference_*.c, with
# kbench::reference and the fixed flags of _kb_reference_flags), the driver
# kbench-<name> (and kbench-<name>-<gpu backend>) and the tests
# <name>.<backend>.<precision>. BACKENDS narrows the backends (those of the
# manifest that are enabled: kbench's KBENCH_BACKENDS, or what the installed
# package and this project's toolchains provide); LABELS adds labels;
# TIMEOUT replaces the manifest's "timeout"; LINK_LIBRARIES are linked to the
# kernel's sources and every driver, as target_link_libraries takes them.
# A macro: the first kernel that lists a GPU backend an installed package
# left to be found (KBENCH_BACKENDS auto) enables that backend's language,
# which CMake allows only at directory scope.
macro(kbench_add_kernel)
  _kb_lazy_backends_of(_kb_lazy_wanted ${ARGV})
  foreach(_kb_lazy_backend IN LISTS _kb_lazy_wanted)
    _kb_enable_lazy_backend(${_kb_lazy_backend})
  endforeach()
  _kb_add_kernel(${ARGV})
endmacro()

# The GPU backends still to be looked for (global property
# KBENCH_LAZY_BACKENDS, set by kbenchConfig.cmake) that the kernel of these
# kbench_add_kernel arguments lists and may use, in `out`. Anything malformed
# gives none: _kb_add_kernel then says what is wrong.
function(_kb_lazy_backends_of out)
  set(${out} "" PARENT_SCOPE)
  get_property(lazy GLOBAL PROPERTY KBENCH_LAZY_BACKENDS)
  if(NOT lazy)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;DIRECTORY;TIMEOUT"
    "BACKENDS;LABELS;LINK_LIBRARIES")
  get_filename_component(dir "${arg_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT arg_DIRECTORY OR NOT EXISTS "${dir}/kernel.json")
    return()
  endif()
  file(READ "${dir}/kernel.json" json LIMIT 1048576)
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" backends)
  if(err OR n EQUAL 0)
    return()
  endif()
  set(wanted "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON backend ERROR_VARIABLE err GET "${json}" backends ${i})
    if(NOT err AND backend IN_LIST lazy AND (NOT arg_BACKENDS OR backend IN_LIST arg_BACKENDS))
      list(APPEND wanted ${backend})
    endif()
  endforeach()
  set(${out} "${wanted}" PARENT_SCOPE)
endfunction()

# Looks for GPU backend `backend`'s toolchain once; found, enables its
# language (in the calling directory, which must be the top-level one unless
# the project enabled it there itself: kbench's calibration driver is added
# at the top level) and the backend. Not found, the backend's tests are
# left out, said once.
macro(_kb_enable_lazy_backend backend)
  get_property(_kb_lazy GLOBAL PROPERTY KBENCH_LAZY_BACKENDS)
  list(REMOVE_ITEM _kb_lazy ${backend})
  set_property(GLOBAL PROPERTY KBENCH_LAZY_BACKENDS "${_kb_lazy}")
  if("${backend}" STREQUAL "cuda")
    set(_kb_lazy_language CUDA)
    find_program(KBENCH_NVCC nvcc)
    set(_kb_lazy_compiler "${KBENCH_NVCC}")
  else()
    set(_kb_lazy_language CXX)
    find_program(KBENCH_HIPCC hipcc)
    set(_kb_lazy_compiler "${KBENCH_HIPCC}")
  endif()
  if(_kb_lazy_compiler AND NOT CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR
      AND NOT CMAKE_${_kb_lazy_language}_COMPILER_LOADED)
    message(FATAL_ERROR "kbench_add_kernel in ${CMAKE_CURRENT_SOURCE_DIR}: the kernel lists "
      "backend '${backend}', whose language CMake must enable in the top-level CMakeLists.txt "
      "(kbench's calibration driver is built there): add enable_language(${_kb_lazy_language}) "
      "there, or configure with -DKBENCH_BACKENDS=\"cpu;${backend}\" (or cpu alone to leave "
      "GPU tests out)")
  endif()
  set(_kb_lazy_found OFF)
  if(_kb_lazy_compiler AND "${backend}" STREQUAL "cuda")
    _kb_detect_cuda()
    set(_kb_lazy_found ${KBENCH_HAVE_CUDA})
  elseif(_kb_lazy_compiler)
    _kb_detect_hip()
    set(_kb_lazy_found ${KBENCH_HAVE_HIP})
  endif()
  if(NOT _kb_lazy_found)
    message(STATUS "kbench: no ${backend} toolchain found: the ${backend} tests are left out "
      "(KBENCH_BACKENDS auto)")
  elseif("${backend}" STREQUAL "cuda")
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set_property(GLOBAL APPEND PROPERTY KBENCH_ENABLED_BACKENDS cuda)
  else()
    kbench_check_hip_architectures()
    set_property(GLOBAL APPEND PROPERTY KBENCH_ENABLED_BACKENDS hip)
  endif()
endmacro()

function(_kb_add_kernel)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;DIRECTORY;TIMEOUT"
    "BACKENDS;LABELS;LINK_LIBRARIES")
  string(CONCAT usage "kbench_add_kernel(NAME <name> DIRECTORY <dir> [BACKENDS ...] "
    "[LABELS ...] [TIMEOUT s] [LINK_LIBRARIES ...])")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 bad)
    message(FATAL_ERROR "kbench_add_kernel: unknown argument '${bad}'; usage: ${usage}")
  endif()
  foreach(keyword IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "kbench_add_kernel: argument ${keyword} needs a value; usage: ${usage}")
  endforeach()
  foreach(keyword NAME DIRECTORY)
    if(NOT DEFINED arg_${keyword})
      message(FATAL_ERROR "kbench_add_kernel: argument ${keyword} is missing; usage: ${usage}")
    endif()
  endforeach()
  # Without C in this directory the kernel's .c files are not compiled, and
  # CMake would only say that the driver has no sources.
  if(NOT CMAKE_C_COMPILER_LOADED)
    message(FATAL_ERROR "kbench_add_kernel(NAME ${arg_NAME}): the kernel's sources are C, which "
      "this project does not enable: project(<name> LANGUAGES C) or enable_language(C) first")
  endif()
  # TIMEOUT "" (an empty variable, quoted) is a value to cmake_parse_arguments
  # but leaves arg_TIMEOUT unset: refused below like any bad timeout.
  if(NOT DEFINED arg_TIMEOUT AND "TIMEOUT" IN_LIST ARGN)
    set(arg_TIMEOUT "")
  endif()
  _kb_constants()
  foreach(backend IN LISTS arg_BACKENDS)
    if(NOT backend IN_LIST KBENCH_KNOWN_BACKENDS)
      message(FATAL_ERROR "kbench_add_kernel(NAME ${arg_NAME}): argument BACKENDS: unknown "
        "backend '${backend}' (known: ${KBENCH_KNOWN_BACKENDS})")
    endif()
  endforeach()
  foreach(label IN LISTS arg_LABELS)
    _kb_check_label("kbench_add_kernel(NAME ${arg_NAME}): argument LABELS" "${label}")
  endforeach()
  if(DEFINED arg_TIMEOUT)
    _kb_check_timeout("kbench_add_kernel(NAME ${arg_NAME}): argument TIMEOUT" "${arg_TIMEOUT}")
  endif()
  get_filename_component(dir "${arg_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${dir}/kernel.json")
    message(FATAL_ERROR "kbench_add_kernel(NAME ${arg_NAME}): argument DIRECTORY: ${dir} holds "
      "no kernel.json")
  endif()
  if(NOT DEFINED CACHE{KBENCH_PROFILE})
    kbench_declare_test_options()
  endif()
  foreach(library IN LISTS arg_LINK_LIBRARIES)
    # A namespaced name is a CMake target by convention: refused here, where
    # the message can name it, rather than by the generator later (a
    # generator expression is left to the generator).
    if(library MATCHES "::" AND NOT library MATCHES "^\\$<" AND NOT TARGET "${library}")
      message(FATAL_ERROR "kbench_add_kernel(NAME ${arg_NAME}): argument LINK_LIBRARIES: "
        "'${library}' is not a target (find_package or pkg_check_modules(... IMPORTED_TARGET) "
        "must come first)")
    endif()
  endforeach()
  _kb_add_kernel_folder("${dir}" "${arg_NAME}" "${arg_BACKENDS}" "${arg_LABELS}" "${arg_TIMEOUT}"
    TESTS ${arg_LINK_LIBRARIES})
endfunction()

# The folder `dir` registered: `mode` TESTS for its tests (and its
# calibration test if its manifest has one), CALIBRATION for the calibration
# test only (the packaged calibration kernel, _kb_add_missing_calibrations).
# Empty `only_backends`, `labels`, `timeout_override`: the manifest's. ARGN:
# further libraries the kernel's sources and drivers link (LINK_LIBRARIES).
function(_kb_add_kernel_folder dir expect_name only_backends labels timeout_override mode)
  set(manifest "${dir}/kernel.json")
  get_filename_component(folder "${dir}" NAME)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  _kb_read_manifest("${manifest}" "${folder}")
  if(NOT expect_name STREQUAL name)
    message(FATAL_ERROR "${manifest}: field 'name': '${name}', but kbench_add_kernel was given "
      "NAME ${expect_name}")
  endif()
  if(timeout_override)
    set(timeout ${timeout_override})
  endif()
  list(APPEND extra_labels ${labels})
  list(GET precisions 0 first_prec)
  get_property(enabled GLOBAL PROPERTY KBENCH_ENABLED_BACKENDS)
  set(exe kbench-${name})
  if(mode STREQUAL "TESTS")
    # kbench-calibrate is the driver of the calibration kernel a project
    # without one of its own gets (_kb_add_missing_calibrations).
    if(name STREQUAL "calibrate")
      message(FATAL_ERROR "${manifest}: field 'name': 'calibrate' is reserved (kbench-calibrate "
        "is the calibration kernel's driver); rename the kernel and its folder")
    endif()
    get_property(previous GLOBAL PROPERTY KBENCH_KERNEL_MANIFEST_${name})
    if(previous)
      message(FATAL_ERROR "${manifest}: kernel '${name}' is already registered from "
        "${previous}: kernel names must be unique in a build")
    endif()
    set_property(GLOBAL PROPERTY KBENCH_KERNEL_MANIFEST_${name} "${manifest}")
  else()
    set(exe kbench-calibrate)
    set(has_calibration ON)
  endif()

  if(NOT EXISTS "${dir}/reference.c")
    message(FATAL_ERROR "${manifest}: kernel '${name}' has no reference (expected "
      "${dir}/reference.c, ending with KB_REGISTER_REFERENCE)")
  endif()
  file(GLOB cpu_sources CONFIGURE_DEPENDS "${dir}/*.c")
  file(GLOB ref_sources CONFIGURE_DEPENDS "${dir}/reference.c" "${dir}/reference_*.c")
  list(REMOVE_ITEM cpu_sources ${ref_sources})

  # The kernel's C sources, compiled once for every driver with the
  # kernels' flags, and the build information the drivers record.
  set(host ${exe}-host)
  add_library(${host} OBJECT ${cpu_sources})
  kbench_add_build_info(${host} ${name} "${manifest}")
  target_link_libraries(${host} PUBLIC kbench::driver m PRIVATE kbench::kernel_flags
    kbench::warnings)
  # Its reference (reference.c, reference_*.c) apart, with the reference
  # library and its fixed flags instead of the kernels' (-march=native):
  # what the kernel is checked against does not move with the machine.
  set(ref ${exe}-reference)
  add_library(${ref} OBJECT ${ref_sources})
  _kb_reference_flags(ref_flags)
  target_compile_options(${ref} PRIVATE ${ref_flags})
  target_link_libraries(${ref} PUBLIC kbench::driver kbench::reference m ${ARGN}
    PRIVATE kbench::warnings)
  add_executable(${exe})
  target_link_libraries(${exe} PRIVATE ${host} ${ref})
  # The report fixtures run kbench-report after the tests: built with any
  # driver where kbench is built too (kbench's tree, or as a subproject).
  if(TARGET kbench-report)
    add_dependencies(${exe} kbench-report)
  endif()
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
  _kb_backend_libraries(targets defines "${libraries}" cpu)
  target_link_libraries(${host} PUBLIC ${targets} ${ARGN})
  _kb_default_optimisation(opt)
  target_compile_options(${host} PRIVATE ${opt})
  target_compile_definitions(${host} PUBLIC ${defines})

  foreach(backend IN LISTS backends)
    if(NOT backend IN_LIST enabled OR (only_backends AND NOT backend IN_LIST only_backends))
      continue()
    endif()
    set(driver ${exe})
    set(gpu_labels "")
    if(backend IN_LIST KBENCH_GPU_BACKENDS)
      set(gpu_source "${dir}/${name}.cu")
      if(NOT EXISTS "${gpu_source}")
        message(FATAL_ERROR "${manifest}: field 'backends': '${backend}' is declared but the "
          "kernel has no GPU source (expected ${gpu_source})")
      endif()
      set(driver ${exe}-${backend})
      cmake_language(CALL kbench_add_${backend}_driver ${name} ${driver} ${host} "${gpu_source}")
      _kb_backend_libraries(targets defines "${libraries}" ${backend})
      target_link_libraries(${driver} PRIVATE ${ref} ${targets})
      target_compile_definitions(${driver} PRIVATE ${defines})
      set_target_properties(${driver} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
      set(gpu_labels gpu)
    endif()
    if(mode STREQUAL "TESTS")
      foreach(prec IN LISTS precisions)
        set(test ${name}.${backend}.${prec})
        _kb_add_timed_test(${test} ${backend} "${gpu_labels}" ${timeout}
          "${backend};${prec};${name};perf;${gpu_labels};${extra_labels}"
          ${driver} --backend ${backend} --precision ${prec} --manifest "${manifest}")
        if(has_full AND KBENCH_FULL)
          _kb_add_timed_test(${test}.full ${backend} "${gpu_labels}" ${KBENCH_FULL_TEST_TIMEOUT}
            full ${driver} --backend ${backend} --precision ${prec} --manifest "${manifest}"
            --set full)
        endif()
      endforeach()
    endif()
    if(has_calibration)
      _kb_add_calibration_test(${backend} "${gpu_labels}" ${timeout} ${name} "${manifest}"
        ${driver} --backend ${backend} --precision ${first_prec} --manifest "${manifest}"
        --calibrate)
    endif()
  endforeach()
  if(mode STREQUAL "TESTS")
    set_property(GLOBAL APPEND PROPERTY KBENCH_KERNELS ${name})
    set_property(GLOBAL APPEND PROPERTY KBENCH_KERNEL_FOLDERS "${name}=${dir}")
    _kb_defer_calibrations()
  endif()
endfunction()

# Every backend with timed tests gets its calibration fixture: at the end of
# the top-level directory (when every kernel is known), each such backend that
# no registered kernel calibrates gets kbench.calibrate.<backend> from the
# calibration kernel kbench provides (global property KBENCH_CALIBRATION_KERNEL:
# kernels/bandwidth in kbench's tree, share/kbench/calibration/bandwidth in an
# installed package), built in the calling project as kbench-calibrate.
# With them, the rest of what a project registering kernels gets once
# (KbenchProject.cmake): the run report's fixtures and target, the kernel map
# and kbench-ab in <build>/bin.
function(_kb_defer_calibrations)
  get_property(deferred GLOBAL PROPERTY KBENCH_CALIBRATIONS_DEFERRED)
  if(NOT deferred)
    set_property(GLOBAL PROPERTY KBENCH_CALIBRATIONS_DEFERRED ON)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _kb_finish_project)
  endif()
endfunction()

function(_kb_finish_project)
  _kb_add_missing_calibrations()
  kbench_add_report_fixtures()
  kbench_write_ab_tools()
endfunction()

function(_kb_add_missing_calibrations)
  get_property(kernel_dir GLOBAL PROPERTY KBENCH_CALIBRATION_KERNEL)
  get_property(timed GLOBAL PROPERTY KBENCH_TIMED_BACKENDS)
  get_property(calibrated GLOBAL PROPERTY KBENCH_CALIBRATED_BACKENDS)
  list(REMOVE_DUPLICATES timed)
  if(calibrated)
    list(REMOVE_ITEM timed ${calibrated})
  endif()
  if(NOT timed OR NOT kernel_dir)
    return()
  endif()
  get_filename_component(name "${kernel_dir}" NAME)
  _kb_add_kernel_folder("${kernel_dir}" ${name} "${timed}" "" "" CALIBRATION)
endfunction()

# The kernel folders under `root` (<root>/<name>/kernel.json), sorted; fails
# naming `root` (and `origin`, the setting it came from) when it is not a
# directory or holds none.
function(_kb_kernel_folders out root origin)
  if(NOT IS_DIRECTORY "${root}")
    message(FATAL_ERROR "${origin}: '${root}' is not a directory")
  endif()
  file(GLOB manifests CONFIGURE_DEPENDS "${root}/*/kernel.json")
  if(NOT manifests)
    message(FATAL_ERROR "${origin}: '${root}' holds no kernel folder (<name>/kernel.json)")
  endif()
  list(SORT manifests)
  set(dirs "")
  foreach(manifest IN LISTS manifests)
    get_filename_component(dir "${manifest}" DIRECTORY)
    list(APPEND dirs "${dir}")
  endforeach()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# kbench_discover_kernels(<root> [ORIGIN <what names root in messages>]):
# registers every kernel folder under <root> as kbench_add_kernel does.
function(kbench_discover_kernels root)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ORIGIN" "")
  if(NOT arg_ORIGIN)
    set(arg_ORIGIN "kbench_discover_kernels")
  endif()
  _kb_kernel_folders(dirs "${root}" "${arg_ORIGIN}")
  foreach(dir IN LISTS dirs)
    get_filename_component(folder "${dir}" NAME)
    kbench_add_kernel(NAME ${folder} DIRECTORY "${dir}")
  endforeach()
endfunction()
