#include "base/buildinfo.h"

#include <stdio.h>

/* Outside a driver (kbench's tools and self-tests): no source tree, results
 * and baselines relative to the working directory, nothing known about the
 * compiler. */
static const kb_build_info neutral = {
    .kernel = "",
    .manifest = "kernel.json",
    .source_dir = "",
    .results_dir = "kbench-results",
    .baseline_dir = "baselines",
    .profile = "auto",
    .compiler = "unknown",
    .c_flags = "",
    .build_type = "",
    .docs_dir = "",
};

static const kb_build_info *current = &neutral;

void kb_build_use(const kb_build_info *info) {
    current = info ? info : &neutral;
}

const kb_build_info *kb_build_current(void) {
    return current;
}

void kb_doc_path(char *out, size_t size, const char *page) {
    const char *dir = current->docs_dir;
    if (dir && *dir)
        snprintf(out, size, "%s/%s", dir, page);
    else
        snprintf(out, size, "kbench's docs/%s", page);
}
