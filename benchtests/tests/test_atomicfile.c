/* kb_write_file_atomic and kb_mkdir_p. */
#define _POSIX_C_SOURCE 200809L
#include "base/atomicfile.h"
#include "kb_test.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static int exists(const char *d, const char *name) {
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, name);
    struct stat st;
    return lstat(path, &st) == 0;
}

static void test_temp_names(void) {
    long pid = 0;
    ASSERT(kb_atomicfile_temp_name("swish.json.tmp.4242.aB3xYz", &pid));
    ASSERT_INT_EQ(pid, 4242);
    ASSERT(kb_atomicfile_temp_name("a.tmp.b.json.tmp.7.000000", &pid)); /* the last ".tmp." */
    ASSERT_INT_EQ(pid, 7);
    ASSERT(!kb_atomicfile_temp_name("swish.json.tmp.aB3xYz", &pid)); /* no pid: not ours */
    ASSERT(!kb_atomicfile_temp_name("swish.json.tmp.42.aB3xY", &pid));
    ASSERT(!kb_atomicfile_temp_name("swish.json.tmp.42.aB3xYz.bak", &pid));
    ASSERT(!kb_atomicfile_temp_name(".tmp.42.aB3xYz", &pid));
    ASSERT(!kb_atomicfile_temp_name("swish.json", &pid));
}

/* A temporary file carries its writer's pid. */
static void test_temp_name_has_pid(void) {
    const char *d = kb_test_tmpdir("atomic_pid");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "f.json");
    kb_err err;
    int fd = kb_atomicfile_begin(path, &err);
    ASSERT(fd >= 0);
    DIR *dp = opendir(d);
    struct dirent *de;
    long pid = 0;
    int found = 0;
    while (dp && (de = readdir(dp)) != NULL) found += kb_atomicfile_temp_name(de->d_name, &pid);
    if (dp) closedir(dp);
    ASSERT_INT_EQ(found, 1);
    ASSERT_INT_EQ(pid, getpid());
    ASSERT_INT_EQ(kb_atomicfile_commit(fd, path, &err), 0);
    ASSERT_INT_EQ(count_entries(d), 1);
    ASSERT(exists(d, "f.json"));
}

/* Left by writers killed outright: removed by the next write into the
 * directory when their writer is gone, kept otherwise. */
static void test_stale_temps_removed(void) {
    const char *d = kb_test_tmpdir("atomic_stale");
    char path[KB_PATH_MAX], own[64];
    static const char *const gone[] = {"f.json.tmp.999999999.aB3xYz",
                                       "g.json.tmp.999999998.zzzzzz"};
    snprintf(own, sizeof own, "f.json.tmp.%ld.aB3xYz", (long)getpid());
    const char *kept[] = {"f.json.tmp.1.aB3xYz", /* pid 1 runs */
                          own, "f.json.tmp.aB3xYz", "notes.tmp.txt", "g.json"};
    for (size_t i = 0; i < 2; ++i) {
        kb_test_join(path, sizeof path, d, gone[i]);
        kb_test_write(path, "partial");
    }
    for (size_t i = 0; i < sizeof kept / sizeof *kept; ++i) {
        kb_test_join(path, sizeof path, d, kept[i]);
        kb_test_write(path, "partial");
    }
    kb_test_join(path, sizeof path, d, "dir.tmp.999999999.aB3xYz"); /* not a file */
    ASSERT_INT_EQ(mkdir(path, 0755), 0);
    kb_test_join(path, sizeof path, d, "f.json");
    kb_err err;
    ASSERT_INT_EQ(kb_write_file_atomic(path, "new\n", &err), 0);
    for (size_t i = 0; i < 2; ++i) ASSERT(!exists(d, gone[i]));
    for (size_t i = 0; i < sizeof kept / sizeof *kept; ++i) ASSERT(exists(d, kept[i]));
    ASSERT(exists(d, "dir.tmp.999999999.aB3xYz"));
    ASSERT(same_text(path, "new\n"));
}

/* SIGINT, SIGTERM or SIGHUP during a write: the temporary file goes, the
 * target keeps its old content, and the process still ends by the signal. */
static void test_signal_removes_temp(void) {
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; ++i) {
        const char *d = kb_test_tmpdir("atomic_signal");
        char path[KB_PATH_MAX];
        kb_test_join(path, sizeof path, d, "f.json");
        kb_test_write(path, "old\n");
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            kb_err err;
            kb_atomicfile_catch_signals();
            int fd = kb_atomicfile_begin(path, &err);
            if (fd < 0 || write(fd, "partial", 7) != 7) _exit(3);
            raise(signals[i]);
            _exit(4); /* not reached */
        }
        int status = 0;
        ASSERT_INT_EQ(waitpid(child, &status, 0), child);
        ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == signals[i]);
        ASSERT_INT_EQ(count_entries(d), 1);
        ASSERT(same_text(path, "old\n"));
    }
}

/* A file reached through symbolic links (relative and absolute, one
 * dangling): the target is replaced, the links stay links. */
static void test_write_through_symlinks(void) {
    const char *d = kb_test_tmpdir("atomic-symlink");
    char sub[4096], target[4096], rel[4096], abs_link[4096], dangling[4096], loop[4096];
    kb_test_join(sub, sizeof sub, d, "real");
    kb_test_join(target, sizeof target, sub, "b.json");
    kb_test_join(rel, sizeof rel, d, "rel.json");
    kb_test_join(abs_link, sizeof abs_link, d, "abs.json");
    kb_test_join(dangling, sizeof dangling, d, "dangling.json");
    kb_test_join(loop, sizeof loop, d, "loop.json");
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_mkdir_p(sub, &err), 0);
    kb_test_write(target, "old");
    ASSERT_INT_EQ(symlink("real/b.json", rel), 0);
    ASSERT_INT_EQ(symlink(rel, abs_link), 0);
    ASSERT_INT_EQ(kb_write_file_atomic(abs_link, "new", &err), 0);
    ASSERT(same_text(target, "new"));
    struct stat st;
    ASSERT(lstat(rel, &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT(lstat(abs_link, &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT_INT_EQ(count_entries(sub), 1);
    ASSERT_INT_EQ(symlink("real/c.json", dangling), 0);
    ASSERT_INT_EQ(kb_write_file_atomic(dangling, "c", &err), 0);
    ASSERT(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT(same_text(dangling, "c"));
    ASSERT_INT_EQ(symlink("loop.json", loop), 0);
    ASSERT_INT_EQ(kb_write_file_atomic(loop, "x", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "too many levels of symbolic links");
    ASSERT(lstat(loop, &st) == 0 && S_ISLNK(st.st_mode));
}

int main(void) {
    RUN_TEST(test_write_through_symlinks);
    RUN_TEST(test_write_creates_and_replaces);
    RUN_TEST(test_write_failure_leaves_nothing);
    RUN_TEST(test_mkdir_p_nested);
    RUN_TEST(test_mkdir_p_through_file_fails);
    RUN_TEST(test_temp_names);
    RUN_TEST(test_temp_name_has_pid);
    RUN_TEST(test_stale_temps_removed);
    RUN_TEST(test_signal_removes_temp);
    return kb_test_summary();
}
