# The manifest schema (benchtests/schema/kernel.schema.json) against the
# manifests and the driver's reader (cmake -P; docs/manifest.md):
#   1. the schema is a valid JSON Schema (its metaschema)
#   2. every manifest found at configure time validates
#   3. copies of BASE with one planted error each (an unknown key, a
#      misspelt precision, a wrong type, ...) are refused by the schema AND
#      by the driver's reader (DRIVER --manifest copy --list exits 2), and
#      copies with free-form *_note keys are accepted by both
#   4. the manifests of the bad-input matrix (schema_badinput.py): the
#      schema refuses what the driver refuses, but for the known gaps
# Inputs: CHECK_JSONSCHEMA (empty or *-NOTFOUND: the test reports itself
# skipped, "kbench-skip:"), SCHEMA, MANIFESTS ('|'-separated), BASE (a
# manifest), DRIVER (that manifest's CPU driver), PYTHON (empty or
# *-NOTFOUND: step 4 is skipped, and so is the test), MATRIX (badinput.py),
# TABLE (its cases.txt), WORK.

foreach(var SCHEMA MANIFESTS BASE DRIVER PYTHON MATRIX TABLE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "schema_check.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CHECK_JSONSCHEMA)
  message("kbench-skip: check-jsonschema not found (.ci/install-deps.sh installs it into "
    "~/.cache/kbench/ci-venv): the manifest schema is not checked")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

macro(_kb_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
endmacro()

# ---- 1, 2: the schema and the manifests
_kb_run("${CHECK_JSONSCHEMA}" --check-metaschema "${SCHEMA}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "schema check: ${SCHEMA} is not a valid JSON Schema:\n${out}")
endif()
string(REPLACE "|" ";" manifests "${MANIFESTS}")
list(LENGTH manifests n)
if(n EQUAL 0)
  message(FATAL_ERROR "schema check: no manifest to validate")
endif()
_kb_run("${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" ${manifests})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "schema check: the schema refuses a manifest:\n${out}")
endif()
message("schema check: ${n} manifests valid")

# ---- 3: planted errors, seen by the schema and by the reader
file(READ "${BASE}" base)
set(planted 0)

# Writes BASE with `op` (SET <path...> <value> or REMOVE <path...>) applied
# to WORK/<name>.json and sets `copy` in the caller.
function(_kb_plant name)
  set(json "${base}")
  list(GET ARGN 0 op)
  list(SUBLIST ARGN 1 -1 args)
  string(JSON json ${op} "${json}" ${args})
  set(copy "${WORK}/${name}.json" PARENT_SCOPE)
  file(WRITE "${WORK}/${name}.json" "${json}")
endfunction()

# Both must refuse; the schema's words must hold `where` (the JSON path).
function(_kb_refused name where)
  _kb_plant(${name} ${ARGN})
  _kb_run("${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" "${copy}")
  if(rc EQUAL 0 OR NOT out MATCHES "${where}")
    message(FATAL_ERROR "schema check: ${name}: the schema does not refuse it at '${where}' "
      "(exit ${rc}):\n${out}")
  endif()
  _kb_run("${DRIVER}" --manifest "${copy}" --list)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "schema check: ${name}: the schema refuses it but the driver's "
      "reader exits ${rc}, not 2:\n${out}")
  endif()
  message("schema check: ${name}: refused by both")
endfunction()

function(_kb_accepted name)
  _kb_plant(${name} ${ARGN})
  _kb_run("${CHECK_JSONSCHEMA}" --schemafile "${SCHEMA}" "${copy}")
  set(schema_rc ${rc})
  set(schema_out "${out}")
  _kb_run("${DRIVER}" --manifest "${copy}" --list)
  if(NOT schema_rc EQUAL 0 OR NOT rc EQUAL 0)
    message(FATAL_ERROR "schema check: ${name}: must be accepted; the schema exits "
      "${schema_rc}, the driver ${rc}:\n${schema_out}\n${out}")
  endif()
  message("schema check: ${name}: accepted by both")
endfunction()

string(JSON base_name GET "${base}" name)
_kb_accepted(unchanged SET name "\"${base_name}\"")
# Free-form documentation wherever the reader allows it.
_kb_accepted(note-top SET counts_note "\"free text\"")
_kb_accepted(note-case SET cases 0 why_note "[1, 2]")
_kb_accepted(note-tolerance SET tolerance fp32 how_note "\"measured\"")
_kb_accepted(note-variant SET variants
  "{\"default\": {\"bytes_note\": \"x\"}, \"vendor\": {}}")
# Elementary functions counted at their cost, for the kernel and a variant.
_kb_accepted(transcendentals SET transcendentals
  "{\"count\": \"n\", \"flops_each\": 22.5, \"flops_each_note\": \"x\"}")
string(CONCAT variants "{\"default\": {\"transcendentals\": {\"count\": \"0\", "
  "\"flops_each\": 0}}, \"vendor\": {}}")
_kb_accepted(transcendentals-variant SET variants "${variants}")

_kb_refused(unknown-key "calibraton" SET calibraton "[\"n\"]")
_kb_refused(misspelt-precision "fp3" SET precisions 0 "\"fp3\"")
_kb_refused(precision-case "FP32" SET precisions 0 "\"FP32\"")
_kb_refused(unknown-backend "rocm" SET backends 0 "\"rocm\"")
_kb_refused(empty-backends "backends" SET backends "[]")
_kb_refused(repeated-backend "backends" SET backends "[\"cpu\", \"cpu\"]")
_kb_refused(unknown-library "mkl" SET libraries "[\"mkl\"]")
_kb_refused(timeout-string "timeout" SET timeout "\"300\"")
_kb_refused(timeout-zero "timeout" SET timeout "0")
_kb_refused(timeout-fraction "timeout" SET timeout "1.5")
_kb_refused(name-number "name" SET name "5")
_kb_refused(name-digit "1k" SET name "\"1k\"")
_kb_refused(description-array "description" SET description "[]")
_kb_refused(flops-number "flops" SET flops "4")
_kb_refused(bytes-empty "bytes" SET bytes "\"\"")
_kb_refused(no-tolerance "tolerance" REMOVE tolerance)
_kb_refused(missing-tolerance "fp32" REMOVE tolerance fp32)
_kb_refused(tolerance-typo "max_abz" SET tolerance fp32 max_abz "1")
_kb_refused(tolerance-negative "rmse" SET tolerance fp32 rmse "-1")
_kb_refused(tolerance-string "rmse" SET tolerance fp32 rmse "\"1e-6\"")
_kb_refused(tolerance-no-rmse "rmse" REMOVE tolerance fp32 rmse)
_kb_refused(tolerance-note-key "fp32_note" SET tolerance fp32_note "\"x\"")
_kb_refused(no-cases "not valid under any|cases" REMOVE cases)
_kb_refused(cases-object "cases" SET cases "{}")
_kb_refused(case-slash "a/b" SET cases 0 name "\"a/b\"")
_kb_refused(case-dotdot "a[.][.]b" SET cases 0 name "\"a..b\"")
_kb_refused(case-typo "dimz" SET cases 0 dimz "{}")
_kb_refused(dim-string "dims" SET cases 0 dims "{\"n\": \"64\"}")
_kb_refused(dim-zero "dims" SET cases 0 dims "{\"n\": 0}")
_kb_refused(dim-fraction "dims" SET cases 0 dims "{\"n\": 1.5}")
_kb_refused(dim-reserved "elem" SET cases 0 dims "{\"n\": 64, \"elem\": 4}")
_kb_refused(dims-empty "dims" SET cases 0 dims "{}")
_kb_refused(sweep-empty-axis "sweep" SET sweep "{\"n\": []}")
_kb_refused(full-typo "sweeps" SET full "{\"sweeps\": {\"n\": [64]}}")
_kb_refused(full-empty "full" SET full "{}")
_kb_refused(variant-dash "a-b" SET variants "{\"a-b\": {}}")
_kb_refused(variant-typo "byte" SET variants "{\"default\": {\"byte\": \"n\"}}")
_kb_refused(variant-string "default" SET variants "{\"default\": \"fast\"}")
_kb_refused(transcendentals-number "transcendentals" SET transcendentals "20")
_kb_refused(transcendentals-no-count "count" SET transcendentals "{\"flops_each\": 20}")
_kb_refused(transcendentals-no-each "flops_each" SET transcendentals "{\"count\": \"n\"}")
_kb_refused(transcendentals-count-number "count" SET transcendentals
  "{\"count\": 5, \"flops_each\": 20}")
_kb_refused(transcendentals-count-empty "count" SET transcendentals
  "{\"count\": \"\", \"flops_each\": 20}")
_kb_refused(transcendentals-each-string "flops_each" SET transcendentals
  "{\"count\": \"n\", \"flops_each\": \"20\"}")
_kb_refused(transcendentals-each-negative "flops_each" SET transcendentals
  "{\"count\": \"n\", \"flops_each\": -1}")
_kb_refused(transcendentals-typo "flops_per" SET transcendentals
  "{\"count\": \"n\", \"flops_each\": 20, \"flops_per\": 1}")
string(CONCAT variants "{\"default\": {\"transcendentals\": {\"count\": \"n\", "
  "\"flops_each\": -1}}, \"vendor\": {}}")
_kb_refused(transcendentals-variant "flops_each" SET variants "${variants}")
_kb_refused(label-space "labels" SET labels "[\"a b\"]")
_kb_refused(calibration-empty "calibration" SET calibration "[]")
# Thread counts: a count, "all" or a list of them, for the kernel or a case.
_kb_accepted(threads-count SET threads "4")
_kb_accepted(threads-list SET threads "[1, 2, \"all\"]")
_kb_accepted(threads-case SET cases 0 threads "\"all\"")
_kb_refused(threads-zero "threads" SET threads "0")
_kb_refused(threads-negative "threads" SET threads "-1")
_kb_refused(threads-fraction "threads" SET threads "1.5")
_kb_refused(threads-above "threads" SET threads "1025")
_kb_refused(threads-string "threads" SET threads "\"4\"")
_kb_refused(threads-word "threads" SET threads "\"every\"")
_kb_refused(threads-empty "threads" SET threads "[]")
_kb_refused(threads-twice "threads" SET threads "[2, 4, 2]")
_kb_refused(threads-all-twice "threads" SET threads "[\"all\", \"all\"]")
_kb_refused(threads-many "threads" SET threads "[1, 2, 3, 4, 5, 6, 7, 8, 9]")
_kb_refused(threads-case-zero "threads" SET cases 0 threads "[0]")
message("schema check: the schema and the reader agree on every planted case")

# ---- 4: the bad-input matrix's manifests
if(NOT PYTHON)
  message("kbench-skip: python3 not found (apt-get install python3): steps 1-3 passed, the "
    "bad-input matrix's manifests are not checked against the schema")
  return()
endif()
_kb_run("${PYTHON}" "${CMAKE_CURRENT_LIST_DIR}/schema_badinput.py" --check-jsonschema
  "${CHECK_JSONSCHEMA}" --schema "${SCHEMA}" --matrix "${MATRIX}" --table "${TABLE}"
  --work "${WORK}/badinput")
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "schema check: the schema and the bad-input matrix disagree (above)")
endif()
