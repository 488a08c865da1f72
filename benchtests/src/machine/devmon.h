/* Device monitoring while a kernel is timed: why the clocks are held down,
 * and the energy counter. NVIDIA's NVML or AMD's ROCm SMI
 * is loaded at run time with dlopen, so the harness neither links against
 * nor needs the headers of either; a machine without them (or without the
 * device) gets every query unavailable, with a one-line reason, never an
 * error. Linux only in practice: elsewhere the libraries are not found. */
#ifndef KB_DEVMON_H
#define KB_DEVMON_H

#include <stddef.h>

typedef enum kb_devmon_source { KB_DEVMON_NVML, KB_DEVMON_ROCM_SMI } kb_devmon_source;

/* Reasons the device's clocks are held down (our own bits, mapped from the vendor's). */
enum {
    KB_CLOCKS_POWER_CAP = 1u,
    KB_CLOCKS_THERMAL = 2u,
    KB_CLOCKS_HW_SLOWDOWN = 4u,
    KB_CLOCKS_POWER_BRAKE = 8u,
    KB_CLOCKS_OTHER = 16u
};

/* How many vendor entry points kb_devmon keeps (the most either vendor file needs). */
#define KB__DEVMON_FNS 8

typedef struct kb_devmon {
    kb_devmon_source source;
    int clocks_ok, energy_ok; /* which queries work for this device */
    /* One line each: why a query is unavailable ("" when it works). */
    char why_clocks[256], why_energy[256];
    /* Internal to devmon*.c. */
    void *lib;                        /* dlopen handle; NULL when not loaded */
    const char *lib_name;             /* the name it was loaded by, for messages */
    int initialized;                  /* the vendor's init succeeded: shut down on close */
    void *device;                     /* NVML: the nvmlDevice_t handle */
    unsigned index;                   /* ROCm SMI: the device index */
    void (*fn[KB__DEVMON_FNS])(void); /* entry points, typed by the vendor file that uses them */
} kb_devmon;

/* Loads the library and finds the device with this PCI bus id (as
 * cudaDeviceGetPCIBusId / hipDeviceGetPCIBusId write it, e.g.
 * "0000:3B:00.0"). Never fails hard: whatever is unavailable (library
 * missing, symbol missing, device not found, query unsupported on this
 * device) is said in why_* and the *_ok flag stays 0. Returns 0 when at least
 * one query works, -1 otherwise. Call kb_devmon_close either way. */
int kb_devmon_open(kb_devmon *m, kb_devmon_source source, const char *pci_bus_id);

/* Current clock-limiting reasons as KB_CLOCKS_* bits into *reasons (0 =
 * running free). Returns 0, -1 when unavailable/failed. */
int kb_devmon_clock_reasons(kb_devmon *m, unsigned *reasons);

/* Cumulative energy counter of the device in joules (monotonic; callers take
 * differences). 0 / -1. */
int kb_devmon_energy_j(kb_devmon *m, double *joules);

/* "power_cap,thermal" etc. for a KB_CLOCKS_* mask ("" for 0). Bits that are
 * not KB_CLOCKS_* read as "other". Always terminates buf when size > 0. */
void kb_devmon_reason_names(unsigned reasons, char *buf, size_t size);

/* Shuts the vendor library down and unloads it; m can be opened again. */
void kb_devmon_close(kb_devmon *m);

/* Pure helpers exposed for unit tests: */

/* NVML clocks-event-reason mask -> KB_CLOCKS_* (idle, application clocks
 * setting, sync boost, display clock setting are NOT limits). */
unsigned kb_devmon_nvml_reasons(unsigned long long nvml_mask);

/* "dddd:bb:dd.f" -> ROCm SMI's bdfid encoding (domain<<32 | bus<<8 |
 * device<<3 | function); 0 or -1 on malformed input. The domain may have 1
 * to 8 hex digits (NVML writes 8), bus and device exactly 2, the function 1;
 * either case. */
int kb_devmon_parse_bus_id(const char *bus_id, unsigned long long *bdfid);

/* Internal: the vendor halves of kb_devmon_open and the queries
 * (devmon_nvml.c, devmon_rsmi.c). Each open fills m->*_ok and m->why_*;
 * each query is called only when its *_ok is set. */
void kb__devmon_nvml_open(kb_devmon *m, const char *pci_bus_id);
int kb__devmon_nvml_clock_reasons(kb_devmon *m, unsigned long long *nvml_mask);
int kb__devmon_nvml_energy_j(kb_devmon *m, double *joules);
void kb__devmon_nvml_close(kb_devmon *m);

void kb__devmon_rsmi_open(kb_devmon *m, const char *pci_bus_id);
int kb__devmon_rsmi_energy_j(kb_devmon *m, double *joules);
void kb__devmon_rsmi_close(kb_devmon *m);

/* Internal: dlsym into a function-pointer slot, without the object-to-
 * function pointer cast ISO C leaves undefined. Returns 0, or -1 when the
 * library lacks the symbol (the slot is then NULL). */
int kb__devmon_sym(kb_devmon *m, int slot, const char *name);

/* Internal: format one line into m->why_clocks, m->why_energy or both. */
void kb__devmon_why_clocks(kb_devmon *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kb__devmon_why_energy(kb_devmon *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kb__devmon_why_both(kb_devmon *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
