#define _GNU_SOURCE
#include "machine/hwinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The vector extensions that change what a compiled kernel does. */
static const char *const isa_flags[] = {"sse4_2",      "avx",      "avx2",     "fma",
                                        "f16c",        "avx512f",  "avx512bw", "avx512_bf16",
                                        "avx512_fp16", "amx_tile", "asimd",    "sve"};

static char *value_of(char *line) {
    char *colon = strchr(line, ':');
    if (!colon) return NULL;
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t') ++v;
    v[strcspn(v, "\n")] = '\0';
    return v;
}

static int key_is(const char *line, const char *key) {
    size_t n = strlen(key);
    return strncmp(line, key, n) == 0 && (line[n] == ' ' || line[n] == '\t' || line[n] == ':');
}

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static void collect_isa(kb_cpu_info *ci, const char *flags) {
    size_t len = 0;
    for (size_t i = 0; i < sizeof isa_flags / sizeof *isa_flags; ++i)
        if (has_word(flags, isa_flags[i]))
            len += (size_t)snprintf(ci->isa + len, sizeof ci->isa - len, "%s%s", len ? " " : "",
                                    isa_flags[i]);
}

/* Reads the first processor's block of /proc/cpuinfo. */
static void read_cpuinfo(kb_cpu_info *ci) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n') break;
        char *v = value_of(line);
        if (!v) continue;
        if (key_is(line, "model name"))
            snprintf(ci->model_name, sizeof ci->model_name, "%s", v);
        else if (key_is(line, "vendor_id"))
            snprintf(ci->vendor, sizeof ci->vendor, "%s", v);
        else if (key_is(line, "cpu family"))
            ci->family = atoi(v);
        else if (key_is(line, "model"))
            ci->model = atoi(v);
        else if (key_is(line, "stepping"))
            ci->stepping = atoi(v);
        else if (key_is(line, "bogomips"))
            ci->tsc_mhz = (int)(atof(v) / 2.0 / 100.0 + 0.5) * 100;
        else if (key_is(line, "flags") || key_is(line, "Features"))
            collect_isa(ci, v);
    }
    fclose(f);
}

static long cache_kib(int index) {
    char path[128], buf[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long kib = 0;
    if (fgets(buf, sizeof buf, f)) {
        kib = atol(buf);
        if (strchr(buf, 'M')) kib *= 1024;
    }
    fclose(f);
    return kib;
}

/* The level-1 data cache: the index whose level is 1 and type Data (index0
 * on Linux's usual order, but the order is not promised). */
static long l1d_kib(void) {
    for (int i = 0; i < 8; ++i) {
        char path[128], type[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int ok = fgets(type, sizeof type, f) != NULL;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        f = fopen(path, "r");
        int level = 0;
        if (f) {
            if (fscanf(f, "%d", &level) != 1) level = 0;
            fclose(f);
        }
        if (ok && level == 1 && strncmp(type, "Data", 4) == 0) return cache_kib(i);
    }
    return 0;
}

void kb_cpu_info_read(kb_cpu_info *ci) {
    memset(ci, 0, sizeof *ci);
    read_cpuinfo(ci);
    if (!ci->model_name[0]) snprintf(ci->model_name, sizeof ci->model_name, "unknown cpu");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    ci->ncpu = n > 0 ? (int)n : 1;
    ci->l2_kib = cache_kib(2);
    ci->l3_kib = cache_kib(3);
    ci->l1d_kib = l1d_kib();
}

void kb_slugify(const char *in, char *out, size_t size) {
    size_t n = 0;
    int dash = 0;
    for (const char *p = in; *p && n + 1 < size; ++p) {
        if (strncmp(p, "(R)", 3) == 0 || strncmp(p, "(r)", 3) == 0) {
            p += 2;
            continue;
        }
        if (strncmp(p, "(TM)", 4) == 0 || strncmp(p, "(tm)", 4) == 0) {
            p += 3;
            continue;
        }
        if (isalnum((unsigned char)*p)) {
            if (dash && n > 0 && n + 2 < size) out[n++] = '-';
            out[n++] = (char)tolower((unsigned char)*p);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
}

void kb_cpu_profile(const kb_cpu_info *ci, char *out, size_t size) {
    char slug[128];
    kb_slugify(ci->model_name, slug, sizeof slug);
    snprintf(out, size, "%s-fam%d-model%d-%dcpu", slug, ci->family, ci->model, ci->ncpu);
}

void kb_cpu_hardware_id(const kb_cpu_info *ci, char *out, size_t size) {
    snprintf(out, size, "%s|%s %d/%d/%d|%d cpu|L2 %ld KiB|L3 %ld KiB|%d MHz|%s", ci->model_name,
             ci->vendor, ci->family, ci->model, ci->stepping, ci->ncpu, ci->l2_kib, ci->l3_kib,
             ci->tsc_mhz, ci->isa);
}
