#define _GNU_SOURCE
#include "machine/envinfo.h"

#include "base/buildinfo.h"
#include "kb_config.h"
#include "machine/hwinfo.h"

#include "base/clock.h"

#include <cblas.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long git may take to describe the source tree: one that hangs (a
 * stale lock, a slow network file system) leaves the commit unknown. */
#define GIT_WAIT_S 10.0

/* The start of `git status --porcelain=v2 --branch` on the project's source
 * tree (the driver's build information) in out, NUL-terminated; the rest is
 * read and dropped. git runs without the optional locks: "git status"
 * refreshes the index and so takes .git/index.lock, which a developer's own
 * git command in the same checkout would then find taken. It runs in a
 * process group of its own, killed after GIT_WAIT_S. 0, or -1 when there is
 * no source tree or git could not run. */
static int git_status(char *out, size_t size) {
    char *src = (char *)kb_build_current()->source_dir;
    char *argv[] = {"git",      "--no-optional-locks",  "-C", src, "status", "--porcelain=v2",
                    "--branch", "--untracked-files=no", NULL};
    int fds[2];
    if (!*src || pipe2(fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t n = 0;
    const double deadline = kb_now_s() + GIT_WAIT_S;
    for (double left; rc == 0 && (left = deadline - kb_now_s()) > 0.0;) {
        struct pollfd pfd = {fds[0], POLLIN, 0};
        if (poll(&pfd, 1, (int)(1000.0 * left) + 1) <= 0) continue;
        char drop[4096];
        ssize_t got =
            n + 1 < size ? read(fds[0], out + n, size - 1 - n) : read(fds[0], drop, sizeof drop);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (n + 1 < size) n += (size_t)got;
    }
    out[n] = '\0';
    close(fds[0]);
    if (rc != 0) return -1;
    int status = 0;
    const struct timespec tick = {0, 1000 * 1000};
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && kb_now_s() < deadline)
        nanosleep(&tick, NULL);
    if (r == 0) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return -1;
    }
    return r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The commit and whether tracked files differ from it: git status's
 * "# branch.oid" header and any change line after it. */
static void add_git(cJSON *env) {
    static char text[65536];
    char commit[128] = "";
    int dirty = 0;
    for (const char *line = git_status(text, sizeof text) == 0 ? text : NULL; line && *line;) {
        const size_t len = strcspn(line, "\n");
        if (line[len] != '\n') break; /* cut short: not a whole line */
        if (strncmp(line, "# branch.oid ", 13) == 0) {
            const char *oid = line + 13;
            size_t k = strspn(oid, "0123456789abcdef");
            if (k > 0 && k < sizeof commit && oid[k] == '\n')
                snprintf(commit, sizeof commit, "%.*s", (int)k, oid);
        } else if (line[0] != '#') {
            dirty = 1;
        }
        line += len + 1;
    }
    cJSON_AddStringToObject(env, "git_commit", commit[0] ? commit : "unknown");
    if (commit[0])
        cJSON_AddBoolToObject(env, "git_dirty", dirty);
    else
        cJSON_AddNullToObject(env, "git_dirty");
}

static void add_os(cJSON *env) {
    char pretty[256] = "unknown";
    FILE *f = fopen("/etc/os-release", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0) continue;
        char *v = line + 12;
        v[strcspn(v, "\n")] = '\0';
        if (*v == '"') {
            ++v;
            v[strcspn(v, "\"")] = '\0';
        }
        snprintf(pretty, sizeof pretty, "%.255s", v);
    }
    if (f) fclose(f);
    struct utsname u;
    char host[256] = "unknown";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    cJSON_AddStringToObject(env, "os", pretty);
    cJSON_AddStringToObject(env, "hostname", host);
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(env, "kernel", u.release);
        cJSON_AddStringToObject(env, "arch", u.machine);
    }
}

static void add_libraries(cJSON *env) {
    cJSON *libs = cJSON_AddObjectToObject(env, "libraries");
    cJSON_AddStringToObject(libs, "cjson", cJSON_Version());
    cJSON_AddStringToObject(libs, "openblas", openblas_get_config());
    cJSON_AddStringToObject(libs, "glibc", gnu_get_libc_version());
}

cJSON *kb_env_describe(const char *hardware_id, const char *profile) {
    cJSON *env = cJSON_CreateObject();
    if (!env) return NULL;
    kb_cpu_info ci;
    kb_cpu_info_read(&ci);
    cJSON_AddStringToObject(env, "kbench_version", KB_VERSION);
    add_git(env);
    cJSON_AddStringToObject(env, "compiler", kb_build_current()->compiler);
    cJSON_AddStringToObject(env, "c_flags", kb_build_current()->c_flags);
    cJSON_AddStringToObject(env, "build_type", kb_build_current()->build_type);
    cJSON_AddStringToObject(env, "cpu_model", ci.model_name);
    cJSON_AddNumberToObject(env, "cpu_count", ci.ncpu);
    cJSON_AddStringToObject(env, "hardware_id", hardware_id);
    cJSON_AddStringToObject(env, "profile", profile);
    add_os(env);
    add_libraries(env);
    return env;
}

double kb_env_peak_rss_mib(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0.0;
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}
