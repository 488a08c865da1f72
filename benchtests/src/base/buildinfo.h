/* The build information the harness uses (kb/build.h): the driver's kb_build
 * once main() has installed it, or neutral defaults in kbench's tools and
 * self-tests, which have no kb_build. */
#ifndef KB_BUILDINFO_H
#define KB_BUILDINFO_H

#include "kb/build.h"

#include <stddef.h>

/* Installs `info` (kept, not copied) for kb_build_current() to return. */
void kb_build_use(const kb_build_info *info);

/* The installed build information, never NULL. */
const kb_build_info *kb_build_current(void);

/* Where kbench's documentation page `page` ("gate.md") is, for a message:
 * under the build's docs_dir (kbench's source tree, or an installed
 * kbench's share/doc/kbench), else "kbench's docs/<page>". */
void kb_doc_path(char *out, size_t size, const char *page);

#endif
