/* SPDX-License-Identifier: MIT */
/*
 * Byte arithmetic on a pool_t, as ESP-IDF's multi_heap.c does it: with mattconte's header
 * (here the layer's) pool_t is `void *`, which GNU C lets a program offset and subtract.
 * Compiled as gnu99 without the ISO warnings (test/compat/CMakeLists.txt).
 */
#include "tlsf.h"

size_t pool_bytes_after(pool_t pool, void *end);

size_t pool_bytes_after(pool_t pool, void *end) {
    void *first = pool + 0;
    return (size_t)(end - first);
}
