#define _GNU_SOURCE
#include "envinfo.h"

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

/* First line of a command's output, or "" when it fails. */
static void first_line(const char *cmd, char *out, size_t size) {
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(out, (int)size, p)) out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

/* git without the optional locks: "git status" refreshes the index and so
 * takes .git/index.lock, which a developer's own git command in the same
 * checkout would then find taken. */
#define KB_GIT "git --no-optional-locks -C '" KB_SOURCE_DIR "' "

static void add_git(cJSON *env) {
    char commit[128], dirty[256];
    first_line(KB_GIT "rev-parse HEAD 2>/dev/null", commit, sizeof commit);
    first_line(KB_GIT "status --porcelain --untracked-files=no 2>/dev/null", dirty, sizeof dirty);
    cJSON_AddStringToObject(env, "git_commit", commit[0] ? commit : "unknown");
    if (commit[0])
        cJSON_AddBoolToObject(env, "git_dirty", dirty[0] != '\0');
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
    cJSON_AddStringToObject(env, "compiler", KB_C_COMPILER);
    cJSON_AddStringToObject(env, "c_flags", KB_C_FLAGS);
    cJSON_AddStringToObject(env, "build_type", KB_BUILD_TYPE);
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
