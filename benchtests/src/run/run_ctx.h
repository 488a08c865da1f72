/* What every case of a run shares: the settings, the kernel and its
 * reference, the backend, the baseline and the other processes the run
 * keeps. The driver builds one per run; every part of the runner reads it
 * and none changes it. */
#ifndef KB_RUN_CTX_H
#define KB_RUN_CTX_H

#include "backend/backend.h"
#include "decide/run_settings.h"
#include "formats/baseline.h"
#include "formats/manifest.h"
#include "partner/ab.h"

typedef struct kb_run_ctx {
    const kb_run_settings *settings; /* from the command line (run_settings.h) */
    const kb_manifest *manifest;
    const kb_kernel *kernel;
    const char *kernel_name;   /* the manifest's "name" */
    kb_reference_fn reference; /* the kernel folder's reference.c */
    const kb_backend *backend;
    kb_prec prec;
    const kb_baseline *baseline;
    const char *hardware_id;
    kb_ab_setup *ab;       /* A/B mode: the base to compare with; NULL: the baseline */
    kb_workers *recorders; /* recording: this build's other processes (workers.h); NULL: none */
    /* gating: a process of this build, started when first needed, that
     * measures a slowdown again before it fails; NULL: none */
    kb_workers *confirmer;
    const char *worker_exe;      /* the driver the confirmer runs */
    kb_worker_run confirmer_run; /* and what it measures */
    const char *case_set;        /* the cases measured: "default", "full" or "calibration" */
    struct kb_ref_cache *refs;   /* a case's reference, shared by its variants; NULL: none */
} kb_run_ctx;

#endif
