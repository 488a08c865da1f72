#include "base/pathname.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *kb_name_problem(const char *v) {
    size_t n = strlen(v);
    if (n == 0) return "is empty";
    if (n > KB_NAME_MAX) return "is too long";
    if (v[0] == '.' || v[0] == '-') return "starts with '.' or '-'";
    if (strstr(v, "..")) return "contains '..'";
    for (const char *p = v; *p; ++p) {
        if (*p == '/' || *p == '\\') return "contains a '/' or '\\'";
        if (*p < 0x20 || *p > 0x7e) return "contains a control or non-ASCII character";
    }
    return NULL;
}

int kb_check_name(const char *value, const char *what, kb_err *err) {
    const char *why = kb_name_problem(value);
    if (!why) return 0;
    return kb_fail(err,
                   "%s: '%.200s%s' %s: it names one file or directory, so it must be 1 to %d "
                   "printable ASCII characters without '/', '\\' or '..', not starting with '.' "
                   "or '-'",
                   what, value, strlen(value) > 200 ? "..." : "", why, KB_NAME_MAX);
}

int kb_check_path(const char *value, const char *what, kb_err *err) {
    size_t n = strlen(value);
    if (n == 0) return kb_fail(err, "%s: the path is empty", what);
    if (n >= KB_PATH_MAX)
        return kb_fail(err,
                       "%s: '%.200s...' is %zu characters long; the longest path accepted is %d",
                       what, value, n, KB_PATH_MAX - 1);
    return 0;
}

int kb_path_format(char *out, size_t size, kb_err *err, const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < size) return 0;
    kb_fail(err,
            "%s: the path '%.200s...' would be %d characters long, above the %zu this build "
            "handles",
            what, out, n, size - 1);
    out[0] = '\0'; /* a cut path names another file: none is left to use */
    return -1;
}
