# Third-party dependencies, all from the distribution via find_package.
# oneDNN is looked for only when a kernel's manifest lists "onednn"
# (_kb_import_onednn in KbenchImports.cmake, for consumers too).

find_package(cJSON CONFIG QUIET)
if(NOT cJSON_FOUND)
  message(FATAL_ERROR "kbench needs cJSON (CMake package 'cJSON'). "
    "On Debian/Ubuntu: apt-get install libcjson-dev")
endif()
find_package(OpenBLAS CONFIG QUIET)
if(NOT OpenBLAS_FOUND)
  message(FATAL_ERROR "kbench needs OpenBLAS (CMake package 'OpenBLAS'). "
    "On Debian/Ubuntu: apt-get install libopenblas-dev")
endif()
find_package(Threads REQUIRED)

include(KbenchImports)
_kb_import_dependencies()
