/* kb/vmath/vmath8.h's eight- and (with AVX-512) sixteen-lane functions against
 * their scalar forms in kb/vmath/vmath.h, bit for bit (NaN payloads included):
 * every KB_VMATH8_STRIDE-th
 * float pattern (1: all 2^32; the unit test takes every 65521st, a prime, so
 * that every low-bit pattern is met), and every pattern near the places
 * where the functions change behaviour: the clamps of exp and erf, erf's cap
 * at 1, zero, the infinities and NaNs. And kb/cpu/paths.h's elementwise maps
 * against the scalar functions over every length up to three vectors past
 * the 16-bit maps' pipeline and a few longer ones, in float, fp16 and bf16,
 * streamed and not;
 * and its row passes (the fused first passes, the last pass's stores)
 * against kb/cpu.h's scalar ones. The double functions (four and eight
 * lanes) likewise, over a stride through the top halves of the patterns
 * and runs around their edges.
 * Built with the kernels' flags; without AVX2, FMA and F16C there is
 * nothing to compare, and the test reports Skipped, saying so. */
#include "kb/cpu/paths.h"
#include "kb/vmath/gelu64.h"
#include "kb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if KB_VMATH8

/* A scalar form and its eight-lane form, compared over a block of patterns
 * by a function of their own (inlined there: a call per element would make
 * the full sweep take minutes). Returns how many differ; reports the first
 * few. */
typedef struct pair8 {
    const char *name;
    long (*compare)(const uint32_t *u, size_t n, long reported);
} pair8;

#define BLOCK 4096

/* compare<PFX>_<NAME><W>: SCALAR against its W-lane form VECTOR, on values
 * of type T given as patterns of the same-sized unsigned U (PX: the
 * intrinsics' suffix). */
#define PAIR_OF(PFX, T, U, PX, NAME, W, MM, SCALAR, VECTOR)                                        \
    static long compare##PFX##_##NAME##W(const U *u, size_t n, long reported) {                    \
        T x[BLOCK], want[BLOCK], got[BLOCK];                                                       \
        memcpy(x, u, n * sizeof *x);                                                               \
        for (size_t i = 0; i < n; i++) want[i] = SCALAR(x[i]);                                     \
        for (size_t i = 0; i < n; i += W)                                                          \
            MM##_storeu_##PX(got + i, VECTOR(MM##_loadu_##PX(x + i)));                             \
        long bad = 0;                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            U w, g;                                                                                \
            memcpy(&w, &want[i], sizeof w);                                                        \
            memcpy(&g, &got[i], sizeof g);                                                         \
            if (w != g && reported + bad++ < 5)                                                    \
                KB_TEST_FAIL("%s(%a) [pattern 0x%0*llx]: 0x%0*llx, the scalar form 0x%0*llx",      \
                             #VECTOR, (double)x[i], (int)(2 * sizeof w), (unsigned long long)u[i], \
                             (int)(2 * sizeof w), (unsigned long long)g, (int)(2 * sizeof w),      \
                             (unsigned long long)w);                                               \
        }                                                                                          \
        return bad;                                                                                \
    }
#define PAIR(NAME, W, MM, SCALAR, VECTOR)                                                          \
    PAIR_OF(, float, uint32_t, ps, NAME, W, MM, SCALAR, VECTOR)

static float neg(float x) {
    return -x;
}

/* kb_expf and kb_expf_half on x <= 0 (and NaN) against their two-stage
 * forms for them, softmax's: every pattern with its sign bit set. */
static float expf_nonpos(float x) {
    return kb_expf(kb_bits_to_f32(kb_f32_to_bits(x) | 0x80000000u));
}
static float expf_half_nonpos(float x) {
    return kb_expf_half(kb_bits_to_f32(kb_f32_to_bits(x) | 0x80000000u));
}
#define NONPOS(W, MM)                                                                              \
    static kb_f32x##W expf_nonpos##W(kb_f32x##W v) {                                               \
        return kb__expf_nonpos##W(MM##_or_ps(v, MM##_set1_ps(-0.0f)));                             \
    }                                                                                              \
    static kb_f32x##W expf_half_nonpos##W(kb_f32x##W v) {                                          \
        return kb__expf_half_nonpos##W(MM##_or_ps(v, MM##_set1_ps(-0.0f)));                        \
    }
NONPOS(8, _mm256)
#if KB_VMATH16
NONPOS(16, _mm512)
#endif

/* Every function at one width: its comparisons, then its table rows. */
#define PAIRS(W, MM)                                                                               \
    PAIR(expf, W, MM, kb_expf, kb_expf##W)                                                         \
    PAIR(expf_half, W, MM, kb_expf_half, kb_expf_half##W)                                          \
    PAIR(expf_nonpos, W, MM, expf_nonpos, expf_nonpos##W)                                          \
    PAIR(expf_half_nonpos, W, MM, expf_half_nonpos, expf_half_nonpos##W)                           \
    PAIR(erff, W, MM, kb__erff_finite, kb__erff_finite##W)                                         \
    PAIR(erff_half, W, MM, kb__erff_half_finite, kb__erff_half_finite##W)                          \
    PAIR(gelu_f32, W, MM, kb_gelu_f32, kb_gelu_f32_##W)                                            \
    PAIR(gelu_half, W, MM, kb_gelu_half, kb_gelu_half##W)                                          \
    PAIR(swish_f32, W, MM, kb_swish_f32, kb_swish_f32_##W)                                         \
    PAIR(swish_half, W, MM, kb_swish_half, kb_swish_half##W)                                       \
    PAIR(neg, W, MM, neg, kb_neg##W)
#define PAIR_ROWS(W)                                                                               \
    {"kb_expf" #W, compare_expf##W}, {"kb_expf_half" #W, compare_expf_half##W},                    \
        {"kb__expf_nonpos" #W, compare_expf_nonpos##W},                                            \
        {"kb__expf_half_nonpos" #W, compare_expf_half_nonpos##W},                                  \
        {"kb__erff_finite" #W, compare_erff##W},                                                   \
        {"kb__erff_half_finite" #W, compare_erff_half##W},                                         \
        {"kb_gelu_f32_" #W, compare_gelu_f32##W}, {"kb_gelu_half" #W, compare_gelu_half##W},       \
        {"kb_swish_f32_" #W, compare_swish_f32##W}, {"kb_swish_half" #W, compare_swish_half##W},   \
        {"kb_neg" #W, compare_neg##W},

PAIRS(8, _mm256)
#if KB_VMATH16
PAIRS(16, _mm512)
#endif

static const pair8 pairs[] = {PAIR_ROWS(8)
#if KB_VMATH16
                                  PAIR_ROWS(16)
#endif
};

#define NPAIRS (sizeof pairs / sizeof pairs[0])

static uint32_t stride(void) {
    const char *s = getenv("KB_VMATH8_STRIDE");
    long k = s ? strtol(s, NULL, 10) : 1;
    return k >= 1 && k <= 65536 ? (uint32_t)k : 1;
}

/* Patterns lo, lo + step, ... below lo + count (wrapping past 2^32)
 * through every pair, a block at a time; a block is padded to whole
 * vectors with its first pattern. */
static void compare_range(uint32_t lo, uint64_t count, uint32_t step, long *bad) {
    uint32_t u[BLOCK];
    size_t k = 0;
    for (uint64_t i = 0; i < count; i += step) {
        u[k++] = lo + (uint32_t)i;
        if (k == BLOCK || i + step >= count) {
            for (; k % 16; k++) u[k] = u[0]; /* whole vectors at every width */
            for (size_t p = 0; p < NPAIRS; p++) bad[p] += pairs[p].compare(u, k, bad[p]);
            k = 0;
        }
    }
}

static void test_patterns(void) {
    long bad[NPAIRS] = {0};
    const uint32_t s = stride();
    /* Every s-th pattern of all 2^32 (the last chunk wraps into the first). */
    compare_range(0, 1ull << 32, s, bad);
    /* Around each place of a change, both signs: 65536 patterns each (512
     * in a sparse run, which valgrind's memcheck runs 50x slower). */
    const uint32_t window = s == 1 ? 65536u : 512u;
    const float edges[] = {0.0f, -87.3f,  87.3f, 88.7f, -88.7f, 4.0f, 4.0f * 1.41421356f,
                           1.0f, INFINITY};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (int sign = 0; sign < 2; sign++) {
            const uint32_t c = kb_f32_to_bits(edges[e]) ^ (sign ? 0x80000000u : 0u);
            compare_range(c - window / 2, window, 1, bad);
        }
    if (s == 1)
        printf("every float pattern and the edges:");
    else
        printf("every %u-th float pattern and the edges:", s);
    for (size_t p = 0; p < NPAIRS; p++) printf(" %s %ld differ;", pairs[p].name, bad[p]);
    printf("\n");
    for (size_t p = 0; p < NPAIRS; p++) ASSERT(bad[p] == 0);
}

/* kb/cpu/paths.h's maps (on the widest vectors) over every length up to three
 * vectors past the 16-bit maps' pipeline (whole vectors and tails) and a
 * few longer ones, the 16-bit maps with two stages, at
 * offsets 0 .. KB_VLANES - 1 elements, against the scalar function with
 * guards around the output; both the cached and the streaming stores (the
 * maps stream only where the output is aligned for their widest stores, of
 * these offsets offset 0; an alignment check too loose would fault or fail
 * at the others). */
static kb_f32v expf_mapv(kb_f32v x) {
    return kb_expfv(x);
}

/* A second stage for the 16-bit maps: x e^x, so that a vector's first stage
 * meeting another vector's second would show. */
static kb_f32v times_x_mapv(kb_f32v x, kb_f32v t) {
    return KB_MMV(mul_ps)(x, t);
}

/* A first stage whose results are float denormals for |x| < 2^7, which
 * bf16's one-instruction narrowing would flush: with it the inputs below
 * are 1.5 at every 67th element and 300 or more elsewhere, so that the
 * denormals come at every place in a run of vectors (67 is prime and more
 * than a run of four vectors of sixteen), with runs without one between (a
 * run that holds one must be stored again). */
static kb_f32v tiny_mapv(kb_f32v x) {
    return KB_MMV(mul_ps)(x, KB_MMV(set1_ps)(0x1p-133f));
}

/* The 16-bit maps' want for element x: x e^x, or with `tiny` x 2^-133. */
static float map_want(float x, int tiny) {
    return tiny ? x * 0x1p-133f : x * kb_expf(x);
}

static void check_map(kb_prec prec, int stream, int tiny) {
    /* Every length up to three vectors past the 16-bit pipeline (two rings
     * of KB__CPU_AHEAD vectors), and a few longer ones. */
    /* PAD: 64 bytes of floats, so that offset 0 is aligned for every stream */
    enum {
        SHORT = (2 * KB__CPU_AHEAD + 3) * KB_VLANES + 1,
        N = 3 * KB_CPU_MAP_BLOCK + 48,
        PAD = 16
    };
    const size_t longer[] = {KB_CPU_MAP_BLOCK - 1, KB_CPU_MAP_BLOCK, KB_CPU_MAP_BLOCK + 1,
                             2 * KB_CPU_MAP_BLOCK + 13, N};
    _Alignas(64) uint16_t x16[N + 2 * PAD], y16[N + 2 * PAD];
    _Alignas(64) float x32[N + 2 * PAD], y32[N + 2 * PAD];
    for (size_t off = 0; off < KB_VLANES; off++)
        for (size_t k = 0; k < SHORT + sizeof longer / sizeof longer[0]; k++) {
            const size_t n = k < SHORT ? k : longer[k - SHORT];
            for (size_t i = 0; i < N + 2 * PAD; i++) {
                x32[i] = tiny ? (i % 67 == 3 ? 1.5f : 300.0f + (float)i)
                              : (float)((double)i * 0.731 - 9.0);
                x16[i] = prec == KB_BF16 ? kb_f32_to_bf16(x32[i]) : kb_f32_to_f16(x32[i]);
                y32[i] = -1.0f;
                y16[i] = 0xabcd;
            }
            const int half = prec != KB_FP32;
            /* stream: a last cache smaller than any output, so that the
             * maps stream wherever the alignment allows. */
            kb_args a = {.prec = prec, .last_cache_bytes = stream ? 1 : 0};
            a.in[0] = half ? (const void *)(x16 + PAD + off) : (const void *)(x32 + PAD + off);
            a.out[0] = half ? (void *)(y16 + PAD + off) : (void *)(y32 + PAD + off);
            if (half)
                kb_cpu_mapv_half(&a, tiny ? tiny_mapv : expf_mapv,
                                 tiny ? kb_cpu_stage_result : times_x_mapv, n);
            else
                kb_cpu_mapv_f32(&a, expf_mapv, n);
            for (size_t i = 0; i < N + 2 * PAD; i++) {
                const int inside = i >= PAD + off && i < PAD + off + n;
                float want;
                uint32_t got, w;
                if (half) {
                    const float xf =
                        prec == KB_BF16 ? kb_bf16_to_f32(x16[i]) : kb_f16_to_f32(x16[i]);
                    want = map_want(xf, tiny);
                    w = inside ? (prec == KB_BF16 ? kb_f32_to_bf16(want) : kb_f32_to_f16(want))
                               : 0xabcd;
                    got = y16[i];
                } else {
                    w = inside ? kb_f32_to_bits(kb_expf(x32[i])) : kb_f32_to_bits(-1.0f);
                    got = kb_f32_to_bits(y32[i]);
                }
                if (got != w)
                    KB_TEST_FAIL("%s map%s, stream %d, offset %zu, n %zu, element %zd: 0x%x, "
                                 "want 0x%x",
                                 kb_prec_name(prec), tiny ? " (tiny)" : "", stream, off, n,
                                 (ptrdiff_t)i - PAD - (ptrdiff_t)off, got, w);
            }
        }
}

static void test_maps(void) {
    for (int stream = 0; stream < 2; stream++) {
        check_map(KB_FP32, stream, 0);
        for (int tiny = 0; tiny <= 1; tiny++) {
            check_map(KB_FP16, stream, tiny);
            check_map(KB_BF16, stream, tiny);
        }
    }
}

/* kb/cpu/paths.h's first row passes against kb_cpu_to_f32 and then
 * kb_cpu_sum_f32 / kb_cpu_max_half, bit for bit (the widened row and the
 * reduction), over every length up to three KB_CPU_LANES and at offsets up
 * to a vector. The maximum sees every kind of pattern, NaN and infinities
 * included (both forms order the same integers), rows all negative and rows
 * of zeros of both signs, and without NaNs it is also kb_cpu_max_f32 of
 * the widened row; the sums see finite values of both signs. */
static void check_first_passes(kb_prec p) {
    enum { N = 3 * KB_CPU_LANES + 1, PAD = 32 };
    uint16_t h[N + PAD], fin[N + PAD], neg[N + PAD], zero[N + PAD];
    float got[N], want[N];
    for (size_t i = 0; i < N + PAD; i++) {
        h[i] = (uint16_t)(i * 2654435761u >> 7);
        fin[i] = h[i] & 0xbfff;                   /* the exponent's top bit clear: finite */
        neg[i] = (uint16_t)(h[i] | 0x8000);       /* all negative, NaNs of that sign too */
        zero[i] = (uint16_t)(i % 5 ? 0x8000 : 0); /* -0, and +0 every fifth */
    }
    for (size_t off = 0; off < PAD; off++)
        for (size_t n = 1; n <= N; n++) {
            const float max = kb_cpu_max_halfv(h + off, p, n);
            ASSERT(kb_f32_to_bits(max) == kb_f32_to_bits(kb_cpu_max_half(h + off, p, n)));
            ASSERT(kb_f32_to_bits(kb_cpu_max_halfv(neg + off, p, n)) ==
                   kb_f32_to_bits(kb_cpu_max_half(neg + off, p, n)));
            ASSERT(kb_f32_to_bits(kb_cpu_max_halfv(zero + off, p, n)) ==
                   kb_f32_to_bits(kb_cpu_max_half(zero + off, p, n)));
            for (const uint16_t *row = zero; row; row = row == zero ? neg : NULL) {
                /* the finite negative rows and the zeros, against the floats */
                uint16_t r[N];
                for (size_t i = 0; i < n; i++) r[i] = row[off + i] & (row == neg ? 0xbfff : 0xffff);
                kb_cpu_to_f32(want, r, p, 0, n);
                ASSERT(kb_f32_to_bits(kb_cpu_max_halfv(r, p, n)) ==
                       kb_f32_to_bits(kb_cpu_max_f32(want, n)));
            }
            kb_cpu_to_f32(want, fin + off, p, 0, n);
            ASSERT(kb_f32_to_bits(kb_cpu_max_halfv(fin + off, p, n)) ==
                   kb_f32_to_bits(kb_cpu_max_f32(want, n)));
            const float sum = kb_cpu_to_f32_sumv(got, fin + off, p, n);
            ASSERT(memcmp(got, want, n * sizeof *got) == 0);
            if (kb_f32_to_bits(sum) != kb_f32_to_bits(kb_cpu_sum_f32(want, n)))
                KB_TEST_FAIL("%s sum, offset %zu, n %zu: %a, kb_cpu_sum_f32 %a", kb_prec_name(p),
                             off, n, (double)sum, (double)kb_cpu_sum_f32(want, n));
        }
}

/* kb/cpu/paths.h's middle row passes with softmax's e^(x - max) against the
 * scalar passes (x widened by kb_cpu_to_f32, x - max, kb_expf_half,
 * kb_expf or kb_exp, kb_cpu_sum_f32/_f64), bit for bit, over every length
 * up to three KB_CPU_LANES past the pipeline's first full step and at
 * several offsets, with max the row's largest, on finite values and on
 * rows with NaNs and infinities. Of a sum of different NaNs only that it
 * is NaN: which one an add passes on depends on its operands' order, which
 * C leaves to the compiler for each add. */
enum { MAP_SUM_N = (KB__CPU_AHEAD + 8) * KB_VLANES + 3 * KB_CPU_LANES + 1, MAP_SUM_PAD = 16 };

/* Pattern i of a row: finite, or every 29th NaN or infinite (`special`). */
static uint64_t map_sum_pattern(size_t i, int special, int bits) {
    const uint64_t u = (uint64_t)i * 0x9e3779b97f4a7c15u;
    const int exp_bits = bits == 64 ? 11 : bits == 32 ? 8 : 5;
    const uint64_t top = (uint64_t)1 << (bits - 2); /* the exponent's top bit */
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    uint64_t v = (u >> (64 - bits)) & mask & ~top; /* finite */
    if (special && i % 29 == 3) v |= (((uint64_t)1 << exp_bits) - 1) << (bits - 1 - exp_bits);
    return v;
}

#define CHECK_MAP_SUM(NAME, T, X, TO_BITS, SUM, WANT, CALL)                                        \
    static void check_map_sum_##NAME(kb_prec p) {                                                  \
        static X h[MAP_SUM_N + MAP_SUM_PAD];                                                       \
        static T got[MAP_SUM_N], want[MAP_SUM_N], xw[MAP_SUM_N];                                   \
        for (int special = 0; special < 2; special++) {                                            \
            for (size_t i = 0; i < MAP_SUM_N + MAP_SUM_PAD; i++) {                                 \
                const uint64_t u = map_sum_pattern(i, special, (int)(8 * sizeof(X)));              \
                memcpy(&h[i], &u, sizeof h[i]); /* little-endian: the low bytes */                 \
            }                                                                                      \
            for (size_t off = 0; off < MAP_SUM_PAD; off += 3)                                      \
                for (size_t n = 1; n <= MAP_SUM_N; n++) {                                          \
                    T m;                                                                           \
                    const T sum = CALL;                                                            \
                    for (size_t i = 0; i < n; i++) want[i] = WANT(xw[i] - m);                      \
                    size_t i = 0;                                                                  \
                    while (i < n && TO_BITS(got[i]) == TO_BITS(want[i])) i++;                      \
                    if (i < n)                                                                     \
                        KB_TEST_FAIL("kb_cpu_map_sum " #NAME " %s, offset %zu, n %zu: [%zu] = "    \
                                     "%a, want %a",                                                \
                                     kb_prec_name(p), off, n, i, (double)got[i], (double)want[i]); \
                    const T ws = kb_cpu_sum_##SUM(want, n);                                        \
                    if (TO_BITS(sum) != TO_BITS(ws) && !(sum != sum && ws != ws))                  \
                        KB_TEST_FAIL("kb_cpu_map_sum " #NAME " %s sum, offset %zu, n %zu: %a, "    \
                                     "want %a",                                                    \
                                     kb_prec_name(p), off, n, (double)sum, (double)ws);            \
                }                                                                                  \
        }                                                                                          \
    }

CHECK_MAP_SUM(half, float, uint16_t, kb_f32_to_bits, f32, kb_expf_half,
              (kb_cpu_to_f32(xw, h + off, p, 0, n), m = kb_cpu_max_half(h + off, p, n),
               kb_cpu_map_sum_halfv(got, h + off, p, n, m, kb_expf_nonpos_tv,
                                    kb_expf_half_nonpos_from_tv, h)))
CHECK_MAP_SUM(f32, float, float, kb_f32_to_bits, f32, kb_expf,
              (memcpy(xw, h + off, n * sizeof *xw), m = kb_cpu_max_f32(xw, n),
               kb_cpu_map_sum_f32v(got, h + off, n, m, kb_expf_nonpos_tv, kb_expf_nonpos_from_tv,
                                   NULL)))
CHECK_MAP_SUM(f64, double, double, kb_f64_to_bits, f64, kb_exp,
              (memcpy(xw, h + off, n * sizeof *xw), m = kb_cpu_max_f64(xw, n),
               kb_cpu_map_sum_f64v(got, h + off, n, m, kb_exp_nonpos_tv, kb_exp_nonpos_from_tv, h)))

/* The row kernels' last-pass stores: rounded as kb_cpu_from_f32 rounds,
 * cached or streamed to an aligned y, nothing written past the vector; on
 * the special patterns below (NaNs, infinities, zeros, float denormals,
 * fp16's and bf16's ties and overflow) and on a stride through all the
 * others. */
static const uint32_t specials[16] = {
    0x7fc00000u, 0x7f800001u, 0xffc00001u, 0x7f800000u,
    0xff800000u, 0x80000000u, 0x00000001u, 0x807fffffu, /* NaNs, infinities, -0, denormals */
    0x3f801000u, 0x3f803000u, 0x33000000u, 0x477ff000u, /* fp16: ties, 2^-25, 65520 */
    0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0x38800000u, /* bf16: ties; FLT_MAX; 2^-14 */
};

static void check_store(const float *x, int stream) {
    _Alignas(64) float yf[2 * KB_VLANES];
    _Alignas(64) double xd[KB_VLANES64], yd[2 * KB_VLANES64];
    _Alignas(64) uint16_t yh[2 * KB_VLANES], want[KB_VLANES];
    for (size_t i = 0; i < KB_VLANES64; i++) xd[i] = (double)x[i] * 1.25;
    for (int q = 0; q < 2; q++) {
        const kb_prec p = q ? KB_BF16 : KB_FP16;
        memset(yh, 0xab, sizeof yh);
        kb_cpu_store_halfv(p, yh, KB_MMV(load_ps)(x), stream);
        kb_cpu_stream_fence();
        kb_cpu_from_f32(want, p, 0, x, KB_VLANES);
        for (size_t i = 0; i < KB_VLANES; i++)
            if (yh[i] != want[i])
                KB_TEST_FAIL("kb_cpu_store_halfv %s, stream %d: 0x%08x gave 0x%04x, want 0x%04x",
                             kb_prec_name(p), stream, kb_f32_to_bits(x[i]), yh[i], want[i]);
        ASSERT(yh[KB_VLANES] == 0xabab && yh[2 * KB_VLANES - 1] == 0xabab);
    }
    memset(yf, 0xab, sizeof yf);
    memset(yd, 0xab, sizeof yd);
    kb_cpu_store_f32v(yf, KB_MMV(load_ps)(x), stream);
    kb_cpu_store_f64v(yd, KB_MMV(load_pd)(xd), stream);
    kb_cpu_stream_fence();
    ASSERT(memcmp(yf, x, KB_VLANES * sizeof *x) == 0 && memcmp(yd, xd, sizeof xd) == 0);
    ASSERT(kb_f32_to_bits(yf[KB_VLANES]) == 0xababababu);
}

static void check_stores(void) {
    _Alignas(64) float x[KB_VLANES];
    const uint32_t step = 0x01000193u;
    for (int stream = 0; stream < 2; stream++) {
        for (size_t at = 0; at < 16; at += KB_VLANES) {
            for (size_t i = 0; i < KB_VLANES; i++) x[i] = kb_bits_to_f32(specials[at + i]);
            check_store(x, stream);
        }
        for (uint32_t base = 0; base < 0xffffffffu - step * KB_VLANES; base += step * KB_VLANES) {
            for (size_t i = 0; i < KB_VLANES; i++) x[i] = kb_bits_to_f32(base + step * (uint32_t)i);
            check_store(x, stream);
        }
    }
}

/* kb_cpu_store_half_row: row[i] for the whole vectors of a row, rounded as
 * kb_cpu_from_f32 rounds them, cached and streamed, nothing written past
 * them; every row length up to three runs and a bit, each with one float
 * denormal moved through every fifth place (bf16's runs that hold one are
 * stored again through the integer path; the others must not be). Rows
 * told that no value is negative (`nonneg`) are so, and come plain, with
 * the denormal, with the denormal and a NaN last (a NaN must not hide it
 * from the row's minimum), and with a zero in its place. */
static kb_f32v row_mapv(const void *ctx, size_t i) {
    return KB_MMV(loadu_ps)((const float *)ctx + i);
}

enum { ROW_PLAIN, ROW_DENORMAL, ROW_DENORMAL_NAN, ROW_ZERO, ROW_KINDS };

static void fill_row(float *row, size_t r, size_t nv, size_t at, int nonneg, int kind) {
    for (size_t i = 0; i < r; i++) {
        const float f = (float)((double)i * 0.37 - 20.0);
        row[i] = nonneg && f < 0.0f ? -f : f;
    }
    if (at >= nv || kind == ROW_PLAIN) return;
    row[at] = kind == ROW_ZERO ? 0.0f : kb_bits_to_f32(0x00012345u);
    if (kind == ROW_DENORMAL_NAN && at + 1 < nv) row[nv - 1] = kb_bits_to_f32(0x7fc00000u);
}

static void check_store_row(kb_prec p, int stream) {
    enum { R = (3 * KB__CPU_AHEAD + 1) * KB_VLANES };
    _Alignas(64) float row[R];
    _Alignas(64) uint16_t y[R + KB_VLANES], want[R];
    for (int nonneg = 0; nonneg < 2; nonneg++)
        for (int kind = nonneg ? ROW_PLAIN : ROW_DENORMAL;
             kind < (nonneg ? ROW_KINDS : ROW_DENORMAL + 1); kind++)
            for (size_t nv = 0; nv <= R; nv += KB_VLANES)
                for (size_t at = 0; at < nv || at == 0; at += 5) {
                    fill_row(row, R, nv, at, nonneg, kind);
                    memset(y, 0xab, sizeof y);
                    kb_cpu_store_half_row(p, y, nv, row_mapv, row, stream, nonneg);
                    kb_cpu_stream_fence();
                    kb_cpu_from_f32(want, p, 0, row, nv);
                    for (size_t i = 0; i < nv; i++)
                        if (y[i] != want[i])
                            KB_TEST_FAIL("kb_cpu_store_half_row %s, stream %d, nonneg %d, row "
                                         "kind %d, nv %zu, at %zu: element %zu 0x%04x, want "
                                         "0x%04x",
                                         kb_prec_name(p), stream, nonneg, kind, nv, at, i, y[i],
                                         want[i]);
                    ASSERT(y[nv] == 0xabab);
                }
}

static void test_rows(void) {
    check_first_passes(KB_FP16);
    check_first_passes(KB_BF16);
    check_map_sum_half(KB_FP16);
    check_map_sum_half(KB_BF16);
    check_map_sum_f32(KB_FP32);
    check_map_sum_f64(KB_FP64);
    check_stores();
    for (int stream = 0; stream < 2; stream++) {
        check_store_row(KB_FP16, stream);
        check_store_row(KB_BF16, stream);
    }
}

/* The double functions (kb/vmath/lanes64.h) against their scalar forms, bit
 * for bit: compare64_<NAME><W> over n patterns. */
#define PAIR64(NAME, W, MM, SCALAR, VECTOR)                                                        \
    PAIR_OF(64, double, uint64_t, pd, NAME, W, MM, SCALAR, VECTOR)

typedef struct pair64 {
    const char *name;
    long (*compare)(const uint64_t *u, size_t n, long reported);
} pair64;

/* kb_exp on x <= 0 (and NaN) against its two-stage form for them. */
static double exp_nonpos(double x) {
    return kb_exp(kb_bits_to_f64(kb_f64_to_bits(x) | 0x8000000000000000u));
}
#define NONPOS64(W, MM)                                                                            \
    static kb_f64x##W exp_nonpos##W(kb_f64x##W v) {                                                \
        return kb__exp_nonpos##W(MM##_or_pd(v, MM##_set1_pd(-0.0)));                               \
    }

NONPOS64(4, _mm256)
PAIR64(exp, 4, _mm256, kb_exp, kb_exp4)
PAIR64(exp_nonpos, 4, _mm256, exp_nonpos, exp_nonpos4)
PAIR64(swish, 4, _mm256, kb_swish_f64, kb_swish_f64_4)
#if !KB_VMATH16
PAIR64(gelu_tab, 4, _mm256, kb_gelu_f64_tab, kb_gelu_f64_tab4)
#endif
#if KB_VMATH16
NONPOS64(8, _mm512)
PAIR64(exp, 8, _mm512, kb_exp, kb_exp8)
PAIR64(exp_nonpos, 8, _mm512, exp_nonpos, exp_nonpos8)
PAIR64(swish, 8, _mm512, kb_swish_f64, kb_swish_f64_8)
PAIR64(gelu_tab, 8, _mm512, kb_gelu_f64_tab, kb_gelu_f64_tab8)
#endif

static const pair64 pairs64[] = {
    {"kb_exp4", compare64_exp4},
    {"kb__exp_nonpos4", compare64_exp_nonpos4},
    {"kb_swish_f64_4", compare64_swish4},
#if !KB_VMATH16
    {"kb_gelu_f64_tab4", compare64_gelu_tab4},
#endif
#if KB_VMATH16
    {"kb_exp8", compare64_exp8},
    {"kb__exp_nonpos8", compare64_exp_nonpos8},
    {"kb_swish_f64_8", compare64_swish8},
    {"kb_gelu_f64_tab8", compare64_gelu_tab8},
#endif
};

#define NPAIRS64 (sizeof pairs64 / sizeof pairs64[0])

/* n patterns through every double pair, in blocks padded to whole vectors. */
static void compare64_block(const uint64_t *u, size_t n, long *bad) {
    uint64_t b[BLOCK];
    memcpy(b, u, n * sizeof *b);
    for (; n % 8; n++) b[n] = b[0];
    for (size_t p = 0; p < NPAIRS64; p++) bad[p] += pairs64[p].compare(b, n, bad[p]);
}

/* The patterns whose top 32 bits are every s-th value (each with low bits
 * from a fixed generator, so that low-bit patterns vary too), and runs of
 * consecutive patterns around the places of a change: exp's clamps, where
 * its results leave the normal range, zero, one, the table GELU's cut, the
 * infinities and NaNs, both signs. */
static void test_doubles(void) {
    long bad[NPAIRS64] = {0};
    uint64_t u[BLOCK], lcg = 0x9e3779b97f4a7c15ull;
    size_t k = 0;
    /* an eighth of the float sweep's top halves: the double functions cost
     * more, and the full run stays well inside its time limit */
    const uint64_t s = 8ull * stride();
    for (uint64_t hi = 0; hi < (1ull << 32); hi += s) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        u[k++] = hi << 32 | lcg >> 32;
        if (k == BLOCK) {
            compare64_block(u, k, bad);
            k = 0;
        }
    }
    if (k) compare64_block(u, k, bad);
    /* runs of BLOCK patterns, 512 in a sparse run (as the floats') */
    const uint64_t window = s == 8 ? BLOCK : 512;
    const double edges[] = {0.0,    1.0,    -708.39,  709.78,         -708.4,
                            -745.2, 1e-300, INFINITY, KB__GELU64_CUT, NAN};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (int sign = 0; sign < 2; sign++) {
            const uint64_t c = kb_f64_to_bits(edges[e]) ^ (sign ? 0x8000000000000000ull : 0u);
            for (uint64_t i = 0; i < window; i++) u[i] = c - window / 2 + i;
            compare64_block(u, window, bad);
            for (uint64_t i = 0; i < window; i++) u[i] = c + (i << 32) - (window / 2 << 32);
            compare64_block(u, window, bad);
        }
    printf("doubles, every %llu-th top half and the edges:", (unsigned long long)s);
    for (size_t p = 0; p < NPAIRS64; p++) printf(" %s %ld differ;", pairs64[p].name, bad[p]);
    printf("\n");
    for (size_t p = 0; p < NPAIRS64; p++) ASSERT(bad[p] == 0);
}

/* kb_gelu_f64_tab_map (four vectors at a time, then single vectors, then the
 * scalar form) against the scalar form, bit for bit, over every length up to
 * five blocks of four vectors and a few longer ones, from every offset in a
 * vector: values through every piece, past the cut, and the special ones;
 * and nothing written past the n results (a vector's worth of sentinels). */
static void test_gelu_tab_map(void) {
    enum { MAX = 4099 + 8 };
    static double x[MAX], got[MAX + 8];
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e300, -1e300};
    for (size_t i = 0; i < MAX; i++)
        x[i] = i % 37 == 0 ? special[(i / 37) % 8] : (double)((i * 7919) % 4001) * 0.006 - 12.0;
    const size_t longer[] = {1000, 1023, 4099};
    long bad = 0;
    for (size_t k = 0; k < 160 + 3; k++) {
        const size_t n = k < 160 ? k : longer[k - 160];
        for (size_t off = 0; off < 8; off++) {
            for (size_t i = 0; i < n + 8; i++) got[i] = -1234.5;
            kb_gelu_f64_tab_map(x + off, got, n);
            for (size_t i = n; i < n + 8; i++)
                if (got[i] != -1234.5 && bad++ < 5)
                    KB_TEST_FAIL("kb_gelu_f64_tab_map, n %zu, offset %zu: wrote [%zu]", n, off, i);
            for (size_t i = 0; i < n; i++) {
                const double want = kb_gelu_f64_tab(x[off + i]);
                if (kb_f64_to_bits(got[i]) != kb_f64_to_bits(want) && bad++ < 5)
                    KB_TEST_FAIL("kb_gelu_f64_tab_map, n %zu, offset %zu, [%zu] = %a: %a, the "
                                 "scalar form %a",
                                 n, off, i, x[off + i], got[i], want);
            }
        }
    }
    ASSERT(bad == 0);
}

#if !KB_VMATH16
/* kb__cpu_bf16_8_lanes (the eight-lane bf16 maps' narrowing) against
 * kb_f32_to_bf16, bit for bit: every bf16 value widened, the midpoint to
 * its upper neighbour and the floats one ulp either side of it, and NaNs
 * whose low bits a rounding would carry. */
static void test_bf16_lanes(void) {
    static const uint32_t nans[] = {0x7f800001u, 0x7f80ffffu, 0x7fbfffffu, 0x7fffffffu,
                                    0xff800001u, 0xffc00001u, 0xffffffffu, 0x7fa00000u};
    long bad = 0;
    for (uint32_t i = 0; i < 65536 + 2; i++) {
        float f[8];
        if (i < 65536) {
            const float v = kb_bf16_to_f32((uint16_t)i), up = kb_bf16_to_f32((uint16_t)(i + 1));
            const float mid = isfinite(v) && isfinite(up) ? v + (up - v) / 2 : v;
            const float g[8] = {v,  mid,  nextafterf(mid, -INFINITY),  nextafterf(mid, INFINITY),
                                -v, -mid, nextafterf(-mid, -INFINITY), nextafterf(-mid, INFINITY)};
            memcpy(f, g, sizeof f);
        } else {
            for (int k = 0; k < 8; k++) f[k] = kb_bits_to_f32(nans[(i - 65536) * 4 + k % 4]);
        }
        _Alignas(32) uint32_t got[8];
        _mm256_store_si256((__m256i *)got, kb__cpu_bf16_8_lanes(_mm256_loadu_ps(f)));
        for (int k = 0; k < 8; k++)
            if (got[k] != kb_f32_to_bf16(f[k]) && bad++ < 5)
                KB_TEST_FAIL("kb__cpu_bf16_8_lanes(%a) = 0x%x, want 0x%x", (double)f[k], got[k],
                             kb_f32_to_bf16(f[k]));
    }
    ASSERT(bad == 0);
}
#endif

int main(void) {
    RUN_TEST(test_patterns);
    RUN_TEST(test_maps);
    RUN_TEST(test_rows);
    RUN_TEST(test_doubles);
    RUN_TEST(test_gelu_tab_map);
#if !KB_VMATH16
    RUN_TEST(test_bf16_lanes);
#endif
    return kb_test_summary();
}

#else

int main(void) {
    printf(
        "kbench-skip: this build has no AVX2, FMA and F16C (KB_VMATH8 is 0): kb/vmath/vmath8.h's "
        "functions are not compiled, and the kernels use the scalar forms\n");
    return 0;
}

#endif
