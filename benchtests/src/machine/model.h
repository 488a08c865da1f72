/* The machine model the gate normalizes by: four probe figures measured
 * beside a case, and which of them bound the case. A case whose arithmetic
 * intensity (flops per byte) is below the machine's balance (multiply-add
 * throughput per byte of streaming bandwidth) is memory-bound and moves
 * with the streaming and copy rates; above it, it is compute-bound and
 * moves with the core's multiply-add throughput and clock (docs/gate.md,
 * "Machine drift: the machine probe"). */
#ifndef KB_MODEL_H
#define KB_MODEL_H

typedef enum kb_probe_kind {
    KB_PROBE_SCALE, /* streaming dst = s * src, GB/s (read + write) */
    KB_PROBE_COPY,  /* the C library's memcpy, GB/s (read + write) */
    KB_PROBE_MADD,  /* independent fp64 multiply-adds, GFLOP/s: the core's throughput */
    KB_PROBE_CHAIN, /* one dependent multiply-add chain, Gstep/s: the core's clock */
    KB_PROBE_N
} kb_probe_kind;

/* One measurement of every figure; 0 where a figure was not measured (the
 * backend has no such probe, or it did not run). */
typedef struct kb_probe_reading {
    double v[KB_PROBE_N];
} kb_probe_reading;

const char *kb_probe_name(kb_probe_kind k); /* "scale", "copy", "madd", "chain" */
const char *kb_probe_key(kb_probe_kind k);  /* the baseline's field: "probe_gbps", ... */
const char *kb_probe_unit(kb_probe_kind k); /* "GB/s", "GFLOP/s", "Gstep/s" */

/* Raises each figure of *best to r's where r's is higher (start from all
 * 0): the best of every reading folded in. */
void kb_probe_keep_best(kb_probe_reading *best, const kb_probe_reading *r);

/* Each figure's best (highest) value over n readings, into *best. */
void kb_probe_best(const kb_probe_reading *readings, int n, kb_probe_reading *best);

typedef enum kb_bound {
    KB_BOUND_UNKNOWN, /* not recorded: the streaming probe alone is read */
    KB_BOUND_MEMORY,
    KB_BOUND_COMPUTE
} kb_bound;

const char *kb_bound_name(kb_bound b); /* "unknown", "memory", "compute" */
/* Parses a name; returns 0, or -1 when it is none of them. */
int kb_bound_parse(const char *name, kb_bound *b);

/* What bounds a case moving `bytes` and doing `flops` per call on a machine
 * that read r: its intensity (flops / byte) against the machine's balance
 * (multiply-add GFLOP/s over streaming GB/s). Both go to *intensity and
 * *balance (0 when unknown). UNKNOWN when the reading lacks either figure or the case
 * moves no bytes. */
kb_bound kb_bound_of(double bytes, double flops, const kb_probe_reading *r, double *intensity,
                     double *balance);

/* Within this factor of the machine's balance a case sits near the ridge of
 * the roofline, where neither roof alone bounds it: which side it falls on
 * flips with a few percent of either figure (the balance itself moves that
 * much between recordings on one machine), and the manifests' nominal flop
 * counts (an exp counted as one) understate the compute of such kernels. */
#define KB_RIDGE_FACTOR 4.0

/* Whether a case of this intensity is near the ridge of a machine of this
 * balance; 0 when either is unknown (0). */
int kb_near_ridge(double intensity, double balance);

/* The figures a case's speed moves with, into out; returns how many: SCALE
 * and COPY for memory (and for an unknown bound, whose second figure is then
 * absent from old baselines), MADD and CHAIN for compute, all four near the
 * ridge. */
int kb_drift_figures(kb_bound b, int near_ridge, kb_probe_kind out[KB_PROBE_N]);

/* How much slower the machine is for a case: the largest baseline/now ratio
 * of its figures (kb_drift_figures) known on both sides (now: the best over
 * the rounds), with the figure in *which; 1 and KB_PROBE_N when none is
 * known on both sides. */
double kb_machine_drift(kb_bound b, int near_ridge, const kb_probe_reading *base,
                        const kb_probe_reading *now, kb_probe_kind *which);

#endif
