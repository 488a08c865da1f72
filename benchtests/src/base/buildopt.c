#include "base/buildopt.h"

#include <stdio.h>
#include <string.h>

static int starts(const char *s, size_t n, const char *prefix) {
    size_t p = strlen(prefix);
    return n >= p && strncmp(s, prefix, p) == 0;
}

static int speed_flag(const char *s, size_t n) {
    static const char *const prefixes[] = {
        "-march=",       "-mcpu=",        "-mtune=", "-mavx",       "-mfma",
        "-msse",         "-mf16c",        "-mno-",   "-ffast-math", "-ffp-contract=",
        "-funsafe-math", "-ffinite-math", NULL};
    for (int i = 0; prefixes[i]; ++i)
        if (starts(s, n, prefixes[i])) return 1;
    return 0;
}

/* Appends the token s[0..n) to out unless it is there already. */
static void append(char *out, size_t size, const char *s, size_t n) {
    for (const char *p = out; (p = strstr(p, " ")) != NULL; ++p)
        if (strncmp(p + 1, s, n) == 0 && (p[1 + n] == ' ' || p[1 + n] == '\0')) return;
    size_t len = strlen(out);
    if (len + 1 + n + 1 > size) return;
    out[len] = ' ';
    memcpy(out + len + 1, s, n);
    out[len + 1 + n] = '\0';
}

void kb_build_opt(const char *c_flags, char *out, size_t size) {
    if (size == 0) return;
    char level[16] = "-O0";
    char rest[512] = "";
    for (const char *p = c_flags ? c_flags : ""; *p;) {
        while (*p == ' ' || *p == '\t') ++p;
        size_t n = strcspn(p, " \t");
        if (n == 0) break;
        if (starts(p, n, "-O") && n < sizeof level)
            snprintf(level, sizeof level, "%.*s", (int)n, p);
        else if (speed_flag(p, n))
            append(rest, sizeof rest, p, n);
        p += n;
    }
    /* -O alone is -O1. */
    snprintf(out, size, "%s%s", strcmp(level, "-O") == 0 ? "-O1" : level, rest);
}

int kb_build_opt_differs(const char *c_flags, const char *opt) {
    if (!opt || !*opt) return 0;
    char mine[256];
    kb_build_opt(c_flags, mine, sizeof mine);
    return strcmp(mine, opt) != 0;
}
