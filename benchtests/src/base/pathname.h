/* File names built from options: a name that becomes one path component
 * (a profile, a test name) is checked to be a plain name, and a path is
 * composed only when it fits, never cut short. */
#ifndef KB_PATHNAME_H
#define KB_PATHNAME_H

#include "base/error.h"

#include <stddef.h>

/* Longest profile or test name accepted. */
#define KB_NAME_MAX 128

/* Whether `value` (given as `what`: an option or a variable) is a plain
 * name that stays one path component: 1 to KB_NAME_MAX printable ASCII
 * characters, no '/' or '\\', no "..", not starting with '.' or '-'.
 * 0, or -1 with a message naming `what` and the rule. */
int kb_check_name(const char *value, const char *what, kb_err *err);

/* Why `value` is not such a plain name ("is empty", "contains '..'"...),
 * NULL when it is: the rule alone, for a name read from a file. */
const char *kb_name_problem(const char *value);

/* Whether `value` (given as `what`) is a usable path: not empty and shorter
 * than KB_PATH_MAX. */
int kb_check_path(const char *value, const char *what, kb_err *err);

/* Formats a path into out[size]. 0, or -1 with a message naming `what`
 * and out empty when it would not fit: a path is never silently cut. */
int kb_path_format(char *out, size_t size, kb_err *err, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
