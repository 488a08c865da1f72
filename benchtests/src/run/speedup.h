/* Variant comparisons: a fused (or library, or folded) variant against the
 * variant its manifest entry names in "compare_to", case by case. */
#ifndef KB_SPEEDUP_H
#define KB_SPEEDUP_H

#include "formats/manifest.h"
#include "run/runner.h"

/* Fills res[i].measured.cmp for every result whose variant is compared with another
 * and whose partner ran and passed on the same case. */
void kb_compare_variants(const kb_manifest *m, kb_case_result *res, int n);

/* The variant that wraps the library a user would otherwise call. */
#define KB_VENDOR_VARIANT "vendor"

/* Sets res[i].measured.vendor_speedup to the "vendor" variant's median over this
 * one's on the same case, for every variant but the vendor's, where the
 * vendor ran the case (not declined, no error); -1 otherwise. */
void kb_compare_vendor(kb_case_result *res, int n);

#endif
