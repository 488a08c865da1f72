# kbench.unit.manifest_keys: the top-level manifest keys configure accepts
# (KBENCH_MANIFEST_KEYS in cmake/KbenchKernels.cmake) are exactly those the
# driver's reader accepts (root_keys in benchtests/src/formats/manifest.c), so that
# configure never registers tests from a manifest the driver refuses, nor
# refuses one it reads.
#
#   cmake -DSOURCE=<kbench source> -P manifest_keys_check.cmake
include("${SOURCE}/cmake/KbenchKernels.cmake")
file(READ "${SOURCE}/benchtests/src/formats/manifest.c" reader)
if(NOT reader MATCHES "root_keys\\[\\] = {([^}]*)}")
  message(FATAL_ERROR "benchtests/src/formats/manifest.c: no 'root_keys[] = {...}' list found")
endif()
string(REGEX MATCHALL "\"[^\"]*\"" c_keys "${CMAKE_MATCH_1}")
list(TRANSFORM c_keys REPLACE "\"" "")
set(cmake_keys ${KBENCH_MANIFEST_KEYS})
list(SORT c_keys)
list(SORT cmake_keys)
if(NOT c_keys STREQUAL cmake_keys)
  message(FATAL_ERROR "top-level manifest keys differ: manifest.c root_keys has '${c_keys}', "
    "KbenchKernels.cmake KBENCH_MANIFEST_KEYS has '${cmake_keys}'")
endif()
message("kbench.unit.manifest_keys: ${cmake_keys}")
