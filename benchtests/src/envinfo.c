#define _GNU_SOURCE
#include "envinfo.h"

#include "buildinfo.h"
#include "hwinfo.h"
#include "kb_config.h"

#include <cblas.h>
#include <cjson/cJSON.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The git command on the project's source tree (the driver's build
 * information), its path single-quoted for the shell; -1 when there is none
 * or it does not fit. git runs without the optional locks: "git status"
 * refreshes the index and so takes .git/index.lock, which a developer's own
 * git command in the same checkout would then find taken. */
static int git_command(char *cmd, size_t size) {
    const char *src = kb_build_current()->source_dir;
    size_t n = (size_t)snprintf(cmd, size, "git --no-optional-locks -C '");
    for (; *src && n + 8 < size; ++src) {
        if (*src == '\'')
            n += (size_t)snprintf(cmd + n, size - n, "'\\''");
        else
            cmd[n++] = *src;
    }
    const char *rest = "' status --porcelain=v2 --branch --untracked-files=no 2>/dev/null";
    if (*src || !*kb_build_current()->source_dir || n + strlen(rest) >= size) return -1;
    snprintf(cmd + n, size - n, "%s", rest);
    return 0;
}

/* The commit and whether tracked files differ from it, from one git
 * command: its "# branch.oid" header and any change line after it. */
static void add_git(cJSON *env) {
    char commit[128] = "", line[512], cmd[8192];
    int dirty = 0, at_start = 1;
    FILE *p = git_command(cmd, sizeof cmd) == 0 ? popen(cmd, "r") : NULL;
    while (p && fgets(line, sizeof line, p)) {
        int starts = at_start; /* not the rest of a line longer than the buffer */
        at_start = strchr(line, '\n') != NULL;
        if (!starts) continue;
        if (strncmp(line, "# branch.oid ", 13) == 0) {
            const char *oid = line + 13;
            size_t n = strspn(oid, "0123456789abcdef");
            if (n > 0 && n < sizeof commit && (oid[n] == '\n' || oid[n] == '\0'))
                snprintf(commit, sizeof commit, "%.*s", (int)n, oid);
        } else if (line[0] != '#') {
            dirty = 1;
        }
    }
    if (p) pclose(p);
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
