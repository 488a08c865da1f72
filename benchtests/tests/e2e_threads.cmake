# End-to-end test of multithreaded cases (the manifest's "threads") on the
# mtmap test kernel (benchtests/tests/mtmap; cmake -P; inputs DRIVER,
# MANIFEST, WORK). Its manifest says "threads": [1, "all"] (cases n256k_t1
# and n256k_tall) and a case "two" of its own with 2 threads; every process
# of the driver appends to KB_TEST_MTMAP_CPUS the CPUs its threads were
# allowed (their affinity masks) and ran on. N is the number of CPUs this
# test may use (Cpus_allowed_list of its affinity mask):
#   1. a plain run: n256k_tall runs N threads, the result names the CPUs it
#      was pinned to (all N allowed), and every one of its threads in every
#      call was pinned to exactly those and ran on no other; n256k_t1 runs
#      one thread; "two" runs 2 on the first two CPUs (skipped, saying why,
#      with N = 1)
#   2. recording: the baseline keys carry the thread count of every case of
#      more than one thread ("default+t<N>"), and a run gated against it
#      finds every case's entry
#   3. the same run restricted to one CPU (taskset): n256k_tall is then one
#      thread, and the baseline of N threads is not compared with it (no
#      baseline); "two" is skipped, saying why
#   4. every case asking for more threads than CPUs: exit 77, saying why
#   5. A/B mode against the same driver: both sides' processes pinned
#      n256k_tall's threads to the N CPUs the pairs name, no regression
# Steps 1, 2 and 5 check a thread count above one only with N >= 2; with
# one CPU the test reports itself skipped, saying so. With N = 2 every set
# of two is every allowed CPU; pinning to fewer CPUs than allowed shows
# here from N = 3 (case two), and in kbench.unit.affinity on any machine of
# two CPUs or more.

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_threads.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")
get_filename_component(driver_dir "${DRIVER}" DIRECTORY)
set(log "${WORK}/cpus.txt")
set(ENV{KB_TEST_MTMAP_CPUS} "${log}")
foreach(var KBENCH_UPDATE_BASELINES KBENCH_AB_BASE KBENCH_AB_SOURCE KBENCH_BASELINE_DIR
    KBENCH_PROFILE KBENCH_ACCURACY_DRIFT KBENCH_LATENCY_TOLERANCE)
  unset(ENV{${var}})
endforeach()

# The CPUs this process may use: its mask, which the driver inherits.
file(READ "/proc/self/status" status)
if(NOT status MATCHES "Cpus_allowed_list:[ \t]*([0-9,-]+)")
  message(FATAL_ERROR "/proc/self/status has no Cpus_allowed_list")
endif()
set(allowed "")
string(REPLACE "," ";" ranges "${CMAKE_MATCH_1}")
foreach(range IN LISTS ranges)
  if(range MATCHES "^([0-9]+)-([0-9]+)$")
    foreach(cpu RANGE ${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
      list(APPEND allowed ${cpu})
    endforeach()
  else()
    list(APPEND allowed ${range})
  endif()
endforeach()
list(LENGTH allowed N)
list(JOIN allowed "," allowed_csv)
message("CPUs allowed: ${allowed_csv} (${N})")

# The JSON array at a path as "a,b,c".
function(json_list out label file)
  json_get(array "${label}" "${file}" ${ARGN})
  string(JSON n LENGTH "${array}")
  set(items "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON item GET "${array}" ${i})
      list(APPEND items ${item})
    endforeach()
  endif()
  list(JOIN items "," joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

# In every line of the kernel's log for `case` (of processes with `role`,
# or any), every thread of every call must have been allowed exactly the
# CPUs `want` (allowed and allowed_all), and have run on none but them
# (cpus); at least one line must be there. Which of them the threads ran on
# is the scheduler's choice: beside other processes it may keep two
# threads on one CPU of the two they may use, so that is said, not failed.
function(expect_ran label case role want)
  file(STRINGS "${log}" lines REGEX "case=${case} ")
  string(REPLACE "," ";" want_list "${want}")
  set(seen 0)
  foreach(line IN LISTS lines)
    if(NOT role STREQUAL "any" AND NOT line MATCHES "role=${role} ")
      continue()
    endif()
    if(NOT line MATCHES " allowed=([0-9,]*) allowed_all=([0-9,]*) cpus=([0-9,]*)$")
      message(FATAL_ERROR "${label}: a line of ${log} without its lists: ${line}")
    endif()
    set(ran "${CMAKE_MATCH_3}")
    if(NOT CMAKE_MATCH_1 STREQUAL "${want}" OR NOT CMAKE_MATCH_2 STREQUAL "${want}")
      message(FATAL_ERROR "${label}: case ${case}: the kernel's threads were not all pinned "
        "to CPUs ${want}: ${line}")
    endif()
    string(REPLACE "," ";" ran_list "${ran}")
    foreach(cpu IN LISTS ran_list)
      list(FIND want_list "${cpu}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${label}: case ${case}: a thread ran on CPU ${cpu}, outside "
          "${want}: ${line}")
      endif()
    endforeach()
    if(NOT ran STREQUAL "${want}")
      message("${label}: case ${case}: the scheduler kept its threads on CPUs ${ran} of ${want}")
    endif()
    math(EXPR seen "${seen} + 1")
  endforeach()
  if(seen EQUAL 0)
    message(FATAL_ERROR "${label}: the kernel noted no call of case ${case} (${log})")
  endif()
  message("${label}: case ${case}: ${seen} process(es) ran its threads pinned to CPUs ${want}")
endfunction()

set(common --manifest "${MANIFEST}" --precision fp32 --profile e2e)

# ---- 1. a plain run
file(REMOVE "${log}")
run_driver(plain 0 --results-dir "${WORK}/plain" --baseline-dir "${WORK}/none")
set(result "${WORK}/plain/mtmap.cpu.fp32.json")
expect_json(plain "${result}" "n256k_t1" cases 0 case)
expect_json(plain "${result}" "1" cases 0 threads)
expect_json(plain "${result}" "n256k_tall" cases 1 case)
expect_json(plain "${result}" "${N}" cases 1 threads)
expect_json(plain "${result}" "two" cases 2 case)
expect_json(plain "${result}" "2" cases 2 threads)
foreach(i 0 1)
  expect_json(plain "${result}" "ON" cases ${i} passed)
  expect_json(plain "${result}" "default" cases ${i} variant)
  expect_positive(plain "${result}" cases ${i} median_ms)
endforeach()
# one thread: no set pinned for the case as a whole
file(READ "${result}" json)
string(JSON none ERROR_VARIABLE absent GET "${json}" cases 0 cpus)
if(NOT absent)
  message(FATAL_ERROR "plain: n256k_t1 names pinned CPUs (${none}); one thread has no set")
endif()
if(N GREATER_EQUAL 2)
  json_list(pinned plain "${result}" cases 1 cpus)
  if(NOT pinned STREQUAL allowed_csv)
    message(FATAL_ERROR "plain: n256k_tall was pinned to CPUs ${pinned}, not to the ${N} "
      "allowed (${allowed_csv})")
  endif()
  json_list(round plain "${result}" cases 1 rounds 0 cpus)
  if(NOT round STREQUAL allowed_csv)
    message(FATAL_ERROR "plain: n256k_tall's first round names CPUs ${round}")
  endif()
  expect_ran(plain n256k_tall lead "${allowed_csv}")
  expect_json(plain "${result}" "ON" cases 2 passed)
  json_list(two plain "${result}" cases 2 cpus)
  list(SUBLIST allowed 0 2 first_two)
  list(JOIN first_two "," first_two)
  if(NOT two STREQUAL first_two)
    message(FATAL_ERROR "plain: case two was pinned to ${two}, not the first two CPUs ${first_two}")
  endif()
  expect_ran(plain two lead "${first_two}")
else()
  expect_json_matches(plain "${result}" "runs 2 threads, but this process may use only 1 CPU"
    cases 2 skipped)
endif()

# ---- 2. recording: the keys carry the thread count
set(baselines "${WORK}/baselines")
run_driver(record 0 --results-dir "${WORK}/record" --baseline-dir "${baselines}"
  --update-baselines --latency-tolerance 10 --record-processes 2)
file(READ "${baselines}/e2e/mtmap.json" recorded)
set(keys "cpu.fp32.default.n256k_t1")
if(N GREATER_EQUAL 2)
  list(APPEND keys "cpu.fp32.default+t${N}.n256k_tall" "cpu.fp32.default+t2.two")
else()
  list(APPEND keys "cpu.fp32.default.n256k_tall")
endif()
foreach(key IN LISTS keys)
  string(JSON entry ERROR_VARIABLE missing GET "${recorded}" entries "${key}")
  if(missing)
    message(FATAL_ERROR "record: ${baselines}/e2e/mtmap.json has no entry '${key}'")
  endif()
endforeach()
string(JSON entries GET "${recorded}" entries)
string(JSON n_entries LENGTH "${entries}")
list(LENGTH keys n_keys)
if(NOT n_entries EQUAL n_keys)
  message(FATAL_ERROR "record: ${n_entries} entries, expected ${n_keys} (${keys}):\n${entries}")
endif()
file(REMOVE "${log}")
run_driver(gated 0 --results-dir "${WORK}/gated" --baseline-dir "${baselines}"
  --latency-tolerance 10)
set(result "${WORK}/gated/mtmap.cpu.fp32.json")
foreach(i 0 1)
  expect_positive(gated "${result}" cases ${i} latency baseline_median_ms)
  expect_json_matches(gated "${result}" "^(ok|cleared)$" cases ${i} latency verdict)
endforeach()
if(N GREATER_EQUAL 2)
  expect_ran(gated n256k_tall lead "${allowed_csv}")
endif()

# ---- 3. one CPU: "all" is one thread, never compared with N threads
find_program(TASKSET taskset)
list(GET allowed 0 first)
if(N GREATER_EQUAL 2 AND TASKSET)
  file(REMOVE "${log}")
  run_step("one CPU" 0 "${TASKSET}" -c ${first} "${DRIVER}" ${common}
    --results-dir "${WORK}/one" --baseline-dir "${baselines}" --latency-tolerance 10)
  set(result "${WORK}/one/mtmap.cpu.fp32.json")
  expect_json("one CPU" "${result}" "1" cases 1 threads)
  expect_json("one CPU" "${result}" "no_baseline" cases 1 latency verdict)
  expect_positive("one CPU" "${result}" cases 0 latency baseline_median_ms)
  expect_json_matches("one CPU" "${result}"
    "case 'two' runs 2 threads, but this process may use only 1 CPU \\(CPU ${first}:"
    cases 2 skipped)
  expect_text("one CPU" "(0 of 3 cases failed, 1 skipped)")
  expect_ran("one CPU" n256k_tall lead "${first}")
elseif(N GREATER_EQUAL 2)
  message("one CPU: no taskset: step 3 not run")
endif()

# ---- 4. more threads than CPUs: skipped, never run with fewer
math(EXPR too_many "${N} + 1")
file(READ "${MANIFEST}" manifest)
string(JSON manifest SET "${manifest}" threads "${too_many}")
string(JSON manifest REMOVE "${manifest}" cases 1 threads)
file(MAKE_DIRECTORY "${WORK}/many")
file(WRITE "${WORK}/many/kernel.json" "${manifest}")
run_step("too many threads" 77 "${DRIVER}" --manifest "${WORK}/many/kernel.json" --precision fp32
  --profile e2e --results-dir "${WORK}/many" --baseline-dir "${WORK}/none")
expect_text("too many threads"
  "SKIP: case 'n256k' runs ${too_many} threads, but this process may use only ${N} CPU")
expect_text("too many threads" "a case is never run on fewer CPUs than threads")

# ---- 5. A/B mode against the same driver: both sides on the same CPUs
file(REMOVE "${log}")
run_driver(ab 0 --results-dir "${WORK}/ab" --ab-base "${driver_dir}" --ab-ref same)
set(result "${WORK}/ab/mtmap.cpu.fp32.json")
expect_json(ab "${result}" "ab" mode)
set(measured 0 1)
if(N GREATER_EQUAL 2)
  list(APPEND measured 2) # "two" is skipped on one CPU
endif()
foreach(i IN LISTS measured)
  json_get(verdict ab "${result}" cases ${i} latency verdict)
  if(verdict STREQUAL "regression")
    message(FATAL_ERROR "ab: case ${i}: verdict regression against the same driver")
  endif()
endforeach()
if(N GREATER_EQUAL 2)
  expect_json(ab "${result}" "measured" cases 1 latency ab base)
  json_list(pair ab "${result}" cases 1 latency ab pairs 0 cpus)
  if(NOT pair STREQUAL allowed_csv)
    message(FATAL_ERROR "ab: n256k_tall's first pair names CPUs ${pair}, not ${allowed_csv}")
  endif()
  expect_ran(ab n256k_tall any "${allowed_csv}")
  expect_ran(ab n256k_tall partner "${allowed_csv}")
  if(N EQUAL 2) # with more CPUs the pairs move the two CPUs along the list
    expect_ran(ab two any "${first_two}")
  endif()
endif()

if(N LESS 2)
  message("kbench-skip: this test may use one CPU only (${allowed_csv}): the thread counts above "
    "one were not checked")
else()
  message("e2e threads: all steps behaved as expected on ${N} CPUs")
endif()
