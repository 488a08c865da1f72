#define _POSIX_C_SOURCE 200809L
#include "kb_test.h"

#include <stdlib.h>

int kb_test_failures, kb_tests_run, kb_tests_failed;
const char *kb_test_current = "";

int kb_test_summary(void) {
    printf("%d passed, %d failed\n", kb_tests_run - kb_tests_failed, kb_tests_failed);
    return kb_tests_failed ? 1 : 0;
}

const char *kb_test_tmpdir(const char *name) {
    static char dir[4096];
    char cmd[2 * sizeof dir + 64];
    snprintf(dir, sizeof dir, "%s/%s", KB_TEST_SCRATCH, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot prepare %s\n", dir);
        exit(2);
    }
    return dir;
}

char *kb_test_join(char *out, size_t size, const char *a, const char *b) {
    if (snprintf(out, size, "%s/%s", a, b) >= (int)size) {
        fprintf(stderr, "path too long: %s/%s\n", a, b);
        exit(2);
    }
    return out;
}

void kb_test_write(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}
