/* The base's side of the partner protocol (protocol.h): a driver started
 * with --partner greets the head, then sets cases up and times rounds as
 * the head asks, through the driver's kb_partner_server, until told to
 * quit. Input it cannot take whole ends the serving with a message naming
 * the command, never with a guess at what the head meant. */
#include "partner/protocol.h"

#include "partner/protocol_wire.h"

#include <stdlib.h>
#include <string.h>

void kb_partner_decline(FILE *out, const char *why) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", why);
    fprintf(out, "error %s\n", kb_wire_one_line(msg));
    fflush(out);
}

static int answer_case(const kb_partner_server *s, const char *args, FILE *out, int *open,
                       kb_err *err) {
    char variant[128], name[256];
    if (kb_wire_case_args(args, variant, name) != 0)
        return kb_fail(
            err, "A/B partner: bad 'case' command '%.200s' (expected 'case <variant> <case>')",
            args);
    if (*open) s->close(s->ctx);
    *open = 0;
    kb_partner_case status;
    double rmse = 0.0, max_abs = 0.0;
    char why[512] = "";
    kb_err local = {{0}};
    if (s->open(s->ctx, variant, name, &status, &rmse, &max_abs, why, sizeof why, &local) != 0)
        return fprintf(out, "error %s\n", kb_wire_one_line(local.msg)) < 0 ? -1 : 0;
    *open = status == KB_PARTNER_READY;
    if (status == KB_PARTNER_READY) return kb_wire_print_ready(out, rmse, max_abs);
    if (status == KB_PARTNER_SKIP) return fprintf(out, "skip %s\n", kb_wire_one_line(why));
    return fprintf(out, "absent\n");
}

static int answer_round(const kb_partner_server *s, const char *args, FILE *out, int open,
                        kb_err *err) {
    int cpu, move;
    kb_sampling c;
    memset(&c, 0, sizeof c);
    if (kb_wire_round_args(args, &cpu, &move, &c) != 0)
        return kb_fail(err, "A/B partner: bad 'round' command '%.200s' (docs/ab.md)", args);
    if (!open) return fprintf(out, "error no case is set up for this round\n");
    kb_samples smp = {0};
    kb_err local = {{0}};
    if (s->round(s->ctx, cpu, move, &c, &smp, &local) != 0) {
        kb_samples_free(&smp);
        return fprintf(out, "error %s\n", kb_wire_one_line(local.msg));
    }
    const int rc = kb_wire_print_samples(out, &smp);
    kb_samples_free(&smp);
    return rc;
}

static int answer(const kb_partner_server *s, const char *line, FILE *out, int *open, kb_err *err) {
    int rc;
    if (kb_wire_starts_with(line, "case"))
        rc = answer_case(s, kb_wire_rest(line), out, open, err);
    else if (kb_wire_starts_with(line, "round"))
        rc = answer_round(s, kb_wire_rest(line), out, *open, err);
    else if (strcmp(line, "end") == 0) {
        if (*open) s->close(s->ctx);
        *open = 0;
        rc = fprintf(out, "ended\n");
    } else
        return kb_fail(err, "A/B partner: unknown command '%.200s'", line);
    if (rc < 0 && !*err->msg) kb_fail(err, "A/B partner: cannot answer the head");
    return rc < 0 || fflush(out) != 0 ? -1 : 0;
}

/* The next command into *line; 0 at 'quit' or at the end of input between
 * commands, 1 for a command, -1 for input that is not a command line. */
static int next_command(FILE *in, char **line, size_t *cap, int open, kb_err *err) {
    ssize_t len = kb_wire_read_line(in, line, cap, KB_WIRE_COMMAND_MAX);
    if (len == KB_LINE_EOF && open)
        return kb_fail(err,
                       "A/B partner: input ended with a case still set up (no 'end' or 'quit')");
    if (len == KB_LINE_EOF) return 0;
    if (len == KB_LINE_CUT)
        return kb_fail(err, "A/B partner: input ended inside a command (no newline after it)");
    if (len == KB_LINE_TOO_LONG)
        return kb_fail(err, "A/B partner: a command longer than %d bytes", KB_WIRE_COMMAND_MAX);
    if (len == KB_LINE_NUL) return kb_fail(err, "A/B partner: a command holding a NUL byte");
    return strcmp(*line, "quit") != 0;
}

int kb_partner_serve(const kb_partner_server *s, const char *kernel, FILE *in, FILE *out,
                     kb_err *err) {
    if (kb_wire_print_greeting(out, KB_PARTNER_VERSION, kernel) < 0 || fflush(out) != 0)
        return kb_fail(err, "A/B partner: cannot greet the head");
    char *line = NULL;
    size_t cap = 0;
    int open = 0, rc = 0, more;
    while (rc == 0 && (more = next_command(in, &line, &cap, open, err)) != 0)
        rc = more < 0 ? -1 : answer(s, line, out, &open, err);
    if (open) s->close(s->ctx);
    free(line);
    return rc;
}
