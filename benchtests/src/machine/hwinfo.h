/* What the host CPU is, precisely enough to tell two machines apart: the
 * profile slug names the baseline directory, the hardware id is stored with
 * every baseline entry and must match before latencies are compared. */
#ifndef KB_HWINFO_H
#define KB_HWINFO_H

#include <stddef.h>

typedef struct kb_cpu_info {
    char model_name[128];
    char vendor[32];
    int family, model, stepping;
    int ncpu;
    long l2_kib, l3_kib;
    long l1d_kib;  /* the first level's data cache; not part of the hardware id */
    int tsc_mhz;   /* nominal frequency from the boot-time calibration, rounded */
    char isa[160]; /* the vector ISA extensions present, space separated */
} kb_cpu_info;

void kb_cpu_info_read(kb_cpu_info *ci);

/* e.g. "amd-epyc-fam25-model17-2cpu" */
void kb_cpu_profile(const kb_cpu_info *ci, char *out, size_t size);

/* e.g. "AMD EPYC|25/17/1|2 cpu|L2 1024 KiB|L3 32768 KiB|2596 MHz|avx2 avx512f ..." */
void kb_cpu_hardware_id(const kb_cpu_info *ci, char *out, size_t size);

/* Lower-case, runs of anything but letters and digits become one '-',
 * "(R)"/"(TM)" dropped. */
void kb_slugify(const char *in, char *out, size_t size);

#endif
