/* kb_write_file_atomic and kb_mkdir_p. */
#define _POSIX_C_SOURCE 200809L
#include "atomicfile.h"
#include "kb_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_text(const char *path, const char *want) {
    char buf[256] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return n == strlen(want) && memcmp(buf, want, n) == 0;
}

/* Entries of d other than . and .. */
static int count_entries(const char *d) {
    DIR *dp = opendir(d);
    if (!dp) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(dp);
    return n;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_write_creates_and_replaces(void) {
    const char *d = kb_test_tmpdir("atomic_replace");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "f.json");
    kb_err err;
    ASSERT_INT_EQ(kb_write_file_atomic(path, "first version, longer\n", &err), 0);
    ASSERT(same_text(path, "first version, longer\n"));
    ASSERT_INT_EQ(kb_write_file_atomic(path, "second\n", &err), 0);
    ASSERT(same_text(path, "second\n")); /* replaced, not overwritten in place */
    ASSERT_INT_EQ(kb_write_file_atomic(path, "", &err), 0);
    ASSERT(same_text(path, ""));
    ASSERT_INT_EQ(count_entries(d), 1); /* no temporary file left */
    struct stat st;
    ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
}

static void test_write_failure_leaves_nothing(void) {
    const char *d = kb_test_tmpdir("atomic_fail");
    char path[KB_PATH_MAX];
    kb_err err = {{0}};
    /* The directory does not exist: no temporary file can be made. */
    kb_test_join(path, sizeof path, d, "missing/f.json");
    ASSERT_INT_EQ(kb_write_file_atomic(path, "x", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, "cannot create a temporary file");
    /* The target is a directory: the rename fails after the temporary file
     * was written, which must be removed again (root cannot bypass this). */
    kb_test_join(path, sizeof path, d, "target");
    ASSERT_INT_EQ(mkdir(path, 0755), 0);
    ASSERT_INT_EQ(kb_write_file_atomic(path, "x", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, "cannot write");
    ASSERT_STR_CONTAINS(err.msg, "previous file is unchanged");
    ASSERT(is_dir(path));
    ASSERT_INT_EQ(count_entries(d), 1);
}

static void test_mkdir_p_nested(void) {
    const char *d = kb_test_tmpdir("atomic_mkdir");
    char path[KB_PATH_MAX];
    kb_err err;
    kb_test_join(path, sizeof path, d, "a/b/c/d");
    ASSERT_INT_EQ(kb_mkdir_p(path, &err), 0);
    ASSERT(is_dir(path));
    ASSERT_INT_EQ(kb_mkdir_p(path, &err), 0);     /* existing: fine */
    kb_test_join(path, sizeof path, d, "a/b/e/"); /* trailing slash */
    ASSERT_INT_EQ(kb_mkdir_p(path, &err), 0);
    ASSERT(is_dir(path));
    kb_test_join(path, sizeof path, d, "x//y"); /* doubled slash */
    ASSERT_INT_EQ(kb_mkdir_p(path, &err), 0);
    ASSERT(is_dir(path));
}

static void test_mkdir_p_through_file_fails(void) {
    const char *d = kb_test_tmpdir("atomic_mkdir_file");
    char file[KB_PATH_MAX], path[KB_PATH_MAX];
    kb_err err = {{0}};
    kb_test_join(file, sizeof file, d, "plain");
    kb_test_write(file, "x\n");
    kb_test_join(path, sizeof path, file, "sub/dir");
    ASSERT_INT_EQ(kb_mkdir_p(path, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, file);
    ASSERT_STR_CONTAINS(err.msg, "cannot create directory");
    ASSERT_STR_CONTAINS(err.msg, "Not a directory");
    /* The path itself is a regular file. */
    ASSERT_INT_EQ(kb_mkdir_p(file, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, file);
    ASSERT_STR_CONTAINS(err.msg, "not a directory");
    ASSERT(same_text(file, "x\n"));
}

int main(void) {
    RUN_TEST(test_write_creates_and_replaces);
    RUN_TEST(test_write_failure_leaves_nothing);
    RUN_TEST(test_mkdir_p_nested);
    RUN_TEST(test_mkdir_p_through_file_fails);
    return kb_test_summary();
}
