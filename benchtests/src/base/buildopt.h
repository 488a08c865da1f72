/* The flags of a build that change how fast its code runs: the optimisation
 * level, the target ISA and the floating-point model. A baseline keeps the
 * C flags its kernels were compiled with; a gate that compares a build with
 * a baseline of differently optimised code says so (docs/gate.md). */
#ifndef KB_BUILDOPT_H
#define KB_BUILDOPT_H

#include <stddef.h>

/* The speed-relevant flags of `c_flags` in `out`, in a fixed form: the
 * last -O level ("-O0" when there is none, as the compiler defaults), then
 * each -march=, -mcpu=, -mtune=, ISA switch (-mavx2, -mfma, -msse4.2, ...)
 * and floating-point model flag (-ffast-math, -ffp-contract=...) once, in
 * order. */
void kb_build_opt(const char *c_flags, char *out, size_t size);

/* 1 when the C flags `c_flags` differ from `opt` (kb_build_opt's form) in
 * kb_build_opt's flags; 0 when `opt` is empty (a baseline entry that does
 * not say how its build was optimised). */
int kb_build_opt_differs(const char *c_flags, const char *opt);

#endif
