/* Device monitoring through AMD's ROCm SMI, loaded with dlopen.
 *
 * The declarations below are our own, written from rocm_smi/rocm_smi.h of
 * ROCm SMI 5.2.3 (Debian bookworm's librocm-smi-dev):
 *   rsmi_status_t rsmi_init(uint64_t init_flags);  rsmi_shut_down(void);
 *   rsmi_num_monitor_devices(uint32_t *num_devices);
 *   rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);
 *   rsmi_dev_energy_count_get(uint32_t dv_ind, uint64_t *power,
 *                             float *counter_resolution, uint64_t *timestamp);
 *     (power is the accumulated counter, resolution in microjoules)
 *   rsmi_status_string(rsmi_status_t status, const char **status_string);
 * rsmi_status_t is an enum from RSMI_STATUS_SUCCESS = 0 to
 * RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF, so 32 bits wide and unsigned.
 *
 * Clock limits are not read here. ROCm SMI after 5.2 has
 * rsmi_dev_metrics_throttle_status_get, but what it returns is the
 * gpu_metrics table's throttle_status, which the kernel's own definition
 * (drivers/gpu/drm/amd/include/kgd_pp_interface.h) calls "ASIC dependent":
 * no bit has one meaning across AMD GPUs that we could map to KB_CLOCKS_*. */
#include "machine/devmon.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t rsmi_status;

#define RSMI_OK 0u

typedef rsmi_status (*rsmi_init_fn)(uint64_t);
typedef rsmi_status (*rsmi_void_fn)(void);
typedef rsmi_status (*rsmi_count_fn)(uint32_t *);
typedef rsmi_status (*rsmi_pci_id_fn)(uint32_t, uint64_t *);
typedef rsmi_status (*rsmi_energy_fn)(uint32_t, uint64_t *, float *, uint64_t *);
typedef rsmi_status (*rsmi_status_string_fn)(rsmi_status, const char **);

enum { FN_INIT, FN_SHUT_DOWN, FN_COUNT, FN_PCI_ID, FN_STATUS_STRING, FN_ENERGY };

/* The versioned name is what the runtime package installs; the bare one
 * only comes with the development package. */
static const char *const lib_names[] = {"librocm_smi64.so.1", "librocm_smi64.so"};
static const char *const energy_name = "rsmi_dev_energy_count_get";
static const char *const throttle_name = "rsmi_dev_metrics_throttle_status_get";

/* Bits 31:16 of a bdfid are "Reserved" in the 5.2.3 header: they take no
 * part in the match, whatever a later ROCm SMI may put there. */
#define BDFID_MATCH_MASK (~0xFFFF0000ull)

/* ROCm SMI's words for s, or its number when there are none. */
static const char *status_text(kb_devmon *m, rsmi_status s, char *buf, size_t size) {
    const char *text = NULL;
    if (m->fn[FN_STATUS_STRING] &&
        ((rsmi_status_string_fn)m->fn[FN_STATUS_STRING])(s, &text) == RSMI_OK && text)
        return text;
    snprintf(buf, size, "status %u", (unsigned)s);
    return buf;
}

static int open_library(kb_devmon *m) {
    char first_error[200] = "(no reason given)";
    for (size_t i = 0; i < sizeof lib_names / sizeof *lib_names; ++i) {
        m->lib = dlopen(lib_names[i], RTLD_NOW | RTLD_LOCAL);
        if (m->lib) {
            m->lib_name = lib_names[i];
            return 0;
        }
        const char *err = dlerror();
        if (i == 0 && err) snprintf(first_error, sizeof first_error, "%s", err);
    }
    kb__devmon_why_both(m, "%s not loadable: %s", lib_names[0], first_error);
    return -1;
}

/* Loads the library and the entry points nothing works without. */
static int load(kb_devmon *m) {
    static const struct {
        int slot;
        const char *name;
    } required[] = {{FN_INIT, "rsmi_init"},
                    {FN_SHUT_DOWN, "rsmi_shut_down"},
                    {FN_COUNT, "rsmi_num_monitor_devices"},
                    {FN_PCI_ID, "rsmi_dev_pci_id_get"}};
    if (open_library(m) != 0) return -1;
    for (size_t i = 0; i < sizeof required / sizeof *required; ++i) {
        if (kb__devmon_sym(m, required[i].slot, required[i].name) != 0) {
            kb__devmon_why_both(m, "%s lacks %s", m->lib_name, required[i].name);
            return -1;
        }
    }
    kb__devmon_sym(m, FN_STATUS_STRING, "rsmi_status_string"); /* optional: numbers instead */
    return 0;
}

/* ROCm SMI numbers devices its own way; the PCI address is what the HIP
 * side and ROCm SMI agree on. */
static int find_device(kb_devmon *m, const char *pci_bus_id, unsigned long long want) {
    char buf[32];
    uint32_t n = 0;
    rsmi_status s = ((rsmi_count_fn)m->fn[FN_COUNT])(&n);
    if (s != RSMI_OK) {
        kb__devmon_why_both(m, "%s: rsmi_num_monitor_devices: %s", m->lib_name,
                            status_text(m, s, buf, sizeof buf));
        return -1;
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t bdfid;
        if (((rsmi_pci_id_fn)m->fn[FN_PCI_ID])(i, &bdfid) != RSMI_OK) continue;
        if (((bdfid ^ want) & BDFID_MATCH_MASK) == 0) {
            m->index = i;
            return 0;
        }
    }
    kb__devmon_why_both(m, "%s: no device at PCI bus id %s among %u monitored", m->lib_name,
                        pci_bus_id, (unsigned)n);
    return -1;
}

static void explain_clocks(kb_devmon *m) {
    if (dlsym(m->lib, throttle_name))
        kb__devmon_why_clocks(m, "%s: %s reports ASIC-dependent bits; not mapped", m->lib_name,
                              throttle_name);
    else
        kb__devmon_why_clocks(m, "%s has no throttle-status query (%s)", m->lib_name,
                              throttle_name);
}

static int read_energy(kb_devmon *m, double *joules, rsmi_status *status) {
    uint64_t counter, timestamp;
    float resolution_uj = 0;
    *status = ((rsmi_energy_fn)m->fn[FN_ENERGY])(m->index, &counter, &resolution_uj, &timestamp);
    if (*status != RSMI_OK || !(resolution_uj > 0) || !isfinite(resolution_uj)) return -1;
    *joules = (double)counter * (double)resolution_uj * 1e-6;
    return 0;
}

static void probe_energy(kb_devmon *m) {
    char buf[32];
    double joules;
    rsmi_status s;
    if (kb__devmon_sym(m, FN_ENERGY, energy_name) != 0) {
        kb__devmon_why_energy(m, "%s lacks %s", m->lib_name, energy_name);
        return;
    }
    if (read_energy(m, &joules, &s) != 0) {
        if (s != RSMI_OK)
            kb__devmon_why_energy(m, "%s: %s", energy_name, status_text(m, s, buf, sizeof buf));
        else
            kb__devmon_why_energy(m, "%s: no usable counter resolution", energy_name);
        return;
    }
    m->energy_ok = 1;
}

void kb__devmon_rsmi_open(kb_devmon *m, const char *pci_bus_id) {
    char buf[32];
    unsigned long long want;
    if (kb_devmon_parse_bus_id(pci_bus_id, &want) != 0) {
        kb__devmon_why_both(m, "%s: malformed PCI bus id '%s' (expected dddd:bb:dd.f)",
                            lib_names[0], pci_bus_id ? pci_bus_id : "(null)");
        return;
    }
    if (load(m) != 0) return;
    rsmi_status s = ((rsmi_init_fn)m->fn[FN_INIT])(0);
    if (s != RSMI_OK) {
        kb__devmon_why_both(m, "%s: rsmi_init: %s", m->lib_name,
                            status_text(m, s, buf, sizeof buf));
        return;
    }
    m->initialized = 1;
    if (find_device(m, pci_bus_id, want) != 0) return;
    explain_clocks(m);
    probe_energy(m);
}

int kb__devmon_rsmi_energy_j(kb_devmon *m, double *joules) {
    rsmi_status s;
    return read_energy(m, joules, &s);
}

/* ROCm SMI counts rsmi_init calls (rocm_smi_lib's src/rocm_smi.cc keeps a
 * ref_count_; 5.2.3 already has RSMI_STATUS_REFCOUNT_OVERFLOW), so this
 * gives back only ours. */
void kb__devmon_rsmi_close(kb_devmon *m) {
    if (m->initialized) ((rsmi_void_fn)m->fn[FN_SHUT_DOWN])();
}
