# Tests cmake/kbench_resource_spec.cmake (cmake -P). Inputs: GENERATOR (the
# script) and WORK (a scratch directory, emptied first).
#
# Fake nvidia-smi and rocm-smi shell scripts stand in for the real tools; each
# prints what the real one prints for the case (two NVIDIA GPUs; one AMD GPU in
# rocm-smi's CSV form; no GPU; output the generator must refuse) and fails on
# arguments other than the ones the generator is meant to pass. Every run
# starts with CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES
# unset, so the machine's own settings do not leak in.

cmake_minimum_required(VERSION 3.25)

if(NOT GENERATOR OR NOT WORK)
  message(FATAL_ERROR "resource_spec_check: pass -DGENERATOR=<script> -DWORK=<dir>")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# ---- fake tools ------------------------------------------------------------------

# Writes an executable shell script <WORK>/<dir>/<name> that runs the shell
# code <checks> (argument checks), then <body>.
function(fake_tool dir name checks body)
  file(MAKE_DIRECTORY "${WORK}/${dir}")
  file(WRITE "${WORK}/${dir}/${name}" "#!/bin/sh\n${checks}${body}")
  file(CHMOD "${WORK}/${dir}/${name}"
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
endfunction()

# Argument checks: the generator must call the tools exactly this way.
set(nv_args [=[
if [ "$*" != "--query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader" ]; then
  echo "fake nvidia-smi: unexpected arguments: $*" >&2
  exit 2
fi
]=])
set(amd_args [=[
for want in --showbus --showproductname --csv; do
  case " $* " in
    *" $want "*) ;;
    *) echo "fake rocm-smi: missing $want in: $*" >&2; exit 2 ;;
  esac
done
]=])

# Two NVIDIA GPUs, as `nvidia-smi --query-gpu=... --format=csv,noheader` lists them.
fake_tool(nv2 nvidia-smi "${nv_args}" [=[
echo "0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, GPU-3b9c4e1a-7d2f-4a6b-9e0c-5f81d2a4b7c3"
echo "1, NVIDIA H100 80GB HBM3, 00000000:3B:00.0, GPU-c81d2e07-6a4b-4f59-8e3c-71b0a9d2f4e6"
]=])
# Driver loaded, no GPU: nvidia-smi says so and exits non-zero.
fake_tool(nvnone nvidia-smi "${nv_args}" [=[
echo "No devices were found"
exit 6
]=])
# Malformed: the header line that `noheader` should have left out.
fake_tool(nvbad nvidia-smi "${nv_args}" [=[
echo "index, name, pci.bus_id, uuid"
echo "0, NVIDIA H100 80GB HBM3, 00000000:3B:00.0, GPU-c81d2e07-6a4b-4f59-8e3c-71b0a9d2f4e6"
]=])

# One AMD GPU in rocm-smi's CSV form (ROCm 6 column names; values have their
# commas removed; a blank line ends the output).
fake_tool(amd1 rocm-smi "${amd_args}" [=[
echo "device,PCI Bus,Card Series,Card Model,Card Vendor,Card SKU,Subsystem ID,Device Rev,Node ID,GUID,GFX Version"
echo "card0,0000:C1:00.0,AMD Instinct MI210,0x740f,Advanced Micro Devices Inc. [AMD/ATI],D67301,0x0c34,0x02,2,47130,gfx90a"
echo ""
]=])
# No AMD GPU: nothing on stdout, a warning on stderr, exit 0.
fake_tool(amdnone rocm-smi "${amd_args}" [=[
echo "WARNING: No JSON data to report" >&2
]=])
# Malformed: the human-readable report, as if --csv had been ignored.
fake_tool(amdbad rocm-smi "${amd_args}" [=[
echo "============================ ROCm System Management Interface ============================"
echo "GPU[0]		: PCI Bus: 0000:C1:00.0"
echo "GPU[0]		: Card Series: 		AMD Instinct MI210"
]=])

# ---- running the generator ---------------------------------------------------------

# run_case(<name> [ENV VAR=value...] [ARGS -Dx=y...]): runs the generator with
# OUTPUT=<WORK>/<name>.json; sets rc, log (stdout and stderr) and spec (the path).
function(run_case name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ENV;ARGS")
  set(spec "${WORK}/${name}.json")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env
      --unset=CUDA_VISIBLE_DEVICES --unset=HIP_VISIBLE_DEVICES --unset=ROCR_VISIBLE_DEVICES
      ${arg_ENV}
      "${CMAKE_COMMAND}" "-DOUTPUT=${spec}" ${arg_ARGS} -P "${GENERATOR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(log "${out}${err}" PARENT_SCOPE)
  set(spec "${spec}" PARENT_SCOPE)
endfunction()

function(fail name what)
  message(FATAL_ERROR "resource_spec_check: case '${name}': ${what}\n"
    "--- generator output ---\n${log}")
endfunction()

# The last run succeeded and wrote a spec with gpus "0".."<count>-1", each of
# <slots> slots, and left no temporary file.
function(expect_spec name count slots)
  if(NOT rc STREQUAL "0")
    fail(${name} "expected success, generator exited with '${rc}'")
  endif()
  if(NOT EXISTS "${spec}")
    fail(${name} "expected ${spec} to be written")
  endif()
  if(EXISTS "${spec}.tmp")
    fail(${name} "${spec}.tmp was left behind")
  endif()
  file(READ "${spec}" json)
  string(JSON major ERROR_VARIABLE e GET "${json}" version major)
  string(JSON minor ERROR_VARIABLE e2 GET "${json}" version minor)
  if(e OR e2 OR NOT major STREQUAL "1" OR NOT minor STREQUAL "0")
    fail(${name} "expected version 1.0, got '${major}.${minor}' (${e}${e2}) in\n${json}")
  endif()
  string(JSON nlocal ERROR_VARIABLE e LENGTH "${json}" local)
  if(e OR NOT nlocal EQUAL 1)
    fail(${name} "expected one entry in 'local', got '${nlocal}' (${e}) in\n${json}")
  endif()
  string(JSON ngpus ERROR_VARIABLE e LENGTH "${json}" local 0 gpus)
  if(e OR NOT ngpus EQUAL count)
    fail(${name} "expected ${count} gpus, got '${ngpus}' (${e}) in\n${json}")
  endif()
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON id_type ERROR_VARIABLE e TYPE "${json}" local 0 gpus ${i} id)
      string(JSON id ERROR_VARIABLE e2 GET "${json}" local 0 gpus ${i} id)
      if(e OR e2 OR NOT id_type STREQUAL "STRING" OR NOT id STREQUAL "${i}")
        fail(${name} "gpu ${i}: expected id \"${i}\" (a string), got '${id}' of type "
          "'${id_type}' (${e}${e2}) in\n${json}")
      endif()
      string(JSON s_type ERROR_VARIABLE e TYPE "${json}" local 0 gpus ${i} slots)
      string(JSON s ERROR_VARIABLE e2 GET "${json}" local 0 gpus ${i} slots)
      if(e OR e2 OR NOT s_type STREQUAL "NUMBER" OR NOT s STREQUAL "${slots}")
        fail(${name} "gpu ${i}: expected slots ${slots} (a number), got '${s}' of type "
          "'${s_type}' (${e}${e2}) in\n${json}")
      endif()
    endforeach()
  endif()
endfunction()

# The last run failed, wrote no spec, and its output matches every regex given.
function(expect_failure name)
  if(rc STREQUAL "0")
    fail(${name} "expected failure, generator exited with 0")
  endif()
  if(EXISTS "${spec}" OR EXISTS "${spec}.tmp")
    fail(${name} "expected no spec to be written, found ${spec}")
  endif()
  expect_output(${name} ${ARGN})
endfunction()

# The last run's output matches every regex given.
function(expect_output name)
  foreach(regex IN LISTS ARGN)
    if(NOT log MATCHES "${regex}")
      fail(${name} "expected the output to match '${regex}'")
    endif()
  endforeach()
endfunction()

set(nv2 "-DNVIDIA_SMI=${WORK}/nv2/nvidia-smi")
set(nvnone "-DNVIDIA_SMI=${WORK}/nvnone/nvidia-smi")
set(amd1 "-DROCM_SMI=${WORK}/amd1/rocm-smi")
set(amdnone "-DROCM_SMI=${WORK}/amdnone/rocm-smi")

# ---- cases -------------------------------------------------------------------------

# Both vendors present, VENDOR=auto: NVIDIA's two GPUs, one slot each.
run_case(auto-nvidia ARGS ${nv2} ${amd1})
expect_spec(auto-nvidia 2 1)
expect_output(auto-nvidia
  "gpu 0: NVIDIA A100-SXM4-80GB, bus 00000000:07:00.0"
  "gpu 1: NVIDIA H100 80GB HBM3, bus 00000000:3B:00.0"
  "wrote .*auto-nvidia.json \\(2 GPU")

# SLOTS sets every GPU's slots.
run_case(slots ARGS ${nv2} ${amd1} -DSLOTS=3)
expect_spec(slots 2 3)

# VENDOR=hip takes rocm-smi's GPU although NVIDIA's are there.
run_case(vendor-hip ARGS ${nv2} ${amd1} -DVENDOR=hip)
expect_spec(vendor-hip 1 1)
expect_output(vendor-hip "gpu 0: AMD Instinct MI210, bus 0000:C1:00.0")

# VENDOR=auto falls back to rocm-smi when nvidia-smi lists no GPU.
run_case(auto-amd ARGS ${nvnone} ${amd1})
expect_spec(auto-amd 1 1)
expect_output(auto-amd "gpu 0: AMD Instinct MI210")

# CUDA_VISIBLE_DEVICES=1: one GPU, the second one, which CUDA numbers 0.
run_case(cuda-visible-1 ENV CUDA_VISIBLE_DEVICES=1 ARGS ${nv2} ${amd1})
expect_spec(cuda-visible-1 1 1)
expect_output(cuda-visible-1 "gpu 0: NVIDIA H100 80GB HBM3, bus 00000000:3B:00.0")

# An entry naming no GPU ends the list: 1,7,0 leaves one GPU visible.
run_case(cuda-visible-stop ENV CUDA_VISIBLE_DEVICES=1,7,0 ARGS ${nv2})
expect_spec(cuda-visible-stop 1 1)

# A GPU UUID prefix selects that GPU.
run_case(cuda-visible-uuid ENV CUDA_VISIBLE_DEVICES=GPU-3b9c ARGS ${nv2})
expect_spec(cuda-visible-uuid 1 1)
expect_output(cuda-visible-uuid "gpu 0: NVIDIA A100-SXM4-80GB")

# HIP_VISIBLE_DEVICES=1 names no GPU on a one-GPU machine: nothing visible.
run_case(hip-visible-none ENV HIP_VISIBLE_DEVICES=1 ARGS -DVENDOR=hip ${amd1})
expect_failure(hip-visible-none "no GPU found" "HIP_VISIBLE_DEVICES='1'")

# No GPU: the error names each tool and what it said; an existing spec stays.
file(WRITE "${WORK}/no-gpu.json" "previous spec\n")
run_case(no-gpu ARGS ${nvnone} ${amdnone})
if(rc STREQUAL "0")
  fail(no-gpu "expected failure, generator exited with 0")
endif()
expect_output(no-gpu "no GPU found" "nvidia-smi .*No devices were found"
  "rocm-smi .*listed no GPU" "ALLOW_EMPTY")
file(READ "${WORK}/no-gpu.json" kept)
if(NOT kept STREQUAL "previous spec\n")
  fail(no-gpu "the existing spec was changed to:\n${kept}")
endif()
if(EXISTS "${WORK}/no-gpu.json.tmp")
  fail(no-gpu "no-gpu.json.tmp was left behind")
endif()

# No tool at all.
run_case(no-tools ARGS -DNVIDIA_SMI=${WORK}/missing/nvidia-smi -DROCM_SMI=${WORK}/missing/rocm-smi)
expect_failure(no-tools "no GPU found" "nvidia-smi: not found at" "rocm-smi: not found at")

# ALLOW_EMPTY writes a valid spec with an empty gpus list.
run_case(allow-empty ARGS ${nvnone} ${amdnone} -DALLOW_EMPTY=ON)
expect_spec(allow-empty 0 1)

# Output the generator cannot read is an error, not a guess.
run_case(bad-nvidia ARGS -DNVIDIA_SMI=${WORK}/nvbad/nvidia-smi ${amd1})
expect_failure(bad-nvidia "cannot read line 1" "got:[ \n]+index, name, pci.bus_id, uuid")
run_case(bad-rocm ARGS -DVENDOR=hip -DROCM_SMI=${WORK}/amdbad/rocm-smi)
expect_failure(bad-rocm "cannot read the output" "ROCm System Management Interface")

# A bad option is refused.
run_case(bad-vendor ARGS ${nv2} -DVENDOR=intel)
expect_failure(bad-vendor "VENDOR is 'intel'")

message("resource_spec_check: all cases passed")
