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
# backend_gpu.c is built once per GPU runtime (benchtests/CMakeLists.txt).
set(KB_SRC_backend backend/backend_cpu.c backend/holdplan.c backend/registry.c)
set(KB_SRC_formats formats/baseline.c formats/case.c formats/expr.c formats/json_read.c
  formats/json_write.c formats/manifest.c formats/variantcheck.c)
set(KB_SRC_measure measure/accuracy.c measure/probe.c measure/refcache.c measure/roofline.c
  measure/roofs.c measure/sampler.c)
set(KB_SRC_decide decide/gate.c decide/verdict.c)
set(KB_SRC_partner partner/ab.c partner/protocol.c partner/workers.c)
set(KB_SRC_run run/calibration.c run/runner.c run/speedup.c)
set(KB_SRC_output output/baseline_write.c output/report_failures.c output/report_json.c
  output/report_measurements.c output/report_table.c)
# The driver: main() and what only a kernel's executable does (its options,
# the A/B base it starts, the partner it serves as, a run under a profiler).
set(KB_SRC_driver driver/ab_start.c driver/main.c driver/options.c driver/profile.c
  driver/serve.c)

# kb_harness: every layer below the driver.
set(KB_HARNESS_SOURCES)
foreach(layer IN LISTS KB_LAYERS)
  if(NOT layer STREQUAL "driver")
    list(APPEND KB_HARNESS_SOURCES ${KB_SRC_${layer}})
  endif()
endforeach()
