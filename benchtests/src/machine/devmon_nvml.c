/* Device monitoring through NVIDIA's NVML, loaded with dlopen.
 *
 * The few declarations below are our own, written from NVIDIA's nvml.h as
 * vendored at github.com/NVIDIA/go-nvml, gen/nvml/nvml.h ("NVML VERSION:
 * 12.2.140"):
 *   nvmlReturn_t nvmlInit_v2(void);  nvmlReturn_t nvmlShutdown(void);
 *   const char *nvmlErrorString(nvmlReturn_t);
 *   nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *);
 *   nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long *)
 *     (and the deprecated ...ClocksThrottleReasons, same signature);
 *   nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long *) mJ;
 * nvmlReturn_t is an enum with NVML_SUCCESS = 0; nvmlDevice_t is an opaque
 * struct pointer. */
#include "machine/devmon.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_ret;
typedef struct nvml_device *nvml_device;

#define NVML_OK 0

typedef nvml_ret (*nvml_void_fn)(void);
typedef const char *(*nvml_error_string_fn)(nvml_ret);
typedef nvml_ret (*nvml_handle_fn)(const char *, nvml_device *);
typedef nvml_ret (*nvml_ull_fn)(nvml_device, unsigned long long *);

enum { FN_INIT, FN_SHUTDOWN, FN_HANDLE, FN_ERROR_STRING, FN_REASONS, FN_ENERGY };

static const char *const lib_name = "libnvidia-ml.so.1";
static const char *const reasons_new = "nvmlDeviceGetCurrentClocksEventReasons";
static const char *const reasons_old = "nvmlDeviceGetCurrentClocksThrottleReasons";
static const char *const energy_name = "nvmlDeviceGetTotalEnergyConsumption";

/* NVML's words for r, or its number when the library has no nvmlErrorString. */
static const char *error_text(kb_devmon *m, nvml_ret r, char *buf, size_t size) {
    const char *text = NULL;
    if (m->fn[FN_ERROR_STRING]) text = ((nvml_error_string_fn)m->fn[FN_ERROR_STRING])(r);
    if (text) return text;
    snprintf(buf, size, "error %d", r);
    return buf;
}

/* Loads the library and the entry points nothing works without. */
static int load(kb_devmon *m) {
    static const struct {
        int slot;
        const char *name;
    } required[] = {{FN_INIT, "nvmlInit_v2"},
                    {FN_SHUTDOWN, "nvmlShutdown"},
                    {FN_HANDLE, "nvmlDeviceGetHandleByPciBusId_v2"}};
    m->lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) {
        const char *err = dlerror();
        kb__devmon_why_both(m, "%s not loadable: %s", lib_name, err ? err : "(no reason given)");
        return -1;
    }
    m->lib_name = lib_name;
    for (size_t i = 0; i < sizeof required / sizeof *required; ++i) {
        if (kb__devmon_sym(m, required[i].slot, required[i].name) != 0) {
            kb__devmon_why_both(m, "%s lacks %s", lib_name, required[i].name);
            return -1;
        }
    }
    kb__devmon_sym(m, FN_ERROR_STRING, "nvmlErrorString"); /* optional: numbers instead */
    return 0;
}

/* NVML's own bus ids have an 8-digit domain ("%08X:%02X:%02X.0" in
 * nvml.h); CUDA writes 4. When the id as given is not found, the same
 * address in NVML's spelling is tried before giving up. */
static nvml_ret lookup(kb_devmon *m, const char *pci_bus_id, nvml_device *device) {
    nvml_ret r = ((nvml_handle_fn)m->fn[FN_HANDLE])(pci_bus_id, device);
    unsigned long long id;
    char nvml_id[32];
    if (r == NVML_OK || kb_devmon_parse_bus_id(pci_bus_id, &id) != 0) return r;
    snprintf(nvml_id, sizeof nvml_id, "%08llX:%02llX:%02llX.%llX", id >> 32, id >> 8 & 0xff,
             id >> 3 & 0x1f, id & 7);
    if (strcmp(nvml_id, pci_bus_id) == 0) return r;
    return ((nvml_handle_fn)m->fn[FN_HANDLE])(nvml_id, device) == NVML_OK ? NVML_OK : r;
}

static int find_device(kb_devmon *m, const char *pci_bus_id) {
    char buf[32];
    nvml_device device = NULL;
    nvml_ret r = lookup(m, pci_bus_id, &device);
    if (r != NVML_OK) {
        kb__devmon_why_both(m,
                            "%s: no device at PCI bus id %s: nvmlDeviceGetHandleByPciBusId_v2: %s",
                            lib_name, pci_bus_id, error_text(m, r, buf, sizeof buf));
        return -1;
    }
    m->device = device;
    return 0;
}

/* NVML renamed the query to ...ClocksEventReasons (nvml.h 12.2.140 has both,
 * the old name deprecated); a driver from before the rename has only the old
 * one, and newer headers drop it. Both take and return the same mask. */
static void probe_clocks(kb_devmon *m) {
    char buf[32];
    unsigned long long mask;
    const char *name = reasons_new;
    if (kb__devmon_sym(m, FN_REASONS, name) != 0) {
        name = reasons_old;
        if (kb__devmon_sym(m, FN_REASONS, name) != 0) {
            kb__devmon_why_clocks(m, "%s has neither %s nor %s", lib_name, reasons_new,
                                  reasons_old);
            return;
        }
    }
    nvml_ret r = ((nvml_ull_fn)m->fn[FN_REASONS])(m->device, &mask);
    if (r != NVML_OK) {
        kb__devmon_why_clocks(m, "%s: %s", name, error_text(m, r, buf, sizeof buf));
        return;
    }
    m->clocks_ok = 1;
}

/* The energy counter exists from Volta on; older GPUs say Not Supported. */
static void probe_energy(kb_devmon *m) {
    char buf[32];
    unsigned long long mj;
    if (kb__devmon_sym(m, FN_ENERGY, energy_name) != 0) {
        kb__devmon_why_energy(m, "%s lacks %s", lib_name, energy_name);
        return;
    }
    nvml_ret r = ((nvml_ull_fn)m->fn[FN_ENERGY])(m->device, &mj);
    if (r != NVML_OK) {
        kb__devmon_why_energy(m, "%s: %s", energy_name, error_text(m, r, buf, sizeof buf));
        return;
    }
    m->energy_ok = 1;
}

void kb__devmon_nvml_open(kb_devmon *m, const char *pci_bus_id) {
    char buf[32];
    if (!pci_bus_id) pci_bus_id = "";
    if (load(m) != 0) return;
    nvml_ret r = ((nvml_void_fn)m->fn[FN_INIT])();
    if (r != NVML_OK) {
        kb__devmon_why_both(m, "%s: nvmlInit_v2: %s", lib_name, error_text(m, r, buf, sizeof buf));
        return;
    }
    m->initialized = 1;
    if (find_device(m, pci_bus_id) != 0) return;
    probe_clocks(m);
    probe_energy(m);
}

int kb__devmon_nvml_clock_reasons(kb_devmon *m, unsigned long long *nvml_mask) {
    return ((nvml_ull_fn)m->fn[FN_REASONS])(m->device, nvml_mask) == NVML_OK ? 0 : -1;
}

int kb__devmon_nvml_energy_j(kb_devmon *m, double *joules) {
    unsigned long long mj;
    if (((nvml_ull_fn)m->fn[FN_ENERGY])(m->device, &mj) != NVML_OK) return -1;
    *joules = (double)mj * 1e-3;
    return 0;
}

/* NVML counts nvmlInit_v2 calls; this gives back ours. */
void kb__devmon_nvml_close(kb_devmon *m) {
    if (m->initialized) ((nvml_void_fn)m->fn[FN_SHUTDOWN])();
}
