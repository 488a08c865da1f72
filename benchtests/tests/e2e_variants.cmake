# End-to-end test of variant comparisons, case sets and the bandwidth
# calibration on the test kernel benchtests/tests/pair (cmake -P; inputs
# DRIVER, MANIFEST, WORK):
#   1. two variants, one compared with the other  -> speedup and 50 % fewer bytes
#      reported; no calibration yet                -> %peak not reported, says why;
#      but a missing file named by --calibration   -> exit 2 naming it
#   2. --calibrate                                 -> the calibration cases only, file written
#                                                     with the roofs (levels, compute, sweep)
#   3. a run after it                              -> % of peak bandwidth and % of roofline
#                                                     reported, with the bound
#   4. a calibration from other hardware           -> not used, says why
#   5. a malformed calibration                     -> exit 2 naming the file and field
#      one written before the roofline (no levels) -> %peak still, %roof not reported, says why
#   6. --set full                                  -> the full cases only, as <test>.full

foreach(var DRIVER MANIFEST WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "e2e_variants.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
# the default calibration file of --results-dir
set(calibration "${WORK}/results/calibration/cpu.json")
set(common --manifest "${MANIFEST}" --profile e2e --baseline-dir "${WORK}/baselines"
  --results-dir "${WORK}/results" --warmup 0 --min-time 0 --max-time 0.05)
set(result "${WORK}/results/pair.cpu.fp32.json")

include("${CMAKE_CURRENT_LIST_DIR}/e2e_steps.cmake")

run_driver("variants" 0)
expect_text("variants" "small onepass vs twopass: speedup x")
expect_text("variants" "memory traffic 50.0% lower")
expect_text("variants" "%peak: not reported: no calibration at ${calibration}")
expect_text("variants" "%roof: not reported")
expect_json("variants" "${result}" "" cases 0 pct_roofline) # null
expect_json("variants" "${result}" "" cases 0 vendor_speedup) # null: no vendor variant
expect_text("variants" "name=\"small.onepass.has_roof\">0<")
expect_text("variants" "type=\"text/string\" name=\"small.onepass.bound\">none<")
expect_text("variants" "name=\"large.onepass.speedup\"")
expect_json("variants" "${result}" "onepass" cases 1 variant)
expect_json("variants" "${result}" "twopass" cases 1 comparison with)
expect_json("variants" "${result}" "0.5" cases 1 comparison bytes_saved)
expect_positive("variants" "${result}" cases 1 comparison speedup)
expect_json("variants" "${result}" "" cases 0 pct_peak_bw) # null
expect_json("variants" "${result}" "default" case_set)

run_driver("missing --calibration" 2 --calibration "${WORK}/nosuch.json")
expect_text("missing --calibration" "--calibration: ${WORK}/nosuch.json: No such file")

run_driver("calibrate" 0 --calibrate)
expect_text("calibrate" "GB/s peak written to ${calibration}")
set(cal_result "${WORK}/results/kbench.calibrate.cpu.json")
expect_json("calibrate" "${cal_result}" "calibration" case_set)
expect_json("calibrate" "${cal_result}" "large" cases 0 case)
expect_json("calibrate" "${cal_result}" "large" cases 1 case)
json_get(n_cases "calibrate" "${cal_result}" cases)
string(JSON n_cases LENGTH "${n_cases}")
if(NOT n_cases EQUAL 2)
  message(FATAL_ERROR "calibrate: ${cal_result} holds ${n_cases} cases, expected 2 (large x 2)")
endif()
expect_json("calibrate" "${calibration}" "cpu" backend)
expect_positive("calibrate" "${calibration}" peak_gbps)
json_get(levels "calibrate" "${calibration}" levels)
string(JSON n_levels LENGTH "${levels}")
math(EXPR last "${n_levels} - 1")
expect_json("calibrate" "${calibration}" "0" levels ${last} capacity_bytes) # memory, last
expect_positive("calibrate" "${calibration}" levels 0 gbps)
expect_positive("calibrate" "${calibration}" compute fp32 gflops)
expect_positive("calibrate" "${calibration}" sweep 0 gbps)
# peak_gbps is the memory level's figure
json_get(peak "calibrate" "${calibration}" peak_gbps)
expect_json("calibrate" "${calibration}" "${peak}" levels ${last} gbps)

run_driver("calibrated" 0)
expect_text("calibrated" "%peak: of ")
expect_text("calibrated" "name=\"small.onepass.pct_peak_bw\"")
expect_positive("calibrated" "${result}" calibration peak_gbps)
expect_positive("calibrated" "${result}" cases 0 pct_peak_bw)
expect_text("calibrated" "%roof: of the attainable rate")
expect_text("calibrated" "name=\"small.onepass.has_roof\">1<")
expect_positive("calibrated" "${result}" cases 0 pct_roofline)
expect_positive("calibrated" "${result}" cases 0 roofline footprint_bytes)
expect_positive("calibrated" "${result}" cases 0 roofline roof_gbps)
expect_positive("calibrated" "${result}" calibration levels 0 gbps)
expect_positive("calibrated" "${result}" calibration compute fp32 gflops)
# The bound CDash gets is the result's, for the same case and variant
# (onepass and twopass may differ: their intensities differ by 2x, and where
# the compute roof falls between their two rates, a slow machine or an
# instrumented build puts one under compute and the other under L1).
expect_json("calibrated" "${result}" "onepass" cases 1 variant)
json_get(bound "calibrated" "${result}" cases 1 roofline bound)
expect_text("calibrated" "name=\"small.onepass.bound\">${bound}<")

file(READ "${calibration}" good)
string(JSON other SET "${good}" hardware_id "\"some other machine\"")
file(WRITE "${calibration}" "${other}")
run_driver("other hardware" 0 --case small)
expect_text("other hardware" "was measured on other hardware (some other machine)")

string(JSON broken SET "${good}" peak_gbps "\"fast\"")
file(WRITE "${calibration}" "${broken}")
run_driver("malformed calibration" 2 --case small)
expect_text("malformed calibration" "${calibration}: field 'peak_gbps': expected a number")

string(JSON broken SET "${good}" levels 0 gbps "-1")
file(WRITE "${calibration}" "${broken}")
run_driver("malformed levels" 2 --case small)
expect_text("malformed levels" "${calibration}: field 'levels[0].gbps': expected a positive number")

string(JSON old REMOVE "${good}" levels)
file(WRITE "${calibration}" "${old}")
run_driver("no levels" 0 --case small)
expect_text("no levels" "%peak: of ")
expect_text("no levels" "%roof: not reported: no roofline: ${calibration} has no 'levels'")
expect_json("no levels" "${result}" "" cases 0 pct_roofline) # null

file(WRITE "${calibration}" "${good}")
run_driver("full set" 0 --set full)
set(full_result "${WORK}/results/pair.cpu.fp32.full.json")
expect_json("full set" "${full_result}" "full" case_set)
expect_json("full set" "${full_result}" "huge" cases 0 case)
run_driver("bad set" 2 --set most)
expect_text("bad set" "--set: 'most' is not 'default' or 'full'")
message("e2e variants: all steps behaved as expected")
