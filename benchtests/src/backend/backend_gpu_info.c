/* What the GPU backend says about its device (backend_gpu.h): the memory
 * levels and compute peaks of the roofline, the profile and hardware id, the
 * environment record, and the monitor's clock and energy readings. The
 * queries are kept apart from the memory and the timing, which a case's
 * figures come from. */
#include "backend/backend_gpu.h"

#include "backend/gpu_roofs.h"
#include "machine/hwinfo.h"

#include <stdio.h>

/* A device attribute, -1 when the runtime cannot say. */
static int attribute(int attr) {
    int v = 0;
    return kb_gpu(DeviceGetAttribute)(&v, attr, kb__gpu_dev.index) == kb_gpu(Success) ? v : -1;
}

/* The roofline's memory levels: L2 (its size from the runtime), then device
 * memory. */
int kb__gpu_info_memory_levels(kb_mem_level *levels, int max) {
    int n = 0;
    const int l2 = attribute(KB_GPU_ATTR_L2_BYTES);
    if (l2 > 0 && n < max) {
        snprintf(levels[n].name, sizeof levels[n].name, "L2");
        levels[n++].capacity = l2;
    }
    if (n < max) {
        snprintf(levels[n].name, sizeof levels[n].name, "device");
        levels[n++].capacity = 0;
    }
    return n;
}

int kb__gpu_info_peak_compute(kb_prec p, kb_compute_unit unit, double *gflops, char *how,
                              size_t how_size, kb_err *err) {
    char why[256] = "";
    const int rc = unit == KB_UNIT_MATRIX
                       ? kb_gpu_peak_matrix(p, (void *)kb__gpu_dev.stream, gflops, how, how_size,
                                            why, sizeof why)
                       : kb_gpu_peak_fma(p, (void *)kb__gpu_dev.stream, gflops, how, how_size, why,
                                         sizeof why);
    return rc < 0 ? kb_fail(err, "%s device %d: %s", KB_GPU_BACKEND, kb__gpu_dev.index, why) : rc;
}

int kb__gpu_info_clock_limits(unsigned *reasons) {
    return kb_devmon_clock_reasons(&kb__gpu_dev.monitor, reasons);
}

int kb__gpu_info_energy_j(double *joules) {
    return kb_devmon_energy_j(&kb__gpu_dev.monitor, joules);
}

int kb__gpu_info_memory_used_mib(double *mib) {
    size_t free_b = 0, total_b = 0;
    if (kb_gpu(MemGetInfo)(&free_b, &total_b) != kb_gpu(Success)) return -1;
    *mib = (double)(total_b - free_b) / (1024.0 * 1024.0);
    return 0;
}

/* Profile: the device name as a slug ("nvidia-h100-80gb-hbm3"); hardware id:
 * name, architecture, SMs, memory and clock, which must all match. */
void kb__gpu_info_identify(char *profile, size_t psize, char *hardware_id, size_t hsize) {
    kb_slugify(kb__gpu_dev.props.name, profile, psize);
#if defined(KB_GPU_HIP)
    const char *arch = kb__gpu_dev.props.gcnArchName;
#else
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", kb__gpu_dev.props.major, kb__gpu_dev.props.minor);
#endif
    snprintf(hardware_id, hsize, "%s|%s|%d SMs|%zu MiB|%d MHz", kb__gpu_dev.props.name, arch,
             attribute(KB_GPU_ATTR_SMS), (size_t)(kb__gpu_dev.props.totalGlobalMem >> 20),
             attribute(KB_GPU_ATTR_CLOCK_KHZ) / 1000);
}

/* A number from a runtime query, or null when the query failed. */
static void add_queried(cJSON *env, const char *key, gpu_error e, double value) {
    if (e == kb_gpu(Success))
        cJSON_AddNumberToObject(env, key, value);
    else
        cJSON_AddNullToObject(env, key);
}

static void add_attribute(cJSON *env, const char *key, int attr, int divisor) {
    int v = attribute(attr);
    if (v < 0)
        cJSON_AddNullToObject(env, key);
    else
        cJSON_AddNumberToObject(env, key, v / divisor);
}

void kb__gpu_info_describe(cJSON *env) {
    int driver = 0, runtime = 0;
    size_t free_b = 0, total_b = 0;
    gpu_error e_driver = kb_gpu(DriverGetVersion)(&driver);
    gpu_error e_runtime = kb_gpu(RuntimeGetVersion)(&runtime);
    gpu_error e_mem = kb_gpu(MemGetInfo)(&free_b, &total_b);
    cJSON_AddStringToObject(env, "device", kb__gpu_dev.props.name);
    cJSON_AddNumberToObject(env, "device_index", kb__gpu_dev.index);
    cJSON_AddNumberToObject(env, "compute_capability",
                            kb__gpu_dev.props.major + kb__gpu_dev.props.minor / 10.0);
#if defined(KB_GPU_HIP)
    cJSON_AddStringToObject(env, "gcn_arch", kb__gpu_dev.props.gcnArchName);
#endif
    add_attribute(env, "multiprocessors", KB_GPU_ATTR_SMS, 1);
    add_attribute(env, "warp_size", KB_GPU_ATTR_WARP, 1);
    add_attribute(env, "sm_clock_mhz", KB_GPU_ATTR_CLOCK_KHZ, 1000);
    add_attribute(env, "memory_clock_mhz", KB_GPU_ATTR_MEMCLOCK_KHZ, 1000);
    add_attribute(env, "memory_bus_bits", KB_GPU_ATTR_BUS_BITS, 1);
    add_attribute(env, "l2_bytes", KB_GPU_ATTR_L2_BYTES, 1);
    add_queried(env, "memory_total_mib", e_mem, (double)(total_b >> 20));
    add_queried(env, "memory_in_use_mib", e_mem, (double)((total_b - free_b) >> 20));
    add_queried(env, "driver_version", e_driver, driver);
    add_queried(env, "runtime_version", e_runtime, runtime);
    cJSON_AddStringToObject(env, "pci_bus_id", kb__gpu_dev.bus_id);
    cJSON *mon = cJSON_AddObjectToObject(env, "monitor");
    cJSON_AddStringToObject(mon, "library", KB_GPU_MONITOR == KB_DEVMON_NVML ? "nvml" : "rocm-smi");
    cJSON_AddStringToObject(mon, "clock_check",
                            kb__gpu_dev.monitor.clocks_ok ? "ok" : kb__gpu_dev.monitor.why_clocks);
    cJSON_AddStringToObject(mon, "energy",
                            kb__gpu_dev.monitor.energy_ok ? "ok" : kb__gpu_dev.monitor.why_energy);
}
