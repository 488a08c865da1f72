/* The A/B partner protocol: how a head driver measures the same case on the
 * base build's driver, round for round, in one CTest test (docs/ab-protocol.md).
 *
 * The head starts the base's driver of the same name with --partner and
 * talks to it over a pipe pair, one line per message, text only:
 *
 *   base: kbench-partner <version> <kernel>        on start, once set up
 *       | error <message>                          cannot serve here (its
 *                                                  backend cannot be set up)
 *   head: case <variant> <case>                    set the case up
 *   base: ready <rmse> <max_abs>                   inputs made, output checked
 *       | absent | skip <why> | error <message>
 *   head: round <cpu> <move> <min_samples> <max_samples> <min_time_s> <max_time_s>
 *               <target_rel_ci> <warmup_s> <sample_min_s>     (kb_sampling)
 *   base: samples <disturbed> <disturbed_kept> <reps> <n> <ms>...
 *       | error <message>
 *   head: end                                      release the case
 *   base: ended
 *   head: quit (or end of input between cases)     the base exits 0
 *
 * Anything else is a protocol error that ends the base (exit 2) with a
 * message: an unknown command, a command with missing, extra or
 * out-of-range fields, a line over 1024 bytes or holding a NUL byte, input
 * ending inside a line or while a case is set up. The head likewise refuses
 * an answer it cannot take whole: fields missing or extra, an rmse or a
 * time that is not finite (times must be above zero), more samples than the
 * round asked for, a line over 64 MiB; a base that closes its output but
 * does not exit is killed after 5 s, and one serving another kernel is
 * refused. Every answer has a time limit (kb_partner_wait): a base that
 * does not answer within it, a whole line included, is killed with its
 * process group, and every later command to it fails at once saying why.
 *
 * The version changes whenever a message changes; a head meets a base of
 * another version, or one that predates the protocol, with an error that
 * names both (never with a verdict).
 *
 * The messages' fields are written and read in protocol_wire.c; the head's
 * side is protocol_head.c, the base's protocol_serve.c. */
#ifndef KB_PROTOCOL_H
#define KB_PROTOCOL_H

#include "base/error.h"
#include "measure/sampler.h"

#include <stdio.h>
#include <sys/types.h>

#define KB_PARTNER_VERSION 3

/* The head's end of the connection. */
typedef struct kb_partner {
    pid_t pid;        /* the base, leader of its own process group; -1: none */
    int to, from;     /* pipes to its input and from its output; -1: closed */
    char *buf;        /* what was read from `from` and not yet taken */
    size_t have, cap; /* bytes in buf, and its size */
    size_t taken;     /* the last answer's bytes, dropped before the next read */
    char exe[4096];
    char kernel[128];
    char pending[512];  /* the `case` command whose answer is still to be read */
    double sent_s;      /* when `pending` was sent (kb_now_s) */
    double case_s;      /* how long the base took to set the current case up */
    char stopped[1024]; /* why the head stopped the base; "" while it serves */
} kb_partner;

/* How long the head waits for an answer before it stops the base: the
 * greeting greeting_s (the base loads its manifest and sets its backend up
 * first); any other answer `factor` times what the same work took, and at
 * least floor_s: a case's set-up the time the head spent meanwhile on its
 * own side of it, a round the round's warm-up, time limit and one sample
 * plus the case's set-up on the base (which ran the kernel once). Every wait
 * also ends a second before the test's own time limit (watchdog.h), so that
 * a base that hangs is named, not just the stage the test timed out in.
 * Tests lower these. */
typedef struct kb_partner_waits {
    double greeting_s; /* 30 */
    double floor_s;    /* 30 */
    double factor;     /* 10 */
} kb_partner_waits;
extern kb_partner_waits kb_partner_wait;

/* What the base answered to `case`. */
typedef enum kb_partner_case {
    KB_PARTNER_READY = 1,
    KB_PARTNER_ABSENT, /* the base's manifest has no such case or variant */
    KB_PARTNER_SKIP    /* the base's implementation declines it; why in `why` */
} kb_partner_case;

/* Starts `exe` with --partner and `args` (NULL-terminated) and reads its
 * greeting (kb_partner_wait.greeting_s at most). Returns 0, or -1 with a
 * message naming exe and, for a base that does not speak this protocol,
 * what it did instead. */
int kb_partner_start(kb_partner *p, const char *exe, char *const args[], kb_err *err);

/* kb_partner_start in its two halves, for starting several at once:
 * spawn returns at once; greet reads the greeting (and stops the base when
 * it is not the right one). */
int kb_partner_spawn(kb_partner *p, const char *exe, char *const args[], kb_err *err);
int kb_partner_greet(kb_partner *p, kb_err *err);

/* Asks the base to set a case up, without waiting: the head prepares its
 * own side meanwhile, and then reads the answer with kb_partner_case_reply
 * (which must follow before any other command). */
int kb_partner_case_send(kb_partner *p, const char *variant, const char *case_name, kb_err *err);

/* The base's answer to the case sent; on READY fills *rmse and *max_abs,
 * on SKIP `why`. */
int kb_partner_case_reply(kb_partner *p, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err);

/* One round on the base, pinned to `cpu` (-1: anywhere; a case of t
 * threads to the t CPUs from `cpu` on, which the base works out from its
 * case as the head does), on buffers moved to fresh memory first when
 * `move`, sampled by cfg; fills out (kb_samples_free it). */
int kb_partner_round(kb_partner *p, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                     kb_err *err);

int kb_partner_case_close(kb_partner *p, kb_err *err);

/* Asks the base to quit and waits a few seconds for it (never past the
 * test's time limit); then kills its process group. */
void kb_partner_stop(kb_partner *p);

/* kb_partner_stop in its two halves, for stopping several at once:
 * hang_up asks the base to quit and closes the connection; reap waits for
 * it until `until` (kb_now_s) and then kills its process group. */
void kb_partner_hang_up(kb_partner *p);
void kb_partner_reap(kb_partner *p, double until);

/* When a wait for bases to exit that begins now ends: in a few seconds, or
 * shortly before the test's time limit. */
double kb_partner_exit_deadline(void);

/* The base's side when it cannot serve (its backend could not be set up:
 * no device, the device CTest assigned missing): the one line it sends in
 * place of the greeting, which the head reports as the base's error. */
void kb_partner_decline(FILE *out, const char *why);

/* The base's side: what the serving loop needs from the driver. */
typedef struct kb_partner_server {
    void *ctx;
    /* status as above; fills rmse/max_abs or why (one line). */
    int (*open)(void *ctx, const char *variant, const char *case_name, kb_partner_case *status,
                double *rmse, double *max_abs, char *why, size_t why_size, kb_err *err);
    int (*round)(void *ctx, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                 kb_err *err);
    void (*close)(void *ctx);
} kb_partner_server;

/* Answers the head on `in`/`out` until quit or end of input. Returns 0, or
 * -1 on a protocol error (message in err). */
int kb_partner_serve(const kb_partner_server *s, const char *kernel, FILE *in, FILE *out,
                     kb_err *err);

#endif
