/* The multiply-add throughput probe of the GPU backends (the compute roof of
 * the roofline, docs/gpu-timing.md "GPU roofs"): its launch geometry and the flops
 * it does, in plain C so a machine without a GPU unit-tests them
 * (benchtests/tests/test_gpu_peak.c). The device code is
 * benchtests/src/backend/gpu_roofs.cu.
 *
 * Each thread runs KB_PEAK_CHAINS independent multiply-add chains
 * (acc = acc * a + b) for `iters` trips of KB_PEAK_UNROLL steps: enough
 * independent instructions per warp to hide the pipe's latency, few enough
 * loop instructions (one counter per KB_PEAK_UNROLL * KB_PEAK_CHAINS
 * multiply-adds) not to steal issue slots. One instruction is `lanes`
 * multiply-adds (2 for the packed half2 / bfloat162 forms), two flops each. */
#ifndef KB_GPU_PEAK_H
#define KB_GPU_PEAK_H

#define KB_PEAK_THREADS 256 /* threads per block: whole warps of 32 and of 64 */
#define KB_PEAK_CHAINS  8   /* independent accumulators per thread */
#define KB_PEAK_UNROLL  16  /* multiply-add steps per chain and loop trip */

/* Threads per multiprocessor assumed when the runtime cannot say: sm_80,
 * sm_90 and AMD gfx9 CUs all hold 2048. */
#define KB_PEAK_DEFAULT_THREADS_PER_SM 2048

typedef struct {
    long long blocks; /* one full wave: every block resident at once */
    int threads;      /* per block */
    long long iters;  /* loop trips per thread */
    int lanes;        /* multiply-adds per instruction */
} kb_gpu_fma_plan;

/* The geometry for a device of `sms` multiprocessors holding
 * `threads_per_sm` threads each (<= 0: the default): as many blocks as are
 * resident at once, so every multiprocessor runs full for the whole launch
 * and none waits for a second wave. */
static inline kb_gpu_fma_plan kb_gpu_fma_plan_for(int sms, int threads_per_sm, int lanes,
                                                  long long iters) {
    kb_gpu_fma_plan p;
    const int per_sm = threads_per_sm > 0 ? threads_per_sm : KB_PEAK_DEFAULT_THREADS_PER_SM;
    const int blocks_per_sm = per_sm >= KB_PEAK_THREADS ? per_sm / KB_PEAK_THREADS : 1;
    p.blocks = (long long)(sms > 0 ? sms : 1) * blocks_per_sm;
    p.threads = KB_PEAK_THREADS;
    p.iters = iters > 0 ? iters : 1;
    p.lanes = lanes;
    return p;
}

/* The floating-point operations of one launch: two per multiply-add. The
 * final sum of the chains (KB_PEAK_CHAINS - 1 adds per thread, against
 * iters * KB_PEAK_UNROLL * KB_PEAK_CHAINS multiply-adds) is not counted. */
static inline double kb_gpu_fma_flops(const kb_gpu_fma_plan *p) {
    return 2.0 * (double)p->blocks * p->threads * (double)p->iters * KB_PEAK_UNROLL *
           KB_PEAK_CHAINS * p->lanes;
}

/* Loop trips for the next timing run: the last run took `ms` for `iters`;
 * aim at `target_ms`, growing at most 64x per step (a first run of a few
 * microseconds is mostly launch overhead), never shrinking, never past
 * 2^40 (a count of size_t range the kernel's 64-bit counter holds). */
static inline long long kb_gpu_fma_next_iters(long long iters, double ms, double target_ms) {
    double scale = ms > 0 ? target_ms / ms : 64.0;
    if (scale > 64.0) scale = 64.0;
    if (scale < 1.0) scale = 1.0;
    double next = (double)iters * scale;
    if (next > 1099511627776.0) next = 1099511627776.0;
    return (long long)next;
}

#endif
