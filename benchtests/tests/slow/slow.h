/* What slow.c and slow.cu share: the work one call of a case does in this
 * driver, KB_TEST_SLOW's extra work included (slow.c says how it is read). */
#ifndef KBENCH_TESTS_SLOW_H
#define KBENCH_TESTS_SLOW_H

#include "kb/kernel.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slow_work {
    size_t n; /* elements of x and y, as the layout declared them */
    int w;    /* dependent multiply-adds per element */
} slow_work;

/* 0 and the work of a call of case c in this driver; 1 after printing why
 * KB_TEST_SLOW or the case's dims are wrong (the implementation then
 * returns 1: the case is an error, never measured without its slowdown). */
int slow_work_of(const kb_case *c, slow_work *out);

#ifdef __cplusplus
}
#endif

#endif
