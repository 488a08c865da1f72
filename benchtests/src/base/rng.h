/* Seeded input generation. Each tensor gets its own stream derived from the
 * run's seed and the tensor's name, so adding a tensor to a kernel does not
 * change the values of the others. */
#ifndef KB_RNG_H
#define KB_RNG_H

#include "kb/kernel.h"

#include <stdint.h>

typedef struct kb_rng {
    uint64_t s[4];
} kb_rng;

void kb_rng_seed(kb_rng *r, uint64_t seed, const char *stream);
uint64_t kb_rng_next(kb_rng *r);
/* Uniform in [0, 1). */
double kb_rng_uniform(kb_rng *r);
/* Standard normal. */
double kb_rng_normal(kb_rng *r);

/* Fills values[0..n) from the tensor's distribution. */
void kb_rng_fill(double *values, size_t n, const kb_tensor_spec *t, uint64_t seed);

#endif
