# The CPU paths at DRAM size against the machine's measured bandwidth
# (docs/kernels.md, "CPU paths at the bandwidth limit").
#
#   cmake -DBIN=build/bin [-DBASE_BIN=<other build>/bin] [-DREPEATS=3]
#         [-DWORK=<dir>, default ./measure-cpu-paths]
#         -P benchtests/tools/measure_cpu_paths.cmake
#
# Calibrates the CPU's DRAM bandwidth (BIN's kbench-bandwidth) and runs the
# DRAM-size case of gelu, swish, softmax and layernorm in every precision,
# REPEATS times; with BASE_BIN, that build's driver runs each case just before
# BIN's (interleaved, so both see the same load on a shared machine). Prints,
# per case and build, the median over the repeats of GB/s (the manifest's
# minimal bytes over the median time) and its percentage of the calibrated
# DRAM figure; then, for BIN, the GB/s of the kernel's L2-resident case and
# the DRAM-size figure as a percentage of it. Results are not gated (an empty
# baseline directory); a case that fails its accuracy check stops the script.
cmake_minimum_required(VERSION 3.25)

if(NOT BIN)
  message(FATAL_ERROR "measure_cpu_paths: -DBIN=<build>/bin is required")
endif()
get_filename_component(SOURCE "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT REPEATS)
  set(REPEATS 3)
endif()
if(NOT WORK)
  set(WORK "${CMAKE_CURRENT_BINARY_DIR}/measure-cpu-paths")
endif()
set(builds head)
set(bin_head "${BIN}")
if(BASE_BIN)
  set(builds base head)
  set(bin_base "${BASE_BIN}")
endif()
foreach(build IN LISTS builds)
  if(NOT EXISTS "${bin_${build}}/kbench-gelu")
    message(FATAL_ERROR "measure_cpu_paths: no kbench-gelu in ${bin_${build}}")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/baselines")
# The DRAM figure is calibrated again before each repeat (into
# <WORK>/<repeat>/calibration/cpu.json, which that repeat's runs read), so
# that it sees the same load as the cases; the table uses the median.
function(calibrate rep)
  execute_process(
    COMMAND "${BIN}/kbench-bandwidth" --backend cpu --precision fp64
      --manifest "${SOURCE}/kernels/bandwidth/kernel.json" --calibrate
      --results-dir "${WORK}/${rep}"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "measure_cpu_paths: calibration failed (${rc}): ${err}")
  endif()
  file(READ "${WORK}/${rep}/calibration/cpu.json" json)
  string(JSON gbps GET "${json}" peak_gbps)
  to_milli(m "${gbps}")
  set(dram_all ${dram_all} ${m} PARENT_SCOPE)
endfunction()

# kernel;case;small: each kernel's case whose working set is beyond the L3,
# and its smallest (32K elements), whose working set stays in L2.
set(cases "gelu\;n16m\;n32k" "swish\;n16m\;n32k" "softmax\;r16384_c1024\;r128_c256"
  "layernorm\;b32_s512_h1024\;b2_s64_h256")
set(precs fp64 fp32 fp16 bf16)

# A decimal such as 12.3456 as an integer count of thousandths (12346):
# math() has integers only.
function(to_milli out value)
  if(NOT value MATCHES "^([0-9]+)(\\.([0-9]*))?$")
    message(FATAL_ERROR "measure_cpu_paths: not a plain decimal: '${value}'")
  endif()
  set(int "${CMAKE_MATCH_1}")
  set(frac "${CMAKE_MATCH_3}0000")
  string(SUBSTRING "${frac}" 0 4 frac)
  math(EXPR m "${int} * 1000 + (1${frac} - 10000 + 5) / 10")
  set(${out} ${m} PARENT_SCOPE)
endfunction()

# Thousandths as a decimal with one digit after the point.
function(from_milli out m)
  math(EXPR tenths "(${m} + 50) / 100")
  math(EXPR int "${tenths} / 10")
  math(EXPR dec "${tenths} % 10")
  set(${out} "${int}.${dec}" PARENT_SCOPE)
endfunction()

# text padded on the left to width characters.
function(rjust out text width)
  string(LENGTH "${text}" len)
  if(len LESS width)
    math(EXPR n "${width} - ${len}")
    string(REPEAT " " ${n} pad)
    set(text "${pad}${text}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Runs one case on one build; appends its GB/s, in thousandths, to the list
# gbps_<build>_<kernel>_<case>_<prec>.
function(measure build kernel case prec rep)
  set(out "${WORK}/${build}/${rep}/${case}")
  execute_process(
    COMMAND "${bin_${build}}/kbench-${kernel}" --backend cpu --precision ${prec} --case ${case}
      --manifest "${SOURCE}/kernels/${kernel}/kernel.json" --results-dir "${out}"
      --baseline-dir "${WORK}/baselines" --calibration "${WORK}/${rep}/calibration/cpu.json"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "measure_cpu_paths: ${build} ${kernel} ${case} ${prec} exited ${rc}: ${err}")
  endif()
  file(READ "${out}/${kernel}.cpu.${prec}.json" json)
  string(JSON gbps GET "${json}" cases 0 gbps)
  to_milli(m "${gbps}")
  set(var gbps_${build}_${kernel}_${case}_${prec})
  set(${var} ${${var}} ${m} PARENT_SCOPE)
endfunction()

# The median of a list of integers (the mean of the middle two for an even count).
function(median out values)
  list(SORT values COMPARE NATURAL)
  list(LENGTH values n)
  math(EXPR hi "${n} / 2")
  math(EXPR lo "(${n} - 1) / 2")
  list(GET values ${lo} a)
  list(GET values ${hi} b)
  math(EXPR m "(${a} + ${b}) / 2")
  set(${out} ${m} PARENT_SCOPE)
endfunction()

foreach(rep RANGE 1 ${REPEATS})
  calibrate(${rep})
  foreach(entry IN LISTS cases)
    list(GET entry 0 kernel)
    list(GET entry 1 case)
    list(GET entry 2 small)
    foreach(prec IN LISTS precs)
      foreach(build IN LISTS builds)
        measure(${build} ${kernel} ${case} ${prec} ${rep})
      endforeach()
      measure(head ${kernel} ${small} ${prec} ${rep})
    endforeach()
  endforeach()
endforeach()

median(dram_milli "${dram_all}")
from_milli(dram_text ${dram_milli})
string(TIMESTAMP now "%Y-%m-%d %H:%M UTC" UTC)
message("CPU paths at DRAM size, ${now}; DRAM ${dram_text} GB/s (calibrated copy, median); "
  "median of ${REPEATS} runs per build")
set(header "kernel     case            prec")
foreach(build IN LISTS builds)
  rjust(b "${build} GB/s" 12)
  string(APPEND header "${b}  % DRAM")
endforeach()
# The last columns: head's GB/s on the L2-resident case, as a percentage of
# the DRAM figure (what the code would reach at DRAM size if memory cost
# nothing: below 60 %, no memory tuning can reach the goal, the arithmetic
# has to get cheaper), and head's DRAM-size GB/s as a percentage of it (near
# 100 %, memory is not what limits the case: the core is).
string(APPEND header "  in-L2 GB/s  % DRAM  % of in-L2")
message("${header}")
foreach(entry IN LISTS cases)
  list(GET entry 0 kernel)
  list(GET entry 1 case)
  list(GET entry 2 small)
  foreach(prec IN LISTS precs)
    string(REPEAT " " 16 pad)
    string(SUBSTRING "${kernel}${pad}" 0 11 line)
    string(SUBSTRING "${case}${pad}" 0 16 c)
    string(APPEND line "${c}${prec}")
    foreach(build IN LISTS builds)
      median(m "${gbps_${build}_${kernel}_${case}_${prec}}")
      from_milli(g ${m})
      math(EXPR pct_milli "(${m} * 100000 + ${dram_milli} / 2) / ${dram_milli}")
      from_milli(pct ${pct_milli})
      rjust(g "${g}" 12)
      rjust(pct "${pct}" 8)
      string(APPEND line "${g}${pct}")
    endforeach()
    median(m "${gbps_head_${kernel}_${case}_${prec}}")
    median(l2 "${gbps_head_${kernel}_${small}_${prec}}")
    from_milli(g ${l2})
    math(EXPR ceiling_milli "(${l2} * 100000 + ${dram_milli} / 2) / ${dram_milli}")
    from_milli(ceiling ${ceiling_milli})
    math(EXPR pct_milli "(${m} * 100000 + ${l2} / 2) / ${l2}")
    from_milli(pct ${pct_milli})
    rjust(g "${g}" 12)
    rjust(ceiling "${ceiling}" 8)
    rjust(pct "${pct}" 12)
    string(APPEND line "${g}${ceiling}${pct}")
    message("${line}")
  endforeach()
endforeach()
