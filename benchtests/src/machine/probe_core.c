#include "machine/probe_core.h"

/* Read through volatile so the compiler can neither fold the loops nor drop
 * them; the results go to a volatile sink for the same reason. */
static volatile double seed = 1.0, factor = 0.9999999, addend = 1e-9, sink;

void kb_probe_madd_steps(long steps) {
    double acc[KB_PROBE_MADD_LANES];
    const double a = factor, b = addend;
    for (int j = 0; j < KB_PROBE_MADD_LANES; ++j) acc[j] = seed + 1e-3 * j;
    for (long s = 0; s < steps; ++s)
        for (int j = 0; j < KB_PROBE_MADD_LANES; ++j) acc[j] = acc[j] * a + b;
    double sum = 0.0;
    for (int j = 0; j < KB_PROBE_MADD_LANES; ++j) sum += acc[j];
    sink = sum;
}

void kb_probe_chain_steps(long steps) {
    double x = seed;
    const double a = factor, b = addend;
    for (long s = 0; s < steps; ++s) x = x * a + b;
    sink = x;
}
