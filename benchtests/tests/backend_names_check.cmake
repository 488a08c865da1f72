# kbench.unit.backend_names: the backends configure knows
# (KBENCH_KNOWN_BACKENDS in cmake/KbenchKernels.cmake) and those the schemas
# allow (a manifest's "backends", a result's "backend") are the driver's
# table, in its order (KB_BACKEND_LIST in benchtests/src/formats/vocab.h),
# so that a backend added to the table is added everywhere or this test
# names where not. Where configure lists its GPU backends
# (KBENCH_GPU_BACKENDS), they are the table's too.
#
#   cmake -DSOURCE=<kbench source> -P backend_names_check.cmake
include("${SOURCE}/cmake/KbenchKernels.cmake")

set(table "${SOURCE}/benchtests/src/formats/vocab.h")
file(READ "${table}" text)
if(NOT text MATCHES "#define KB_BACKEND_LIST\\(X\\)")
  message(FATAL_ERROR "${table}: no KB_BACKEND_LIST(X) table found")
endif()
string(REGEX MATCHALL "X\\([A-Z0-9_]+, \"[^\"]*\", [01]\\)" rows "${text}")
set(c_names "")
set(c_gpu "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "\"([^\"]*)\", ([01])" _ "${row}")
  list(APPEND c_names "${CMAKE_MATCH_1}")
  if(CMAKE_MATCH_2)
    list(APPEND c_gpu "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT c_names)
  message(FATAL_ERROR "${table}: KB_BACKEND_LIST has no X(id, \"name\", gpu) rows")
endif()

set(problems "")
# Fails unless `names` (a list) is the table's, naming `where`.
function(_kb_same where names)
  if(NOT "${names}" STREQUAL "${c_names}")
    set(problems "${problems}\n  ${where} has '${names}'" PARENT_SCOPE)
  endif()
endfunction()

# The strings of the JSON array at the path ARGN of the file `schema`.
function(_kb_schema_enum out schema)
  file(READ "${SOURCE}/benchtests/schema/${schema}" json)
  string(JSON array ERROR_VARIABLE err GET "${json}" ${ARGN})
  if(err)
    string(REPLACE ";" "." at "${ARGN}")
    message(FATAL_ERROR "benchtests/schema/${schema}: no '${at}': ${err}")
  endif()
  string(JSON n LENGTH "${array}")
  set(names "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${array}" ${i})
    list(APPEND names "${name}")
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

_kb_same("cmake/KbenchKernels.cmake KBENCH_KNOWN_BACKENDS" "${KBENCH_KNOWN_BACKENDS}")
if(DEFINED KBENCH_GPU_BACKENDS AND NOT "${KBENCH_GPU_BACKENDS}" STREQUAL "${c_gpu}")
  set(problems "${problems}\n  cmake/KbenchKernels.cmake KBENCH_GPU_BACKENDS has "
    "'${KBENCH_GPU_BACKENDS}', the table's GPU backends are '${c_gpu}'")
endif()
_kb_schema_enum(manifest_enum kernel.schema.json properties backends items enum)
_kb_same("benchtests/schema/kernel.schema.json properties.backends.items.enum" "${manifest_enum}")
_kb_schema_enum(result_enum result.schema.json allOf 0 else properties backend enum)
_kb_same("benchtests/schema/result.schema.json allOf[0].else.properties.backend.enum"
  "${result_enum}")

if(problems)
  message(FATAL_ERROR "backend names differ from KB_BACKEND_LIST in "
    "benchtests/src/formats/vocab.h ('${c_names}'):${problems}")
endif()
message("kbench.unit.backend_names: ${c_names} (GPU: ${c_gpu})")
