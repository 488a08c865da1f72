#define _GNU_SOURCE
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

const char *kb_fuzz_file(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("kbench-fuzz-input", MFD_CLOEXEC);
        if (fd < 0) {
            perror("kbench fuzz: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) {
        perror("kbench fuzz: ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) {
            perror("kbench fuzz: pwrite");
            abort();
        }
        done += (size_t)n;
    }
    return path;
}
