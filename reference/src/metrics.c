#include "kbref/metrics.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Signalling NaNs (quiet bit clear) with a payload no operation makes: an
 * arithmetic result or a conversion is a quiet NaN. */
static const uint64_t poison64 = 0x7ff4badbadbadbadull;
static const uint32_t poison32 = 0x7fbadbadu;
static const uint16_t poison_f16 = 0x7dadu; /* exponent all ones, quiet bit clear */
static const uint16_t poison_bf16 = 0x7fadu;

void kbref_poison(void *buf, kb_prec prec, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        switch (prec) {
        case KB_FP64: memcpy((uint64_t *)buf + i, &poison64, 8); break;
        case KB_FP32: memcpy((uint32_t *)buf + i, &poison32, 4); break;
        case KB_FP16: ((uint16_t *)buf)[i] = poison_f16; break;
        case KB_BF16: ((uint16_t *)buf)[i] = poison_bf16; break;
        default: break;
        }
    }
}

int kbref_is_poison(const void *buf, kb_prec prec, size_t i) {
    switch (prec) {
    case KB_FP64: return memcmp((const uint64_t *)buf + i, &poison64, 8) == 0;
    case KB_FP32: return memcmp((const uint32_t *)buf + i, &poison32, 4) == 0;
    case KB_FP16: return ((const uint16_t *)buf)[i] == poison_f16;
    case KB_BF16: return ((const uint16_t *)buf)[i] == poison_bf16;
    default: return 0;
    }
}

void kbref_accuracy_add(kbref_accuracy *acc, const void *out, kb_prec prec, const double *ref,
                        size_t n) {
    for (size_t i = 0; i < n; ++i) {
        acc->n++;
        if (kbref_is_poison(out, prec, i)) {
            acc->n_unwritten++;
            continue;
        }
        const double y = kb_load_f64(out, prec, i), r = ref[i];
        if (!isfinite(r)) continue; /* compared only where the reference is finite */
        if (!isfinite(y)) {
            acc->n_nonfinite++;
            continue;
        }
        const double d = fabs(y - r);
        acc->n_compared++;
        acc->sum_sq += d * d;
        if (d > acc->max_abs) {
            acc->max_abs = d;
            acc->worst = i;
            acc->worst_out = y;
            acc->worst_ref = r;
        }
    }
}

void kbref_accuracy_finish(kbref_accuracy *acc) {
    acc->rmse = acc->n_compared ? sqrt(acc->sum_sq / (double)acc->n_compared) : 0.0;
}
