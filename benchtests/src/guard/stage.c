#include "guard/stage.h"

const char *kb_stage_name(kb_stage s) {
    static const char *const names[KB_STAGE_COUNT] = {
        "start",       "setup",        "reference", "check",     "warm-up",
        "measurement", "confirmation", "recording", "ab-rounds", "finish"};
    return s >= 0 && s < KB_STAGE_COUNT ? names[s] : "unknown";
}
