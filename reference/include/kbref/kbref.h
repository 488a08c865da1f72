/* kbench's reference library: double-precision building blocks for the
 * kernels' references (a folder's reference.c) and the accuracy checks that
 * compare a kernel's output with them. Each header is one concept; this one
 * includes them all. Built with fixed flags (-O2 -ffp-contract=off, never
 * the kernels' -march=native), so a reference gives the same values
 * whatever the kernels are compiled for. See docs/adding-a-kernel.md. */
#ifndef KBREF_KBREF_H
#define KBREF_KBREF_H

#include "kbref/activation.h"
#include "kbref/gemm.h"
#include "kbref/layernorm.h"
#include "kbref/metrics.h"
#include "kbref/softmax.h"
#include "kbref/sum.h"

#endif
