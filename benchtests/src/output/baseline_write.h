/* Recording a run into its baseline file (baseline_write.c). */
#ifndef KB_BASELINE_WRITE_H
#define KB_BASELINE_WRITE_H

#include "run/runner.h"

#include <cjson/cJSON.h>

/* Merges an entry for every case of res that ran and passed into the
 * baseline file at path (kb_baseline_merge: locked, validated, replaced
 * atomically), each with a copy of env and the time of recording. Returns
 * how many were recorded (0: the file is left as it is), or -1. */
int kb_baseline_record(const char *path, const kb_run_ctx *ctx, const char *profile,
                       const kb_case_result *res, int n, const cJSON *env, kb_err *err);

#endif
