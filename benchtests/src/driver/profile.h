/* --profile-with (docs/profiling.md): the driver re-runs the one case and
 * variant its options select under a profiler (nsys, ncu or perf), as a
 * child of the same driver binary with the same options (--profile-with
 * replaced by --profiled-by: not gated, nothing recorded), and writes the
 * tool's output beside the result JSON:
 *   <results dir>/<test>.<case>.<variant>.nsys-rep | .ncu-rep | .perf.data
 * The command is printed, and recorded in the child's result JSON as
 * "profile": {"tool", "command", "output", "exit_status"}. */
#ifndef KB_PROFILE_H
#define KB_PROFILE_H

#include "driver/options.h"
#include "formats/manifest.h"
#include "kb/kernel.h"

typedef struct kb_profile_job {
    const kb_options *opt;
    const kb_manifest *manifest;
    const char *test_name;
    const kb_impl *const *impls; /* the variants the options select */
    int n_impls;
    /* whether the options select case c (the driver's own rule) */
    int (*selected)(const void *ctx, const kb_case *c);
    const void *ctx;
    int argc;
    char **argv;
} kb_profile_job;

/* Runs the job; returns the status the driver exits with: the child's (0
 * passed, 1 a check failed, 77 skipped), or 2 for an error it prints (the
 * tool not on PATH, a tool for another backend, not exactly one case
 * selected, no output written). */
int kb_profile_run(const kb_profile_job *job);

#endif
