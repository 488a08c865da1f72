/* The driver every kernel shares: kbench-<kernel> links this main with the
 * kernel's sources. One invocation = one CTest test = one kernel on one
 * backend in one precision, over all of the manifest's cases. main() only
 * picks the mode the options name; each mode is in its own file
 * (driver.h). */
#define _GNU_SOURCE
#include "driver/driver.h"

#include <stdio.h>

int main(int argc, char **argv) {
    static kb_driver d;
    kb_err err = {{0}};
    if (kb_driver_prepare(&d, argc, argv, &err) != 0) {
        int rc = kb_driver_fail(&d, err.msg);
        kb_options_usage(stderr, argv[0]);
        return rc;
    }
    if (d.opt.help) {
        kb_options_usage(stdout, argv[0]);
        return KB_EXIT_PASS;
    }
    /* once, by the run the user started (not by the one a profiler runs) */
    if (*d.opt.warning && !d.opt.list && !d.opt.partner && !d.opt.profiled_by)
        fprintf(stderr, "kbench: warning: %s\n", d.opt.warning);
    /* Neither mode runs the kernel in this process: --list reads the
     * manifest, --profile-with runs this driver again under the profiler,
     * which sets its backend up below. */
    if (d.opt.list) return kb_driver_list(&d);
    if (d.opt.profile_with) return kb_driver_profile(&d, argc, argv);
    if (d.opt.partner) return kb_driver_serve(&d);
    char why[512] = "";
    int rc = kb_driver_set_up_backend(&d, why, sizeof why, &err);
    if (rc < 0) return kb_driver_fail(&d, err.msg);
    if (rc > 0) return kb_driver_unavailable(&d, why);
    if (d.opt.print_profile) return kb_driver_print_profile(&d);
    return kb_driver_run(&d, argv[0]);
}
