/* A kernel for checking the A/B gate's detection (kbench.e2e.slow on the
 * CPU, gpu_check.sh's step ab on a GPU): y = x after w dependent
 * multiply-adds per element by one and zero, which the compiler cannot fold
 * (volatile globals here, kernel arguments on the GPU), so the work is done
 * and the result stays exact: it is checked against the double reference
 * at tolerance 0.
 *
 * KB_TEST_SLOW=<pct>@<dir> makes the driver whose own executable
 * (/proc/self/exe) lies in directory <dir> do pct % more real work per call:
 * round(w (1 + pct/100)) multiply-adds per element where the case's dim
 * grow is 1, round(n (1 + pct/100)) elements where it is 2 (the memory-bound
 * cases: the tensors grow to match, the extra elements are checked too,
 * and the call moves pct % more bytes). A copy of the driver put in
 * <dir> is then a head slower by a known amount of work, while the base
 * build's driver of the same name, which the head starts with the same
 * environment, is not. pct is a decimal number from 0 to 1000 and <dir> an
 * existing directory; a malformed value makes every case an error, never a
 * run without the slowdown it asked for. Empty is unset, as for KBENCH_*.
 * KB_TEST_SLOW_PROCESS=lead limits it to the driver's lead process, not
 * the processes it starts with --partner: a slowdown that belongs to one
 * process (its placement), not to the code, as the gate's confirmation in
 * a fresh process must tell apart.
 *
 * Cases: the default set is sized for a CPU, "full" for a datacenter GPU:
 * gpu_tiny (32K elements: a launch-bound call, whose time grows by less
 * than pct % because the launch does not), gpu_compute (a few hundred
 * microseconds of multiply-adds) and gpu_memory (64 MiB in, 64 MiB out). */
#define _GNU_SOURCE
#include "slow.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOW_MAX_PCT 1000.0
#define SLOW_MAX_N   ((int64_t)1 << 36)
#define SLOW_MAX_W   ((int64_t)1 << 24) /* x 11 at most: still an int */
#define SLOW_PATH    4096

enum { SLOW_GROW_W = 1, SLOW_GROW_N = 2 };

/* KB_TEST_SLOW as this process reads it, once (it does not change while the
 * driver runs, and the timed calls must not pay for parsing it). */
static struct {
    int read;
    double pct;     /* this driver's extra work, in % */
    char why[8192]; /* "" or why the value is malformed */
} slow_env;

/* Whether this process was started with --partner (its command line's
 * arguments, NUL-separated in /proc/self/cmdline). */
static int slow_is_partner(void) {
    char line[8192];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f) fclose(f);
    for (size_t i = 0; i < n; i += strlen(line + i) + 1) {
        line[n] = '\0';
        if (strcmp(line + i, "--partner") == 0) return 1;
    }
    return 0;
}

static void slow_read_env(void) {
    slow_env.read = 1;
    const char *v = getenv("KB_TEST_SLOW");
    if (!v || !*v) return;
    const char *at = strchr(v, '@'), *p = v;
    if (!at) {
        snprintf(slow_env.why, sizeof slow_env.why, "no '@'");
        return;
    }
    /* digits, optionally a point and more digits: no sign, exponent, blank */
    while (p < at && *p >= '0' && *p <= '9') ++p;
    if (p > v && p < at && *p == '.' && p + 1 < at)
        for (++p; p < at && *p >= '0' && *p <= '9';) ++p;
    const double pct = strtod(v, NULL);
    if (p == v || p != at || !(pct <= SLOW_MAX_PCT)) {
        snprintf(slow_env.why, sizeof slow_env.why,
                 "'%.*s' is not a percentage from 0 to %g (digits, optionally a decimal point)",
                 (int)(at - v), v, SLOW_MAX_PCT);
        return;
    }
    const char *dir = at + 1;
    char want[SLOW_PATH], self[SLOW_PATH];
    struct stat st;
    if (!*dir) {
        snprintf(slow_env.why, sizeof slow_env.why, "no directory after '@'");
        return;
    }
    errno = 0;
    if (strlen(dir) >= sizeof want || !realpath(dir, want)) {
        snprintf(slow_env.why, sizeof slow_env.why, "directory '%s': %s", dir,
                 errno ? strerror(errno) : "too long");
        return;
    }
    if (stat(want, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(slow_env.why, sizeof slow_env.why, "'%s' is not a directory", dir);
        return;
    }
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(slow_env.why, sizeof slow_env.why, "this driver's path is unknown: %s",
                 n < 0 ? strerror(errno) : "empty /proc/self/exe");
        return;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) slash[slash == self ? 1 : 0] = '\0';
    if (strcmp(self, want) == 0) slow_env.pct = pct;
    const char *only = getenv("KB_TEST_SLOW_PROCESS");
    if (only && *only && strcmp(only, "lead") != 0) {
        snprintf(slow_env.why, sizeof slow_env.why, "KB_TEST_SLOW_PROCESS='%s' is not 'lead'",
                 only);
        return;
    }
    if (only && *only && slow_is_partner()) slow_env.pct = 0.0;
}

/* The extra work in %: 0 while KB_TEST_SLOW is malformed (the layout and
 * the reference cannot fail; the implementation then reports the error). */
static double slow_pct(void) {
    if (!slow_env.read) slow_read_env();
    return slow_env.why[0] ? 0.0 : slow_env.pct;
}

static int64_t slow_scaled(int64_t v, double pct) {
    return (int64_t)llround((double)v * (1.0 + pct / 100.0));
}

/* Whether the case's dims are in range (the manifest reader has checked
 * that they are positive). */
static int slow_dims_ok(int64_t n, int64_t w, int64_t grow) {
    return n <= SLOW_MAX_N && w <= SLOW_MAX_W && (grow == SLOW_GROW_W || grow == SLOW_GROW_N);
}

/* Case c with pct % more work, in w or in n as its dim grow says. Dims out
 * of range become harmless ones here; slow_work_of() refuses them. */
static slow_work slow_plan(const kb_case *c, double pct) {
    int64_t n = kb_case_dim(c, "n"), w = kb_case_dim(c, "w"), grow = kb_case_dim(c, "grow");
    if (!slow_dims_ok(n, w, grow)) n = 1, w = 1, grow = SLOW_GROW_W;
    if (grow == SLOW_GROW_W)
        w = slow_scaled(w, pct);
    else
        n = slow_scaled(n, pct);
    return (slow_work){(size_t)n, (int)w};
}

int slow_work_of(const kb_case *c, slow_work *out) {
    const double pct = slow_pct();
    if (slow_env.why[0]) {
        fprintf(stderr,
                "slow: KB_TEST_SLOW='%s': %s; expected <pct>@<dir>, e.g. 15@/path/to/head (the "
                "driver in <dir> does pct %% more work)\n",
                getenv("KB_TEST_SLOW"), slow_env.why);
        return 1;
    }
    const int64_t n = kb_case_dim(c, "n"), w = kb_case_dim(c, "w"), grow = kb_case_dim(c, "grow");
    if (!slow_dims_ok(n, w, grow)) {
        fprintf(stderr,
                "slow: case '%s': n = %lld, w = %lld, grow = %lld: n must be at most 2^36, w at "
                "most 2^24, grow 1 (more multiply-adds) or 2 (more elements)\n",
                kb_case_name(c), (long long)n, (long long)w, (long long)grow);
        return 1;
    }
    *out = slow_plan(c, pct);
    return 0;
}

static void slow_layout(const kb_case *c, kb_layout *l) {
    const slow_work k = slow_plan(c, slow_pct());
    kb_layout_input(l, "x", k.n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "y", k.n);
}

static void slow_reference(const kb_case *c, const double *const *in, double *const *out) {
    memcpy(out[0], in[0], slow_plan(c, slow_pct()).n * sizeof(double));
}

static volatile float slow_one = 1.0f, slow_zero = 0.0f;

/* Not inlined: compiled once, the same for every case. Kept a loop: GCC
 * and Clang may turn a copy loop into a call to memcpy, whose path for large
 * sizes (non-temporal stores) depends on the size, so a head copying more
 * elements than its base could take another path. */
#if defined(__clang__)
#define SLOW_PLAIN_LOOP __attribute__((noinline, no_builtin("memcpy")))
#elif defined(__GNUC__)
#define SLOW_PLAIN_LOOP __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))
#else
#define SLOW_PLAIN_LOOP
#endif

SLOW_PLAIN_LOOP static void slow_loop(const float *x, float *y, size_t n, int w) {
    const float one = slow_one, zero = slow_zero;
    for (size_t i = 0; i < n; ++i) {
        float t = x[i];
        for (int k = 0; k < w; ++k) t = t * one + zero;
        y[i] = t;
    }
}

static int slow_cpu(const kb_args *a) {
    slow_work k;
    if (a->prec != KB_FP32) return kb_unsupported("the slow test kernel runs fp32 only");
    if (slow_work_of(a->c, &k) != 0) return 1;
    slow_loop(a->in[0], a->out[0], k.n, k.w);
    return 0;
}

static const kb_kernel slow_kernel = {
    .layout = slow_layout,
    .impls = {{"cpu", "default", slow_cpu}},
};

KB_REGISTER_KERNEL(slow_kernel)
KB_REGISTER_REFERENCE(slow_reference)
