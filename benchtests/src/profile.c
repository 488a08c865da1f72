#define _GNU_SOURCE
#include "profile.h"

#include "atomicfile.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "pathname.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGS 256

/* What each tool is, where it comes from, and how it is run. */
typedef struct tool {
    const char *name, *package, *ext;
    int cuda_only;
} tool;

static const tool tools[] = {
    {"nsys", "NVIDIA Nsight Systems, in the CUDA toolkit or on its own", ".nsys-rep", 1},
    {"ncu", "NVIDIA Nsight Compute, in the CUDA toolkit or on its own", ".ncu-rep", 1},
    {"perf", "Linux perf; Debian: apt-get install linux-perf", ".perf.data", 0},
};

static const tool *find_tool(const char *name) {
    for (size_t i = 0; i < sizeof tools / sizeof *tools; ++i)
        if (strcmp(tools[i].name, name) == 0) return &tools[i];
    return NULL;
}

/* Says why, and returns the driver's exit status for an error. */
static int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "kbench: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* The tool's executable on PATH, as a shell would find it. */
static int on_path(const char *name, char *out, size_t size) {
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(out, size, "%.*s/%s", (int)n, n ? p : ".", name);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* The one case and variant selected, or an error listing what is. */
static int the_case(const kb_profile_job *job, const kb_case **c, const kb_impl **impl) {
    char list[1024] = "";
    int n = 0;
    for (int i = 0; i < job->manifest->n_cases; ++i) {
        const kb_case *k = &job->manifest->cases[i];
        if (!job->selected(job->ctx, k)) continue;
        for (int j = 0; j < job->n_impls; ++j, ++n) {
            size_t len = strlen(list);
            if (n < 12)
                snprintf(list + len, sizeof list - len, "%s%s/%s", n ? ", " : "", k->name,
                         job->impls[j]->variant);
            else if (n == 12)
                snprintf(list + len, sizeof list - len, ", ...");
            *c = k;
            *impl = job->impls[j];
        }
    }
    if (n == 1) return 0;
    return error("--profile-with re-runs one case of one variant; these options select %d "
                 "(case/variant: %s): choose one with --case NAME and --variant NAME",
                 n, list);
}

/* Whether argv[i] is --profile-with (or its abbreviation, as getopt_long
 * takes it); *skip is how many arguments it spans. */
static int is_profile_with(char **argv, int i, int argc, int *skip) {
    const char *a = argv[i], *full = "--profile-with";
    size_t n = strcspn(a, "=");
    if (n < strlen("--profile-") || n > strlen(full) || strncmp(a, full, n) != 0) return 0;
    *skip = a[n] == '=' || i + 1 >= argc ? 1 : 2;
    return 1;
}

/* The tool's command line, then this driver's with --profiled-by instead
 * of --profile-with. */
static int build_args(const kb_profile_job *job, const tool *t, const char *out, const char *exe,
                      char **args) {
    int n = 0;
    args[n++] = (char *)t->name;
    if (strcmp(t->name, "perf") == 0) {
        static char *const perf[] = {"record", "-g", "-o"};
        for (size_t i = 0; i < 3; ++i) args[n++] = perf[i];
    } else if (strcmp(t->name, "nsys") == 0) {
        static char *const nsys[] = {"profile", "--trace=cuda,nvtx", "--force-overwrite=true",
                                     "-o"};
        for (size_t i = 0; i < 4; ++i) args[n++] = nsys[i];
    } else {
        /* every kernel of the run is the case's (the child runs no other);
         * --set full replays each launch many times, so only the first ten */
        static char *const ncu[] = {"--set", "full", "--nvtx", "--launch-count", "10", "-f", "-o"};
        for (size_t i = 0; i < 7; ++i) args[n++] = ncu[i];
    }
    args[n++] = (char *)out;
    args[n++] = "--";
    args[n++] = (char *)exe;
    for (int i = 1, skip; i < job->argc; ++i) {
        if (is_profile_with(job->argv, i, job->argc, &skip)) {
            i += skip - 1;
            continue;
        }
        if (n >= MAX_ARGS - 3) return -1;
        args[n++] = job->argv[i];
    }
    args[n++] = "--profiled-by";
    args[n++] = (char *)t->name;
    args[n] = NULL;
    return 0;
}

/* The command as a shell reads it: arguments quoted where they need it. */
static void quote_command(char **args, char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; args[i] && len < size; ++i) {
        const char *a = args[i];
        int plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789_-./=:,+@%") == strlen(a);
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : "", plain ? a : "'");
        for (; !plain && *a && len < size; ++a)
            len += (size_t)snprintf(out + len, size - len, *a == '\'' ? "'\\''" : "%c", *a);
        if (!plain && len < size) len += (size_t)snprintf(out + len, size - len, "'");
    }
}

/* The child's result gets the profile's record (a result it did not write,
 * a skipped test's, is left alone). */
static void record(const char *result, const tool *t, const char *command, const char *output,
                   int status) {
    kb_err err = {{0}};
    if (access(result, F_OK) != 0) return;
    cJSON *root = kb_json_read_file(result, &err);
    if (root && cJSON_IsObject(root)) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "tool", t->name);
        cJSON_AddStringToObject(p, "command", command);
        cJSON_AddStringToObject(p, "output", output);
        cJSON_AddNumberToObject(p, "exit_status", status);
        cJSON_DeleteItemFromObjectCaseSensitive(root, "profile");
        cJSON_AddItemToObject(root, "profile", p);
        char *text = kb_json_print(root);
        if (!text || kb_write_file_atomic(result, text, &err) != 0)
            fprintf(stderr, "kbench: error: %s: %s\n", result, text ? err.msg : "out of memory");
        free(text);
    } else {
        fprintf(stderr, "kbench: error: %s\n", root ? "the result is not an object" : err.msg);
    }
    cJSON_Delete(root);
}

/* Runs args[0] (found at `path`) and waits: its exit status, or -1. */
static int spawn_wait(const char *path, char **args) {
    pid_t pid;
    int rc = posix_spawn(&pid, path, NULL, NULL, args, environ), status;
    if (rc != 0) {
        error("%s: cannot start it: %s", path, strerror(rc));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

typedef struct paths {
    char tool[KB_PATH_MAX], exe[KB_PATH_MAX], out[KB_PATH_MAX], file[KB_PATH_MAX];
    char result[KB_PATH_MAX], command[4 * KB_PATH_MAX];
} paths;

/* The output file (nsys and ncu add their extension to -o themselves). */
static int name_output(const kb_profile_job *job, const tool *t, const kb_case *c,
                       const kb_impl *impl, paths *p) {
    kb_err err = {{0}};
    const char *dir = job->opt->results_dir;
    if (kb_path_format(p->file, sizeof p->file, &err, "--results-dir", "%s/%s.%s.%s%s", dir,
                       job->test_name, c->name, impl->variant, t->ext) != 0 ||
        kb_path_format(p->result, sizeof p->result, &err, "--results-dir", "%s/%s.json", dir,
                       job->test_name) != 0 ||
        kb_mkdir_p(dir, &err) != 0)
        return error("%s", err.msg);
    snprintf(p->out, sizeof p->out, "%s", p->file);
    if (strcmp(t->name, "perf") != 0) p->out[strlen(p->out) - strlen(t->ext)] = '\0';
    ssize_t n = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
    if (n <= 0) return error("--profile-with: cannot tell this driver's path: %s", strerror(errno));
    p->exe[n] = '\0';
    return 0;
}

static int check_job(const kb_profile_job *job, const tool *t, paths *p) {
    if (!on_path(t->name, p->tool, sizeof p->tool))
        return error("%s not found on PATH (part of %s): install it or add its directory to PATH",
                     t->name, t->package);
    if (!*job->opt->results_dir)
        return error("--profile-with: no results directory to write the profile to "
                     "(--results-dir)");
    if (t->cuda_only && strcmp(job->opt->backend, "cuda") != 0)
        return error("--profile-with %s: it profiles CUDA kernels, and backend '%s' runs none: "
                     "profile it with perf",
                     t->name, job->opt->backend);
    return 0;
}

int kb_profile_run(const kb_profile_job *job) {
    const tool *t = find_tool(job->opt->profile_with);
    const kb_case *c = NULL;
    const kb_impl *impl = NULL;
    char *args[MAX_ARGS];
    static paths p;
    if (!t)
        return error("--profile-with: unknown tool '%s' (" KB_PROFILE_TOOLS ")",
                     job->opt->profile_with);
    if (check_job(job, t, &p) != 0 || the_case(job, &c, &impl) != 0 ||
        name_output(job, t, c, impl, &p) != 0)
        return 2;
    if (build_args(job, t, p.out, p.exe, args) != 0)
        return error("--profile-with: more than %d arguments", MAX_ARGS - 16);
    quote_command(args, p.command, sizeof p.command);
    printf("profiling %s/%s with %s:\n  %s\n", c->name, impl->variant, t->name, p.command);
    fflush(stdout);
    int status = spawn_wait(p.tool, args);
    if (status == 77) return 77; /* skipped: no device, or the case declined */
    if (status < 0 || access(p.file, F_OK) != 0)
        return error("%s exited with status %d and wrote no %s", t->name, status, p.file);
    record(p.result, t, p.command, p.file, status);
    printf("profile: %s\n", p.file);
    return status == 0 || status == 1 ? status : 2;
}
