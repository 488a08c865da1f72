/* What the vendor halves of device monitoring (devmon_nvml.c,
 * devmon_rsmi.c) share: symbol lookup in the loaded library, the reasons a
 * figure is unavailable, and the PCI bus id ROCm SMI is addressed by. Kept
 * apart from devmon.c, which calls the vendor halves, so that calls run one
 * way only. */
#include "machine/devmon.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* kb__devmon_sym copies a dlsym result into a function pointer byte for
 * byte, which needs both to be the same size (POSIX requires it of dlsym). */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function and object pointers differ in size");

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads min to max hex digits at *s into *value and moves *s past them. No
 * sign, space or "0x": strtoul and sscanf would take those. */
static int read_hex(const char **s, int min, int max, unsigned long long *value) {
    unsigned long long v = 0;
    int n = 0, d;
    while (n < max && (d = hex_digit(**s)) >= 0) {
        v = v * 16 + (unsigned)d;
        ++*s;
        ++n;
    }
    *value = v;
    return n >= min ? 0 : -1;
}

static int expect(const char **s, char c) {
    if (**s != c) return -1;
    ++*s;
    return 0;
}

int kb_devmon_parse_bus_id(const char *bus_id, unsigned long long *bdfid) {
    unsigned long long domain, bus, device, function;
    const char *s = bus_id;
    if (!s || !bdfid) return -1;
    if (read_hex(&s, 1, 8, &domain) || expect(&s, ':') || read_hex(&s, 2, 2, &bus) ||
        expect(&s, ':') || read_hex(&s, 2, 2, &device) || expect(&s, '.') ||
        read_hex(&s, 1, 1, &function) || *s != '\0')
        return -1;
    if (device > 0x1f || function > 7) return -1; /* 5 and 3 bits in a PCI address */
    *bdfid = domain << 32 | bus << 8 | device << 3 | function;
    return 0;
}

int kb__devmon_sym(kb_devmon *m, int slot, const char *name) {
    void *p = m->lib ? dlsym(m->lib, name) : NULL;
    m->fn[slot] = NULL;
    if (!p) return -1;
    memcpy(&m->fn[slot], &p, sizeof p);
    return 0;
}

void kb__devmon_why_clocks(kb_devmon *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why_clocks, sizeof m->why_clocks, fmt, ap);
    va_end(ap);
}

void kb__devmon_why_energy(kb_devmon *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why_energy, sizeof m->why_energy, fmt, ap);
    va_end(ap);
}

void kb__devmon_why_both(kb_devmon *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why_clocks, sizeof m->why_clocks, fmt, ap);
    va_end(ap);
    memcpy(m->why_energy, m->why_clocks, sizeof m->why_energy);
}
