/* The buffers of one case, from its layout to their release: inputs drawn
 * from the case's seed and rounded to the run's precision, the reference
 * computed on those rounded values (or shared by the reference cache), and
 * outputs poisoned first so that an element the kernel never wrote shows.
 * Kept apart from the timing so that a round can move them to fresh memory
 * without knowing what they hold. */
#include "run/case_buffers.h"

#include "base/rng.h"
#include "formats/case.h"
#include "guard/watchdog.h"
#include "measure/refcache.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The elements of every input and output tensor of the layout. */
static double layout_elements(const kb_layout *l) {
    double n = 0.0;
    for (int i = 0; i < l->n_in; ++i) n += (double)l->in[i].count;
    for (int i = 0; i < l->n_out; ++i) n += (double)l->out[i].count;
    return n;
}

/* Host bytes a case holds at once, roughly: per element of every tensor
 * the fp64 values (inputs) or reference (outputs), a host copy in the run's
 * precision, and the buffer the kernel uses (on the CPU backend, host
 * memory too); and the workspace. */
static double host_bytes(const kb_layout *l, size_t elem) {
    return (double)l->workspace_bytes + (8.0 + 2.0 * (double)elem) * layout_elements(l);
}

/* A case that needs more than the machine's memory fails before anything is
 * allocated: a large allocation may succeed (overcommit) and the process be
 * killed when it is touched, with nothing reported. */
static int check_host_memory(const kb_run_ctx *ctx, const kb_case *c, const kb_layout *l,
                             kb_err *err) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = host_bytes(l, kb_prec_size(ctx->prec));
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    if (have == 0.0 || need <= have) return 0;
    return kb_fail(err,
                   "%s: case '%s' would run out of host memory: its buffers and reference need "
                   "%.3g GiB, this machine has %.3g GiB",
                   ctx->manifest->path, c->name, need / 1073741824.0, have / 1073741824.0);
}

/* Element counts the buffers below can hold without their byte sizes
 * (count x 8 for the fp64 reference) wrapping: a kernel computes them from
 * the case's dims, which the manifest bounds one by one. */
static int check_layout(const kb_run_ctx *ctx, const kb_case *c, const kb_layout *l, kb_err *err) {
    const kb_tensor_spec *t[2 * KB_MAX_TENSORS];
    int n = 0;
    for (int i = 0; i < l->n_in; ++i) t[n++] = &l->in[i];
    for (int i = 0; i < l->n_out; ++i) t[n++] = &l->out[i];
    for (int i = 0; i < n; ++i) {
        if (t[i]->count <= (size_t)KB_CASE_MAX_ELEMENTS) continue;
        return kb_fail(err,
                       "%s: case '%s': tensor '%s' of kernel '%s' would hold %zu elements, more "
                       "than %lld",
                       ctx->manifest->path, c->name, t[i]->name, ctx->kernel_name, t[i]->count,
                       (long long)KB_CASE_MAX_ELEMENTS);
    }
    return check_host_memory(ctx, c, l, err);
}

int kb_case_buffers_layout(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf,
                           double *footprint, double *written, kb_err *err) {
    kb_case local = *c;
    kb_case_miss miss = {{0}};
    local.miss = &miss;
    ctx->kernel->layout(&local, &bf->layout);
    if (miss.dim[0])
        return kb_fail(err, "%s: case '%s': no dim '%s' (kernel '%s' needs it)",
                       ctx->manifest->path, c->name, miss.dim, ctx->kernel_name);
    *footprint = layout_elements(&bf->layout) * (double)kb_prec_size(ctx->prec);
    double out = 0.0;
    for (int i = 0; i < bf->layout.n_out; ++i) out += (double)bf->layout.out[i].count;
    *written = out * (double)kb_prec_size(ctx->prec);
    return check_layout(ctx, c, &bf->layout, err);
}

/* Generates one input, rounds it to the run's precision, uploads it, and
 * leaves the rounded values in `values` for the reference. */
static int make_input(const kb_run_ctx *ctx, const kb_tensor_spec *t, double *values, void **dev,
                      kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec), bytes = t->count * elem;
    kb_rng_fill(values, t->count, t, ctx->settings->seed);
    void *host = malloc(bytes ? bytes : 1);
    if (!host) return kb_fail(err, "out of host memory for input '%s'", t->name);
    for (size_t i = 0; i < t->count; ++i) {
        kb_store_f64(host, ctx->prec, i, values[i]);
        values[i] = kb_load_f64(host, ctx->prec, i);
    }
    *dev = ctx->backend->alloc(bytes, err);
    int rc = *dev ? ctx->backend->upload(*dev, host, bytes, err) : -1;
    free(host);
    return rc;
}

/* The reference outputs of case c on the inputs in values: shared by the
 * cache when an earlier variant of the case computed them. */
static int make_reference(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf,
                          double *const *values, kb_err *err) {
    if (kb_ref_cache_lend(ctx->refs, c, &bf->layout, bf->ref_out)) {
        bf->ref_shared = 1;
        return 0;
    }
    kb_ref_cache_drop_idle(ctx->refs); /* the previous case's, before this one's */
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t n = bf->layout.out[i].count ? bf->layout.out[i].count : 1;
        bf->ref_out[i] = malloc(n * sizeof(double));
        if (!bf->ref_out[i]) return kb_fail(err, "out of host memory for the reference");
    }
    kb_watchdog_stage(KB_STAGE_REFERENCE);
    ctx->reference(c, (const double *const *)values, bf->ref_out);
    kb_watchdog_stage(KB_STAGE_SETUP);
    bf->ref_shared = kb_ref_cache_offer(ctx->refs, c, &bf->layout, bf->ref_out);
    return 0;
}

static int make_inputs_and_reference(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf,
                                     kb_err *err) {
    double *values[KB_MAX_TENSORS] = {0};
    int rc = 0;
    for (int i = 0; i < bf->layout.n_in && rc == 0; ++i) {
        const kb_tensor_spec *t = &bf->layout.in[i];
        values[i] = malloc((t->count ? t->count : 1) * sizeof(double));
        rc = values[i] ? make_input(ctx, t, values[i], &bf->dev_in[i], err)
                       : kb_fail(err, "out of host memory for input '%s'", t->name);
        bf->args.in[i] = bf->dev_in[i];
    }
    if (rc == 0) rc = make_reference(ctx, c, bf, values, err);
    for (int i = 0; i < bf->layout.n_in; ++i) free(values[i]);
    return rc;
}

static int make_outputs(const kb_run_ctx *ctx, kb_case_buffers *bf, kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t bytes = bf->layout.out[i].count * elem;
        bf->host_out[i] = malloc(bytes ? bytes : 1);
        if (!bf->host_out[i]) return kb_fail(err, "out of host memory for an output");
        kbref_poison(bf->host_out[i], ctx->prec, bf->layout.out[i].count);
        bf->dev_out[i] = ctx->backend->alloc(bytes, err);
        if (!bf->dev_out[i] || ctx->backend->upload(bf->dev_out[i], bf->host_out[i], bytes, err))
            return -1;
        bf->args.out[i] = bf->dev_out[i];
    }
    return 0;
}

static int make_workspace(const kb_run_ctx *ctx, kb_case_buffers *bf, kb_err *err) {
    bf->args.workspace_bytes = bf->layout.workspace_bytes;
    if (bf->layout.workspace_bytes == 0) return 0;
    bf->args.workspace = ctx->backend->alloc(bf->layout.workspace_bytes, err);
    return bf->args.workspace ? 0 : -1;
}

/* The capacity of the backend's largest cache, 0 when it names none; asked
 * once per process (the CPU backend reads it from sysfs), not per case. */
static size_t last_cache_bytes(const kb_backend *b) {
    static const kb_backend *asked;
    static size_t top;
    if (b == asked) return top;
    kb_mem_level levels[KB_MAX_MEM_LEVELS];
    int n = b->memory_levels ? b->memory_levels(levels, KB_MAX_MEM_LEVELS) : 0;
    top = 0;
    for (int i = 0; i < n; ++i)
        if (levels[i].capacity > (double)top) top = (size_t)levels[i].capacity;
    asked = b;
    return top;
}

int kb_case_buffers_make(const kb_run_ctx *ctx, const kb_case *c, kb_case_buffers *bf,
                         kb_err *err) {
    if (make_inputs_and_reference(ctx, c, bf, err) != 0 || make_outputs(ctx, bf, err) != 0 ||
        make_workspace(ctx, bf, err) != 0)
        return -1;
    bf->args.c = c;
    bf->args.prec = ctx->prec;
    bf->args.stream = ctx->backend->stream ? ctx->backend->stream() : NULL;
    bf->args.last_cache_bytes = last_cache_bytes(ctx->backend);
    return 0;
}

int kb_case_buffers_check(const kb_run_ctx *ctx, kb_case_buffers *bf, kbref_accuracy *acc,
                          kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    memset(acc, 0, sizeof *acc);
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t n = bf->layout.out[i].count;
        if (ctx->backend->download(bf->host_out[i], bf->dev_out[i], n * elem, err) != 0) return -1;
        kbref_accuracy_add(acc, bf->host_out[i], ctx->prec, bf->ref_out[i], n);
    }
    kbref_accuracy_finish(acc);
    return 0;
}

/* Copies a buffer's contents into another of the backend's buffers: with
 * the backend's own copy where it has one (memcpy on the CPU), else through
 * the host. Returns 0, 1 when host memory for that is short, -1 on error. */
static int copy_buffer(const kb_run_ctx *ctx, void *dst, const void *src, size_t bytes,
                       kb_err *err) {
    double ms;
    if (ctx->backend->time_copy)
        return ctx->backend->time_copy(dst, src, bytes, 1, &ms) == 0
                   ? 0
                   : kb_fail(err, "copying a buffer to fresh memory failed");
    void *host = malloc(bytes ? bytes : 1);
    if (!host) return 1;
    int rc = ctx->backend->download(host, src, bytes, err) == 0 &&
                     ctx->backend->upload(dst, host, bytes, err) == 0
                 ? 0
                 : -1;
    free(host);
    return rc;
}

/* Gives one buffer a fresh allocation, with the same contents when `keep`
 * (the workspace's are undefined on entry: nothing to copy). The new one is
 * made before the old one is released, so it lands on other pages; when
 * memory is too short for both, the buffer stays where it is. */
static int move_buffer(const kb_run_ctx *ctx, void **dev, size_t bytes, int keep, kb_err *err) {
    kb_err ignored;
    void *fresh = ctx->backend->alloc(bytes, &ignored);
    if (!fresh) return 0;
    int rc = keep ? copy_buffer(ctx, fresh, *dev, bytes, err) : 0;
    ctx->backend->release(rc == 0 ? *dev : fresh);
    if (rc == 0) *dev = fresh;
    return rc < 0 ? -1 : 0;
}

/* A round that does not inherit the previous round's placement in memory
 * (cache sets, pages, NUMA node) needs every buffer moved. */
int kb_case_buffers_move(const kb_run_ctx *ctx, kb_case_buffers *bf, kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    for (int i = 0; i < bf->layout.n_in; ++i) {
        if (move_buffer(ctx, &bf->dev_in[i], bf->layout.in[i].count * elem, 1, err) != 0) return -1;
        bf->args.in[i] = bf->dev_in[i];
    }
    for (int i = 0; i < bf->layout.n_out; ++i) {
        if (move_buffer(ctx, &bf->dev_out[i], bf->layout.out[i].count * elem, 1, err) != 0)
            return -1;
        bf->args.out[i] = bf->dev_out[i];
    }
    if (bf->args.workspace)
        return move_buffer(ctx, &bf->args.workspace, bf->args.workspace_bytes, 0, err);
    return 0;
}

void kb_case_buffers_free(const kb_run_ctx *ctx, kb_case_buffers *bf) {
    for (int i = 0; i < KB_MAX_TENSORS; ++i) {
        if (bf->dev_in[i]) ctx->backend->release(bf->dev_in[i]);
        if (bf->dev_out[i]) ctx->backend->release(bf->dev_out[i]);
        free(bf->host_out[i]);
        if (!bf->ref_shared) free(bf->ref_out[i]);
    }
    if (bf->ref_shared) kb_ref_cache_release(ctx->refs);
    if (bf->args.workspace) ctx->backend->release(bf->args.workspace);
}
