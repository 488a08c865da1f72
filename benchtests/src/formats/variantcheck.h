/* The manifest's "variants" against the implementations a driver contains:
 * a misspelt variant name would otherwise lose its bytes/flops override and
 * its comparison without a word. */
#ifndef KB_VARIANTCHECK_H
#define KB_VARIANTCHECK_H

#include "base/error.h"
#include "formats/manifest.h"
#include "kb/kernel.h"

/* impls: every implementation linked into this driver (the kernel's C ones
 * and those its GPU source registered), whatever --backend and --variant
 * select; backend: the driver's --backend. When the manifest has
 * "variants":
 *   - each implementation of a declared backend must have an entry there;
 *   - each entry must name the variant of some implementation here, unless
 *     a declared backend's implementations are not in this driver (the CPU
 *     driver lacks the GPU sources): it may be that backend's only.
 * 0, or -1 with an error naming the manifest, the field variants.<name> and
 * the implemented variants. */
int kb_check_variants(const kb_manifest *m, const char *backend, const kb_impl *const *impls,
                      int n_impls, kb_err *err);

#endif
