/* One value of an option or variable, read whole and checked: a number in
 * its range, a whole number, a seed, a name or a path. The command line and
 * the environment read theirs the same way, so a variable is held to the
 * rules of its option. */
#define _GNU_SOURCE
#include "base/pathname.h"
#include "driver/options_read.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int kb_opt_double(const char *s, double lo, double hi, double *out, const char *what, kb_err *err) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return kb_fail(err, "%s: '%s' is not a number in [%g, %g]", what, s, lo, hi);
    *out = v;
    return 0;
}

int kb_opt_int(const char *s, int lo, int hi, int *out, const char *what, kb_err *err) {
    double v = 0.0;
    if (kb_opt_double(s, lo, hi, &v, what, err) != 0) return -1;
    if (v != (int)v) return kb_fail(err, "%s: '%s' is not a whole number", what, s);
    *out = (int)v;
    return 0;
}

int kb_opt_seed(const char *s, uint64_t *out, const char *what, kb_err *err) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || !isdigit((unsigned char)s[0]))
        return kb_fail(err, "%s: '%s' is not an unsigned integer", what, s);
    *out = v;
    return 0;
}

int kb_opt_name(const char **field, const char *s, const char *what, kb_err *err) {
    *field = s;
    return kb_check_name(s, what, err);
}

int kb_opt_path(const char **field, const char *s, const char *what, kb_err *err) {
    *field = s;
    return kb_check_path(s, what, err);
}
