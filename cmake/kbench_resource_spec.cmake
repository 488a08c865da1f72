# Writes a CTest resource spec file listing this machine's GPUs, for
# `ctest --resource-spec-file` (docs/resource-spec.md). Script mode:
#
#   cmake -DOUTPUT=build/resource-spec.json [-DVENDOR=auto|cuda|hip] [-DSLOTS=1]
#         [-DALLOW_EMPTY=ON] [-DNVIDIA_SMI=<path>] [-DROCM_SMI=<path>]
#         -P cmake/kbench_resource_spec.cmake
#
# OUTPUT       The file to write (required). The spec goes to OUTPUT.tmp and is
#              then renamed over OUTPUT, so a reader never sees half a file and
#              a failed run leaves an existing OUTPUT as it was.
# VENDOR       auto (default), cuda or hip. A test process uses one vendor's
#              runtime, and our CUDA and HIP drivers each number their own
#              devices from 0, so one spec lists one vendor's GPUs: cuda asks
#              nvidia-smi, hip asks rocm-smi, auto takes nvidia-smi's GPUs when
#              it lists any and rocm-smi's otherwise.
# SLOTS        Slots per GPU (default 1). A test declares RESOURCE_GROUPS
#              "gpus:1", so one slot means one test per GPU at a time: a perf
#              test times a kernel and must have the whole GPU to itself. More
#              slots would let CTest stack that many tests on one GPU (while
#              the GPU tests are RUN_SERIAL it runs them one at a time anyway).
# ALLOW_EMPTY  ON: when no GPU is found, write a spec whose gpus list is empty
#              instead of failing (CTest then reports every GPU test "Not Run").
# NVIDIA_SMI, ROCM_SMI
#              Paths of the tools (default: searched on PATH, rocm-smi also in
#              /opt/rocm/bin). An empty value skips that tool. The unit test
#              points them at fake tools.
#
# The spec's ids are the device indices the runtime will use: 0..n-1, where n
# counts the GPUs that CUDA_VISIBLE_DEVICES (cuda) or ROCR_VISIBLE_DEVICES and
# HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (hip) leave visible. CTest passes
# the id to a test as CTEST_RESOURCE_GROUP_0_GPUS=id:N,slots:1 and the driver
# calls cudaSetDevice(N) / hipSetDevice(N). The name and bus printed for each
# id are the tool's view of that device; the runtime's numbering can differ
# from the tool's on a machine with different GPU models (CUDA numbers the
# fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID), so they are for reading,
# while the count and the ids are what CTest uses.

cmake_minimum_required(VERSION 3.25)

set(prefix "kbench resource spec")

# ---- options ---------------------------------------------------------------

if(NOT OUTPUT)
  message(FATAL_ERROR "${prefix}: set -DOUTPUT=<file>, e.g.\n"
    "  cmake -DOUTPUT=build/resource-spec.json -P cmake/kbench_resource_spec.cmake")
endif()
# Relative paths are taken from the current directory (script mode's base).
get_filename_component(OUTPUT "${OUTPUT}" ABSOLUTE)

if(NOT DEFINED VENDOR OR VENDOR STREQUAL "")
  set(VENDOR auto)
endif()
string(TOLOWER "${VENDOR}" VENDOR)
if(NOT VENDOR MATCHES "^(auto|cuda|hip)$")
  message(FATAL_ERROR "${prefix}: VENDOR is '${VENDOR}'; use auto, cuda or hip")
endif()

if(NOT DEFINED SLOTS OR SLOTS STREQUAL "")
  set(SLOTS 1)
endif()
if(NOT SLOTS MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "${prefix}: SLOTS is '${SLOTS}'; use a whole number of 1 or more")
endif()

# What each tool attempt found, one line each, for the summary or the error.
set(tried "")

# ---- finding and running the tools -------------------------------------------

# Sets <out_var> to the path of tool <exe>: the value of variable <override>
# when that is defined, else a search of PATH and the directories after it.
# Sets it to "" after noting in `tried` why the tool is not there.
function(kb_locate_tool out_var exe override)
  set(path "")
  if(DEFINED ${override})
    if("${${override}}" STREQUAL "")
      list(APPEND tried "${exe}: skipped (-D${override}= is empty)")
    elseif(EXISTS "${${override}}")
      set(path "${${override}}")
    else()
      list(APPEND tried "${exe}: not found at ${${override}} (-D${override})")
    endif()
  else()
    find_program(found NAMES ${exe} PATHS ${ARGN} NO_CACHE)
    if(found)
      set(path "${found}")
    else()
      list(JOIN ARGN ", " dirs)
      if(dirs)
        set(dirs " or in ${dirs}")
      endif()
      list(APPEND tried "${exe}: not found on PATH${dirs}")
    endif()
  endif()
  set(${out_var} "${path}" PARENT_SCOPE)
  set(tried "${tried}" PARENT_SCOPE)
endfunction()

# Runs a tool; sets <out>_rc, <out>_lines (stdout, one list item per
# non-empty line) and <out>_first (first line of stdout or stderr, for
# messages). List syntax characters are replaced first ('[' ']' would group
# list items and ';' would split them): '[AMD/ATI]' reads '(AMD/ATI)'.
function(kb_run_tool out tool)
  execute_process(COMMAND "${tool}" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 120)
  set(lines "")
  string(REPLACE "\r" "" stdout "${stdout}")
  string(REPLACE ";" "," stdout "${stdout}")
  string(REPLACE "[" "(" stdout "${stdout}")
  string(REPLACE "]" ")" stdout "${stdout}")
  string(REPLACE "\n" ";" all "${stdout}")
  foreach(line IN LISTS all)
    string(STRIP "${line}" line)
    if(NOT line STREQUAL "")
      list(APPEND lines "${line}")
    endif()
  endforeach()
  set(first "")
  if(lines)
    list(GET lines 0 first)
  else()
    string(REGEX MATCH "[^\n]+" first "${stderr}")
    string(STRIP "${first}" first)
  endif()
  set(${out}_rc "${rc}" PARENT_SCOPE)
  set(${out}_lines "${lines}" PARENT_SCOPE)
  set(${out}_first "${first}" PARENT_SCOPE)
endfunction()

# ---- nvidia-smi ----------------------------------------------------------------

# `nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader`
# prints one line per GPU, fields separated by ", ":
#   0, NVIDIA H100 80GB HBM3, 00000000:19:00.0, GPU-5a0e1c6b-3f2d-4c1e-9b7a-2d4f6e8a0c11
# and, with the driver loaded but no GPU, "No devices were found" (non-zero
# exit). Sets nv_names, nv_buses, nv_uuids, nv_smi_index (parallel lists in
# nvidia-smi's order). A line that does not read like that is an error: a spec
# built from output we misread would be worse than none.
function(kb_query_nvidia tool)
  set(names "")
  set(buses "")
  set(uuids "")
  set(indices "")
  kb_run_tool(q "${tool}" --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader)
  if(NOT q_rc STREQUAL "0")
    list(APPEND tried "nvidia-smi (${tool}): exited with ${q_rc}: ${q_first}")
  elseif(q_lines STREQUAL "No devices were found")
    list(APPEND tried "nvidia-smi (${tool}): ${q_lines}")
  elseif(NOT q_lines)
    list(APPEND tried "nvidia-smi (${tool}): listed no GPU")
  else()
    set(n 0)
    foreach(line IN LISTS q_lines)
      math(EXPR n "${n} + 1")
      # The name is matched greedily, so a name with ", " in it still reads.
      if(NOT line MATCHES "^([0-9]+), (.+), ([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\\.[0-9A-Fa-f]+), (GPU-[0-9A-Fa-f-]+)$")
        message(FATAL_ERROR "${prefix}: cannot read line ${n} of the output of\n"
          "  ${tool} --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader\n"
          "expected a GPU line like '0, <name>, 00000000:19:00.0, GPU-<uuid>', got:\n  ${line}\n"
          "No spec written.")
      endif()
      list(APPEND indices "${CMAKE_MATCH_1}")
      list(APPEND names "${CMAKE_MATCH_2}")
      list(APPEND buses "${CMAKE_MATCH_3}")
      list(APPEND uuids "${CMAKE_MATCH_4}")
    endforeach()
    list(APPEND tried "nvidia-smi (${tool}): ${n} GPU(s)")
  endif()
  set(nv_names "${names}" PARENT_SCOPE)
  set(nv_buses "${buses}" PARENT_SCOPE)
  set(nv_uuids "${uuids}" PARENT_SCOPE)
  set(nv_smi_index "${indices}" PARENT_SCOPE)
  set(tried "${tried}" PARENT_SCOPE)
endfunction()

# ---- rocm-smi ------------------------------------------------------------------

# `rocm-smi --showbus --showproductname --csv` prints a header row and one row
# per GPU (rocm_smi.py, formatCsv: first column "device" with values cardN,
# one column per field shown, commas removed from the values), e.g. ROCm 6:
#   device,PCI Bus,Card Series,Card Model,Card Vendor,Card SKU,Subsystem ID,...
#   card0,0000:C1:00.0,AMD Instinct MI210,0x740f,Advanced Micro Devices Inc. ...
# Older releases spell "Card series" and have fewer columns, so columns are
# found by name in the header. Without an AMD GPU it prints no CSV (exit 0 or
# not). Output that does not read like that is an error, as for nvidia-smi.
# Sets amd_cards (cardN), amd_names, amd_buses (rocm-smi's order).
function(kb_query_rocm tool)
  set(cards "")
  set(names "")
  set(buses "")
  kb_run_tool(q "${tool}" --showbus --showproductname --csv)
  list(LENGTH q_lines nlines)
  if(NOT q_rc STREQUAL "0")
    list(APPEND tried "rocm-smi (${tool}): exited with ${q_rc}: ${q_first}")
  elseif(nlines EQUAL 0)
    list(APPEND tried "rocm-smi (${tool}): listed no GPU")
  else()
    set(how "${tool} --showbus --showproductname --csv")
    list(GET q_lines 0 header)
    string(REPLACE "," ";" columns "${header}")
    list(LENGTH columns ncolumns)
    set(bus_col -1)
    set(name_col -1)
    set(i 0)
    foreach(column IN LISTS columns)
      string(TOLOWER "${column}" column)
      if(column STREQUAL "pci bus")
        set(bus_col ${i})
      elseif(name_col EQUAL -1 AND column MATCHES "^(card series|device name)$")
        set(name_col ${i})
      endif()
      math(EXPR i "${i} + 1")
    endforeach()
    if(NOT header MATCHES "^device," OR bus_col EQUAL -1)
      message(FATAL_ERROR "${prefix}: cannot read the output of\n  ${how}\n"
        "expected a CSV header 'device,...' with a 'PCI Bus' column, got:\n  ${header}\n"
        "No spec written.")
    endif()
    list(SUBLIST q_lines 1 -1 rows)
    set(n 0)
    foreach(row IN LISTS rows)
      math(EXPR line "${n} + 2")
      string(REPLACE "," ";" fields "${row}")
      list(LENGTH fields nfields)
      if(NOT row MATCHES "^card[0-9]+," OR NOT nfields EQUAL ncolumns)
        message(FATAL_ERROR "${prefix}: cannot read line ${line} of the output of\n  ${how}\n"
          "expected 'cardN' and ${ncolumns} fields as in the header\n  ${header}\ngot:\n  ${row}\n"
          "No spec written.")
      endif()
      list(GET fields 0 card)
      list(GET fields ${bus_col} bus)
      set(name "AMD GPU")
      if(name_col GREATER -1)
        list(GET fields ${name_col} name)
      endif()
      list(APPEND cards "${card}")
      list(APPEND buses "${bus}")
      list(APPEND names "${name}")
      math(EXPR n "${n} + 1")
    endforeach()
    list(APPEND tried "rocm-smi (${tool}): ${n} GPU(s)")
  endif()
  set(amd_cards "${cards}" PARENT_SCOPE)
  set(amd_names "${names}" PARENT_SCOPE)
  set(amd_buses "${buses}" PARENT_SCOPE)
  set(tried "${tried}" PARENT_SCOPE)
endfunction()

# ---- which GPUs the runtime sees ---------------------------------------------

# The list 0;1;...;n-1 (empty for n = 0): every GPU a tool listed.
function(kb_positions out_var n)
  set(all "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      list(APPEND all ${i})
    endforeach()
  endif()
  set(${out_var} "${all}" PARENT_SCOPE)
endfunction()

# CUDA: sets <out_var> to the positions (in nvidia-smi's list of <n> GPUs,
# UUIDs <uuids>) of the GPUs CUDA enumerates, in CUDA's order, after
# CUDA_VISIBLE_DEVICES. The rule is the driver's as PyTorch models it
# (torch/cuda/__init__.py, _parse_visible_devices and _device_count_nvml):
# comma-separated ordinals, each the number an entry starts with, or GPU UUIDs
# ("GPU-...", a unique prefix is enough). The first entry that is neither (-1,
# say) ends the list, and so does the first ordinal past the last GPU or the
# first UUID that matches no GPU or several; a repeated entry hides every GPU,
# and so does an empty value.
function(kb_cuda_visible out_var n uuids)
  if(NOT DEFINED ENV{CUDA_VISIBLE_DEVICES})
    kb_positions(all ${n})
    set(${out_var} "${all}" PARENT_SCOPE)
    return()
  endif()
  set(value "$ENV{CUDA_VISIBLE_DEVICES}")
  string(REPLACE "," ";" entries "${value}")
  set(picked "")
  if(value MATCHES "^MIG-")
    message(FATAL_ERROR "${prefix}: CUDA_VISIBLE_DEVICES='${value}' names MIG instances, "
      "which nvidia-smi --query-gpu does not list; this script handles GPU ordinals and "
      "GPU UUIDs only.")
  elseif(value MATCHES "^GPU-")
    # First the entries, up to the first that is not a UUID.
    set(wanted "")
    foreach(entry IN LISTS entries)
      if(NOT entry MATCHES "^GPU-")
        break()
      endif()
      if(entry IN_LIST wanted)
        set(wanted "")
        break()
      endif()
      list(APPEND wanted "${entry}")
    endforeach()
    # Then each to the one GPU whose UUID starts with it.
    foreach(entry IN LISTS wanted)
      set(match -1)
      set(ambiguous FALSE)
      set(i 0)
      foreach(uuid IN LISTS uuids)
        string(FIND "${uuid}" "${entry}" at)
        if(at EQUAL 0)
          if(match GREATER -1)
            set(ambiguous TRUE)
          endif()
          set(match ${i})
        endif()
        math(EXPR i "${i} + 1")
      endforeach()
      if(match EQUAL -1 OR ambiguous)
        break()
      endif()
      if(match IN_LIST picked)
        set(picked "")
        break()
      endif()
      list(APPEND picked ${match})
    endforeach()
  else()
    # Ordinals, up to the first entry that does not start with a number.
    set(ordinals "")
    foreach(entry IN LISTS entries)
      string(STRIP "${entry}" entry)
      if(NOT entry MATCHES "^\\+?([0-9]+)")
        break()
      endif()
      set(ordinal "${CMAKE_MATCH_1}")
      string(LENGTH "${ordinal}" digits)
      if(digits LESS_EQUAL 9)
        math(EXPR ordinal "${ordinal}") # "07" -> 7
      else()
        set(ordinal 999999999) # too long for math(); past any GPU anyway
      endif()
      if(ordinal IN_LIST ordinals)
        set(ordinals "")
        break()
      endif()
      list(APPEND ordinals ${ordinal})
    endforeach()
    # Then up to the first that names no GPU.
    foreach(ordinal IN LISTS ordinals)
      if(ordinal GREATER_EQUAL n)
        break()
      endif()
      list(APPEND picked ${ordinal})
    endforeach()
  endif()
  set(${out_var} "${picked}" PARENT_SCOPE)
endfunction()

# HIP: sets <out_var> to the positions (in rocm-smi's list of <n> GPUs) of the
# GPUs HIP enumerates, in HIP's order. Two filters apply, in this order (ROCm
# docs, "GPU isolation techniques"):
#  1. ROCR_VISIBLE_DEVICES, read by the ROCr runtime (ROCR-Runtime,
#     amd_filter_device.cpp): comma-separated device indices; the first entry
#     that is not an index, is out of range or repeats one before it ends the
#     list; an empty value hides every GPU. (ROCr also reads 0x.. indices,
#     which end the list here.)
#  2. HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES when that is unset or empty,
#     read by HIP's runtime (ROCm clr, rocdevice.cpp, Device::init) as indices
#     into what step 1 left: the first entry that is not exactly a decimal
#     index in range ends the list, a repeated entry is skipped, and an empty
#     value filters nothing.
# UUID entries ("GPU-...") are refused with a message: rocm-smi's listing here
# carries no UUIDs to match them against.
function(kb_hip_visible out_var n)
  kb_positions(picked ${n})

  if(DEFINED ENV{ROCR_VISIBLE_DEVICES})
    set(value "$ENV{ROCR_VISIBLE_DEVICES}")
    string(REPLACE "," ";" entries "${value}")
    set(kept "")
    foreach(entry IN LISTS entries)
      string(STRIP "${entry}" entry)
      string(TOUPPER "${entry}" entry)
      if(entry MATCHES "^G")
        message(FATAL_ERROR "${prefix}: ROCR_VISIBLE_DEVICES='${value}' has a UUID entry; "
          "this script reads device indices only (e.g. ROCR_VISIBLE_DEVICES=0,2).")
      endif()
      string(LENGTH "${entry}" digits)
      if(NOT entry MATCHES "^[0-9]+$" OR digits GREATER 9)
        break()
      endif()
      math(EXPR index "${entry}") # "01" -> 1
      if(index GREATER_EQUAL n OR index IN_LIST kept)
        break()
      endif()
      list(APPEND kept ${index})
    endforeach()
    set(picked "${kept}")
  endif()

  set(var "")
  if(NOT "$ENV{HIP_VISIBLE_DEVICES}" STREQUAL "")
    set(var HIP_VISIBLE_DEVICES)
  elseif(NOT "$ENV{CUDA_VISIBLE_DEVICES}" STREQUAL "")
    set(var CUDA_VISIBLE_DEVICES)
  endif()
  if(var)
    set(value "$ENV{${var}}")
    string(REPLACE "," ";" entries "${value}")
    list(LENGTH picked count)
    set(kept "")
    foreach(entry IN LISTS entries)
      if(entry MATCHES "GPU-")
        message(FATAL_ERROR "${prefix}: ${var}='${value}' has a UUID entry; "
          "this script reads device indices only (e.g. ${var}=0,2).")
      endif()
      if(NOT entry MATCHES "^(0|[1-9][0-9]*)$" OR entry GREATER_EQUAL count)
        break()
      endif()
      list(GET picked ${entry} position)
      if(NOT position IN_LIST kept)
        list(APPEND kept ${position})
      endif()
    endforeach()
    set(picked "${kept}")
  endif()
  set(${out_var} "${picked}" PARENT_SCOPE)
endfunction()

# Lists the visibility variables that are set, for the messages.
function(kb_visibility_note out_var)
  set(note "")
  foreach(var ${ARGN})
    if(DEFINED ENV{${var}})
      list(APPEND note "${var}='$ENV{${var}}'")
    endif()
  endforeach()
  list(JOIN note ", " note)
  set(${out_var} "${note}" PARENT_SCOPE)
endfunction()

# ---- choosing the GPUs ---------------------------------------------------------

set(chosen "")        # cuda or hip, once a tool has listed a GPU
set(visible "")       # positions in that tool's list, in runtime order
set(names "")
set(buses "")
set(labels "")        # how the tool refers to each GPU

if(VENDOR STREQUAL "cuda" OR VENDOR STREQUAL "auto")
  kb_locate_tool(nvidia_smi nvidia-smi NVIDIA_SMI)
  if(nvidia_smi)
    kb_query_nvidia("${nvidia_smi}")
    list(LENGTH nv_names n)
    if(n GREATER 0)
      set(chosen cuda)
      kb_cuda_visible(visible ${n} "${nv_uuids}")
      set(names "${nv_names}")
      set(buses "${nv_buses}")
      foreach(index IN LISTS nv_smi_index)
        list(APPEND labels "nvidia-smi index ${index}")
      endforeach()
      kb_visibility_note(note CUDA_VISIBLE_DEVICES)
    endif()
  endif()
endif()

if(VENDOR STREQUAL "hip" OR (VENDOR STREQUAL "auto" AND NOT chosen))
  kb_locate_tool(rocm_smi rocm-smi ROCM_SMI /opt/rocm/bin)
  if(rocm_smi)
    kb_query_rocm("${rocm_smi}")
    list(LENGTH amd_names n)
    if(n GREATER 0)
      set(chosen hip)
      kb_hip_visible(visible ${n})
      set(names "${amd_names}")
      set(buses "${amd_buses}")
      foreach(card IN LISTS amd_cards)
        list(APPEND labels "rocm-smi ${card}")
      endforeach()
      kb_visibility_note(note ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES)
    endif()
  endif()
endif()

list(LENGTH visible count)
if(chosen AND count EQUAL 0)
  list(APPEND tried "none of them visible to ${chosen} with ${note}")
endif()
list(JOIN tried "\n  " tried_text)

if(count EQUAL 0)
  if(NOT ALLOW_EMPTY)
    message(FATAL_ERROR "${prefix}: no GPU found (VENDOR=${VENDOR}). Tried:\n"
      "  ${tried_text}\n"
      "No spec written. Run ctest without --resource-spec-file, or pass -DALLOW_EMPTY=ON to "
      "write a spec with no GPUs (CTest then reports every GPU test 'Not Run').")
  endif()
  message(STATUS "${prefix}: no GPU found; writing an empty gpus list (ALLOW_EMPTY). Tried:\n"
    "  ${tried_text}")
endif()

# ---- writing the spec ----------------------------------------------------------

set(json "{\"version\":{\"major\":1,\"minor\":0},\"local\":[{\"gpus\":[]}]}")
set(id 0)
foreach(position IN LISTS visible)
  list(GET names ${position} name)
  list(GET buses ${position} bus)
  list(GET labels ${position} label)
  string(JSON json SET "${json}" local 0 gpus ${id} "{\"id\":\"${id}\",\"slots\":${SLOTS}}")
  message(STATUS "${prefix}: gpu ${id}: ${name}, bus ${bus} (${label})")
  math(EXPR id "${id} + 1")
endforeach()

get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${OUTPUT}.tmp" "${json}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
set(via "")
if(chosen)
  set(via ", ${chosen}")
  if(note)
    string(APPEND via ", ${note}")
  endif()
endif()
message(STATUS "${prefix}: wrote ${OUTPUT} (${count} GPU(s), ${SLOTS} slot(s) each${via})")
