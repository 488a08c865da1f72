/* What a kernel owns: its tensors, its double-precision reference and its
 * implementations. The harness owns everything else (inputs, timing, checks,
 * baselines, reports).
 *
 * A kernel folder holds its whole story: kernel.json (its name, cases and
 * tolerances), <name>.c, which ends with KB_REGISTER_KERNEL(), reference.c,
 * which ends with KB_REGISTER_REFERENCE(), and optionally <name>.cu, its GPU
 * implementations. The name is written once, in the manifest; the build
 * hands it to the driver (kb/build.h). See docs/adding-a-kernel.md. */
#ifndef KB_KERNEL_H
#define KB_KERNEL_H

#include "kb/prec.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KB_MAX_TENSORS 8
#define KB_MAX_DIMS    8
#define KB_MAX_IMPLS   8

/* One case of the manifest: a name and named integer dimensions. */
typedef struct kb_case kb_case;

/* The value of dimension `name` of case `c`. A dimension the manifest does not
 * define is an error the harness reports (naming the manifest, the case and
 * the dimension) once the kernel's callback returns; the call returns 1 so the
 * callback can finish without special handling. */
int64_t kb_case_dim(const kb_case *c, const char *name);
const char *kb_case_name(const kb_case *c);

/* The number of threads case c runs with: the manifest's "threads" for it
 * (1 when the manifest says nothing; "all" is every CPU the process was
 * allowed when it started). The harness pins the process to that many
 * CPUs while the case runs, so a multithreaded implementation starts
 * exactly this many threads (OpenMP: num_threads(kb_case_threads(a->c)))
 * and a single-threaded one can ignore it. */
int kb_case_threads(const kb_case *c);

/* How an input tensor is filled (from the run's seed and the tensor's name). */
typedef enum kb_dist { KB_DIST_NORMAL = 0, KB_DIST_UNIFORM } kb_dist;

typedef struct kb_tensor_spec {
    const char *name;
    size_t count; /* elements */
    kb_dist dist;
    double a, b; /* normal: mean, stddev; uniform: low, high */
} kb_tensor_spec;

/* The tensors of one case, declared by the kernel's layout callback. */
typedef struct kb_layout {
    int n_in, n_out;
    kb_tensor_spec in[KB_MAX_TENSORS];
    kb_tensor_spec out[KB_MAX_TENSORS];
    size_t workspace_bytes;
} kb_layout;

void kb_layout_input(kb_layout *l, const char *name, size_t count, kb_dist dist, double a,
                     double b);
void kb_layout_output(kb_layout *l, const char *name, size_t count);
/* Scratch memory an implementation needs per call (row buffers, partial
 * sums). The backend allocates it once per case, outside the timed region,
 * where it keeps its other buffers; its contents are undefined on entry. */
void kb_layout_workspace(kb_layout *l, size_t bytes);

/* Bytes rounded up to a cache line: pieces carved from the workspace at such
 * offsets each start on a 64-byte boundary, as the workspace itself does. */
static inline size_t kb_workspace_align(size_t bytes) {
    return (bytes + 63) / 64 * 64;
}

/* Arguments of one implementation call: buffers in declaration order, in the
 * run's precision, resident where the backend keeps its memory. */
typedef struct kb_args {
    const kb_case *c;
    kb_prec prec;
    const void *in[KB_MAX_TENSORS];
    void *out[KB_MAX_TENSORS];
    void *workspace; /* kb_layout_workspace() bytes, aligned to 64; NULL if none */
    size_t workspace_bytes;
    void *stream; /* GPU backends: the stream to launch on (timed there); NULL on the CPU */
    /* The capacity of the backend's largest cache (0: unknown): an output
     * that does not fit in it beside the kernel's input reaches memory
     * whatever the kernel does, and may be written past the caches
     * (kb_cpu_streams, kb/cpu.h). */
    size_t last_cache_bytes;
} kb_args;

/* Reference: inputs and outputs in double, same order as the layout. */
typedef void (*kb_reference_fn)(const kb_case *c, const double *const *in, double *const *out);
/* Implementation: returns 0, or non-zero after printing what went wrong. */
typedef int (*kb_impl_fn)(const kb_args *a);

typedef struct kb_impl {
    const char *backend; /* "cpu", "cuda", "hip" */
    const char *variant; /* "default" unless the kernel compares variants */
    kb_impl_fn run;
} kb_impl;

typedef struct kb_kernel {
    void (*layout)(const kb_case *c, kb_layout *l);
    kb_impl impls[KB_MAX_IMPLS];
} kb_kernel;

/* The kernel linked into this driver; defined by KB_REGISTER_KERNEL. */
const kb_kernel *kb_this_kernel(void);

#define KB_REGISTER_KERNEL(def)                                                                    \
    const kb_kernel *kb_this_kernel(void) {                                                        \
        return &(def);                                                                             \
    }

/* The double-precision reference linked into this driver; defined by
 * KB_REGISTER_REFERENCE in the kernel folder's reference.c, so that the
 * reference stays a file of its own that no other file names. */
kb_reference_fn kb_this_reference(void);

#define KB_REGISTER_REFERENCE(fn)                                                                  \
    kb_reference_fn kb_this_reference(void) {                                                      \
        return fn;                                                                                 \
    }

/* What an implementation returns when it cannot run this case here (a
 * precision the device lacks, a shape beyond what it handles): the harness
 * reports the case as skipped with the reason, and the test exits 77 when
 * every case skipped. kb_unsupported() records the reason (printf-style)
 * and returns KB_UNSUPPORTED. */
#define KB_UNSUPPORTED 77
int kb_unsupported(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The reason given by the last kb_unsupported() call ("" if none). */
const char *kb_unsupported_reason(void);

/* Adds an implementation defined in another file of the driver (a kernel's
 * GPU source, built once per GPU backend) to the kernel's own list. Called
 * at load time through KB_GPU_REGISTER_IMPL (kb/gpu.h); returns 0, or -1
 * when KB_MAX_IMPLS are already registered. */
int kb_register_impl(const char *backend, const char *variant, kb_impl_fn fn);

/* The i-th implementation registered so, or NULL past the last. */
const kb_impl *kb_registered_impl(int i);

/* Registers fn as the kernel's `backend` implementation named `variant` from
 * a C file of the kernel folder other than the one with KB_REGISTER_KERNEL
 * (a library variant in a file of its own, say), when the driver loads, as
 * KB_GPU_REGISTER_IMPL does for a GPU source. fn must be a plain identifier
 * (it names the registering function). A driver with more than
 * KB_MAX_IMPLS such registrations stops before main() with a message. */
#define KB_REGISTER_IMPL(backend, variant, fn)                                                     \
    __attribute__((constructor)) static void kb__register_##fn(void) {                             \
        kb__register_or_exit((backend), (variant), (fn), #fn);                                     \
    }

/* KB_REGISTER_IMPL's body: kb_register_impl, or a message and exit(2). */
void kb__register_or_exit(const char *backend, const char *variant, kb_impl_fn fn,
                          const char *name);

#ifdef __cplusplus
}
#endif

#endif
