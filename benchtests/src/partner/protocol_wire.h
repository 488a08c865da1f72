/* The partner protocol's wire format (protocol.h lists the messages): how
 * a line is read whole, how its fields are read and checked, and the
 * messages with fields, each written and read here side by side so that
 * both ends agree on every field. The head (protocol_head.c) and the base
 * (protocol_serve.c) speak through these; nothing here starts a process or
 * waits, so the fuzzer reaches all of it from bytes in memory. */
#ifndef KB_PROTOCOL_WIRE_H
#define KB_PROTOCOL_WIRE_H

#include "measure/sampler.h"

#include <stdio.h>
#include <sys/types.h>

/* What a line reader found besides a line. */
enum {
    KB_LINE_EOF = -1,      /* end of input before a line */
    KB_LINE_TOO_LONG = -2, /* past the limit (the rest is not read: the stream is abandoned) */
    KB_LINE_CUT = -3,      /* a last line without its newline (the writer died mid-line) */
    KB_LINE_NUL = -4,      /* a line holding a NUL byte */
    KB_LINE_SILENT = -5    /* the head's deadline passed first */
};

/* The longest command a head sends (names are at most 127 + 255 bytes). */
#define KB_WIRE_COMMAND_MAX 1024
/* The longest answer a base sends: a round's samples at 26 bytes each. */
#define KB_WIRE_ANSWER_MAX ((size_t)64 << 20)

/* Reads one line without its newline into *line (getline's buffer).
 * Returns its length, or KB_LINE_EOF, KB_LINE_CUT, KB_LINE_TOO_LONG past
 * max bytes, KB_LINE_NUL. */
ssize_t kb_wire_read_line(FILE *f, char **line, size_t *cap, size_t max);

/* The rest of `line` after its first word ("" when there is none). */
const char *kb_wire_rest(const char *line);
/* Whether `line`'s first word is `word`. */
int kb_wire_starts_with(const char *line, const char *word);
/* Whether s is one word: not empty, no blank or line break. */
int kb_wire_is_word(const char *s);

/* A message sent as the rest of one line: its line breaks (and any other
 * control character) become spaces in place, or the head would read the
 * rest of a many-line message as its next answers. */
const char *kb_wire_one_line(char *msg);

/* "kbench-partner <version> <kernel>": written with its newline (fprintf's
 * result), and read back into *version and kernel[128]. */
int kb_wire_print_greeting(FILE *out, int version, const char *kernel);
int kb_wire_parse_greeting(const char *line, int *version, char *kernel);

/* "case <variant> <case>": the command into out, and its arguments read
 * back: two words, of at most 127 and 255 bytes, into variant[128] and
 * name[256]. */
void kb_wire_case_command(char *out, size_t size, const char *variant, const char *case_name);
int kb_wire_case_args(const char *args, char *variant, char *name);

/* "round <cpu> <move> <min_samples> <max_samples> <min_time_s> <max_time_s>
 * <target_rel_ci> <warmup_s> <sample_min_s>": the command into out, and its
 * arguments read back, each within what a head sends. */
void kb_wire_round_command(char *out, size_t size, int cpu, int move, const kb_sampling *cfg);
int kb_wire_round_args(const char *args, int *cpu, int *move, kb_sampling *c);

/* "ready <rmse> <max_abs>": written (fprintf's result), and read back as two
 * finite errors, not negative. */
int kb_wire_print_ready(FILE *out, double rmse, double max_abs);
int kb_wire_parse_ready(const char *line, double *rmse, double *max_abs);

/* "samples <disturbed> <kept> <reps> <n> <ms>...": written with its newline
 * (< 0 when it could not be), and read back into out: at most max_n samples
 * (what the round asked for), each a finite time above zero. */
int kb_wire_print_samples(FILE *out, const kb_samples *smp);
int kb_wire_parse_samples(const char *line, int max_n, kb_samples *out);

#endif
