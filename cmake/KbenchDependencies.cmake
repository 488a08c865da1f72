# Third-party dependencies, all from the distribution via find_package.

find_package(cJSON CONFIG QUIET)
if(NOT cJSON_FOUND)
  message(FATAL_ERROR "kbench needs cJSON (CMake package 'cJSON'). "
    "On Debian/Ubuntu: apt-get install libcjson-dev")
endif()
# Debian's cJSONConfig.cmake defines the imported target 'cjson' without a
# namespace; give the rest of the build one name for it.
if(NOT TARGET cjson)
  message(FATAL_ERROR "cJSON was found at ${cJSON_DIR} but defines no 'cjson' target")
endif()
add_library(kb::cjson INTERFACE IMPORTED)
target_link_libraries(kb::cjson INTERFACE cjson)
target_include_directories(kb::cjson INTERFACE ${CJSON_INCLUDE_DIRS})

find_package(OpenBLAS CONFIG QUIET)
if(NOT OpenBLAS_FOUND)
  message(FATAL_ERROR "kbench needs OpenBLAS (CMake package 'OpenBLAS'). "
    "On Debian/Ubuntu: apt-get install libopenblas-dev")
endif()
add_library(kb::openblas INTERFACE IMPORTED)
target_include_directories(kb::openblas INTERFACE ${OpenBLAS_INCLUDE_DIRS})
target_link_libraries(kb::openblas INTERFACE ${OpenBLAS_LIBRARIES})

find_package(Threads REQUIRED)
