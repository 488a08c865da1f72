#define _GNU_SOURCE
#include "driver/ab_start.h"

#include "base/pathname.h"
#include "formats/json_read.h"
#include "kb/build.h"

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

/* --ab-base and --ab-source name directories, which must be there: a
 * mistyped or unbuilt base would otherwise make every case "new" and the
 * test pass having compared nothing. */
static int check_dir(const char *path, const char *what, kb_err *err) {
    struct stat st;
    if (stat(path, &st) != 0) return kb_fail(err, "%s %s: %s", what, path, strerror(errno));
    return S_ISDIR(st.st_mode) ? 0 : kb_fail(err, "%s %s: not a directory", what, path);
}

/* Whether the base's manifest lists `name` in its array `key` ("backends",
 * "precisions"): 0 when it does not, 1 when it does or cannot be read here
 * (then the base's driver must say). */
static int base_declares(const char *manifest, const char *key, const char *name) {
    kb_err ignored;
    cJSON *root = kb_json_read_file(manifest, &ignored);
    const cJSON *list = root ? cJSON_GetObjectItemCaseSensitive(root, key) : NULL, *it;
    int declares = !cJSON_IsArray(list);
    for (it = declares ? NULL : list->child; it; it = it->next)
        if (cJSON_IsString(it) && strcmp(it->valuestring, name) == 0) declares = 1;
    cJSON_Delete(root);
    return declares;
}

/* Why the base cannot have this test (NULL: it must have it): a kernel, a
 * backend or a precision the base's source does not declare, which is new;
 * otherwise its driver must be there and executable, or -1. */
static int base_driver(const kb_options *opt, const char *exe, const char *manifest,
                       const char **why, kb_err *err) {
    struct stat st;
    *why = NULL;
    if (access(manifest, F_OK) != 0 && errno == ENOENT) {
        *why = "the base has no such manifest";
        return 0;
    }
    if (!base_declares(manifest, "backends", opt->backend)) {
        *why = "the base's manifest does not declare this backend";
        return 0;
    }
    if (!base_declares(manifest, "precisions", opt->precision)) {
        *why = "the base's manifest does not declare this precision";
        return 0;
    }
    if (stat(exe, &st) != 0 && errno == ENOENT)
        return kb_fail(err,
                       "--ab-base (KBENCH_AB_BASE) %s: the base build has no driver %s, though "
                       "its manifest %s declares this kernel on backend '%s': build it there "
                       "(kbench-ab does), or name the base build's driver directory",
                       opt->ab_base, exe, manifest, opt->backend);
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
                const char *kernel, const char *argv0, char *note, size_t note_size, kb_err *err) {
    char self[KB_PATH_MAX], manifest[KB_PATH_MAX];
    const char *why;
    if (check_dir(opt->ab_base, "--ab-base (KBENCH_AB_BASE)", err) != 0 ||
        (opt->ab_source && check_dir(opt->ab_source, "--ab-source (KBENCH_AB_SOURCE)", err) != 0))
        return -1;
    if (kb_path_format(ab->exe, sizeof ab->exe, err, "--ab-base", "%s/%s", opt->ab_base,
                       own_name(argv0, self, sizeof self)) != 0 ||
        base_manifest(opt, manifest_path, manifest, sizeof manifest, err) != 0 ||
        base_driver(opt, ab->exe, manifest, &why, err) != 0)
        return -1;
    ab->ref = opt->ab_ref ? opt->ab_ref : opt->ab_base;
    ab->processes = opt->gate.ab_processes;
    snprintf(note, note_size, "A/B against %.300s, base driver %.600s%s%s", ab->ref, ab->exe,
             why ? ": every case new, " : "", why ? why : "");
    ab->why_new = why;
    if (why) return 0;
    /* A base that cannot serve fails each case with why, not the test
     * before its cases: the report then names it for every case. */
    kb_err start = {{0}};
    if (start_processes(ab, opt, self, manifest_path, manifest, &start) != 0) {
        snprintf(ab->broken, sizeof ab->broken, "%s", start.msg);
        return 0;
    }
    if (strcmp(ab->base.p[0].kernel, kernel) != 0) {
        snprintf(ab->broken, sizeof ab->broken,
                 "base driver %.600s serves kernel '%.100s', not '%.100s': --ab-base must be a "
                 "build of the same kernels",
                 ab->exe, ab->base.p[0].kernel, kernel);
        kb_ab_stop(ab);
        return 0;
    }
    ab->has_partner = 1;
    return 0;
}

void kb_ab_stop(kb_ab_setup *ab) {
    kb_workers_stop(&ab->base);
    kb_workers_stop(&ab->head);
    ab->has_partner = 0;
}
