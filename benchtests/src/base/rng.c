#include "base/rng.h"

#include "base/hash.h"

#include <math.h>
#include <string.h>

/* splitmix64 expands the seed; xoshiro256** generates. */
static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s) {
    return kb_fnv1a64(KB_FNV1A64_INIT, s, s ? strlen(s) : 0);
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

void kb_rng_seed(kb_rng *r, uint64_t seed, const char *stream) {
    uint64_t x = seed ^ fnv1a(stream);
    for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&x);
}

uint64_t kb_rng_next(kb_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double kb_rng_uniform(kb_rng *r) {
    return (double)(kb_rng_next(r) >> 11) * 0x1p-53;
}

double kb_rng_normal(kb_rng *r) {
    /* Box-Muller; 1 - u keeps the logarithm's argument in (0, 1]. */
    double u = 1.0 - kb_rng_uniform(r), v = kb_rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

void kb_rng_fill(double *values, size_t n, const kb_tensor_spec *t, uint64_t seed) {
    kb_rng r;
    kb_rng_seed(&r, seed, t->name);
    for (size_t i = 0; i < n; ++i)
        values[i] = t->dist == KB_DIST_UNIFORM ? t->a + (t->b - t->a) * kb_rng_uniform(&r)
                                               : t->a + t->b * kb_rng_normal(&r);
}
