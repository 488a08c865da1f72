/* libFuzzer harness: kb_manifest_load (kernels/<name>/kernel.json) on
 * arbitrary bytes, then the byte and flop counts of every case it accepted,
 * in every precision and for every variant, as the driver computes them. */
#include "formats/manifest.h"
#include "fuzz_input.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static kb_manifest m; /* large: keep it off the stack */
    kb_err err = {{0}};
    if (kb_manifest_load(&m, kb_fuzz_file(data, size), &err) != 0) return 0;
    for (int i = 0; i < m.n_cases; ++i) {
        for (int p = 0; p < KB_PREC_COUNT; ++p) {
            double flops = 0.0, bytes = 0.0;
            (void)kb_manifest_counts(&m, &m.cases[i], (kb_prec)p, NULL, &flops, &bytes, &err);
            for (int v = 0; v < m.n_variants; ++v)
                (void)kb_manifest_counts(&m, &m.cases[i], (kb_prec)p, m.variants[v].name, &flops,
                                         &bytes, &err);
        }
        (void)kb_manifest_find_case(&m, m.cases[i].name);
    }
    for (int b = 0; b < m.n_backends; ++b) (void)kb_manifest_has_backend(&m, m.backends[b]);
    return 0;
}
