/* libFuzzer harness: kb_baseline_open (baselines/<profile>/<kernel>.json)
 * on arbitrary bytes, then every entry of an accepted file read back with
 * kb_baseline_get, as the gate reads them. */
#include "formats/baseline.h"
#include "fuzz_input.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kb_baseline b;
    kb_err err = {{0}};
    if (kb_baseline_open(&b, kb_fuzz_file(data, size), &err) != 0) return 0;
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(b.root, "entries");
    const cJSON *it;
    cJSON_ArrayForEach(it, entries) {
        kb_baseline_entry e;
        if (it->string && kb_baseline_get(&b, it->string, &e)) kb_baseline_entry_free(&e);
    }
    kb_baseline_close(&b);
    return 0;
}
