#define _POSIX_C_SOURCE 200809L
/* Whether a baseline file is committed: git knows it (tracked in the index
 * of the repository it lies in). The report says "committed baselines" only
 * then; a file git does not know is a local recording. */
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int kb_sum_git_tracked(const char *path) {
    struct stat st;
    if (!path || !*path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= sizeof dir) return -1;
    if (slash) {
        memcpy(dir, path, n ? n : 1);
        dir[n ? n : 1] = '\0';
    } else {
        strcpy(dir, ".");
    }
    const char *base = slash ? slash + 1 : path;
    char *argv[] = {"git", "-C", dir, "ls-files", "--error-unmatch", "--", (char *)base, NULL};
    posix_spawn_file_actions_t io;
    if (posix_spawn_file_actions_init(&io) != 0) return -1;
    posix_spawn_file_actions_addopen(&io, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&io, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &io, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&io);
    if (rc != 0) return -1; /* no git */
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (!WIFEXITED(status)) return -1;
    /* 0: tracked; 1: git knows the repository but not the file; 128: no
     * repository there. */
    return WEXITSTATUS(status) == 0 ? 1 : WEXITSTATUS(status) == 1 ? 0 : -1;
}
