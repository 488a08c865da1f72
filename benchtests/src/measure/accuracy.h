/* Output checks against the double-precision reference. */
#ifndef KB_ACCURACY_H
#define KB_ACCURACY_H

#include "kb/prec.h"

#include <stddef.h>

typedef struct kb_accuracy {
    size_t n;           /* elements compared */
    size_t n_nonfinite; /* NaN/Inf where the reference is finite */
    size_t n_unwritten; /* still holding the poison pattern */
    size_t n_compared;  /* finite output against finite reference */
    double sum_sq;      /* of (out - ref) over the compared pairs */
    double rmse;
    double max_abs;
    size_t worst; /* index of max_abs within its tensor */
    double worst_out, worst_ref;
} kb_accuracy;

/* Fills n elements with a signalling-NaN pattern that no arithmetic or
 * conversion produces, so an element left unwritten is recognised. */
void kb_poison(void *buf, kb_prec prec, size_t n);

/* Adds one output tensor to the running comparison (call once per output),
 * then kb_accuracy_finish computes the RMSE. */
void kb_accuracy_add(kb_accuracy *acc, const void *out, kb_prec prec, const double *ref, size_t n);
void kb_accuracy_finish(kb_accuracy *acc);

#endif
