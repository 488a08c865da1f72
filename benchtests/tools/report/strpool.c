#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK ((size_t)1 << 16)

typedef struct kb_strblock {
    struct kb_strblock *next;
    size_t used, cap;
    char text[];
} kb_strblock;

const char *kb_strpool_copy(kb_strpool *p, const char *s) {
    size_t n = strlen(s) + 1;
    kb_strblock *b = p->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > BLOCK ? n : BLOCK;
        kb_strblock *fresh = malloc(sizeof *fresh + cap);
        if (!fresh) return NULL;
        fresh->used = 0;
        fresh->cap = cap;
        /* a string larger than a block gets one of its own, behind the current one */
        if (b && n > BLOCK) {
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            p->head = fresh;
        }
        b = fresh;
    }
    char *copy = b->text + b->used;
    memcpy(copy, s, n);
    b->used += n;
    return copy;
}

void kb_strpool_free(kb_strpool *p) {
    while (p->head) {
        kb_strblock *next = p->head->next;
        free(p->head);
        p->head = next;
    }
}
