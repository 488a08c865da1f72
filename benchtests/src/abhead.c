#define _GNU_SOURCE
#include "abhead.h"

#include "kb/build.h"
#include "pathname.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The name this driver was started under (kbench-<kernel>[-cuda|-hip]):
 * the base build's driver of the same kernel and backend has it too. */
static const char *own_name(const char *argv0, char *path, size_t size) {
    kb_workers_self(argv0, path, size);
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The base's manifest: this one's path moved from this build's source tree
 * onto the base's; a manifest outside the tree is the same file for both. */
static int base_manifest(const kb_options *opt, const char *m, char *out, size_t size,
                         kb_err *err) {
    const char *source = kb_build.source_dir;
    size_t n = strlen(source);
    if (opt->ab_source && n > 0 && strncmp(m, source, n) == 0 && m[n] == '/')
        return kb_path_format(out, size, err, "--ab-source", "%s%s", opt->ab_source, m + n);
    return kb_path_format(out, size, err, "--manifest", "%s", m);
}

/* --ab-base and --ab-source name directories: a file there is a mistake,
 * and so is a missing source tree; a missing --ab-base is a base build
 * that built no driver (every case new). */
static int check_dir(const char *path, const char *what, int missing_ok, kb_err *err) {
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : kb_fail(err, "%s %s: not a directory", what, path);
    if (errno == ENOENT && missing_ok) return 0;
    return kb_fail(err, "%s %s: %s", what, path, strerror(errno));
}

/* Why the base's driver cannot run (NULL: it can), or -1 for a file there
 * that is no driver. */
static int base_driver(const char *exe, const char **why, kb_err *err) {
    struct stat st;
    *why = NULL;
    if (stat(exe, &st) != 0 && errno == ENOENT) {
        *why = "the base build has no such driver";
        return 0;
    }
    if (stat(exe, &st) != 0 || !S_ISREG(st.st_mode) || access(exe, X_OK) != 0)
        return kb_fail(err, "--ab-base: base driver %s is not an executable file", exe);
    return 0;
}

/* The base's processes and this build's other ones, started together so
 * that their start-up overlaps. */
static int start_processes(kb_ab_setup *ab, const kb_options *opt, const char *self,
                           const char *manifest_path, const char *base_manifest_path, kb_err *err) {
    kb_worker_run run = {opt->backend, opt->precision, base_manifest_path,
                         opt->seed,    opt->full,      opt->cold_cache};
    if (kb_workers_start(&ab->base, ab->processes, ab->exe, &run, err) != 0) return -1;
    if (ab->processes == 1) return 0;
    run.manifest = manifest_path;
    if (kb_workers_start(&ab->head, ab->processes - 1, self, &run, err) == 0) return 0;
    kb_workers_stop(&ab->base);
    return -1;
}

int kb_ab_start(kb_ab_setup *ab, const kb_options *opt, const char *manifest_path,
                const char *argv0, char *note, size_t note_size, kb_err *err) {
    char self[KB_PATH_MAX], manifest[KB_PATH_MAX];
    const char *why;
    if (check_dir(opt->ab_base, "--ab-base (KBENCH_AB_BASE)", 1, err) != 0 ||
        (opt->ab_source &&
         check_dir(opt->ab_source, "--ab-source (KBENCH_AB_SOURCE)", 0, err) != 0))
        return -1;
    if (kb_path_format(ab->exe, sizeof ab->exe, err, "--ab-base", "%s/%s", opt->ab_base,
                       own_name(argv0, self, sizeof self)) != 0 ||
        base_manifest(opt, manifest_path, manifest, sizeof manifest, err) != 0 ||
        base_driver(ab->exe, &why, err) != 0)
        return -1;
    ab->ref = opt->ab_ref ? opt->ab_ref : opt->ab_base;
    ab->processes = opt->gate.ab_processes;
    if (!why && access(manifest, R_OK) != 0) why = "the base has no such manifest";
    snprintf(note, note_size, "A/B against %.300s (%.600s)%s%s", ab->ref, ab->exe,
             why ? ": every case new, " : "", why ? why : "");
    if (why) return 0;
    if (start_processes(ab, opt, self, manifest_path, manifest, err) != 0) return -1;
    ab->has_partner = 1;
    return 0;
}

void kb_ab_stop(kb_ab_setup *ab) {
    kb_workers_stop(&ab->base);
    kb_workers_stop(&ab->head);
    ab->has_partner = 0;
}
