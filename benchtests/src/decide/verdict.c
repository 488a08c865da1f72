#include "decide/verdict.h"

#include <string.h>

typedef struct verdict_row {
    const char *name, *text;
    int fails, gated, slow, probe, compared;
} verdict_row;

#define KB__VERDICT_ROW(id, name, text, fails, gated, slow, probe, compared)                       \
    {name, text, fails, gated, slow, probe, compared},
static const verdict_row rows[KB_LAT_N] = {KB_VERDICT_LIST(KB__VERDICT_ROW)};
#undef KB__VERDICT_ROW

static const verdict_row *row(kb_latency_verdict v) {
    return (unsigned)v < KB_LAT_N ? &rows[v] : NULL;
}

const char *kb_latency_verdict_name(kb_latency_verdict v) {
    return row(v) ? row(v)->name : "?";
}

const char *kb_latency_verdict_text(kb_latency_verdict v) {
    return row(v) ? row(v)->text : "?";
}

int kb_latency_verdict_fails(kb_latency_verdict v) {
    return row(v) && row(v)->fails;
}

int kb_latency_verdict_gated(kb_latency_verdict v) {
    return row(v) && row(v)->gated;
}

int kb_latency_verdict_slow(kb_latency_verdict v) {
    return row(v) && row(v)->slow;
}

int kb_latency_verdict_probe(kb_latency_verdict v) {
    return row(v) && row(v)->probe;
}

int kb_latency_verdict_compared(kb_latency_verdict v) {
    return row(v) && row(v)->compared;
}

int kb_latency_verdict_parse(const char *name, kb_latency_verdict *v) {
    for (int i = 0; i < KB_LAT_N; ++i)
        if (strcmp(name, rows[i].name) == 0) {
            *v = (kb_latency_verdict)i;
            return 0;
        }
    return -1;
}

const char *kb_latency_verdict_names(void) {
    /* ", ok, cleared, ...": the literal joined at compile time, less its
     * leading separator */
#define KB__VERDICT_NAME(id, name, text, fails, gated, slow, probe, compared) ", " name
    static const char all[] = "" KB_VERDICT_LIST(KB__VERDICT_NAME);
#undef KB__VERDICT_NAME
    return all + 2;
}
