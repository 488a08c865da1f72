#include "jsonout.h"

/* The harness's JSON writer (formats/json_write.h), writing into b as it goes. */
static void put_buf(void *ctx, const char *s, size_t n) {
    kb_buf_putn(ctx, s, n);
}

#define WRITE_INTO(b, call)                                                                        \
    do {                                                                                           \
        kb_json_sink o_ = {put_buf, (b), 0};                                                       \
        call;                                                                                      \
        if (o_.failed) (b)->failed = 1;                                                            \
    } while (0)

void kb_jo_string(kb_buf *b, const char *s) {
    WRITE_INTO(b, kb_json_write_string(&o_, s));
}

const char *kb_jo_number_text(char *out, double v) {
    return kb_json_number_text(out, v);
}

void kb_jo_number(kb_buf *b, double v) {
    char text[KB_JO_NUMBER_MAX];
    kb_buf_puts(b, kb_jo_number_text(text, v));
}

void kb_jo_value(kb_buf *b, const cJSON *v, int depth) {
    WRITE_INTO(b, kb_json_write(&o_, v, depth));
}

void kb_jo_members(kb_buf *b, const cJSON *o, int depth) {
    WRITE_INTO(b, kb_json_write_members(&o_, o, depth));
}
