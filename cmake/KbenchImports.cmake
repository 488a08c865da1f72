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
