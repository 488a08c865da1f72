/* FNV-1a, 64 bits: a stable hash of bytes, continued across calls
 * (h = kb_fnv1a64(KB_FNV1A64_INIT, p, n), then h = kb_fnv1a64(h, q, m)). */
#ifndef KB_HASH_H
#define KB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KB_FNV1A64_INIT 0xcbf29ce484222325ull

static inline uint64_t kb_fnv1a64(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#endif
