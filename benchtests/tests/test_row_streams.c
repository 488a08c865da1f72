/* The row kernels' two ways out, bit for bit: layernorm's and softmax's CPU
 * paths write an output larger than half the last cache past the caches (their
 * last pass's non-temporal stores; kb_cpu_streams_rows), and through the
 * caches otherwise. The suite's cases stream only at DRAM size, where only
 * the accuracy bounds watch them; here a last cache of one byte makes small
 * rows stream, and each precision's streamed output must equal the cached
 * one at every row length tried (whole vectors, tails, rows that do not
 * fill whole cache lines and so are never streamed), with the bytes around
 * the output untouched. Built with the kernels' flags, as the kernels are.
 * The kernels' sources are included so that their static paths can be
 * called directly; their registration is kept out of this program. */
#include "kb/kernel.h"

#undef KB_REGISTER_KERNEL
#define KB_REGISTER_KERNEL(def)                                                                    \
    static const kb_kernel *const kb__test_##def KB__TEST_UNUSED = &(def);
#define KB__TEST_UNUSED __attribute__((unused))

#include "layernorm/layernorm.c"
#include "softmax/softmax.c"

#include "kb_test.h"

#include <stdlib.h>
#include <string.h>

enum { ROWS = 5, GUARD = 64 };

typedef int (*row_path)(const kb_args *, const void *);

/* A 64-byte aligned block of `bytes` with GUARD bytes of 0x5a either side. */
static char *guarded(size_t bytes) {
    const size_t size = (bytes + 2 * GUARD + 63) / 64 * 64;
    char *p = aligned_alloc(64, size);
    if (!p) abort();
    memset(p, 0x5a, size);
    return p + GUARD;
}

static int guards_intact(const char *p, size_t bytes) {
    for (size_t i = 0; i < GUARD; i++)
        if ((unsigned char)p[-1 - (ptrdiff_t)i] != 0x5a || (unsigned char)p[bytes + i] != 0x5a)
            return 0;
    return 1;
}

/* Runs `path` over ROWS rows of n into a fresh output; returns the output. */
static char *run(row_path path, kb_prec p, const void *x, const void *g, const void *b, size_t n,
                 int stream) {
    const size_t bytes = ROWS * n * kb_prec_size(p);
    char *y = guarded(bytes);
    void *ws = aligned_alloc(64, (4 * n * sizeof(float) + 63) / 64 * 64);
    if (!ws) abort();
    kb_args a = {.prec = p, .workspace = ws, .last_cache_bytes = stream ? 1 : 0};
    a.in[0] = x;
    a.in[1] = g;
    a.in[2] = b;
    a.out[0] = y;
    /* layernorm_shape and softmax_shape are both {rows, columns}. */
    const size_t shape[2] = {ROWS, n};
    ASSERT(path(&a, shape) == 0);
    ASSERT(guards_intact(y, bytes));
    free(ws);
    return y;
}

static void check(const char *kernel, row_path path, kb_prec p) {
    /* Row lengths: whole 64-byte lines in every precision (streamed), and
     * tails and part lines (not streamed). */
    static const size_t lengths[] = {1, 7, 16, 17, 32, 33, 48, 64, 96, 100, 128, 256, 1000, 1024};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        const size_t n = lengths[k], es = kb_prec_size(p);
        char *x = guarded(ROWS * n * es), *g = guarded(n * es), *b = guarded(n * es);
        for (size_t i = 0; i < ROWS * n; i++)
            kb_store_f64(x, p, i, 6.0 * sin((double)i * 0.7) + (double)(i % 5));
        for (size_t i = 0; i < n; i++) {
            kb_store_f64(g, p, i, 1.0 + 0.25 * cos((double)i));
            kb_store_f64(b, p, i, 0.125 * sin((double)i * 1.3));
        }
        char *cached = run(path, p, x, g, b, n, 0), *streamed = run(path, p, x, g, b, n, 1);
        if (memcmp(cached, streamed, ROWS * n * es) != 0)
            KB_TEST_FAIL("%s %s, rows of %zu: the streamed output differs from the cached one",
                         kernel, kb_prec_name(p), n);
        free(cached - GUARD);
        free(streamed - GUARD);
        free(x - GUARD);
        free(g - GUARD);
        free(b - GUARD);
    }
}

static void test_layernorm(void) {
    check("layernorm", layernorm_rows_f64, KB_FP64);
    check("layernorm", layernorm_rows_f32, KB_FP32);
    check("layernorm", layernorm_half, KB_FP16);
    check("layernorm", layernorm_half, KB_BF16);
}

static void test_softmax(void) {
    check("softmax", softmax_rows_f64, KB_FP64);
    check("softmax", softmax_rows_f32, KB_FP32);
    check("softmax", softmax_half, KB_FP16);
    check("softmax", softmax_half, KB_BF16);
}

int main(void) {
    RUN_TEST(test_layernorm);
    RUN_TEST(test_softmax);
    return kb_test_summary();
}
