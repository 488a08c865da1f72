/* The keys of the result JSON (<results>/<test>.json), written once for the
 * driver that writes the file (output/report_json.c, guard/progress.c) and
 * kbench-report that reads it (tools/report/load.c), so that a key renamed
 * on one side cannot go unread on the other. Its format is
 * benchtests/schema/result.schema.json; kbench.unit.result_keys holds this
 * list and the schema's property names to each other (the environment,
 * the profiler's block and the probe figures keep their own names).
 * String literals, so that progress.c can splice them into the text it
 * writes from a signal handler. A key is listed once, under the object it
 * first appears in; the others that hold it say so. */
#ifndef KB_RESULT_KEYS_H
#define KB_RESULT_KEYS_H

/* The result's root. */
#define KB_KEY_TEST               "test"
#define KB_KEY_STATUS             "status"
#define KB_KEY_KERNEL             "kernel"
#define KB_KEY_BACKEND            "backend"
#define KB_KEY_PRECISION          "precision"
#define KB_KEY_PROFILE            "profile"
#define KB_KEY_MODE               "mode"
#define KB_KEY_AB_BASE            "ab_base"
#define KB_KEY_BASELINE_FILE      "baseline_file"
#define KB_KEY_OPTIMISATION       "optimisation"
#define KB_KEY_DOCS_DIR           "docs_dir"
#define KB_KEY_MANIFEST           "manifest"
#define KB_KEY_SEED               "seed"
#define KB_KEY_LATENCY_TOLERANCE  "latency_tolerance"
#define KB_KEY_ACCURACY_DRIFT     "accuracy_drift"
#define KB_KEY_ACCURACY_DRIFT_REL "accuracy_drift_rel"
#define KB_KEY_COLD_CACHE         "cold_cache"
#define KB_KEY_CASE_SET           "case_set"
#define KB_KEY_CALIBRATION        "calibration"
#define KB_KEY_CASES              "cases"
#define KB_KEY_ENVIRONMENT        "environment"
#define KB_KEY_ERROR              "error" /* also a case's */
#define KB_KEY_IN_PROGRESS        "in_progress"
#define KB_KEY_PROFILER           "profiler"

/* "optimisation": the speed-relevant flags of this build and the baseline's. */
#define KB_KEY_BUILD    "build"
#define KB_KEY_BASELINE "baseline"

/* "in_progress", while the driver runs a case (also "case", "variant"). */
#define KB_KEY_STAGE     "stage" /* also an A/B pair's */
#define KB_KEY_ELAPSED_S "elapsed_s"
#define KB_KEY_LIMIT_S   "limit_s"
#define KB_KEY_SIGNAL    "signal"
#define KB_KEY_STAGES_S  "stages_s"

/* "calibration" (also "roofline_note", "note"). */
#define KB_KEY_FILE         "file"
#define KB_KEY_PEAK_GBPS    "peak_gbps"
#define KB_KEY_MEASURED_AT  "measured_at"
#define KB_KEY_AGE_S        "age_s"
#define KB_KEY_LEVELS       "levels"
#define KB_KEY_COMPUTE      "compute"
#define KB_KEY_MATRIX       "matrix"
#define KB_KEY_PATTERNS     "patterns"
#define KB_KEY_REUSED       "reused"
#define KB_KEY_WHY_MEASURED "why_measured"
/* a level of "levels" (also "gbps"), a precision of "compute" and "matrix"
 * (also "gflops") */
#define KB_KEY_NAME           "name"
#define KB_KEY_CAPACITY_BYTES "capacity_bytes"
#define KB_KEY_HOW            "how"
/* a pattern of "patterns" (also "gbps", "how") */
#define KB_KEY_CACHED_GBPS "cached_gbps"
#define KB_KEY_NT_GBPS     "nt_gbps"

/* A case of "cases". */
#define KB_KEY_CASE                     "case"
#define KB_KEY_VARIANT                  "variant"
#define KB_KEY_DIMS                     "dims"
#define KB_KEY_PASSED                   "passed"
#define KB_KEY_THREADS                  "threads"
#define KB_KEY_CPUS                     "cpus" /* also a round's and an A/B pair's */
#define KB_KEY_SKIPPED                  "skipped"
#define KB_KEY_FLOPS                    "flops"
#define KB_KEY_FLOPS_ARITH              "flops_arith"
#define KB_KEY_TRANSCENDENTALS          "transcendentals"
#define KB_KEY_FLOPS_PER_TRANSCENDENTAL "flops_per_transcendental"
#define KB_KEY_BYTES                    "bytes"
#define KB_KEY_GBPS                     "gbps"
#define KB_KEY_GFLOPS                   "gflops"
#define KB_KEY_PCT_PEAK_BW              "pct_peak_bw"
#define KB_KEY_PCT_ROOFLINE             "pct_roofline"
#define KB_KEY_ROOFLINE                 "roofline"
#define KB_KEY_ROOFLINE_NOTE            "roofline_note"
#define KB_KEY_VENDOR_SPEEDUP           "vendor_speedup"
#define KB_KEY_COMPARISON               "comparison"
#define KB_KEY_MEDIAN_MS                "median_ms" /* also a round's */
#define KB_KEY_MIN_MS                   "min_ms"
#define KB_KEY_MAX_MS                   "max_ms"
#define KB_KEY_MEAN_MS                  "mean_ms"
#define KB_KEY_STDDEV_MS                "stddev_ms"
#define KB_KEY_MAD_MS                   "mad_ms"
#define KB_KEY_P10_MS                   "p10_ms"
#define KB_KEY_P90_MS                   "p90_ms"
#define KB_KEY_P99_MS                   "p99_ms"
#define KB_KEY_CV                       "cv"
#define KB_KEY_N_SAMPLES                "n_samples"
#define KB_KEY_TIMING                   "timing" /* also a round's */
#define KB_KEY_ACCURACY                 "accuracy"
#define KB_KEY_LATENCY                  "latency"
#define KB_KEY_DEVICE                   "device"
#define KB_KEY_ROUNDS                   "rounds"

/* A case's "comparison": the variant it is compared with. */
#define KB_KEY_WITH        "with"
#define KB_KEY_SPEEDUP     "speedup"
#define KB_KEY_BYTES_SAVED "bytes_saved"

/* A case's "roofline" (also "intensity", "bound"). */
#define KB_KEY_FOOTPRINT_BYTES   "footprint_bytes"
#define KB_KEY_LEVEL             "level"
#define KB_KEY_WRITE_FRACTION    "write_fraction"
#define KB_KEY_PATTERN           "pattern"
#define KB_KEY_ROOF_GBPS         "roof_gbps"
#define KB_KEY_COMPUTE_GFLOPS    "compute_gflops"
#define KB_KEY_COMPUTE_UNIT      "compute_unit"
#define KB_KEY_ATTAINABLE_GFLOPS "attainable_gflops"

/* A case's "accuracy". */
#define KB_KEY_RMSE        "rmse"
#define KB_KEY_MAX_ABS_ERR "max_abs_err"
#define KB_KEY_ELEMENTS    "elements"
#define KB_KEY_NONFINITE   "nonfinite"
#define KB_KEY_UNWRITTEN   "unwritten"
#define KB_KEY_FAILURES    "failures"

/* A case's "latency". */
#define KB_KEY_VERDICT              "verdict" /* also "fresh_process" and "first_stage" */
#define KB_KEY_BASELINE_MEDIAN_MS   "baseline_median_ms"
#define KB_KEY_BASELINE_RMSE        "baseline_rmse"
#define KB_KEY_BASELINE_RECORDED_AT "baseline_recorded_at"
#define KB_KEY_BASELINE_TIMING      "baseline_timing"
#define KB_KEY_RATIO                "ratio"       /* also "fresh_process", "first_stage", a pair */
#define KB_KEY_FIRST_RATIO          "first_ratio" /* also "fresh_process" */
#define KB_KEY_P_VALUE              "p_value"
#define KB_KEY_NOISE                "noise"
#define KB_KEY_MACHINE_DRIFT        "machine_drift"
#define KB_KEY_BOUND                "bound" /* also a case's "roofline" */
#define KB_KEY_DRIFT_PROBE          "drift_probe"
#define KB_KEY_TOLERANCE            "tolerance"
#define KB_KEY_RECORD_NOISE         "record_noise"
#define KB_KEY_RECORD_DRIFT         "record_drift"
#define KB_KEY_ATTEMPT_NOISE        "attempt_noise"
#define KB_KEY_KEPT_ATTEMPT         "kept_attempt"
#define KB_KEY_INTENSITY            "intensity" /* also a case's "roofline" */
#define KB_KEY_BALANCE              "balance"
#define KB_KEY_FRESH_PROCESS        "fresh_process"
#define KB_KEY_AB                   "ab"
/* "fresh_process": the slowdown measured again in a fresh process */
#define KB_KEY_FIRST_ROUND "first_round"

/* A/B mode's "latency.ab" (also "ci_lo", "ci_hi", "process_spread" and
 * "ratio" in "first_stage"). */
#define KB_KEY_BASE           "base"
#define KB_KEY_NOTE           "note" /* also "calibration" */
#define KB_KEY_BASE_RMSE      "base_rmse"
#define KB_KEY_N_PAIRS        "n_pairs"
#define KB_KEY_PROCESSES      "processes"
#define KB_KEY_PROCESS_SPREAD "process_spread"
#define KB_KEY_STAGES         "stages"
#define KB_KEY_FIRST_STAGE    "first_stage"
#define KB_KEY_ELAPSED_MS     "elapsed_ms" /* also a round's */
#define KB_KEY_CI_LO          "ci_lo"
#define KB_KEY_CI_HI          "ci_hi"
#define KB_KEY_RESOLUTION     "resolution"
#define KB_KEY_PAIRS          "pairs"
/* a pair of "pairs" (also "cpus", "stage", "ratio") */
#define KB_KEY_CPU            "cpu" /* also a round's */
#define KB_KEY_ORDER          "order"
#define KB_KEY_HEAD_PROCESS   "head_process"
#define KB_KEY_BASE_PROCESS   "base_process"
#define KB_KEY_HEAD_MS        "head_ms"
#define KB_KEY_BASE_MS        "base_ms"
#define KB_KEY_HEAD_DISTURBED "head_disturbed"
#define KB_KEY_BASE_DISTURBED "base_disturbed"

/* A case's "device" (also a round's "power_w", "energy_per_call_mj"). */
#define KB_KEY_CLOCK_LIMITS       "clock_limits"
#define KB_KEY_POWER_W            "power_w"
#define KB_KEY_ENERGY_PER_CALL_MJ "energy_per_call_mj"
#define KB_KEY_MEMORY_IN_USE_MIB  "memory_in_use_mib"

/* A round of "rounds" (also "median_ms", "elapsed_ms", "timing", "cpu",
 * "cpus", and the probe figures under their baseline names). */
#define KB_KEY_REPS                  "reps"
#define KB_KEY_STOP_RULE             "stop_rule"
#define KB_KEY_PROCESS               "process"
#define KB_KEY_CLOCK_LIMITED_DROPPED "clock_limited_dropped"
#define KB_KEY_CLOCK_LIMITED_KEPT    "clock_limited_kept"
#define KB_KEY_DISTURBED_DROPPED     "disturbed_dropped"
#define KB_KEY_DISTURBED_KEPT        "disturbed_kept"
#define KB_KEY_SAMPLES_MS            "samples_ms"

#endif
