/* The words kbench's files share, written once: the backends a manifest,
 * a baseline key, a result and --backend name, and the suffixes a
 * variant's key may carry. A new backend is one row here (and its code in
 * backend/); cmake/KbenchKernels.cmake and the schemas keep their own
 * lists, which kbench.unit.backend_names holds to this table. */
#ifndef KB_VOCAB_H
#define KB_VOCAB_H

#include <stddef.h>

/* X(id, name, gpu):
 *   id    the enum constant KB_BACKEND_<id>
 *   name  the backend's word in every file and option
 *   gpu   its implementations come from a GPU source built into a driver
 *         of its own (kbench-<kernel>-<name>); otherwise they are the
 *         kernel's C code, which every driver of the kernel contains */
/* clang-format off */
#define KB_BACKEND_LIST(X)                                                                         \
    X(CPU, "cpu", 0)                                                                               \
    X(CUDA, "cuda", 1)                                                                             \
    X(HIP, "hip", 1)
/* clang-format on */

#define KB__BACKEND_ENUM(id, name, gpu) KB_BACKEND_##id,
typedef enum kb_backend_id { KB_BACKEND_LIST(KB__BACKEND_ENUM) KB_BACKEND_N } kb_backend_id;
#undef KB__BACKEND_ENUM

/* The name; "?" for a value outside the table. */
const char *kb_backend_name(kb_backend_id id);
/* Whether `name` is a backend of the table. */
int kb_backend_known(const char *name);
/* Whether `name` is a backend of the table whose implementations are a GPU
 * source's. */
int kb_backend_gpu(const char *name);
/* Every name into out, as messages list what was expected: "cpu, cuda or
 * hip". */
void kb_backend_expected(char *out, size_t size);

/* A variant's key in the baseline and the results is
 * "<variant>[+cold][+t<threads>]": +cold for a cold-cache run
 * (--cold-cache), +t<threads> for a case run with more than one thread
 * (kb_baseline_key), so that neither is compared with a run of the other
 * kind. */
#define KB_KEY_SUFFIX_COLD    "+cold"
#define KB_KEY_SUFFIX_THREADS "+t"

/* "<variant>" or "<variant>+cold" into out. */
void kb_variant_key(char *out, size_t size, const char *variant, int cold_cache);

#endif
