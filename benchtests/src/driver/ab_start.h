/* A/B mode, the head starting its base: the base build's driver of the same
 * name, started as the partner (partner/protocol.h) that measures the base's side of
 * each pair (ab.h). The base's side of the protocol is serve.h. */
#ifndef KB_AB_START_H
#define KB_AB_START_H

#include "driver/options.h"
#include "partner/ab.h"

#include <stddef.h>

/* Fills ab from the options (--ab-base, --ab-source, --ab-ref) for the
 * manifest at manifest_path of `kernel`, and starts the partner, with
 * --ab-processes processes a side (this one is the head's first). Where the
 * base's source has no such kernel, backend or precision, every case is new
 * (ab->has_partner 0) and note says why; a base whose driver cannot serve
 * (it does not speak the partner protocol, serves another kernel, cannot
 * set its backend up) fills ab->broken, which every case then reports.
 * `note` gets the line the report shows. 0, or -1 with a message for
 * options naming what is not there: a directory, or the driver of a base
 * that declares this kernel and backend. */
int kb_ab_start(kb_ab_setup *ab, const kb_options *opt, const char *manifest_path,
                const char *kernel, const char *argv0, char *note, size_t note_size, kb_err *err);

/* Stops every process kb_ab_start started. */
void kb_ab_stop(kb_ab_setup *ab);

#endif
