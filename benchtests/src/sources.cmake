# The harness's sources by layer, lowest first. A file includes the headers
# of its own layer and of the layers below it, never above
# (kbench.unit.layers checks every #include; docs/architecture.md says what
# each layer is for). Paths are relative to this folder.
set(KB_LAYERS base machine guard backend formats measure decide partner run output driver)

set(KB_SRC_base base/affinity.c base/atomicfile.c base/buildinfo.c base/buildopt.c base/clock.c
  base/error.c base/pathname.c base/prec.c base/rng.c base/stats.c base/utf8.c)
set(KB_SRC_machine machine/devmon.c machine/devmon_nvml.c machine/devmon_rsmi.c
  machine/devmon_vendor.c machine/disturb.c machine/envinfo.c machine/fmapeak.c machine/hwinfo.c
  machine/model.c machine/probe_core.c machine/timing_mode.c)
set(KB_SRC_guard guard/progress.c guard/stage.c guard/watchdog.c)
set(KB_SRC_backend backend/backend_cpu.c backend/cpu_patterns.c backend/holdplan.c
  backend/registry.c)
# The GPU backend: not in kb_harness, but built once per GPU runtime into
# kb_backend_<runtime> (benchtests/CMakeLists.txt).
set(KB_SRC_backend_gpu backend/backend_gpu.c backend/backend_gpu_info.c
  backend/backend_gpu_memory.c)
set(KB_SRC_formats formats/baseline.c formats/case.c formats/expr.c formats/json_read.c
  formats/json_write.c formats/manifest.c formats/manifest_cases.c formats/manifest_counts.c
  formats/variantcheck.c formats/vocab.c)
set(KB_SRC_measure measure/calibration_file.c measure/calibration_reuse.c
  measure/probe.c measure/refcache.c measure/roofline.c measure/roofs.c measure/sampler.c)
set(KB_SRC_decide decide/gate.c decide/verdict.c)
set(KB_SRC_partner partner/ab.c partner/protocol_head.c partner/protocol_serve.c
  partner/protocol_wire.c partner/workers.c)
set(KB_SRC_run run/calibration.c run/case_ab.c run/case_buffers.c run/case_result.c
  run/case_rounds.c run/case_session.c run/case_timing.c run/runner.c run/speedup.c)
set(KB_SRC_output output/baseline_write.c output/report_failures.c output/report_json.c
  output/report_measurements.c output/report_table.c)
# The driver: main() and what only a kernel's executable does (its options,
# the A/B base it starts, the partner it serves as, a run under a profiler).
set(KB_SRC_driver driver/ab_start.c driver/backend_setup.c driver/calibrate.c
  driver/invocation.c driver/main.c driver/modes.c driver/option_values.c driver/options.c
  driver/options_env.c driver/profile.c driver/result_file.c driver/run.c driver/run_setup.c
  driver/serve.c)

# kb_harness: every layer below the driver.
set(KB_HARNESS_SOURCES)
foreach(layer IN LISTS KB_LAYERS)
  if(NOT layer STREQUAL "driver")
    list(APPEND KB_HARNESS_SOURCES ${KB_SRC_${layer}})
  endif()
endforeach()
