/* libFuzzer harness: kb_calibration_read (<results>/calibration/<backend>.json)
 * on arbitrary bytes, for the backend and hardware id the seeds carry, so
 * that accepted files reach the "present" path too. */
#include "fuzz_input.h"
#include "measure/calibration_file.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kb_calibration cal;
    kb_err err = {{0}};
    (void)kb_calibration_read(&cal, kb_fuzz_file(data, size), "cpu", "fuzz-hardware", &err);
    return 0;
}
