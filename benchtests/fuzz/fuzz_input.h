/* The fuzzing harnesses' shared part: each input is written to an
 * anonymous in-memory file (memfd) whose /proc/self/fd path the reader under
 * test opens like any file, so the readers run exactly as the driver runs
 * them, with no file system in the loop. */
#ifndef KB_FUZZ_INPUT_H
#define KB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* Replaces the in-memory file's content with data; returns its path
 * (stable for the process), or aborts when the memfd cannot be written. */
const char *kb_fuzz_file(const uint8_t *data, size_t size);

#endif
