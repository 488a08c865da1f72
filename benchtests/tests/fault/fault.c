/* A kernel for the harness's own tests of the watchdog (kbench.e2e.watchdog):
 * y = x, except in the case and at the point KB_TEST_FAULT=<case>:<fault>
 * names, where it hangs or crashes:
 *   hang-reference  the reference never returns           (stage reference)
 *   hang-check      the first call never returns          (stage check)
 *   hang-measure    the fourth call and later never return (stage measurement
 *                   when run with --warmup 0: call 1 is the checked run,
 *                   calls 2 and 3 the warm-up)
 *   segv-check      the first call writes to memory it may not (SIGSEGV)
 *   abort-measure   the fourth call aborts (SIGABRT)
 *   huge-layout     the layout declares an input of 2^60 elements, which
 *                   the harness must refuse before allocating anything
 * A hang sleeps, so that it costs no CPU while the watchdog waits. */
#define _GNU_SOURCE
#include "kb/kernel.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The fault KB_TEST_FAULT sets for case c, or "" */
static const char *fault_of(const kb_case *c) {
    const char *spec = getenv("KB_TEST_FAULT");
    const char *name = kb_case_name(c);
    size_t n = strlen(name);
    if (!spec || strncmp(spec, name, n) != 0 || spec[n] != ':') return "";
    return spec + n + 1;
}

static void hang(void) {
    for (;;) sleep(1);
}

static void fault_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    if (strcmp(fault_of(c), "huge-layout") == 0) n = (size_t)1 << 60;
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "y", n);
}

static void fault_reference(const kb_case *c, const double *const *in, double *const *out) {
    if (strcmp(fault_of(c), "hang-reference") == 0) hang();
    memcpy(out[0], in[0], (size_t)kb_case_dim(c, "n") * sizeof(double));
}

/* Calls of the current case so far, this one included. */
static long call_number(const kb_case *c) {
    static const kb_case *current;
    static long calls;
    if (c != current) current = c, calls = 0;
    return ++calls;
}

/* Writes into a page mapped without access: a real SIGSEGV, and no
 * undefined behaviour a sanitizer would stop first. */
static void segfault(void) {
    volatile int *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) *page = 1;
    raise(SIGSEGV); /* not reached */
}

static int fault_cpu(const kb_args *a) {
    const char *fault = fault_of(a->c);
    long call = call_number(a->c);
    if ((strcmp(fault, "hang-check") == 0 && call == 1) ||
        (strcmp(fault, "hang-measure") == 0 && call >= 4))
        hang();
    if (strcmp(fault, "segv-check") == 0 && call == 1) segfault();
    if (strcmp(fault, "abort-measure") == 0 && call >= 4) abort();
    memcpy(a->out[0], a->in[0], (size_t)kb_case_dim(a->c, "n") * kb_prec_size(a->prec));
    return 0;
}

static const kb_kernel fault_kernel = {
    .layout = fault_layout,
    .impls = {{"cpu", "default", fault_cpu}},
};

KB_REGISTER_KERNEL(fault_kernel)
KB_REGISTER_REFERENCE(fault_reference)
