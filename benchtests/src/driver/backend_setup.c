/* Setting the backend up, the one way for every mode that runs the kernel
 * in this process (a run, calibration, --print-profile, the A/B partner):
 * a backend has no device, stream or events before this, so a mode that
 * went another way would time on a device CTest did not assign, or on
 * none. */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "base/buildinfo.h"
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>

/* Under KBENCH_GPU_PARALLEL, ctest sets KBENCH_REQUIRE_RESOURCE_SPEC=1 for
 * GPU tests, which then run side by side: without a resource spec they
 * would share device 0 and time each other. */
static int needs_resource_spec(void) {
    const char *required = getenv("KBENCH_REQUIRE_RESOURCE_SPEC");
    return required && strcmp(required, "1") == 0 && !getenv("CTEST_RESOURCE_GROUP_COUNT");
}

/* The device CTest's resource spec assigns, its stream, events, hold and
 * monitor (backend->available), then plain timing under a profiler. */
int kb_driver_set_up_backend(kb_driver *d, char *why, size_t size, kb_err *err) {
    if (needs_resource_spec()) {
        char doc[KB_PATH_MAX];
        kb_doc_path(doc, sizeof doc, "resource-spec.md");
        return kb_fail(err,
                       "this build runs GPU tests side by side (KBENCH_GPU_PARALLEL=ON), so "
                       "each needs a GPU of its own: run ctest with --resource-spec-file (%s)",
                       doc);
    }
    if (d->ctx.backend->available(why, size) != 0) return 1;
    if (d->opt.profiled_by && d->ctx.backend->profiled) d->ctx.backend->profiled();
    return 0;
}
