/* test_prec.c again, against the portable bit-manipulation conversions that
 * kb/prec.h falls back to when the compiler has no _Float16 (older GCC and
 * Clang, some targets). Every check must hold for both implementations. */
#define KB_NO_FLOAT16 1
#include "test_prec.c"
