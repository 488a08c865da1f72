#define _GNU_SOURCE
#include "driver/profile.h"

#include "base/atomicfile.h"
#include "base/clock.h"
#include "base/pathname.h"
#include "formats/json_read.h"
#include "formats/json_write.h"
#include "guard/watchdog.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGS 256

/* How long the tool may run when no test time limit is given: ncu replays
 * each profiled launch many times, which takes minutes on a large case. */
#define PROFILE_LIMIT_S 3600.0

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
 * of --profile-with, and the time limit it stops itself at. */
static int build_args(const kb_profile_job *job, const tool *t, const char *out, const char *exe,
                      const char *timeout, char **args) {
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
        if (n >= MAX_ARGS - 5) return -1;
        args[n++] = job->argv[i];
    }
    args[n++] = "--timeout";
    args[n++] = (char *)timeout;
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

/* The child's result gets the profile's record, and when the tool failed
 * (`why`), status "error" and why: the run's status is the driver's exit. */
static void record(const char *result, const tool *t, const char *command, const char *output,
                   int status, const char *why) {
    kb_err err = {{0}};
    if (access(result, F_OK) != 0) return;
    cJSON *root = kb_json_read_file(result, &err);
    if (root && cJSON_IsObject(root)) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "tool", t->name);
        cJSON_AddStringToObject(p, "command", command);
        cJSON_AddStringToObject(p, "output", output);
        cJSON_AddNumberToObject(p, "exit_status", status);
        /* "profile" stays the baseline profile's name, which readers need. */
        cJSON_DeleteItemFromObjectCaseSensitive(root, "profiler");
        cJSON_AddItemToObject(root, "profiler", p);
        if (*why) {
            cJSON_DeleteItemFromObjectCaseSensitive(root, "status");
            cJSON_DeleteItemFromObjectCaseSensitive(root, "error");
            cJSON_AddStringToObject(root, "status", "error");
            cJSON_AddStringToObject(root, "error", why);
        }
        char *text = kb_json_print(root);
        if (!text || kb_write_file_atomic(result, text, &err) != 0)
            fprintf(stderr, "kbench: error: %s: %s\n", result, text ? err.msg : "out of memory");
        free(text);
    } else {
        fprintf(stderr, "kbench: error: %s\n", root ? "the result is not an object" : err.msg);
    }
    cJSON_Delete(root);
}

/* A signal that ends the driver while the tool runs (0: none yet): the
 * tool's process group, which the terminal's Ctrl-C does not reach, is
 * ended with it. */
static volatile sig_atomic_t ending_signal;

static void on_ending_signal(int sig) {
    ending_signal = sig;
}

/* Runs args[0] (found at `path`) in a process group of its own and waits
 * until `deadline` (kb_now_s) at most; then, or when the driver is told to
 * end, the group (the tool and the driver it runs) is killed. Its exit
 * status (128 + the signal that killed it), -1 when it could not start, -2
 * when the deadline passed. */
static int spawn_wait(const char *path, char **args, double deadline) {
    pid_t pid;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    int rc = posix_spawn(&pid, path, NULL, &attr, args, environ), status = 0;
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        error("%s: cannot start it: %s", path, strerror(rc));
        return -1;
    }
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(ending[i], &sa, &old[i]);
    const struct timespec tick = {0, 20 * 1000 * 1000};
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && !ending_signal && kb_now_s() < deadline)
        nanosleep(&tick, NULL);
    if (r == 0) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    for (int i = 0; i < 3; ++i) sigaction(ending[i], &old[i], NULL);
    if (ending_signal) raise(ending_signal);
    if (r < 0) return -1;
    if (r == 0) return -2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What identifies one version of a file: a new result is a new inode (it
 * is replaced by rename) or a new change time. */
typedef struct file_id {
    int exists;
    struct stat st;
} file_id;

static file_id identify(const char *path) {
    file_id id = {0};
    id.exists = stat(path, &id.st) == 0;
    return id;
}

static int same_file(const file_id *a, const file_id *b) {
    return a->exists == b->exists &&
           (!a->exists ||
            (a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino &&
             a->st.st_ctim.tv_sec == b->st.st_ctim.tv_sec &&
             a->st.st_ctim.tv_nsec == b->st.st_ctim.tv_nsec && a->st.st_size == b->st.st_size));
}

/* The exit status of the profiled run by its result's status (the driver's
 * own: 0 passed, 1 failed, 2 anything else), or -1 when unreadable. */
static int result_status(const char *result) {
    kb_err err = {{0}};
    cJSON *root = kb_json_read_file(result, &err);
    const cJSON *st = root ? cJSON_GetObjectItemCaseSensitive(root, "status") : NULL;
    int rc = !cJSON_IsString(st)                      ? -1
             : strcmp(st->valuestring, "passed") == 0 ? 0
             : strcmp(st->valuestring, "failed") == 0 ? 1
                                                      : 2;
    cJSON_Delete(root);
    return rc;
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

/* How long the tool may run: the test's time limit (--timeout,
 * KBENCH_TIMEOUT) less the watchdog's margin, else an hour. */
static double time_limit(const kb_options *opt) {
    return opt->timeout_s > 0.0 ? opt->timeout_s - kb_watchdog_margin(opt->timeout_s)
                                : PROFILE_LIMIT_S;
}

/* How the tool's run ended, checked against the profiled run's result:
 * the status the driver exits with, and in `why` a failure of the tool ("":
 * none), such as a tool that ran no driver or failed where the driver did
 * not. *ran is set when the profiled run left its result. */
static int judge(const tool *t, const paths *p, int status, double limit_s, const file_id *before,
                 int *ran, char *why, size_t size) {
    *why = '\0';
    if (status == -2) {
        snprintf(why, size,
                 "the profiler %s did not finish within %.0f s (%s): killed it and the driver it "
                 "ran (its process group)",
                 t->name, limit_s,
                 limit_s == PROFILE_LIMIT_S ? "the limit without --timeout"
                                            : "the test's time limit, --timeout or KBENCH_TIMEOUT");
        return 2;
    }
    if (status < 0) return 2; /* said when it failed to start */
    const file_id after = identify(p->result);
    const int wrote = access(p->file, F_OK) == 0;
    *ran = after.exists && !same_file(before, &after);
    if (!*ran && status == 77) return 77; /* skipped: no device, or the case declined */
    const int own = *ran ? result_status(p->result) : -1;
    if (!*ran)
        snprintf(why, size,
                 "the profiler %s exited with status %d%s%s%s without running the driver: %s is "
                 "not this run's result (the profiled run writes it)",
                 t->name, status, wrote ? "" : " and wrote no ", wrote ? "" : p->file,
                 wrote ? "" : ",", p->result);
    else if (own < 0)
        snprintf(why, size, "%s: the profiled run's result cannot be read", p->result);
    else if (status != 0 && status != own)
        snprintf(why, size,
                 "the profiler %s exited with status %d, while the profiled run itself ended "
                 "with %d (%s): the profiler failed, not a check",
                 t->name, status, own,
                 own == 0   ? "passed"
                 : own == 1 ? "a check failed"
                            : "error");
    else if (!wrote)
        snprintf(why, size, "the profiler %s exited with status %d and wrote no %s", t->name,
                 status, p->file);
    return *why ? 2 : own;
}

int kb_profile_run(const kb_profile_job *job) {
    const tool *t = find_tool(job->opt->profile_with);
    const kb_case *c = NULL;
    const kb_impl *impl = NULL;
    char *args[MAX_ARGS], child_timeout[32];
    static paths p;
    if (!t)
        return error("--profile-with: unknown tool '%s' (" KB_PROFILE_TOOLS ")",
                     job->opt->profile_with);
    if (check_job(job, t, &p) != 0 || the_case(job, &c, &impl) != 0 ||
        name_output(job, t, c, impl, &p) != 0)
        return 2;
    /* the profiled run stops itself a second before the tool is stopped,
     * leaving a result that says where it was */
    const double limit_s = time_limit(job->opt), deadline = kb_now_s() + limit_s;
    snprintf(child_timeout, sizeof child_timeout, "%.10g", limit_s > 2.0 ? limit_s - 1.0 : limit_s);
    if (build_args(job, t, p.out, p.exe, child_timeout, args) != 0)
        return error("--profile-with: more than %d arguments", MAX_ARGS - 16);
    quote_command(args, p.command, sizeof p.command);
    printf("profiling %s/%s with %s:\n  %s\n", c->name, impl->variant, t->name, p.command);
    fflush(stdout);
    const file_id before = identify(p.result);
    const int status = spawn_wait(p.tool, args, deadline);
    int ran = 0;
    char why[3 * KB_PATH_MAX];
    const int rc = judge(t, &p, status, limit_s, &before, &ran, why, sizeof why);
    if (*why) error("%s", why);
    if (ran) record(p.result, t, p.command, p.file, status, why);
    if (ran && access(p.file, F_OK) == 0) printf("profile: %s\n", p.file);
    return rc;
}
