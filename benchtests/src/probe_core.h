/* The core probes: loops of fp64 FMAs the machine model times (machine.h).
 * Built with the kernels' flags (KBENCH_KERNEL_FLAGS: -march=native where
 * enabled), so they run on the vector units the kernels run on. */
#ifndef KB_PROBE_CORE_H
#define KB_PROBE_CORE_H

/* Independent accumulators per step of kb_probe_fma_steps: enough to keep
 * two FMA pipes of 4-wide vectors busy through a 4-cycle latency. */
#define KB_PROBE_FMA_LANES 32

/* `steps` steps of KB_PROBE_FMA_LANES independent FMAs (2 flops each). */
void kb_probe_fma_steps(long steps);

/* `steps` FMAs, each depending on the one before: one per FMA latency, so
 * the rate follows the core's clock. */
void kb_probe_chain_steps(long steps);

#endif
