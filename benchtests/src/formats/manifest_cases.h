/* The part of the manifest's reader that expands its cases, shared by
 * manifest.c and manifest_cases.c only. */
#ifndef KB_MANIFEST_CASES_H
#define KB_MANIFEST_CASES_H

#include "formats/manifest.h"

#include <cjson/cJSON.h>

/* The kernel's "threads", then its cases: "cases" and/or "sweep", and the
 * "full" set's, each once per thread count. Needs m->path; fills
 * m->threads, m->cases and m->n_cases. */
int kb_manifest_load_cases(kb_manifest *m, const cJSON *root, kb_err *err);

#endif
