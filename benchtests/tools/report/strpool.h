/* Copies of strings that live as long as the run's model: the report frees
 * each case's JSON as soon as it has read it, and keeps what it needs of
 * it here, in a few large blocks rather than one allocation each. */
#ifndef KB_STRPOOL_H
#define KB_STRPOOL_H

typedef struct kb_strpool {
    struct kb_strblock *head;
} kb_strpool;

/* The copy of s, or NULL when out of memory. */
const char *kb_strpool_copy(kb_strpool *p, const char *s);
void kb_strpool_free(kb_strpool *p);

#endif
