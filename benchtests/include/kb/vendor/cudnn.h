/* cuDNN for the kernels' "vendor" variants on CUDA (docs/vendor.md, "On
 * CUDA: cuDNN and cuBLAS"): one handle per driver, bound to the harness's stream; the
 * library's data type of each storage type; its failures checked, and what
 * it cannot do declined (kb_unsupported) rather than failed. Include only
 * under KB_HAVE_CUDNN (the manifest's "libraries" has "cudnn" and configure
 * found it); CUDA only. */
#ifndef KB_GPU_CUDNN_H
#define KB_GPU_CUDNN_H

#include "kb/gpu.h"

#include <cudnn.h>

/* cuDNN's type for storage type S; alpha and beta are kb_acc<S>::type
 * (double for double data, float otherwise, as cuDNN requires). */
template <typename S> struct kb_cudnn_type;
template <> struct kb_cudnn_type<double> {
    static constexpr cudnnDataType_t data = CUDNN_DATA_DOUBLE;
};
template <> struct kb_cudnn_type<float> {
    static constexpr cudnnDataType_t data = CUDNN_DATA_FLOAT;
};
template <> struct kb_cudnn_type<kb_f16> {
    static constexpr cudnnDataType_t data = CUDNN_DATA_HALF;
};
template <> struct kb_cudnn_type<kb_bf16> {
    static constexpr cudnnDataType_t data = CUDNN_DATA_BFLOAT16;
};

/* After a failed cuDNN call: a status of the NOT_SUPPORTED family (cuDNN 9
 * numbers them 3000..3999: no kernel for this type, shape or layout)
 * declines the case with the library's words; any other is an error,
 * printed, and the implementation returns 1. */
static inline int kb_cudnn_failed(cudnnStatus_t st, const char *what) {
    if (st / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000)
        return kb_unsupported("cuDNN %zu: %s: %s", cudnnGetVersion(), what,
                              cudnnGetErrorString(st));
    fprintf(stderr, "cuDNN: %s: %s\n", what, cudnnGetErrorString(st));
    return 1;
}

#define KB_CUDNN(call, what)                                                                       \
    do {                                                                                           \
        const cudnnStatus_t st_ = (call);                                                          \
        if (st_ != CUDNN_STATUS_SUCCESS) return kb_cudnn_failed(st_, (what));                      \
    } while (0)

/* The driver's handle: created by the first call (the harness's untimed
 * warm-up comes first), destroyed at exit (before the runtime's own
 * teardown, which was registered earlier), and bound to `stream` on every
 * call. NULL after printing why. */
static inline cudnnHandle_t kb_cudnn_handle(kb_gpu_stream stream) {
    static struct holder {
        cudnnHandle_t h = nullptr;
        ~holder() {
            if (h && cudnnDestroy(h) != CUDNN_STATUS_SUCCESS)
                fprintf(stderr, "cuDNN: cudnnDestroy failed\n");
        }
    } hold;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (!hold.h && (st = cudnnCreate(&hold.h)) != CUDNN_STATUS_SUCCESS) {
        hold.h = nullptr;
        fprintf(stderr, "cuDNN: cudnnCreate: %s\n", cudnnGetErrorString(st));
        return nullptr;
    }
    if ((st = cudnnSetStream(hold.h, stream)) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "cuDNN: cudnnSetStream: %s\n", cudnnGetErrorString(st));
        return nullptr;
    }
    return hold.h;
}

/* A tensor descriptor of the driver's lifetime: descriptors are host
 * objects, kept so a timed call only sets them (no allocation). */
struct kb_cudnn_tensor {
    cudnnTensorDescriptor_t d = nullptr;
    ~kb_cudnn_tensor() {
        if (d) cudnnDestroyTensorDescriptor(d);
    }
    /* 0, or the implementation's return value after a failure. */
    template <typename S> int set_nchw(int n, int c, int h, int w) {
        if (!d) KB_CUDNN(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor");
        KB_CUDNN(
            cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, kb_cudnn_type<S>::data, n, c, h, w),
            "cudnnSetTensor4dDescriptor");
        return 0;
    }
};

#endif
