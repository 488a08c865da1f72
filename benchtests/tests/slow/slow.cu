/* The slow test kernel on the GPU (CUDA and HIP from this one source; what
 * it is for and KB_TEST_SLOW: slow.c). One element per thread and pass of a
 * grid-stride loop: w dependent fmaf(t, one, zero), with one and zero kernel
 * arguments the compiler cannot see through, so the chain is executed and
 * leaves t exact. The extra work of a slowed driver comes from
 * slow_work_of() (slow.c), in w or in n. The grid is at most a
 * few waves of SLOW_THREADS-thread blocks (kb_gpu_grid), the block within
 * the launch bound, so every launch is legal by construction;
 * kb_gpu_launch() checks it all the same, and the launch. */
#include "kb/gpu.h"

#include "slow.h" /* after the runtime, as kb/gpu.h says */

#define SLOW_THREADS 256

__global__ void KB_LAUNCH_BOUNDS(SLOW_THREADS)
    slow_chain(const float *__restrict__ x, float *__restrict__ y, size_t n, int w, float one,
               float zero) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float t = x[i];
        for (int k = 0; k < w; ++k) t = fmaf(t, one, zero);
        y[i] = t;
    }
}

static int slow_gpu(const kb_args *a) {
    slow_work k;
    if (a->prec != KB_FP32) return kb_unsupported("the slow test kernel runs fp32 only");
    if (slow_work_of(a->c, &k) != 0) return 1;
    return kb_gpu_launch("slow", slow_chain, kb_dims(kb_gpu_grid(k.n, SLOW_THREADS)),
                         kb_dims(SLOW_THREADS), 0, kb_gpu_stream_of(a), (const float *)a->in[0],
                         (float *)a->out[0], k.n, k.w, 1.0f, 0.0f);
}

KB_GPU_REGISTER_IMPL("default", slow_gpu);
