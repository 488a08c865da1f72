/* Replacing a file so that readers see the old or the new content, never a
 * half-written one: write a temporary file in the same directory, flush it to
 * disk, then rename it over the target.
 *
 * The temporary file is <target>.tmp.<pid>.<6 characters>. While it exists
 * its path is registered, so that kb_atomicfile_abandon (and the handlers of
 * kb_atomicfile_catch_signals) can remove it when the process is stopped;
 * one left by a process killed outright (SIGKILL) is removed by the next
 * write into the same directory, once its writer's pid is gone. */
#ifndef KB_ATOMICFILE_H
#define KB_ATOMICFILE_H

#include "base/error.h"

#include <stddef.h>

int kb_write_file_atomic(const char *path, const char *text, kb_err *err);

/* The same in two steps, for a writer that streams: begin creates and
 * registers the temporary file and returns its descriptor (-1 on error);
 * commit flushes, closes and renames it over path, or removes it. */
int kb_atomicfile_begin(const char *path, kb_err *err);
int kb_atomicfile_commit(int fd, const char *path, kb_err *err);

/* Creates a directory and its parents (like mkdir -p). */
int kb_mkdir_p(const char *path, kb_err *err);

/* Removes the temporary file of the write in progress, if any.
 * Async-signal-safe. */
void kb_atomicfile_abandon(void);

/* SIGINT, SIGTERM and SIGHUP remove the temporary file of the write in
 * progress, then end the process as the signal would have. */
void kb_atomicfile_catch_signals(void);

/* Removes from `dir` the temporary files (<name>.tmp.<pid>.XXXXXX) whose
 * writer is no longer running; returns how many it removed. */
int kb_atomicfile_remove_stale(const char *dir);

/* Whether `name` (a file name without directory) is such a temporary file;
 * its writer's pid into *pid. */
int kb_atomicfile_temp_name(const char *name, long *pid);

/* Writes all of text to fd, resuming after EINTR and short writes; 0 or -1.
 * Async-signal-safe (write(2) only). */
int kb_write_all(int fd, const char *text);

#endif
