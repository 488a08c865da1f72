/* The core probes: loops of fp64 multiply-adds the machine model times
 * (machine/model.h). Written as a multiply and an add, which the kernels' flags
 * (-ffp-contract=off) keep apart as they keep the kernels' own, and built
 * with those flags (KBENCH_KERNEL_FLAGS: -march=native where enabled), so
 * they run on the vector units the kernels run on, with no library call
 * whatever the target. */
#ifndef KB_PROBE_CORE_H
#define KB_PROBE_CORE_H

/* Independent accumulators per step of kb_probe_madd_steps: enough to keep
 * two pipes of 4-wide vectors busy through a multiply-add's latency. */
#define KB_PROBE_MADD_LANES 32

/* `steps` steps of KB_PROBE_MADD_LANES independent multiply-adds (2 flops
 * each). */
void kb_probe_madd_steps(long steps);

/* `steps` multiply-adds, each depending on the one before: one per
 * multiply-add latency, so the rate follows the core's clock. */
void kb_probe_chain_steps(long steps);

#endif
