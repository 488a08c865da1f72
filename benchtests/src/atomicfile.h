/* Replacing a file so that readers see the old or the new content, never a
 * half-written one: write a temporary file in the same directory, flush it to
 * disk, then rename it over the target. */
#ifndef KB_ATOMICFILE_H
#define KB_ATOMICFILE_H

#include "error.h"

int kb_write_file_atomic(const char *path, const char *text, kb_err *err);

/* Creates a directory and its parents (like mkdir -p). */
int kb_mkdir_p(const char *path, kb_err *err);

#endif
