/* Swish on the GPU (CUDA and HIP from this one source): y = x / (1 + e^-x),
 * an elementwise map at memory speed.
 *
 * "vendor" (CUDA with cuDNN): cudnnActivationForward with
 * CUDNN_ACTIVATION_SWISH, beta 1 (x sigmoid(1 x)), over the n elements as a
 * 1 x 1 x 1 x n tensor. */
#include "kb/gpu.h"

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
#include "kb/vendor/cudnn.h"
#endif

struct swish_op {
    template <typename T> __device__ T operator()(T x) const { return x / (T(1) + kb_exp(-x)); }
};

static int swish_gpu(const kb_args *a) {
    return kb_gpu_map(a, (size_t)kb_case_dim(a->c, "n"), swish_op(), "swish");
}

KB_GPU_REGISTER_IMPL("default", swish_gpu);

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
/* The activation descriptor, set once: swish with beta 1. */
static int swish_descriptor(cudnnActivationDescriptor_t *out) {
    static struct holder {
        cudnnActivationDescriptor_t d = nullptr;
        ~holder() {
            if (d) cudnnDestroyActivationDescriptor(d);
        }
    } hold;
    if (!hold.d) {
        KB_CUDNN(cudnnCreateActivationDescriptor(&hold.d), "cudnnCreateActivationDescriptor");
        KB_CUDNN(
            cudnnSetActivationDescriptor(hold.d, CUDNN_ACTIVATION_SWISH, CUDNN_PROPAGATE_NAN, 0.0),
            "cudnnSetActivationDescriptor(SWISH)");
        KB_CUDNN(cudnnSetActivationDescriptorSwishBeta(hold.d, 1.0),
                 "cudnnSetActivationDescriptorSwishBeta");
    }
    *out = hold.d;
    return 0;
}

static int swish_vendor(const kb_args *a) {
    int n = 0;
    int rc = kb_gpu_dim_int(a, "n", &n);
    if (rc != 0) return rc;
    const cudnnHandle_t h = kb_cudnn_handle(kb_gpu_stream_of(a));
    if (!h) return 1;
    cudnnActivationDescriptor_t act = nullptr;
    if ((rc = swish_descriptor(&act)) != 0) return rc;
    static kb_cudnn_tensor t; /* x and y alike */
    return kb_gpu_dispatch(a->prec, [&](auto type) {
        typedef typename decltype(type)::type S;
        typedef typename kb_acc<S>::type T;
        const T alpha = T(1), beta = T(0);
        const int err = t.set_nchw<S>(1, 1, 1, n);
        if (err != 0) return err;
        KB_CUDNN(cudnnActivationForward(h, act, &alpha, t.d, a->in[0], &beta, t.d, a->out[0]),
                 "cudnnActivationForward(SWISH)");
        return 0;
    });
}

KB_GPU_REGISTER_IMPL("vendor", swish_vendor);
#endif
