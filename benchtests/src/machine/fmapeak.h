/* The host CPU's multiply-add throughput in one thread: the compute roof of
 * the roofline (docs/roofline.md). The loop is chosen at run time from what
 * the CPU supports, not from the flags the harness was compiled with, so the
 * figure is the machine's whatever the build. */
#ifndef KB_FMAPEAK_H
#define KB_FMAPEAK_H

#include "kb/prec.h"

#include <stddef.h>

/* Times the widest multiply-add loop this CPU runs in `p` (fp64 or fp32;
 * fp16 and bf16 take fp32's, since kbench's CPU kernels compute in fp32 from
 * 16-bit storage): GFLOP/s into *gflops (a multiply-add counts 2) and the
 * loop's description into `how`. Each call for fp64 or fp32 times another
 * batch and gives the best over every batch of the process so far. */
void kb_fma_peak(kb_prec p, double *gflops, char *how, size_t how_size);

#endif
