/* What a test prints and writes: the table (report_table.c), a block per
 * failing case (report_failures.c), the CTest measurement block, last as
 * CTest requires (report_measurements.c), and the result JSON
 * (report_json.c). */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include "run/calibration.h"
#include "run/runner.h"

#include <cjson/cJSON.h>
#include <stdio.h>

typedef struct kb_report {
    const char *test_name;
    const kb_run_ctx *ctx;
    const char *profile;
    const char *baseline_path;
    const char *baseline_note; /* e.g. "no baseline file" */
    const kb_calibration *cal; /* the backend's attainable bandwidth, for % of peak */
    kb_case_result *results;
    int n_results;
} kb_report;

void kb_report_table(FILE *f, const kb_report *rep);
/* The roofs, a line per memory level and per precision's compute figure,
 * then the notes on figures not measured. */
void kb_report_roofs(FILE *f, const kb_roofs *roofs);
/* Prints one readable block per failing case; returns how many failed. */
int kb_report_failures(FILE *f, const kb_report *rep);
void kb_report_measurements(FILE *f, const kb_report *rep);

/* A measurement is named `<prefix>.<figure>`, at most KB_MEASUREMENT_NAME_MAX
 * characters (CDash 2.6's limit): figures have at most
 * KB_MEASUREMENT_FIGURE_MAX, and the prefix, `<case>.<variant>`, is
 * shortened to fit (docs/cdash-measurements.md, "Measurement names"). */
#define KB_MEASUREMENT_NAME_MAX    40
#define KB_MEASUREMENT_FIGURE_MAX  11
#define KB_MEASUREMENT_VARIANT_MAX 12
void kb_measurement_prefix(const char *case_name, const char *variant, char *out, size_t size);

/* The full result as JSON (takes over env). */
cJSON *kb_report_json(const kb_report *rep, const char *status, cJSON *env);

/* One case's entry in the result's "cases" (ab: measured in A/B mode). */
cJSON *kb_report_case_json(const kb_case_result *r, int ab);

#endif
