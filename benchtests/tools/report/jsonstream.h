/* Reading a JSON file in one pass and in bounded memory. The value is built
 * as a cJSON tree, except the arrays a hook claims: their elements are built
 * one at a time, handed to the hook and freed, so that the tree never holds
 * them (a result's cases, and each case's samples). The rules are the
 * harness's reader's (formats/json_read.h), with the same messages: a syntax error
 * names the file, line and column; a NUL byte, a "\u0000" escape, a number
 * that is not finite (1e999), a key that appears twice in one object and a
 * string or key that is not UTF-8 name the file and the field. A FIFO
 * nobody writes to, a directory and a device are refused when opened. */
#ifndef KB_JSONSTREAM_H
#define KB_JSONSTREAM_H

#include "base/error.h"

#include <cjson/cJSON.h>

#define KB_JS_MAX_INDEX 16 /* array indices along a path told to the hook */

/* Where a claimed array is: its path ("cases[3].rounds[1].samples_ms") and
 * the array indices along it, outermost first ({3, 1}). */
typedef struct kb_js_at {
    const char *path;
    const int *index;
    int n_index;
} kb_js_at;

typedef struct kb_js_hooks {
    void *ctx;
    /* Whether the array at `path` hands its elements over. */
    int (*claims)(void *ctx, const char *path);
    /* Element `i` of a claimed array (the tree keeps the array, empty). */
    int (*element)(void *ctx, const kb_js_at *at, int i, const cJSON *item, kb_err *err);
    /* A claimed array ended, after n elements. */
    int (*end)(void *ctx, const kb_js_at *at, int n, kb_err *err);
} kb_js_hooks;

/* The file's value, or NULL with a message. `what` names what the root must
 * be ("a kbench result") when it must be an object, checked before
 * anything is built; NULL accepts any value. */
cJSON *kb_js_read_file(const char *file, const kb_js_hooks *hooks, const char *what, kb_err *err);

/* Whether path matches pattern, where "[]" in the pattern stands for any
 * index ("cases[].rounds[].samples_ms"). */
int kb_js_path_is(const char *path, const char *pattern);

#endif
