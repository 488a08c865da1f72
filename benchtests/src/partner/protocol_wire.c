/* The partner protocol's wire format (protocol_wire.h): reading a line
 * whole, reading and checking its fields, and writing and reading each
 * message with fields. Kept apart from the two ends so that a field is
 * changed in one place for both, and so that the fuzzer reaches every
 * reader without processes or pipes. */
#define _GNU_SOURCE
#include "partner/protocol_wire.h"

#include <errno.h>
#include <float.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

ssize_t kb_wire_read_line(FILE *f, char **line, size_t *cap, size_t max) {
    size_t len = 0;
    int ch = 0;
    while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
        if (len + 1 >= max) return KB_LINE_TOO_LONG;
        if (len + 1 >= *cap) {
            size_t grown = *cap ? 2 * *cap : 128;
            char *p = realloc(*line, grown);
            if (!p) return KB_LINE_TOO_LONG;
            *line = p;
            *cap = grown;
        }
        (*line)[len++] = (char)ch;
    }
    if (ch == EOF) return len == 0 ? KB_LINE_EOF : KB_LINE_CUT;
    if (!*line && !(*line = malloc(*cap = 1))) return KB_LINE_TOO_LONG;
    (*line)[len] = '\0';
    return memchr(*line, '\0', len) ? KB_LINE_NUL : (ssize_t)len;
}

const char *kb_wire_rest(const char *line) {
    const char *sp = strchr(line, ' ');
    return sp ? sp + 1 : "";
}

int kb_wire_starts_with(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

int kb_wire_is_word(const char *s) {
    if (!*s) return 0;
    for (; *s; ++s)
        if (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') return 0;
    return 1;
}

const char *kb_wire_one_line(char *msg) {
    for (char *p = msg; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    return msg;
}

/* One whole number in [lo, hi] at *p, after exactly one space; advances *p. */
static int next_long(const char **p, long lo, long hi, long *out) {
    char *end;
    if (**p != ' ' || (*p)[1] == ' ' || (*p)[1] == '\0') return -1;
    errno = 0;
    long v = strtol(*p + 1, &end, 10);
    if (end == *p + 1 || errno != 0 || v < lo || v > hi) return -1;
    *p = end;
    *out = v;
    return 0;
}

/* One finite number in [lo, hi] at *p, after exactly one space; advances *p. */
static int next_double(const char **p, double lo, double hi, double *out) {
    char *end;
    if (**p != ' ' || (*p)[1] == ' ' || (*p)[1] == '\0') return -1;
    double v = strtod(*p + 1, &end);
    if (end == *p + 1 || !(v >= lo && v <= hi)) return -1;
    *p = end;
    *out = v;
    return 0;
}

int kb_wire_print_greeting(FILE *out, int version, const char *kernel) {
    return fprintf(out, "kbench-partner %d %s\n", version, kernel);
}

int kb_wire_parse_greeting(const char *line, int *version, char *kernel) {
    return sscanf(line, "kbench-partner %d %127s", version, kernel) == 2 ? 0 : -1;
}

void kb_wire_case_command(char *out, size_t size, const char *variant, const char *case_name) {
    snprintf(out, size, "case %s %s", variant, case_name);
}

int kb_wire_case_args(const char *args, char *variant, char *name) {
    const char *sp = strchr(args, ' ');
    if (!sp || sp == args || sp - args > 127 || strlen(sp + 1) > 255) return -1;
    memcpy(variant, args, (size_t)(sp - args));
    variant[sp - args] = '\0';
    strcpy(name, sp + 1);
    return kb_wire_is_word(variant) && kb_wire_is_word(name) ? 0 : -1;
}

void kb_wire_round_command(char *out, size_t size, int cpu, int move, const kb_sampling *cfg) {
    snprintf(out, size, "round %d %d %d %d %.17g %.17g %.17g %.17g %.17g", cpu, move != 0,
             cfg->min_samples, cfg->max_samples, cfg->min_time_s, cfg->max_time_s,
             cfg->target_rel_ci, cfg->warmup_s, cfg->sample_min_s);
}

int kb_wire_round_args(const char *args, int *cpu, int *move, kb_sampling *c) {
    char buf[KB_WIRE_COMMAND_MAX + 2];
    snprintf(buf, sizeof buf, " %s", args);
    const char *p = buf;
    long v[4];
    static const long lo[4] = {-1, 0, 1, 1}, hi[4] = {CPU_SETSIZE - 1, 1, 1000000, 1000000};
    for (int i = 0; i < 4; ++i)
        if (next_long(&p, lo[i], hi[i], &v[i]) != 0) return -1;
    *cpu = (int)v[0];
    *move = (int)v[1];
    c->min_samples = (int)v[2];
    c->max_samples = (int)v[3];
    if (next_double(&p, 0.0, 3600.0, &c->min_time_s) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->max_time_s) != 0 ||
        next_double(&p, 0.0, 1.0, &c->target_rel_ci) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->warmup_s) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->sample_min_s) != 0 || *p != '\0')
        return -1;
    return c->max_samples >= c->min_samples && c->max_time_s >= c->min_time_s ? 0 : -1;
}

int kb_wire_print_ready(FILE *out, double rmse, double max_abs) {
    return fprintf(out, "ready %.17g %.17g\n", rmse, max_abs);
}

int kb_wire_parse_ready(const char *line, double *rmse, double *max_abs) {
    const char *p = line + strlen("ready");
    if (next_double(&p, 0.0, DBL_MAX, rmse) != 0 || next_double(&p, 0.0, DBL_MAX, max_abs) != 0)
        return -1;
    return *p == '\0' ? 0 : -1;
}

int kb_wire_print_samples(FILE *out, const kb_samples *smp) {
    int rc =
        fprintf(out, "samples %d %d %d %d", smp->disturbed, smp->disturbed_kept, smp->reps, smp->n);
    for (int i = 0; i < smp->n && rc >= 0; ++i) rc = fprintf(out, " %.17g", smp->ms[i]);
    return rc < 0 ? -1 : fprintf(out, "\n");
}

int kb_wire_parse_samples(const char *line, int max_n, kb_samples *out) {
    const char *p = line + strlen("samples");
    long v[4];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; ++i)
        if (next_long(&p, i == 2 || i == 3 ? 1 : 0, i == 3 ? max_n : 100000000, &v[i]) != 0)
            return -1;
    out->disturbed = (int)v[0];
    out->disturbed_kept = (int)v[1];
    out->reps = (int)v[2];
    out->ms = malloc((size_t)v[3] * sizeof *out->ms);
    if (!out->ms) return -1;
    out->cap = (int)v[3];
    for (out->n = 0; out->n < (int)v[3]; ++out->n)
        if (next_double(&p, DBL_MIN, 1e12, &out->ms[out->n]) != 0) return -1;
    return *p == '\0' ? 0 : -1;
}
