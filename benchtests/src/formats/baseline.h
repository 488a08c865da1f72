/* baselines/<profile>/<kernel>.json: one entry per backend x precision x
 * variant x case (x thread count), keyed "<backend>.<precision>.<variant>.<case>"
 * (kb_baseline_key). The format is described in docs/baselines.md. */
#ifndef KB_BASELINE_H
#define KB_BASELINE_H

#include "base/error.h"
#include "machine/model.h"
#include "machine/timing_mode.h"

#include <cjson/cJSON.h>
#include <stddef.h>

#define KB_BASELINE_FORMAT "kbench-baseline-1"
/* Longest entry key accepted (backend.precision.variant.case). */
#define KB_BASELINE_KEY_MAX 400

typedef struct kb_baseline_entry {
    double median_ms, min_ms;
    double *samples_ms; /* owned; may be NULL */
    int n_samples;
    double *round_medians_ms; /* owned; the medians of every recorded round; may be NULL */
    int n_rounds;
    double rmse;
    kb_probe_reading probe; /* the machine probe at recording; 0 where absent */
    kb_bound bound;         /* what bounds the case (UNKNOWN in older baselines) */
    double intensity;       /* recorded with the bound: flops per byte; 0 where absent */
    double balance;         /* and the machine's balance then; 0 where absent */
    kb_timing timing;       /* how the recorded rounds were timed (UNKNOWN in older baselines) */
    char hardware_id[512];
    char recorded_at[40];
    /* kb_build_opt of the recording build's C flags ("" in older baselines) */
    char build_opt[256];
} kb_baseline_entry;

typedef struct kb_baseline {
    char path[KB_PATH_MAX];
    cJSON *root; /* NULL when the file does not exist */
} kb_baseline;

/* Opens and validates a baseline file. A missing file is not an error (root
 * stays NULL); a malformed one is, with the file and field named. */
int kb_baseline_open(kb_baseline *b, const char *path, kb_err *err);

/* The same, for the baseline of `kernel` on `profile`: a file whose
 * "kernel" or "profile" field names another is an error naming both. NULL
 * for either accepts any valid name. The driver opens its baseline this way. */
int kb_baseline_open_for(kb_baseline *b, const char *path, const char *kernel, const char *profile,
                         kb_err *err);

/* Every check kb_baseline_open_for makes, on a parsed file (kbench-baseline
 * checks what it writes with it too). */
int kb_baseline_validate(const cJSON *root, const char *path, const char *kernel,
                         const char *profile, kb_err *err);
void kb_baseline_close(kb_baseline *b);

/* Copies the entry for key into e; returns 1 when found, 0 when absent. */
int kb_baseline_get(const kb_baseline *b, const char *key, kb_baseline_entry *e);
void kb_baseline_entry_free(kb_baseline_entry *e);

/* Adds the figures of a probe reading that were measured to o, under their
 * names in a baseline entry (the result JSON's rounds use the same names). */
void kb_baseline_add_probe(cJSON *o, const kb_probe_reading *p);

/* "<backend>.<precision>.<variant>.<case>" for a case run single-threaded;
 * a case run with more threads (the manifest's "threads") has its count
 * after the variant, "<backend>.<precision>.<variant>+t<threads>.<case>"
 * (after "+cold" where the variant has it), so that a baseline recorded
 * with one thread count is never compared with a run of another. */
void kb_baseline_key(char *out, size_t size, const char *backend, const char *precision,
                     const char *variant, const char *case_name, int threads);

/* Merges entries (an object of key -> entry, taken over and freed) into the
 * file at path under an exclusive lock of its directory: entries with other
 * keys are kept, the file is validated before it is touched and replaced
 * atomically, so a failure leaves the previous file as it was. */
int kb_baseline_merge(const char *path, const char *kernel, const char *profile, cJSON *entries,
                      kb_err *err);

#endif
