#include "buildinfo.h"

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
};

static const kb_build_info *current = &neutral;

void kb_build_use(const kb_build_info *info) {
    current = info ? info : &neutral;
}

const kb_build_info *kb_build_current(void) {
    return current;
}
