/* oneDNN for a kernel's "vendor" variant on the CPU: a manifest listing
 * "onednn" in "libraries" gets oneDNN and OpenMP linked into its CPU side and
 * KB_HAVE_ONEDNN defined (docs/vendor.md).
 *
 * The kernel API has no per-case setup, so a variant keeps its primitives in
 * a kb_dnnl_plan keyed by the case's shape and precision: the first call of
 * a case (the harness's checked run, untimed) builds them, the timed calls
 * only point the memory objects at the call's buffers (the harness moves the
 * buffers between rounds) and execute. oneDNN runs on the calling thread
 * only, with a scratchpad the plan owns, so no timed call allocates.
 *
 * A precision oneDNN cannot run here is declined with the reason: fp64 has
 * no oneDNN data type; fp16/bf16 are declined with oneDNN's own answer when
 * it has no implementation for them on this CPU. Every other failing status
 * is an error naming the call and the status. */
#ifndef KB_ONEDNN_H
#define KB_ONEDNN_H

#include "kb/kernel.h"
#include "kb/prec.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_DNNL_MAX_ARGS 8
#define KB_DNNL_MAX_OPS  4
#define KB_DNNL_MAX_KEY  8

/* One primitive and its memory objects (created without buffers: each call
 * gives them its own), in the order the variant passes buffers to
 * kb_dnnl_op_run; its scratchpad is the last argument. */
typedef struct kb_dnnl_op {
    dnnl_primitive_t prim;
    int n_args; /* the variant's arguments, scratchpad excluded */
    dnnl_exec_arg_t args[KB_DNNL_MAX_ARGS + 1];
    void *scratchpad;
} kb_dnnl_op;

/* What a variant builds for one case: its primitives and host memory of its
 * own (folded weights, float copies), kept until the shape changes. */
typedef struct kb_dnnl_plan {
    int ready;
    int64_t key[KB_DNNL_MAX_KEY];
    kb_dnnl_op op[KB_DNNL_MAX_OPS];
    void *host;
} kb_dnnl_plan;

/* 0 for success; otherwise prints what failed, with oneDNN's status, and
 * returns -1. */
static inline int kb_dnnl_check(dnnl_status_t st, const char *what) {
    if (st == dnnl_success) return 0;
    fprintf(stderr, "oneDNN: %s failed: %s\n", what, dnnl_status2str(st));
    return -1;
}

/* The CPU engine and stream, created on first use. Debian's oneDNN runs its
 * parallel regions with OpenMP: omp_set_num_threads(1) sets the calling
 * thread's team size (not the process environment) and the harness times
 * on this thread, so oneDNN runs on the one pinned CPU, as the kernels do. */
static inline int kb_dnnl_context(dnnl_engine_t *engine, dnnl_stream_t *stream) {
    static dnnl_engine_t e;
    static dnnl_stream_t s;
    omp_set_num_threads(1);
    if (omp_get_max_threads() != 1) {
        fprintf(stderr, "oneDNN: OpenMP still runs %d threads after omp_set_num_threads(1)\n",
                omp_get_max_threads());
        return -1;
    }
    if (!e && kb_dnnl_check(dnnl_engine_create(&e, dnnl_cpu, 0), "dnnl_engine_create") != 0)
        return -1;
    if (!s &&
        kb_dnnl_check(dnnl_stream_create(&s, e, dnnl_stream_default_flags), "dnnl_stream_create"))
        return -1;
    *engine = e;
    *stream = s;
    return 0;
}

/* oneDNN's type for a kbench precision, or the case declined (fp64). */
static inline int kb_dnnl_type(kb_prec p, dnnl_data_type_t *dt) {
    switch (p) {
    case KB_FP32: *dt = dnnl_f32; return 0;
    case KB_FP16: *dt = dnnl_f16; return 0;
    case KB_BF16: *dt = dnnl_bf16; return 0;
    default: *dt = dnnl_data_type_undef; break;
    }
    return kb_unsupported("oneDNN 2.6 has no %s data type (its CPU primitives take f32, f16, "
                          "bf16 and integers)",
                          p == KB_FP64 ? "f64" : "such");
}

/* A dense row-major descriptor of 1 to 4 dims. */
static inline int kb_dnnl_md(dnnl_memory_desc_t *md, int nd, const dnnl_dims_t dims,
                             dnnl_data_type_t dt) {
    static const dnnl_format_tag_t tags[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd};
    return kb_dnnl_check(dnnl_memory_desc_init_by_tag(md, nd, dims, dt, tags[nd - 1]),
                         "dnnl_memory_desc_init_by_tag");
}

static inline void kb_dnnl_op_destroy(kb_dnnl_op *op) {
    for (int i = 0; i <= op->n_args && i < KB_DNNL_MAX_ARGS + 1; i++)
        if (op->args[i].memory) dnnl_memory_destroy(op->args[i].memory);
    if (op->prim) dnnl_primitive_destroy(op->prim);
    free(op->scratchpad);
    memset(op, 0, sizeof *op);
}

/* The memory object of argument `arg` as the primitive descriptor wants it,
 * with no buffer yet. */
static inline int kb__dnnl_op_arg(kb_dnnl_op *op, const_dnnl_primitive_desc_t pd,
                                  dnnl_engine_t engine, int i, int arg) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    op->args[i].arg = arg;
    return kb_dnnl_check(md ? dnnl_memory_create(&op->args[i].memory, md, engine, DNNL_MEMORY_NONE)
                            : dnnl_invalid_arguments,
                         "dnnl_memory_create");
}

/* The scratchpad, in memory the op owns (attr's mode is user). */
static inline int kb__dnnl_op_scratchpad(kb_dnnl_op *op, const_dnnl_primitive_desc_t pd,
                                         dnnl_engine_t engine) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t bytes = md ? dnnl_memory_desc_get_size(md) : 0;
    if (!md) return kb_dnnl_check(dnnl_invalid_arguments, "querying the scratchpad");
    op->scratchpad = aligned_alloc(64, kb_workspace_align(bytes ? bytes : 1));
    if (!op->scratchpad) return kb_dnnl_check(dnnl_out_of_memory, "allocating the scratchpad");
    op->args[op->n_args].arg = DNNL_ARG_SCRATCHPAD;
    return kb_dnnl_check(
        dnnl_memory_create(&op->args[op->n_args].memory, md, engine, op->scratchpad),
        "dnnl_memory_create (scratchpad)");
}

/* The attribute every op gets: a user scratchpad and the caller's post-ops
 * (NULL: none). */
static inline int kb__dnnl_attr(dnnl_primitive_attr_t *attr, const_dnnl_post_ops_t post_ops) {
    if (kb_dnnl_check(dnnl_primitive_attr_create(attr), "dnnl_primitive_attr_create") != 0)
        return -1;
    if (kb_dnnl_check(dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user),
                      "dnnl_primitive_attr_set_scratchpad_mode") != 0 ||
        (post_ops && kb_dnnl_check(dnnl_primitive_attr_set_post_ops(*attr, post_ops),
                                   "dnnl_primitive_attr_set_post_ops") != 0)) {
        dnnl_primitive_attr_destroy(*attr);
        return -1;
    }
    return 0;
}

/* Builds op from an operation descriptor (dnnl_*_desc_t) with post_ops
 * (NULL: none) and its n arguments (DNNL_ARG_*), in the order kb_dnnl_op_run
 * takes the buffers. `what` names the operation, dt its data type. When oneDNN has no
 * implementation for it on this CPU (in practice: fp16/bf16 without the
 * instructions oneDNN 2.6 needs), the case is declined with oneDNN's
 * status; any other failure is an error. */
static inline int kb_dnnl_op_create(kb_dnnl_op *op, const void *desc,
                                    const_dnnl_post_ops_t post_ops, int n, const int *arg_ids,
                                    const char *what, dnnl_data_type_t dt) {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_attr_t attr;
    dnnl_primitive_desc_t pd = NULL;
    if (n > KB_DNNL_MAX_ARGS || kb_dnnl_context(&engine, &stream) != 0 ||
        kb__dnnl_attr(&attr, post_ops) != 0)
        return -1;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, desc, attr, engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    if (st == dnnl_unimplemented)
        return kb_unsupported("oneDNN %d.%d has no CPU implementation of %s in %s on this "
                              "machine (dnnl_primitive_desc_create: %s)",
                              dnnl_version()->major, dnnl_version()->minor, what, dnnl_dt2str(dt),
                              dnnl_status2str(st));
    if (kb_dnnl_check(st, what) != 0) return -1;
    int rc = 0;
    op->n_args = n;
    for (int i = 0; i < n && rc == 0; i++) rc = kb__dnnl_op_arg(op, pd, engine, i, arg_ids[i]);
    if (rc == 0) rc = kb__dnnl_op_scratchpad(op, pd, engine);
    if (rc == 0) rc = kb_dnnl_check(dnnl_primitive_create(&op->prim, pd), "dnnl_primitive_create");
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

/* Runs op on this call's buffers (one per argument, in kb_dnnl_op_create's
 * order) and waits for it. */
static inline int kb_dnnl_op_run(kb_dnnl_op *op, const void *const *buffers) {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    if (kb_dnnl_context(&engine, &stream) != 0) return -1;
    for (int i = 0; i < op->n_args; i++)
        if (kb_dnnl_check(dnnl_memory_set_data_handle(op->args[i].memory, (void *)buffers[i]),
                          "dnnl_memory_set_data_handle") != 0)
            return -1;
    if (kb_dnnl_check(dnnl_primitive_execute(op->prim, stream, op->n_args + 1, op->args),
                      "dnnl_primitive_execute") != 0)
        return -1;
    return kb_dnnl_check(dnnl_stream_wait(stream), "dnnl_stream_wait");
}

static inline void kb_dnnl_plan_reset(kb_dnnl_plan *plan) {
    for (int i = 0; i < KB_DNNL_MAX_OPS; i++) kb_dnnl_op_destroy(&plan->op[i]);
    free(plan->host);
    memset(plan, 0, sizeof *plan);
}

/* Host memory of the plan's own, 64-byte aligned; freed with the plan. */
static inline void *kb_dnnl_plan_host(kb_dnnl_plan *plan, size_t bytes) {
    free(plan->host);
    plan->host = aligned_alloc(64, kb_workspace_align(bytes ? bytes : 1));
    if (!plan->host) fprintf(stderr, "oneDNN variant: out of host memory (%zu bytes)\n", bytes);
    return plan->host;
}

/* The function that builds a variant's plan for the case of `a`, with the
 * variant's own parameters: 0, KB_UNSUPPORTED (declined) or -1. */
typedef int (*kb_dnnl_build)(kb_dnnl_plan *plan, const kb_args *a, const void *params);

/* Builds the plan for this case with build() unless it was built for the
 * same key (n <= KB_DNNL_MAX_KEY values: the shape, the precision). A build
 * that fails or declines leaves no plan, so the next call tries again. */
static inline int kb_dnnl_plan_get(kb_dnnl_plan *plan, const int64_t *key, int n,
                                   kb_dnnl_build build, const kb_args *a, const void *params) {
    if (plan->ready && memcmp(plan->key, key, (size_t)n * sizeof *key) == 0) return 0;
    kb_dnnl_plan_reset(plan);
    int rc = build(plan, a, params);
    if (rc != 0) {
        kb_dnnl_plan_reset(plan);
        return rc;
    }
    memcpy(plan->key, key, (size_t)n * sizeof *key);
    plan->ready = 1;
    return 0;
}

/* An elementwise operation: oneDNN's eltwise algorithm and its alpha (as
 * oneDNN defines it for that algorithm), the element count, its name. */
typedef struct kb_dnnl_map {
    dnnl_alg_kind_t alg;
    float alpha;
    size_t n;
    const char *what;
} kb_dnnl_map;

static inline int kb__dnnl_build_eltwise(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    const kb_dnnl_map *m = params;
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const dnnl_dims_t dims = {(dnnl_dim_t)m->n};
    dnnl_data_type_t dt;
    dnnl_memory_desc_t md;
    dnnl_eltwise_desc_t d;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&md, 1, dims, dt) != 0 ||
        kb_dnnl_check(
            dnnl_eltwise_forward_desc_init(&d, dnnl_forward_inference, m->alg, &md, m->alpha, 0.f),
            "dnnl_eltwise_forward_desc_init") != 0)
        return -1;
    return kb_dnnl_op_create(&plan->op[0], &d, NULL, 2, args, m->what, dt);
}

/* y = f(x), the whole vendor variant of an elementwise kernel whose x and y
 * are a->in[0] and a->out[0]. */
static inline int kb_dnnl_eltwise(const kb_args *a, kb_dnnl_plan *plan, const kb_dnnl_map *m) {
    const int64_t key[] = {(int64_t)m->n, a->prec, m->alg};
    int rc = kb_dnnl_plan_get(plan, key, 3, kb__dnnl_build_eltwise, a, m);
    if (rc != 0) return rc;
    return kb_dnnl_op_run(&plan->op[0], (const void *const[]){a->in[0], a->out[0]});
}

#endif
