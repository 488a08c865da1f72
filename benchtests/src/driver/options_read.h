/* The parts kb_options_parse (options.c) is made of: the build's defaults,
 * then the KBENCH_* environment over them (options_env.c), each value
 * checked as it is read, by the same rules for a variable as for its
 * option (option_values.c), so that an error names the one culprit. */
#ifndef KB_OPTIONS_READ_H
#define KB_OPTIONS_READ_H

#include "driver/options.h"

/* Each reads s into *out (a name or path: *field = s) and returns 0, or -1
 * with a message naming `what`. */
int kb_opt_double(const char *s, double lo, double hi, double *out, const char *what, kb_err *err);
int kb_opt_int(const char *s, int lo, int hi, int *out, const char *what, kb_err *err);
int kb_opt_seed(const char *s, uint64_t *out, const char *what, kb_err *err);
/* A name (kb_check_name) or a path (kb_check_path). */
int kb_opt_name(const char **field, const char *s, const char *what, kb_err *err);
int kb_opt_path(const char **field, const char *s, const char *what, kb_err *err);

/* o's values before the environment and the command line: zero, and the
 * defaults configured into the build. */
void kb_options_defaults(kb_options *o);
/* The KBENCH_* variables set (and not empty) over o. 0, or -1 with a
 * message naming the variable. */
int kb_options_read_env(kb_options *o, kb_err *err);

#endif
