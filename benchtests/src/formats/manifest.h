/* kernels/<kernel>/kernel.json: what a kernel declares about itself. The
 * format is described in docs/manifest.md. */
#ifndef KB_MANIFEST_H
#define KB_MANIFEST_H

#include "base/error.h"
#include "formats/case.h"
#include "formats/vocab.h"

#define KB_MAX_CASES    256
#define KB_MAX_BACKENDS KB_BACKEND_N /* each known backend once */

typedef struct kb_tolerance {
    int present;
    double rmse;
    double max_abs; /* -1: not given, not checked; a given bound is >= 0 */
} kb_tolerance;

/* "transcendentals": {"count": expression, "flops_each": number}: the
 * elementary-function calls (exp, erf, ...) of a case, each counted at the
 * flops its evaluation takes rather than as one (docs/manifest.md). */
typedef struct kb_transcendentals {
    char count[256]; /* "" = not stated */
    double flops_each;
} kb_transcendentals;

/* What the manifest says about one variant: its own traffic and work when
 * they differ from the kernel's, and the variant it is compared with. */
typedef struct kb_variant_spec {
    char name[64];
    char flops[256];           /* "" = the kernel's */
    char bytes[256];           /* "" = the kernel's */
    kb_transcendentals transc; /* count "" = the kernel's */
    char compare_to[64];       /* "" = none */
} kb_variant_spec;

/* "threads": the thread counts every case runs with, each a count or
 * "all" (KB_THREADS_ALL); a case is measured once per count
 * (docs/manifest.md). A case's own "threads" replaces it. */
#define KB_THREADS_ALL 0
typedef struct kb_threads_spec {
    int n;                           /* values; 0: not given (one value: 1) */
    int value[KB_MAX_THREAD_VALUES]; /* a count from 1 to KB_MAX_THREADS, or KB_THREADS_ALL */
} kb_threads_spec;

typedef struct kb_manifest {
    char path[KB_PATH_MAX];
    char name[64];
    char description[1024];
    int n_backends;
    char backends[KB_MAX_BACKENDS][16];
    unsigned precisions; /* bit (1u << kb_prec) */
    kb_tolerance tol[KB_PREC_COUNT];
    char flops[256];
    char bytes[256];
    kb_transcendentals transc;
    kb_threads_spec threads; /* the top-level "threads" */
    int n_variants;
    kb_variant_spec variants[KB_MAX_IMPLS];
    int n_cases; /* the default set first, then the "full" set */
    kb_case cases[KB_MAX_CASES];
    int n_calibration; /* cases measuring the backend's attainable bandwidth */
    const kb_case *calibration[KB_MAX_CASES];
} kb_manifest;

/* Loads and validates a manifest (the rules: docs/manifest.md): names
 * safe as file and test names, no key or list entry twice, dims whose
 * product is at most KB_CASE_MAX_ELEMENTS, counts that are finite and in
 * range for every case, declared precision and variant. Every error names
 * the file and the field, and the case where there is one. */
int kb_manifest_load(kb_manifest *m, const char *path, kb_err *err);

int kb_manifest_has_backend(const kb_manifest *m, const char *backend);
const kb_case *kb_manifest_find_case(const kb_manifest *m, const char *name);

/* The manifest's entry for a variant, or NULL when it has none. */
const kb_variant_spec *kb_manifest_variant(const kb_manifest *m, const char *variant);

/* The work and traffic of one case. `flops` is what every figure uses
 * (GFLOP/s, intensity, the roofline, the bound that picks the gate's
 * probe): the "flops" expression plus the transcendentals at their cost. */
typedef struct kb_counts {
    double flops;            /* flops_arith + transcendentals x flops_each */
    double flops_arith;      /* the "flops" expression */
    int has_transcendentals; /* the manifest states "transcendentals" */
    double transcendentals;  /* their count; 0 when not stated */
    double flops_each;       /* the flops each counts for; 0 when not stated */
    double bytes;
} kb_counts;

/* The counts of a case in a precision for a variant (NULL: the kernel's
 * expressions): bytes in (0, 2^53], each flop count in [0, 9.2e18], or an
 * error naming the field, the case and the precision. */
int kb_manifest_case_counts(const kb_manifest *m, const kb_case *c, kb_prec prec,
                            const char *variant, kb_counts *out, kb_err *err);

/* The same, for callers that need only the totals. */
int kb_manifest_counts(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *variant,
                       double *flops, double *bytes, kb_err *err);

#endif
