/* The GPU backend's device memory (backend_gpu.h): allocations placed at a
 * random offset, the copies to and from the host, and the cold-cache
 * flush. Placement is a job of its own because where a buffer lands moves
 * a case's time for as long as the process keeps it (docs/ab.md). */
#include "backend/backend_gpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Where a buffer lands in device memory decides which L2 slices and memory
 * channels its lines hash to, and a process keeps what it drew for as long
 * as it keeps the buffer. Each buffer therefore starts at a random offset
 * (a multiple of the runtime's own 256-byte alignment, below one 2 MiB
 * page) into a block that much larger: the rounds' moves (runner.c) then
 * draw a new placement each time instead of alternating between the same
 * two blocks, and the interval sees placement as the noise it is. */
#define PLACE_ALIGN ((size_t)256)
#define PLACE_SPAN  ((size_t)2 << 20)

typedef struct block {
    void *user, *base;
} block;
static block *blocks; /* the allocations made with an offset */
static size_t n_blocks, blocks_cap;

/* A per-process draw (not the run's seed: the point is that processes
 * differ), xorshift64 seeded from the clock and the process id. */
static size_t random_offset(void) {
    static unsigned long long x;
    if (x == 0) {
        struct timespec t = {0, 0};
        timespec_get(&t, TIME_UTC);
        x = ((unsigned long long)t.tv_nsec << 20) ^ (unsigned long long)t.tv_sec ^
            ((unsigned long long)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (size_t)(x % (PLACE_SPAN / PLACE_ALIGN)) * PLACE_ALIGN;
}

static int remember(void *user, void *base) {
    if (n_blocks == blocks_cap) {
        size_t cap = blocks_cap ? 2 * blocks_cap : 64;
        block *b = realloc(blocks, cap * sizeof *b);
        if (!b) return -1;
        blocks = b;
        blocks_cap = cap;
    }
    blocks[n_blocks++] = (block){user, base};
    return 0;
}

void *kb__gpu_mem_alloc(size_t bytes, kb_err *err) {
    void *base = NULL;
    const size_t offset = random_offset();
    /* with the offset when memory allows it and it can be remembered */
    if (bytes <= SIZE_MAX - PLACE_SPAN &&
        kb_gpu(Malloc)(&base, bytes + PLACE_SPAN) == kb_gpu(Success)) {
        void *user = (char *)base + offset;
        if (remember(user, base) == 0) return user;
        (void)kb_gpu(Free)(base);
    }
    (void)kb_gpu(GetLastError)(); /* the padded request's failure is not this one's */
    void *p = NULL;
    gpu_error e = kb_gpu(Malloc)(&p, bytes ? bytes : 1);
    if (e != kb_gpu(Success)) {
        char what[96];
        snprintf(what, sizeof what, "allocating %zu bytes", bytes);
        kb__gpu_fail(err, e, what);
        return NULL;
    }
    return p;
}

/* The block behind p (p itself when it was allocated without an offset). */
static void *block_of(void *p) {
    for (size_t i = 0; i < n_blocks; ++i) {
        if (blocks[i].user != p) continue;
        void *base = blocks[i].base;
        blocks[i] = blocks[--n_blocks];
        return base;
    }
    return p;
}

/* The interface has no error path here; a failure (a fault left by a
 * kernel, usually) is reported and the case's own checks fail on it. */
void kb__gpu_mem_release(void *p) {
    gpu_error e = p ? kb_gpu(Free)(block_of(p)) : kb_gpu(Success);
    if (e != kb_gpu(Success)) kb__gpu_complain(e, "freeing device memory");
}

int kb__gpu_mem_upload(void *dst, const void *src, size_t bytes, kb_err *err) {
    gpu_error e = kb_gpu(Memcpy)(dst, src, bytes, kb_gpu(MemcpyHostToDevice));
    return e == kb_gpu(Success) ? 0 : kb__gpu_fail(err, e, "copying to the device");
}

/* Also where a kernel's asynchronous fault surfaces after the checked run. */
int kb__gpu_mem_download(void *dst, const void *src, size_t bytes, kb_err *err) {
    gpu_error e = kb_gpu(StreamSynchronize)(kb__gpu_dev.stream);
    if (e == kb_gpu(Success)) e = kb_gpu(Memcpy)(dst, src, bytes, kb_gpu(MemcpyDeviceToHost));
    return e == kb_gpu(Success) ? 0 : kb__gpu_fail(err, e, "copying from the device");
}

/* Cold-cache mode: writes a buffer twice the size of L2 on the kernels'
 * stream, so it is ordered before the next timed call but before its start
 * event too. Memsets run as kernels through L2 and so evict it. */
int kb__gpu_mem_flush_caches(void) {
    static void *buffer;
    static size_t bytes;
    gpu_error e;
    if (!buffer) {
        bytes = 2 * (size_t)(kb__gpu_dev.props.l2CacheSize > 0 ? kb__gpu_dev.props.l2CacheSize
                                                               : 64 << 20);
        if ((e = kb_gpu(Malloc)(&buffer, bytes)) != kb_gpu(Success)) {
            buffer = NULL;
            return kb__gpu_complain(e, "allocating the cold-cache flush buffer");
        }
    }
    static int value;
    e = kb_gpu(MemsetAsync)(buffer, ++value & 0xff, bytes, kb__gpu_dev.stream);
    return e == kb_gpu(Success) ? 0 : kb__gpu_complain(e, "flushing the caches");
}
