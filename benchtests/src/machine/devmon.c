/* The vendor-neutral half of device monitoring: our reason bits and their
 * names, and the dispatch to devmon_nvml.c and devmon_rsmi.c (which share
 * the helpers of devmon_vendor.c). */
#include "machine/devmon.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* NVML's clocks-event-reason bits, as nvml.h defines them (values read from
 * NVIDIA's header, NVML 12.2.140, vendored at github.com/NVIDIA/go-nvml
 * gen/nvml/nvml.h; the same values appear in NVIDIA's NVML API reference,
 * group nvmlClocksEventReasons). NVML 12.2 renamed the software reasons from
 * nvmlClocksThrottleReason* to nvmlClocksEventReason*; the hardware ones kept
 * the old prefix. The bits themselves did not move. A 0 in .kb marks an event
 * that is not a limit: the clocks are where they were asked to be. */
static const struct {
    unsigned long long nvml;
    unsigned kb;
} nvml_reason_map[] = {
    {0x1ull, 0},                      /* GpuIdle: nothing to run */
    {0x2ull, 0},                      /* ApplicationsClocksSetting: the requested clocks */
    {0x4ull, KB_CLOCKS_POWER_CAP},    /* SwPowerCap */
    {0x8ull, KB_CLOCKS_HW_SLOWDOWN},  /* HwSlowdown: heat, power brake or fast trigger */
    {0x10ull, 0},                     /* SyncBoost: held to a sync-boost group's clocks */
    {0x20ull, KB_CLOCKS_THERMAL},     /* SwThermalSlowdown */
    {0x40ull, KB_CLOCKS_THERMAL},     /* HwThermalSlowdown */
    {0x80ull, KB_CLOCKS_POWER_BRAKE}, /* HwPowerBrakeSlowdown */
    {0x100ull, 0},                    /* DisplayClockSetting */
};

static const struct {
    unsigned bit;
    const char *name;
} reason_names[] = {
    {KB_CLOCKS_POWER_CAP, "power_cap"},
    {KB_CLOCKS_THERMAL, "thermal"},
    {KB_CLOCKS_HW_SLOWDOWN, "hw_slowdown"},
    {KB_CLOCKS_POWER_BRAKE, "power_brake"},
    {KB_CLOCKS_OTHER, "other"},
};

#define N_OF(a) (sizeof(a) / sizeof *(a))

unsigned kb_devmon_nvml_reasons(unsigned long long nvml_mask) {
    unsigned long long known = 0;
    unsigned out = 0;
    for (size_t i = 0; i < N_OF(nvml_reason_map); ++i) {
        known |= nvml_reason_map[i].nvml;
        if (nvml_mask & nvml_reason_map[i].nvml) out |= nvml_reason_map[i].kb;
    }
    /* Newer drivers add bits (NVIDIA's current reference lists BoardLimit
     * 0x200 and Reliability 0x400); all of them are limits of some kind. */
    if (nvml_mask & ~known) out |= KB_CLOCKS_OTHER;
    return out;
}

void kb_devmon_reason_names(unsigned reasons, char *buf, size_t size) {
    if (!buf || size == 0) return;
    buf[0] = '\0';
    unsigned known = 0;
    for (size_t i = 0; i < N_OF(reason_names); ++i) known |= reason_names[i].bit;
    if (reasons & ~known) reasons |= KB_CLOCKS_OTHER;
    size_t len = 0;
    for (size_t i = 0; i < N_OF(reason_names); ++i) {
        if (!(reasons & reason_names[i].bit)) continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", reason_names[i].name);
        if (n < 0 || (size_t)n >= size - len) {
            buf[len] = '\0'; /* whole names only */
            return;
        }
        len += (size_t)n;
    }
}

int kb_devmon_open(kb_devmon *m, kb_devmon_source source, const char *pci_bus_id) {
    if (!m) return -1;
    memset(m, 0, sizeof *m);
    m->source = source;
    switch (source) {
    case KB_DEVMON_NVML: kb__devmon_nvml_open(m, pci_bus_id); break;
    case KB_DEVMON_ROCM_SMI: kb__devmon_rsmi_open(m, pci_bus_id); break;
    default: kb__devmon_why_both(m, "unknown device-monitor source %d", (int)source); break;
    }
    if (m->clocks_ok || m->energy_ok) return 0;
    /* Nothing to ask: let the library go now, keeping the why lines. */
    kb_devmon_close(m);
    return -1;
}

int kb_devmon_clock_reasons(kb_devmon *m, unsigned *reasons) {
    unsigned long long mask;
    if (!m || !reasons || !m->clocks_ok) return -1;
    /* Only NVML sets clocks_ok: see devmon_rsmi.c for why ROCm SMI does not. */
    if (kb__devmon_nvml_clock_reasons(m, &mask) != 0) return -1;
    *reasons = kb_devmon_nvml_reasons(mask);
    return 0;
}

int kb_devmon_energy_j(kb_devmon *m, double *joules) {
    if (!m || !joules || !m->energy_ok) return -1;
    return m->source == KB_DEVMON_NVML ? kb__devmon_nvml_energy_j(m, joules)
                                       : kb__devmon_rsmi_energy_j(m, joules);
}

void kb_devmon_close(kb_devmon *m) {
    if (!m) return;
    if (m->lib) {
        if (m->source == KB_DEVMON_NVML)
            kb__devmon_nvml_close(m);
        else
            kb__devmon_rsmi_close(m);
        dlclose(m->lib);
    }
    m->lib = NULL;
    m->lib_name = NULL;
    m->initialized = 0;
    m->device = NULL;
    m->index = 0;
    for (int i = 0; i < KB__DEVMON_FNS; ++i) m->fn[i] = NULL;
    m->clocks_ok = m->energy_ok = 0;
}
